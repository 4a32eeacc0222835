//! Prometheus HTTP service discovery (`http_sd_configs`): one target group per instance, its
//! QoS address (where `/metrics` answers) with the application and instance as labels.

use serde_json::{json, Value};

use crate::catalog::InstanceEntry;

/// The `http_sd_configs` answer for `instances`.
pub fn targets(instances: &[InstanceEntry]) -> Value {
    Value::Array(
        instances
            .iter()
            .map(|i| {
                json!({
                    "targets": [i.qos_address],
                    "labels": {
                        "__metrics_path__": "/metrics",
                        "application": i.application,
                        "instance_id": i.id,
                        "dubbo_ports": i.ports.iter().map(|(p, n)| format!("{p}:{n}")).collect::<Vec<_>>().join(","),
                    }
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_group_per_instance() {
        let i = InstanceEntry {
            id: "127.0.0.1:20880".into(),
            application: "a".into(),
            host: "127.0.0.1".into(),
            ports: [("dubbo", 20880), ("tri", 50051)].into_iter().collect(),
            revision: "".into(),
            sources: crate::sources::Sources::default(),
            qos_address: "127.0.0.1:22222".into(),
        };
        let v = targets(&[i]);
        assert_eq!(v[0]["targets"][0], "127.0.0.1:22222");
        assert_eq!(v[0]["labels"]["application"], "a");
        assert_eq!(v[0]["labels"]["dubbo_ports"], "dubbo:20880,tri:50051");
    }
}
