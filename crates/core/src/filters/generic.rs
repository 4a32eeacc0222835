use std::sync::Arc;

use dubbo_hessian2::{Map, Value};

use crate::attachments::keys;
use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};
use crate::method::MethodSignature;

/// Turns a generic call `$invoke(method, parameterTypes, args)` into a call of the real method,
/// and answers with POJOs turned into maps, as Java's `GenericFilter` does for `generic=true`.
///
/// Arguments given as maps (a POJO in generic form, with an optional `"class"` entry) are passed
/// on unchanged: the service's typed dispatch decodes a map into the declared struct.
#[derive(Debug, Default, Clone, Copy)]
pub struct GenericFilter;

impl Filter for GenericFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        if !invocation.method().is_generic() {
            return next.run(invocation);
        }
        Box::pin(async move {
            let mut parts = invocation.into_parts();
            let mut args = crate::service::arg_values(std::mem::take(&mut parts.args))?.into_iter();
            let method = match args.next() {
                Some(Value::String(m)) => m,
                other => {
                    return Err(RpcError::framework(
                        ErrorCode::BadRequest,
                        format!("$invoke expects a method name first, got {other:?}"),
                    ))
                }
            };
            let types: Vec<String> = match args.next() {
                Some(Value::List(l)) => l
                    .items
                    .into_iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s),
                        other => Err(RpcError::framework(
                            ErrorCode::BadRequest,
                            format!("$invoke parameter types must be strings, got {other:?}"),
                        )),
                    })
                    .collect::<Result<_, _>>()?,
                Some(Value::Null) | None => Vec::new(),
                Some(other) => {
                    return Err(RpcError::framework(
                        ErrorCode::BadRequest,
                        format!("$invoke expects parameter types as a list, got {other:?}"),
                    ))
                }
            };
            let real_args = match args.next() {
                Some(Value::List(l)) => l.items,
                Some(Value::Null) | None => Vec::new(),
                Some(other) => vec![other],
            };
            super::class_check::check_generic_classes(next.url(), &real_args)?;
            if real_args.len() != types.len() {
                return Err(RpcError::framework(
                    ErrorCode::BadRequest,
                    format!(
                        "$invoke of {method}: {} parameter types but {} arguments",
                        types.len(),
                        real_args.len()
                    ),
                ));
            }
            let flavour = parts
                .attachments
                .get_str(keys::GENERIC)
                .unwrap_or("true")
                .to_owned();
            parts.method = Arc::new(MethodSignature::new(&method, &types, "java.lang.Object"));
            parts.args = real_args.into_iter().map(crate::Payload::Value).collect();
            let mut response = next.run(Invocation::from_parts(parts)).await?;
            if flavour == "true" {
                // A result that cannot be made a tree stays as it is: encoding it reports why.
                if let Ok(tree) = response.value.to_value() {
                    response.value = crate::Payload::Value(generalize(tree));
                }
            }
            Ok(response)
        })
    }
}

/// Java's `PojoUtils.generalize`: objects become maps with a `"class"` entry, enums become their
/// names, and collections are walked recursively.
pub fn generalize(value: Value) -> Value {
    match value {
        Value::Object(o) if keeps_java_form(&o.class) => Value::Object(o),
        Value::Object(o) => {
            let mut entries = Vec::with_capacity(o.fields.len() + 1);
            entries.push((Value::String("class".into()), Value::String(o.class)));
            for (k, v) in o.fields {
                entries.push((Value::String(k), generalize(v)));
            }
            Value::Map(Map {
                type_name: None,
                entries,
            })
        }
        Value::List(mut l) => {
            l.items = l.items.into_iter().map(generalize).collect();
            Value::List(l)
        }
        Value::Map(mut m) => {
            m.entries = m
                .entries
                .into_iter()
                .map(|(k, v)| (generalize(k), generalize(v)))
                .collect();
            Value::Map(m)
        }
        other => other,
    }
}

// `PojoUtils.generalize` leaves numbers (BigDecimal, BigInteger), dates and strings as they are.
// Enum constants, which Java turns into their names, cannot be told apart from a POJO with a
// single `name` field once decoded, so they stay objects.
fn keeps_java_form(class: &str) -> bool {
    matches!(class, "java.math.BigDecimal" | "java.math.BigInteger")
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_hessian2::Object;

    #[test]
    fn pojo_becomes_map_with_class() {
        let v = Value::Object(Object {
            class: "org.apache.dubbo.interop.User".into(),
            fields: vec![
                ("name".into(), Value::String("a".into())),
                ("id".into(), Value::Long(1)),
            ],
        });
        let Value::Map(m) = generalize(v) else {
            panic!("expected a map")
        };
        assert_eq!(
            m.entries[0],
            (
                Value::String("class".into()),
                Value::String("org.apache.dubbo.interop.User".into())
            )
        );
        assert_eq!(m.entries.len(), 3);
    }
}
