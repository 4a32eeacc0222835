//! The classes a generic call may name: Java's `dubbo.security.serialize.allowedClassList` and
//! `blockedClassList`, applied to the `class` fields of the maps a `$invoke` passes (the
//! objects Java's `PojoUtils.realize` would instantiate by name).

use dubbo_hessian2::Value;
use dubbo_url::Url;

use crate::error::{ErrorCode, RpcError};

/// Provider URL key (never registered): comma-separated class-name prefixes a generic call may
/// name in `class` fields; when present, every other class is refused.
pub const ALLOWED_CLASS_LIST_KEY: &str = ".serialize.allowedClassList";
/// Provider URL key (never registered): comma-separated class-name prefixes a generic call may
/// not name.
pub const BLOCKED_CLASS_LIST_KEY: &str = ".serialize.blockedClassList";

/// Value classes of the JDK every allow list includes, as Java's serialization checker allows
/// them by default (the block list still applies).
const JDK_ALLOWED: &[&str] = &["java.lang.", "java.math.", "java.util.", "java.time."];

/// How deep nested maps and lists are followed; deeper values are refused rather than walked.
const MAX_DEPTH: usize = 64;

/// Checks every `class` field in `args` against the lists of `url`; `Ok` when neither is set.
pub fn check_generic_classes(url: &Url, args: &[Value]) -> Result<(), RpcError> {
    let allowed = prefixes(url.parameter(ALLOWED_CLASS_LIST_KEY));
    let blocked = prefixes(url.parameter(BLOCKED_CLASS_LIST_KEY));
    if allowed.is_none() && blocked.is_none() {
        return Ok(());
    }
    let check = |class: &str| -> Result<(), RpcError> {
        if blocked
            .as_ref()
            .is_some_and(|b| b.iter().any(|p| class.starts_with(p)))
        {
            return Err(refused(
                class,
                "is in the block list (dubbo.security.serialize.blockedClassList)",
            ));
        }
        if allowed.as_ref().is_some_and(|a| {
            !JDK_ALLOWED.iter().any(|p| class.starts_with(p))
                && !a.iter().any(|p| class.starts_with(p))
        }) {
            return Err(refused(
                class,
                "is not in the allow list (dubbo.security.serialize.allowedClassList)",
            ));
        }
        Ok(())
    };
    args.iter().try_for_each(|v| walk(v, 0, &check))
}

fn refused(class: &str, why: &str) -> RpcError {
    RpcError::framework(
        ErrorCode::Forbidden,
        format!(
            "[Serialization Security] the generic call names class {class}, which {why}; refused"
        ),
    )
}

fn prefixes(list: Option<&str>) -> Option<Vec<&str>> {
    list.map(|l| {
        l.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    })
}

fn walk(
    value: &Value,
    depth: usize,
    check: &dyn Fn(&str) -> Result<(), RpcError>,
) -> Result<(), RpcError> {
    if depth > MAX_DEPTH {
        return Err(RpcError::framework(
            ErrorCode::BadRequest,
            format!("generic call arguments nest deeper than {MAX_DEPTH} levels"),
        ));
    }
    match value {
        Value::Map(m) => {
            for (k, v) in m.entries.iter() {
                if matches!(k, Value::String(s) if s == "class") {
                    if let Value::String(class) = v {
                        check(class)?;
                    }
                }
                walk(k, depth + 1, check)?;
                walk(v, depth + 1, check)?;
            }
            Ok(())
        }
        Value::List(l) => l.items.iter().try_for_each(|v| walk(v, depth + 1, check)),
        Value::Object(o) => {
            check(&o.class)?;
            o.fields
                .iter()
                .try_for_each(|(_, v)| walk(v, depth + 1, check))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_hessian2::{List, Map, Object};

    fn pojo(class: &str) -> Value {
        Value::Map(Map {
            type_name: None,
            entries: vec![
                (Value::String("class".into()), Value::String(class.into())),
                (Value::String("name".into()), Value::String("x".into())),
            ],
        })
    }

    fn url(q: &str) -> Url {
        match Url::parse(&format!("dubbo://127.0.0.1:1/a.B?{q}")) {
            Ok(u) => u,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn lists_apply_to_class_fields_at_any_depth() {
        let nested = Value::List(List {
            type_name: None,
            items: vec![pojo("org.example.User"), pojo("com.evil.Gadget")],
        });
        assert!(check_generic_classes(&url(""), std::slice::from_ref(&nested)).is_ok());
        let allow = url(".serialize.allowedClassList=org.example.,com.other.");
        let Err(e) = check_generic_classes(&allow, &[nested]) else {
            panic!("com.evil.Gadget passed the allow list")
        };
        assert_eq!(e.code(), Some(ErrorCode::Forbidden));
        assert!(
            e.message().contains("com.evil.Gadget") && e.message().contains("allowedClassList")
        );
        assert!(check_generic_classes(&allow, &[pojo("org.example.User")]).is_ok());
        // JDK value classes need no entry.
        let big = Value::Object(Object {
            class: "java.math.BigDecimal".into(),
            fields: vec![("value".into(), Value::String("1".into()))],
        });
        assert!(check_generic_classes(&allow, &[big]).is_ok());
        let block = url(".serialize.blockedClassList=org.example.secret.");
        assert!(check_generic_classes(&block, &[pojo("org.example.User")]).is_ok());
        let Err(e) = check_generic_classes(&block, &[pojo("org.example.secret.Key")]) else {
            panic!("blocked class passed")
        };
        assert!(e.message().contains("blockedClassList"));
    }
}
