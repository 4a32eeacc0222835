//! An instance as Java's etcd3 discovery stores it: Gson's form of `DefaultServiceInstance`.

use dubbo_registry::{InstanceMetadata, RegistryError, ServiceInstance};
use serde::{Deserialize, Serialize};

/// The non-transient fields of Java's `DefaultServiceInstance`, in declaration order (Gson
/// writes them so, and leaves out nulls such as `rawAddress`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GsonInstance {
    service_name: String,
    host: String,
    port: u16,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default = "yes")]
    healthy: bool,
    #[serde(default)]
    metadata: InstanceMetadata,
}

fn yes() -> bool {
    true
}

/// `instance` in Java's format, with Gson's HTML-safe escaping of `< > & = '`.
pub(crate) fn to_json(instance: &ServiceInstance) -> String {
    let gson = GsonInstance {
        service_name: instance.app.clone(),
        // Java's host string: an IPv6 host keeps its brackets (a Java 3.3.6 provider registered
        // as `::ffff:127.0.0.1` writes "[::ffff:127.0.0.1]"), and Java consumers put it in URLs.
        host: instance.java_host(),
        port: instance.port,
        enabled: true,
        healthy: true,
        metadata: instance.metadata.clone(),
    };
    // Plain strings and maps always serialise.
    let json = serde_json::to_string(&gson).unwrap_or_default();
    // These characters can only occur inside JSON strings, so escaping them everywhere is
    // escaping them in strings, as Gson does.
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003d"),
            '\'' => out.push_str("\\u0027"),
            _ => out.push(c),
        }
    }
    out
}

/// An instance read from `key`: Java's format, or the Curator JSON of the ZooKeeper discovery
/// (which tools copying between registries may leave behind).
pub(crate) fn from_json(key: &str, data: &[u8]) -> Result<ServiceInstance, RegistryError> {
    match serde_json::from_slice::<GsonInstance>(data) {
        Ok(g) => {
            if g.host.is_empty() {
                return Err(RegistryError::BadData {
                    path: key.to_owned(),
                    reason: "the instance has no host".to_owned(),
                });
            }
            Ok(ServiceInstance {
                app: g.service_name,
                // Without Java's brackets: a ServiceInstance holds an IPv6 host bare.
                host: g
                    .host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_owned(),
                port: g.port,
                metadata: g.metadata,
                registration_time: 0,
            })
        }
        Err(gson_error) => {
            ServiceInstance::from_curator_json(key, data).map_err(|_| RegistryError::BadData {
                path: key.to_owned(),
                reason: format!("not an instance: {gson_error}"),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_in_gson_form() {
        let mut i = ServiceInstance::new("demo-provider", "10.0.0.5", 20880);
        i.metadata
            .insert("dubbo.metadata.revision".into(), "abc".into());
        i.metadata.insert("k".into(), "a=b&c".into());
        let json = to_json(&i);
        assert_eq!(
            json,
            r#"{"serviceName":"demo-provider","host":"10.0.0.5","port":20880,"enabled":true,"healthy":true,"metadata":{"dubbo.metadata.revision":"abc","k":"a\u003db\u0026c"}}"#
        );
        assert_eq!(from_json("/k", json.as_bytes()).unwrap(), i);
    }

    #[test]
    fn java_written_instance_reads() {
        let java = r#"{"rawAddress":null,"serviceName":"app","host":"1.2.3.4","port":1,"enabled":true,"healthy":true,"metadata":{"dubbo.endpoints":"[{\"port\":1,\"protocol\":\"dubbo\"}]"}}"#;
        let i = from_json("/services/app/1.2.3.4:1", java.as_bytes()).unwrap();
        assert_eq!(i.port_for("dubbo"), 1);
        assert!(from_json("/x", b"garbage").is_err());
    }

    #[test]
    fn ipv6_hosts_in_brackets_as_java_writes_them() {
        // What a Java 3.3.6 provider registered as ::ffff:127.0.0.1 writes (captured from
        // dubbo-registry-etcd3 3.2.0 under /services/APP/[::ffff:127.0.0.1]:22996).
        let java = r#"{"serviceName":"app","host":"[::ffff:127.0.0.1]","port":22996,"enabled":true,"healthy":true,"metadata":{}}"#;
        let i = from_json("/services/app/[::ffff:127.0.0.1]:22996", java.as_bytes()).unwrap();
        assert_eq!(i.host, "::ffff:127.0.0.1");
        assert_eq!(i.address(), "[::ffff:127.0.0.1]:22996");
        assert_eq!(to_json(&i), java);
    }
}
