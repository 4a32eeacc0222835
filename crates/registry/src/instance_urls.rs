//! [`instance_urls`]: the provider URLs of an application-level instance, from the metadata of
//! its revision.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use dubbo_url::{Interner, Url, UrlParams};

use crate::{Endpoint, MetadataInfo, ServiceInfo, ServiceInstance, ENDPOINTS_KEY, TIMESTAMP_KEY};

/// The provider URLs `instance` serves for the consumer's service: one per protocol of a
/// matching service in `info`, at the instance's address and that protocol's port.
///
/// Resolving many instances, keep one [`InstanceUrls`] instead: it shares what instances of
/// one revision have in common.
pub fn instance_urls(instance: &ServiceInstance, info: &MetadataInfo, consumer: &Url) -> Vec<Url> {
    InstanceUrls::new().urls(instance, info, consumer)
}

/// Builds the provider URLs of application-level instances (see [`instance_urls`]), sharing
/// between the instances of one revision everything but their address and `timestamp`.
///
/// Instances of an application mostly announce one of a few revisions, and every service of a
/// revision has the same parameters on every instance; Java keeps them once per revision too
/// (`InstanceAddressURL` = instance address + the revision's `MetadataInfo`). Here each
/// (revision, service) gets one parameter map, parsed once, and each instance's URL is its
/// address plus its `timestamp` on top ([`UrlParams::layered`]). The protocols and ports of
/// `dubbo.endpoints` are read once per distinct text, and looked up once per shared
/// [`InstanceMetadata`](crate::InstanceMetadata) rather than per instance.
///
/// Which services of a revision the consumer refers to, and their templates, are worked out
/// once per (revision, consumer): a revision names its metadata (Java computes it from the
/// metadata's content), so every `MetadataInfo` of one revision is taken to have the same
/// services. Metadata without a revision is worked out afresh on every call.
///
/// ```
/// use dubbo_registry::{InstanceUrls, MetadataInfo, ServiceInfo, ServiceInstance};
/// use dubbo_url::Url;
///
/// let provider = Url::parse("tri://1.2.3.4:50051/a.B?interface=a.B&side=provider&methods=m").unwrap();
/// let mut info = MetadataInfo::new("app");
/// info.add_service(ServiceInfo::from_url(&provider));
/// let consumer = Url::parse("consumer://10.0.0.9/a.B?interface=a.B").unwrap();
/// let mut urls = InstanceUrls::new();
/// let mut instance = ServiceInstance::new("app", "10.0.0.1", 50051);
/// instance.metadata.insert("timestamp".into(), "42".into());
/// let url = &urls.urls(&instance, &info, &consumer)[0];
/// assert_eq!(url.to_string(), "tri://10.0.0.1:50051/a.B?interface=a.B&methods=m&side=provider&timestamp=42");
/// ```
#[derive(Debug)]
pub struct InstanceUrls {
    interner: Interner,
    /// `timestamp` as the interner holds it, the key of every URL's own layer.
    timestamp_key: Arc<str>,
    /// A URL template (protocol, path, parameters; no host) per revision, then service.
    templates: HashMap<String, HashMap<String, Url>>,
    endpoints: HashMap<String, Arc<[Endpoint]>>,
    /// The endpoints of each shared metadata map, keyed by its address; the `Arc` held keeps
    /// that address from being reused by another map.
    endpoints_by_shared: HashMap<usize, SharedEndpoints>,
    /// What the latest (revision, consumer) pairs resolve to, newest first.
    plans: Vec<Plan>,
}

/// How many (revision, consumer) plans are kept: an application's instances announce a
/// few revisions at a time.
const PLANS: usize = 16;

