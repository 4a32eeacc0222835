//! Which protocol and connection keys each protocol honours; the others are refused at start,
//! naming the key, instead of being passed to a protocol that would not read them.
//!
//! - dubbo:// reads `threads`, `dispatcher`, `threadpool`, `payload` and `heartbeat` (server)
//!   and `connections`, `lazy`, `heartbeat`, `payload` (client).
//! - tri:// reads none of the server pool and frame settings yet (its limits are
//!   `TripleConfig`'s), nor `connections` (one HTTP/2 connection per address).
//! - `serialization` and `prefer-serialization` may only name what dubbo:// bodies can be
//!   read in, `hessian2` and `fastjson2`: advertising another would make Java consumers send
//!   bodies that cannot be read.

use super::{ConfigError, DubboConfig, ProtocolConfig};

/// The `threadpool` values of dubbo:// and what they mean here: `fixed`, `limited` and `eager`
/// all run at most `threads` handlers at once (the Java pools differ only in how they keep idle
/// threads and queue, which a task pool has no counterpart for); `cached` has no bound.
const THREADPOOLS: &[&str] = &["fixed", "limited", "eager", "cached"];

/// The serializations dubbo-rs reads and writes (Java's names).
const SERIALIZATIONS: &[&str] = &["hessian2", "fastjson2"];

/// Refuses protocol and connection keys that the protocol they apply to does not honour.
pub fn refuse_unhonoured(config: &DubboConfig) -> Result<(), ConfigError> {
    for (id, pc) in config.all_protocols() {
        let key = if config.protocols.contains_key(&id) {
            format!("dubbo.protocols.{id}")
        } else {
            "dubbo.protocol".to_owned()
        };
        check_protocol(&key, pc.protocol_name(&id), &pc)?;
    }
    check_prefer(
        "dubbo.consumer",
        config.consumer.prefer_serialization.as_deref(),
    )?;
    for (name, m) in &config.modules {
        if let Some(c) = &m.consumer {
            check_prefer(
                &format!("dubbo.modules.{name}.consumer"),
                c.prefer_serialization.as_deref(),
            )?;
        }
    }
    for (id, r) in &config.references {
        check_prefer(
            &format!("dubbo.references.{id}"),
            r.prefer_serialization.as_deref(),
        )?;
    }
    let consumer_tri = config.consumer.protocol.as_deref().is_some_and(is_tri);
    if consumer_tri && config.consumer.connections.is_some() {
        return Err(no_connections("dubbo.consumer.connections"));
    }
    for (id, r) in &config.references {
        let by_url = r
            .url
            .as_deref()
            .and_then(|u| u.split_once("://"))
            .map(|(scheme, _)| is_tri(scheme.trim()));
        let tri = by_url
            .or_else(|| r.protocol.as_deref().map(is_tri))
            .unwrap_or(consumer_tri);
        if tri && r.connections.is_some() {
            return Err(no_connections(&format!(
                "dubbo.references.{id}.connections"
            )));
        }
    }
    Ok(())
}

/// Refuses a `prefer-serialization` under `key` naming a serialization dubbo-rs cannot read
/// and write: a provider would advertise bodies it cannot read, a consumer would ask for
/// bodies it cannot write.
fn check_prefer(key: &str, prefer: Option<&str>) -> Result<(), ConfigError> {
    let other = prefer.and_then(|p| {
        p.split(',')
            .map(str::trim)
            .find(|s| !s.is_empty() && !SERIALIZATIONS.contains(s))
    });
    match other {
        Some(other) => Err(ConfigError::invalid(
            format!("{key}.prefer-serialization"),
            format!("expected a list of {SERIALIZATIONS:?} (got {other:?})"),
        )),
        None => Ok(()),
    }
}

fn is_tri(name: &str) -> bool {
    dubbo_url::is_triple(name)
}

fn no_connections(key: &str) -> ConfigError {
    ConfigError::invalid(
        key,
        "tri:// uses one HTTP/2 connection per provider and does not read `connections` yet; \
         remove the key",
    )
}

fn check_protocol(key: &str, name: &str, pc: &ProtocolConfig) -> Result<(), ConfigError> {
    if let Some(s) = pc.serialization.as_deref().map(str::trim) {
        if !SERIALIZATIONS.contains(&s) {
            return Err(ConfigError::invalid(
                format!("{key}.serialization"),
                format!("expected one of {SERIALIZATIONS:?} (got {s:?})"),
            ));
        }
    }
    check_prefer(key, pc.prefer_serialization.as_deref())?;
    if is_tri(name) {
        let unread = [
            ("threads", pc.threads.is_some()),
            ("dispatcher", pc.dispatcher.is_some()),
            ("threadpool", pc.threadpool.is_some()),
            ("payload", pc.payload.is_some()),
            ("heartbeat", pc.heartbeat.is_some()),
        ]
        .into_iter()
        .find_map(|(field, set)| set.then_some(field));
        if let Some(field) = unread {
            return Err(ConfigError::invalid(
                format!("{key}.{field}"),
                "the tri protocol does not read this setting yet (it applies to dubbo:// only); \
                 remove it",
            ));
        }
        return Ok(());
    }
    if let Some(pool) = pc.threadpool.as_deref().map(str::trim) {
        if !THREADPOOLS.contains(&pool) {
            return Err(ConfigError::invalid(
                format!("{key}.threadpool"),
                format!("unknown thread pool {pool:?}; expected one of {THREADPOOLS:?}"),
            ));
        }
        if pool == "cached" && pc.threads.is_some() {
            return Err(ConfigError::invalid(
                format!("{key}.threads"),
                "a cached pool has no bound here, so `threads` would be ignored; remove one of \
                 the two",
            ));
        }
    }
    Ok(())
}
