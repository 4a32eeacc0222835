//! [`instance_urls`]: the provider URLs of an application-level instance, from the metadata of
//! its revision.

use dubbo_url::Url;

use crate::{MetadataInfo, ServiceInstance};

/// The provider URLs `instance` serves for the consumer's service: one per protocol of a
/// matching service in `info`, at the instance's address and that protocol's port.
pub fn instance_urls(instance: &ServiceInstance, info: &MetadataInfo, consumer: &Url) -> Vec<Url> {
    let iface = consumer.service_interface().unwrap_or_default();
    let mut out = Vec::new();
    for service in info.services.values() {
        if service.name != iface
            || !matches_value(consumer.group(), service.group.as_deref())
            || !matches_value(consumer.version(), service.version.as_deref())
        {
            continue;
        }
        let host = if instance.host.contains(':') {
            format!("[{}]", instance.host)
        } else {
            instance.host.clone()
        };
        let port = instance.port_for(&service.protocol);
        let text = format!("{}://{host}:{port}/{}", service.protocol, service.path);
        let Ok(url) = Url::parse(&text) else {
            tracing::warn!(instance = %instance.id(), "bad address {text}");
            continue;
        };
        let mut url =
            url.with_parameters(service.params.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if let Some(t) = instance.metadata.get("timestamp") {
            url = url.with_parameter("timestamp", t);
        }
        out.push(url.with_parameter_if_absent("interface", &service.name));
    }
    out
}

/// Java's group and version matching: `*` matches anything, a comma list any of its members,
/// and an absent value only an absent one.
fn matches_value(wanted: Option<&str>, have: Option<&str>) -> bool {
    let wanted = wanted.unwrap_or("").trim();
    let have = have.unwrap_or("").trim();
    if wanted == "*" {
        return true;
    }
    if wanted.contains(',') {
        return wanted.split(',').any(|w| w.trim() == have);
    }
    fn zero(v: &str) -> &str {
        if v == "0.0.0" {
            ""
        } else {
            v
        }
    }
    zero(wanted) == zero(have)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MetadataInfo, ServiceInfo};

    #[test]
    fn instances_become_provider_urls_of_the_consumers_service_only() {
        let mut info = MetadataInfo::new("p");
        for (proto, iface, group) in [
            ("dubbo", "a.B", None),
            ("tri", "a.B", None),
            ("dubbo", "a.C", None),
            ("dubbo", "a.B", Some("g")),
        ] {
            let u = Url::parse(&format!(
                "{proto}://1.2.3.4:1/{iface}?interface={iface}&side=provider&methods=m{}",
                group.map(|g| format!("&group={g}")).unwrap_or_default()
            ))
            .unwrap();
            info.add_service(ServiceInfo::from_url(&u));
        }
        let mut instance = ServiceInstance::new("p", "::ffff:127.0.0.1", 20880);
        instance.metadata.insert(
            crate::ENDPOINTS_KEY.into(),
            r#"[{"port":20880,"protocol":"dubbo"},{"port":50051,"protocol":"tri"}]"#.into(),
        );
        instance.metadata.insert("timestamp".into(), "42".into());
        let consumer = Url::parse("consumer://127.0.0.1/a.B?interface=a.B").unwrap();
        let mut urls: Vec<String> = instance_urls(&instance, &info, &consumer)
            .iter()
            .map(|u| u.address())
            .collect();
        urls.sort();
        assert_eq!(
            urls,
            vec!["[::ffff:127.0.0.1]:20880", "[::ffff:127.0.0.1]:50051"]
        );
        let all = instance_urls(&instance, &info, &consumer);
        assert!(
            all.iter()
                .all(|u| u.parameter("timestamp") == Some("42")
                    && u.parameter("methods") == Some("m"))
        );
        let grouped = Url::parse("consumer://127.0.0.1/a.B?interface=a.B&group=g").unwrap();
        assert_eq!(instance_urls(&instance, &info, &grouped).len(), 1);
        let any = Url::parse("consumer://127.0.0.1/a.B?interface=a.B&group=*").unwrap();
        assert_eq!(instance_urls(&instance, &info, &any).len(), 3);
    }
}