/// What every instance of one revision resolves to for one consumer: the templates of the
/// consumer's services in the revision, found once, so an instance costs its address, its
/// `timestamp` and one allocation per URL rather than a walk over every service, two
/// string-keyed lookups and the consumer's interface, group and version read again.
#[derive(Debug)]
struct Plan {
    revision: String,
    /// The consumer planned for, held so its allocation cannot be reused by another `Url`
    /// while its address identifies the plan.
    consumer: Url,
    services: Vec<PlannedService>,
    /// The shared metadata last resolved with this plan and, per service, the port its
    /// `dubbo.endpoints` gives the service's protocol (`None`: the instance's own port).
    ports: Option<(Arc<BTreeMap<String, String>>, Ports)>,
}

/// Per service of a [`Plan`], the port `dubbo.endpoints` gives its protocol.
type Ports = Vec<Option<u16>>;

/// One service of a [`Plan`].
#[derive(Debug)]
struct PlannedService {
    key: String,
    protocol: String,
    /// `None` when the service's protocol and path make no URL.
    template: Option<Url>,
}

impl Default for InstanceUrls {
    fn default() -> Self {
        let interner = Interner::new();
        InstanceUrls {
            timestamp_key: interner.intern(TIMESTAMP_KEY),
            interner,
            templates: HashMap::new(),
            endpoints: HashMap::new(),
            endpoints_by_shared: HashMap::new(),
            plans: Vec::new(),
        }
    }
}

/// A shared metadata map and the endpoints its `dubbo.endpoints` announces.
type SharedEndpoints = (Arc<BTreeMap<String, String>>, Option<Arc<[Endpoint]>>);

impl InstanceUrls {
    /// Builds with an empty cache and its own interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The provider URLs `instance` serves for the consumer's service (see [`instance_urls`]).
    pub fn urls(
        &mut self,
        instance: &ServiceInstance,
        info: &MetadataInfo,
        consumer: &Url,
    ) -> Vec<Url> {
        let mut out = Vec::new();
        self.push_urls(instance, info, consumer, &mut out);
        out
    }

    /// Like [`urls`](Self::urls), appending to `out`: resolving a whole instance list into one
    /// URL list needs no list per instance.
    pub fn push_urls(
        &mut self,
        instance: &ServiceInstance,
        info: &MetadataInfo,
        consumer: &Url,
        out: &mut Vec<Url>,
    ) {
        let at = self.plan(info, consumer);
        let Some(plan) = self.plans.get(at) else {
            return;
        };
        if plan.services.is_empty() {
            return;
        }
        let shared = instance.metadata.shared();
        if !plan
            .ports
            .as_ref()
            .is_some_and(|(known, _)| Arc::ptr_eq(known, shared))
        {
            let endpoints = self.endpoints_of(instance);
            let Some(plan) = self.plans.get_mut(at) else {
                return;
            };
            let ports = plan
                .services
                .iter()
                .map(|s| {
                    endpoints
                        .as_deref()
                        .and_then(|list| list.iter().find(|e| e.protocol == s.protocol))
                        .map(|e| e.port)
                })
                .collect();
            plan.ports = Some((Arc::clone(shared), ports));
        }
        let Some(Plan {
            services,
            ports: Some((_, ports)),
            ..
        }) = self.plans.get(at)
        else {
            return;
        };
        let bracketed;
        let host = if instance.host.contains(':') {
            bracketed = format!("[{}]", instance.host);
            bracketed.as_str()
        } else {
            instance.host.as_str()
        };
        let pair;
        let own: &[(Arc<str>, &str)] = match instance.metadata.get(TIMESTAMP_KEY) {
            Some(t) => {
                pair = [(Arc::clone(&self.timestamp_key), t.as_str())];
                &pair
            }
            None => &[],
        };
        for (service, port) in services.iter().zip(ports) {
            let Some(template) = &service.template else {
                tracing::warn!(instance = %instance.id(), service = %service.key, "bad service address");
                continue;
            };
            let port = port.unwrap_or(instance.port);
            // The template's map shared, the instance's `timestamp` on top, inline: the URL
            // is the only allocation (short hosts are inline too).
            out.push(template.with_host_port_layered(host, port, own));
        }
    }

