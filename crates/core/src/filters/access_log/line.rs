//! One access-log line in the layout of Java's `AccessLogData`:
//!
//! ```text
//! [2026-11-30 21:05:16] 10.0.0.7:53122 -> 10.0.0.5:20880 - group/org.example.Greeter:1.0.0 sayHello(java.lang.String) ["world"]
//! ```
//!
//! the call's start time (`yyyy-MM-dd HH:mm:ss`, UTC), the consumer's and the provider's
//! address, the service key (group and version only when set), the method with its parameter
//! types, and the arguments as a JSON array (left out when there are none).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::invocation::Invocation;
use crate::Value;

/// The access-log line for `invocation`, started at `at`. `provider` is the provider's own
/// `host:port` from its URL, for protocols that do not record the connection's local address
/// in the call context.
pub(crate) fn format_line(invocation: &Invocation, at: SystemTime, provider: &str) -> String {
    let mut line = String::with_capacity(128);
    let context = invocation.context();
    let _ = write!(
        line,
        "[{}] {} -> {} - {} {}(",
        timestamp(at),
        address(context.remote_addr()),
        context
            .local_addr()
            .map(|a| address(Some(a)))
            .unwrap_or_else(|| provider.to_owned()),
        invocation.service(),
        invocation.method_name(),
    );
    for (i, t) in invocation.method().parameter_types().iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push_str(t);
    }
    line.push_str(") ");
    if !invocation.args().is_empty() {
        line.push('[');
        for (i, arg) in invocation.args().iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            match arg.to_value() {
                Ok(value) => json(&mut line, &value),
                Err(_) => line.push_str("\"<undecodable>\""),
            }
        }
        line.push(']');
    }
    line
}

/// `host:port`, or Java's `null:0` when the address is not known.
fn address(addr: Option<SocketAddr>) -> String {
    match addr {
        Some(a) => format!("{}:{}", a.ip(), a.port()),
        None => "null:0".to_owned(),
    }
}

/// `yyyy-MM-dd HH:mm:ss` in UTC.
pub(crate) fn timestamp(at: SystemTime) -> String {
    let secs = at
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, d) = civil_date(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01: eras of 400 years (146 097 days),
/// with years counted from March so that the leap day ends the year.
fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

/// Appends `value` as JSON, as Java's access log renders arguments: objects as their fields,
/// maps with their keys as text, dates as epoch milliseconds, bytes as Base64.
fn json(out: &mut String, value: &Value) {
    match value {
        Value::Null | Value::Ref(_) => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Long(i) | Value::Date(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Double(d) if d.is_finite() => {
            let _ = write!(out, "{d:?}");
        }
        Value::Double(_) => out.push_str("null"),
        Value::String(s) => string(out, s),
        Value::Binary(b) => string(out, &base64(b)),
        Value::List(list) => {
            out.push('[');
            for (i, item) in list.items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json(out, item);
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push('{');
            for (i, (k, v)) in map.entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match k {
                    Value::String(s) => string(out, s),
                    other => {
                        let mut key = String::new();
                        json(&mut key, other);
                        string(out, &key);
                    }
                }
                out.push(':');
                json(out, v);
            }
            out.push('}');
        }
        Value::Object(object) => {
            out.push('{');
            for (i, (k, v)) in object.fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(out, k);
                out.push(':');
                json(out, v);
            }
            out.push('}');
        }
    }
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::{MethodSignature, ServiceKey};

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01 00:00:00");
        let at = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3_723);
        assert_eq!(timestamp(at), "2000-02-29 01:02:03");
        let at = UNIX_EPOCH + Duration::from_secs(1_796_083_516);
        assert_eq!(timestamp(at), "2026-12-01 00:05:16");
    }

    #[test]
    fn a_line_has_java_layout() {
        let mut inv = Invocation::new(
            ServiceKey::new("org.example.Greeter", Some("g"), Some("1.0.0")),
            Arc::new(MethodSignature::new(
                "greet",
                &["java.lang.String", "int"],
                "java.lang.String",
            )),
            vec![Value::String("w\"x".into()), Value::Int(3)],
        );
        inv.context_mut()
            .set_remote_addr("10.0.0.7:53122".parse().unwrap());
        inv.context_mut()
            .set_local_addr("10.0.0.5:20880".parse().unwrap());
        assert_eq!(
            format_line(&inv, UNIX_EPOCH, "unused:1"),
            "[1970-01-01 00:00:00] 10.0.0.7:53122 -> 10.0.0.5:20880 - g/org.example.Greeter:1.0.0 greet(java.lang.String,int) [\"w\\\"x\",3]"
        );
    }

    #[test]
    fn bytes_are_base64() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
