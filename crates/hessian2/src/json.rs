//! JSON and Hessian values, converted the way Dubbo's JSON faces read and write them (the
//! Triple HTTP/1.1 JSON form, the QoS `invoke` command).

use crate::Value;

/// A JSON value as a Hessian value: integers that fit become `int`, larger ones `long`,
/// others `double`; arrays become lists and objects untyped maps.
pub fn json_to_value(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                match i32::try_from(i) {
                    Ok(i) => Value::Int(i),
                    Err(_) => Value::Long(i),
                }
            } else {
                Value::Double(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(a) => Value::list(a.iter().map(json_to_value).collect()),
        serde_json::Value::Object(o) => Value::map(
            o.iter()
                .map(|(k, v)| (Value::String(k.clone()), json_to_value(v)))
                .collect(),
        ),
    }
}

/// A Hessian value as JSON: byte arrays as base64, dates as epoch milliseconds, objects as
/// their fields (`BigDecimal`/`BigInteger` as numbers).
pub fn value_to_json(v: &Value) -> serde_json::Value {
    use base64::Engine;
    match v {
        Value::Null | Value::Ref(_) => serde_json::Value::Null,
        Value::Bool(b) => (*b).into(),
        Value::Int(i) => (*i).into(),
        Value::Long(i) => (*i).into(),
        Value::Double(d) => serde_json::Number::from_f64(*d)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null),
        Value::String(s) => s.clone().into(),
        Value::Binary(b) => base64::engine::general_purpose::STANDARD.encode(b).into(),
        Value::Date(ms) => (*ms).into(),
        Value::List(l) => l.items.iter().map(value_to_json).collect::<Vec<_>>().into(),
        Value::Map(m) => serde_json::Value::Object(
            m.entries
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Value::String(s) => s.clone(),
                        other => value_to_json(other).to_string(),
                    };
                    (key, value_to_json(v))
                })
                .collect(),
        ),
        Value::Object(o) => {
            if matches!(
                o.class.as_str(),
                "java.math.BigDecimal" | "java.math.BigInteger"
            ) {
                if let Some(Value::String(s)) = o.get("value") {
                    if let Ok(n) = s.parse::<serde_json::Number>() {
                        return serde_json::Value::Number(n);
                    }
                    return s.clone().into();
                }
            }
            serde_json::Value::Object(
                o.fields
                    .iter()
                    .map(|(k, v)| (k.clone(), value_to_json(v)))
                    .collect(),
            )
        }
    }
}