    /// The position in `plans` of the plan of `info`'s revision for `consumer`, made now if
    /// there is none. An info without a revision is planned afresh on every call.
    fn plan(&mut self, info: &MetadataInfo, consumer: &Url) -> usize {
        let found = self
            .plans
            .iter()
            .position(|p| p.revision == info.revision && Url::ptr_eq(&p.consumer, consumer));
        if let Some(at) = found {
            if !info.revision.is_empty() {
                return at;
            }
            self.plans.remove(at);
        }
        let iface = consumer.service_interface().unwrap_or_default();
        let mut services = Vec::new();
        for (key, service) in &info.services {
            if service.name != iface
                || !matches_value(consumer.group(), service.group.as_deref())
                || !matches_value(consumer.version(), service.version.as_deref())
            {
                continue;
            }
            services.push(PlannedService {
                key: key.clone(),
                protocol: service.protocol.clone(),
                template: self.template(&info.revision, key, service),
            });
        }
        self.plans.truncate(PLANS - 1);
        self.plans.insert(
            0,
            Plan {
                revision: info.revision.clone(),
                consumer: consumer.clone(),
                services,
                ports: None,
            },
        );
        0
    }

    /// Forgets the templates of revisions not in `revisions` (those no instance announces any
    /// more), so a long-lived builder stays the size of the current deployment.
    pub fn retain_revisions<'a>(&mut self, revisions: impl IntoIterator<Item = &'a str>) {
        let keep: std::collections::HashSet<&str> = revisions.into_iter().collect();
        self.templates.retain(|r, _| keep.contains(r.as_str()));
        self.plans.retain(|p| keep.contains(p.revision.as_str()));
        if self.endpoints.len() > 1024 {
            self.endpoints.clear();
        }
        self.endpoints_by_shared
            .retain(|_, (shared, _)| Arc::strong_count(shared) > 1);
    }

    /// The URL of `service` without host and port, built once per revision.
    fn template(&mut self, revision: &str, key: &str, service: &ServiceInfo) -> Option<Url> {
        if let Some(found) = self.templates.get(revision).and_then(|t| t.get(key)) {
            return Some(found.clone());
        }
        let text = format!("{}://0.0.0.0/{}", service.protocol, service.path);
        let url = Url::parse_with(&text, &self.interner).ok()?;
        let mut params: Vec<(&str, &str)> = service
            .params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if !service.params.contains_key("interface") {
            params.push(("interface", service.name.as_str()));
        }
        let url = url.with_params(UrlParams::from_iter(params));
        self.templates
            .entry(revision.to_owned())
            .or_default()
            .insert(key.to_owned(), url.clone());
        Some(url)
    }

    /// The protocols and ports of `dubbo.endpoints` (see [`ServiceInstance::port_for`]),
    /// read once per distinct text and found once per shared metadata map.
    fn endpoints_of(&mut self, instance: &ServiceInstance) -> Option<Arc<[Endpoint]>> {
        let shared = instance.metadata.shared();
        let id = Arc::as_ptr(shared) as usize;
        if let Some((_, found)) = self.endpoints_by_shared.get(&id) {
            return found.clone();
        }
        let found =
            instance
                .metadata
                .get(ENDPOINTS_KEY)
                .map(|text| match self.endpoints.get(text) {
                    Some(found) => Arc::clone(found),
                    None => {
                        let parsed: Arc<[Endpoint]> = instance.endpoints().into();
                        self.endpoints.insert(text.clone(), Arc::clone(&parsed));
                        parsed
                    }
                });
        self.endpoints_by_shared
            .insert(id, (Arc::clone(shared), found.clone()));
        found
    }
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

    /// A revision of two `a.B` services (dubbo, and tri in group `g`) plus an `a.C`; revisions
    /// differ in a parameter.
    fn revision(rev: &str) -> MetadataInfo {
        let mut info = MetadataInfo::new("p");
        for (proto, iface, group) in [
            ("dubbo", "a.B", ""),
            ("tri", "a.B", "&group=g"),
            ("dubbo", "a.C", ""),
        ] {
            let u = Url::parse(&format!(
                "{proto}://1.2.3.4:1/{iface}?interface={iface}&side=provider&rev={rev}{group}"
            ))
            .unwrap();
            info.add_service(ServiceInfo::from_url(&u));
        }
        info.revision = info.calculate_revision();
        info
    }

    fn instance(host: &str, endpoints: Option<&str>, timestamp: Option<&str>) -> ServiceInstance {
        let mut instance = ServiceInstance::new("p", host, 7);
        if let Some(e) = endpoints {
            instance
                .metadata
                .insert(crate::ENDPOINTS_KEY.into(), e.into());
        }
        if let Some(t) = timestamp {
            instance.metadata.insert("timestamp".into(), t.into());
        }
        instance
    }

    #[test]
    fn a_long_lived_builder_gives_what_a_fresh_one_gives() {
        let revisions = [revision("1"), revision("2")];
        let consumers = [
            "consumer://10.0.0.9/a.B?interface=a.B&group=*",
            "consumer://10.0.0.9/a.B?interface=a.B",
            "consumer://10.0.0.9/a.B?interface=a.B&group=g",
            "consumer://10.0.0.9/a.C?interface=a.C",
        ]
        .map(|c| Url::parse(c).unwrap());
        let endpoints = [
            Some(r#"[{"port":20880,"protocol":"dubbo"},{"port":50051,"protocol":"tri"}]"#),
            Some(r#"[{"port":20881,"protocol":"dubbo"}]"#),
            None,
        ];
        let mut builder = InstanceUrls::new();
        let mut seen = 0;
        // Revisions, consumers, endpoints (so shared metadata maps) and hosts interleaved, as
        // a listing of a rolling deployment has them.
        for i in 0..60usize {
            let info = &revisions[i % 2];
            let consumer = &consumers[(i / 2) % consumers.len()];
            let host = if i % 5 == 0 {
                "fe80::1".to_owned()
            } else {
                format!("10.0.0.{i}")
            };
            let timestamp = (i % 7 != 0).then(|| i.to_string());
            let one = instance(&host, endpoints[(i / 3) % 3], timestamp.as_deref());
            let mut got = Vec::new();
            builder.push_urls(&one, info, consumer, &mut got);
            let want = InstanceUrls::new().urls(&one, info, consumer);
            assert_eq!(got, want, "instance {i}");
            let text: Vec<String> = got.iter().map(Url::to_string).collect();
            let fresh: Vec<String> = want.iter().map(Url::to_string).collect();
            assert_eq!(text, fresh);
            seen += got.len();
        }
        assert!(seen > 60, "{seen}");
        let urls = builder.urls(
            &instance("10.0.0.1", endpoints[0], Some("5")),
            &revisions[1],
            &consumers[0],
        );
        let text: Vec<String> = urls.iter().map(Url::to_string).collect();
        assert_eq!(
            text,
            [
                "dubbo://10.0.0.1:20880/a.B?interface=a.B&rev=2&side=provider&timestamp=5",
                "tri://10.0.0.1:50051/a.B?group=g&interface=a.B&rev=2&side=provider&timestamp=5",
            ]
        );
        // Revisions no instance announces any more are forgotten, plans with them.
        builder.retain_revisions([revisions[0].revision.as_str()]);
        assert!(builder
            .plans
            .iter()
            .all(|p| p.revision == revisions[0].revision));
        assert!(builder.plans.len() <= PLANS);
    }

    #[test]
    fn metadata_without_a_revision_is_not_taken_for_another() {
        let mut builder = InstanceUrls::new();
        let consumer = Url::parse("consumer://10.0.0.9/a.B?interface=a.B").unwrap();
        let one = instance("10.0.0.1", None, Some("1"));
        let mut first = revision("1");
        first.revision.clear();
        let mut none = MetadataInfo::new("p");
        none.revision.clear();
        assert_eq!(builder.urls(&one, &first, &consumer).len(), 1);
        assert!(builder.urls(&one, &none, &consumer).is_empty());
        assert_eq!(builder.urls(&one, &first, &consumer).len(), 1);
    }
}
