//! [`CatalogIndex`]: what searches and detail pages need from a [`Catalog`](crate::catalog::Catalog),
//! computed once when the catalog is read rather than on every request: one summary per
//! service and per application, lower-case texts to match filters against, and positions
//! instead of copies (a search copies only the page it answers).

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use serde::Serialize;

use crate::catalog::{address, InstanceEntry, ProviderEntry};

/// One service in a search result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSummary {
    /// `group/interface:version`.
    pub service_key: String,
    /// The interface.
    pub service: String,
    /// Its version.
    pub version: String,
    /// Its group.
    pub group: String,
    /// The applications providing it.
    pub applications: BTreeSet<String>,
    /// The protocols it is served over.
    pub protocols: BTreeSet<String>,
    /// How many provider addresses it has.
    pub providers: usize,
}

/// One application in a search result.
#[derive(Debug, Clone, Serialize)]
pub struct AppSummary {
    /// The name.
    pub application: String,
    /// Its instances.
    pub instances: usize,
    /// The service keys it provides.
    pub services: BTreeSet<String>,
}

/// The index of one catalog. Positions are into the catalog's `providers` and `instances`.
#[derive(Debug, Clone, Default)]
pub struct CatalogIndex {
    /// Every service, sorted by service key.
    services: Vec<ServiceSummary>,
    /// Per service: its service key in lower case.
    service_text: Vec<Box<str>>,
    /// Per service: its providers (the catalog's providers are sorted by service key).
    service_providers: Vec<Range<usize>>,
    /// Per service: the positions of its applications in `apps`.
    service_apps: Vec<Vec<u32>>,
    /// Every application, sorted by name.
    apps: Vec<AppSummary>,
    /// Per application: its name in lower case.
    app_text: Vec<Box<str>>,
    /// Per application: the positions of its providers.
    app_providers: Vec<Vec<u32>>,
    /// Per application: its instances (the catalog's instances are sorted by application).
    app_instances: Vec<Range<usize>>,
    /// Per provider: its service's position and its address in lower case.
    provider_service: Vec<u32>,
    provider_address: Vec<Box<str>>,
    /// Per instance: its application's position and its id in lower case.
    instance_app: Vec<u32>,
    instance_text: Vec<Box<str>>,
    /// Every `host:port` of every instance (its id and each protocol's port) → its position.
    instance_by_address: HashMap<String, usize>,
}

fn lower(s: &str) -> Box<str> {
    s.to_lowercase().into_boxed_str()
}

fn pos(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl CatalogIndex {
    /// Indexes `providers` (sorted by service key) and `instances` (sorted by application).
    pub fn build(providers: &[ProviderEntry], instances: &[InstanceEntry]) -> Self {
        let mut ix = CatalogIndex::default();
        // Applications first: providers and instances refer to them.
        let mut names: BTreeSet<&str> = instances.iter().map(|i| &*i.application).collect();
        names.extend(providers.iter().map(|p| &*p.application));
        let app_pos: HashMap<&str, u32> = names
            .iter()
            .enumerate()
            .map(|(n, a)| (*a, pos(n)))
            .collect();
        ix.apps = names
            .iter()
            .map(|a| AppSummary {
                application: (*a).to_owned(),
                instances: 0,
                services: BTreeSet::new(),
            })
            .collect();
        ix.app_text = names.iter().map(|a| lower(a)).collect();
        ix.app_providers = vec![Vec::new(); names.len()];
        ix.app_instances = vec![0..0; names.len()];

        let mut start = 0;
        while start < providers.len() {
            let key = providers[start].service_key();
            let end = start
                + providers[start..]
                    .iter()
                    .position(|p| p.service_key() != key)
                    .unwrap_or(providers.len() - start);
            let first = &providers[start];
            let mut summary = ServiceSummary {
                service_key: key.clone(),
                service: first.service.to_string(),
                version: first.version.to_string(),
                group: first.group.to_string(),
                applications: BTreeSet::new(),
                protocols: BTreeSet::new(),
                providers: end - start,
            };
            let s = pos(ix.services.len());
            let mut apps = Vec::new();
            for (n, p) in providers[start..end].iter().enumerate() {
                summary.applications.insert(p.application.to_string());
                summary.protocols.insert(p.protocol.to_string());
                let a = app_pos.get(&*p.application).copied().unwrap_or(0);
                if !apps.contains(&a) {
                    apps.push(a);
                    if let Some(app) = ix.apps.get_mut(a as usize) {
                        app.services.insert(key.clone());
                    }
                }
                if let Some(list) = ix.app_providers.get_mut(a as usize) {
                    list.push(pos(start + n));
                }
                ix.provider_service.push(s);
                ix.provider_address.push(lower(&p.address));
            }
            ix.service_text.push(lower(&key));
            ix.service_providers.push(start..end);
            ix.service_apps.push(apps);
            ix.services.push(summary);
            start = end;
        }

        for (n, i) in instances.iter().enumerate() {
            let a = app_pos.get(&*i.application).copied().unwrap_or(0);
            if let Some(app) = ix.apps.get_mut(a as usize) {
                app.instances += 1;
            }
            if let Some(range) = ix.app_instances.get_mut(a as usize) {
                if range.start == range.end {
                    *range = n..n + 1;
                } else {
                    range.end = n + 1;
                }
            }
            ix.instance_app.push(a);
            ix.instance_text.push(lower(&i.id));
            for port in i.ports.values() {
                ix.instance_by_address
                    .entry(address(&i.host, port))
                    .or_insert(n);
            }
        }
        // An instance's id wins over another instance's protocol port.
        for (n, i) in instances.iter().enumerate() {
            ix.instance_by_address.insert(i.id.to_string(), n);
        }
        ix
    }

    /// Every service, sorted by service key.
    pub fn services(&self) -> &[ServiceSummary] {
        &self.services
    }

    /// Every application, sorted by name.
    pub fn applications(&self) -> &[AppSummary] {
        &self.apps
    }

    /// The position of the service `key` names.
    pub fn service(&self, key: &str) -> Option<usize> {
        self.services
            .binary_search_by(|s| s.service_key.as_str().cmp(key))
            .ok()
    }

    /// The positions of service `s`'s providers.
    pub fn providers_of(&self, s: usize) -> Range<usize> {
        self.service_providers.get(s).cloned().unwrap_or(0..0)
    }

    /// The position of the application `name`.
    pub fn application(&self, name: &str) -> Option<usize> {
        self.apps
            .binary_search_by(|a| a.application.as_str().cmp(name))
            .ok()
    }

    /// The positions of application `a`'s providers.
    pub fn app_providers(&self, a: usize) -> &[u32] {
        self.app_providers.get(a).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The positions of application `a`'s instances.
    pub fn app_instances(&self, a: usize) -> Range<usize> {
        self.app_instances.get(a).cloned().unwrap_or(0..0)
    }

    /// The position of the instance `id` names: its id or the `host:port` of any of its
    /// protocols.
    pub fn instance(&self, id: &str) -> Option<usize> {
        self.instance_by_address.get(id).copied()
    }

    /// The positions of the services whose key contains `filter` (lower case; every service
    /// when `None`).
    pub fn services_named(&self, filter: Option<&str>) -> Vec<usize> {
        (0..self.services.len())
            .filter(|&s| filter.is_none_or(|f| self.service_text[s].contains(f)))
            .collect()
    }

    /// Per application, whether its name contains `filter` (lower case).
    fn apps_matching(&self, filter: Option<&str>) -> Vec<bool> {
        self.app_text
            .iter()
            .map(|a| filter.is_none_or(|f| a.contains(f)))
            .collect()
    }

    /// The positions of the services one of whose applications' names contains `filter`.
    pub fn services_of_apps(&self, filter: Option<&str>) -> Vec<usize> {
        let apps = self.apps_matching(filter);
        (0..self.services.len())
            .filter(|&s| self.service_apps[s].iter().any(|&a| apps[a as usize]))
            .collect()
    }

    /// The positions of the services one of whose provider addresses contains `filter`.
    pub fn services_at(&self, filter: Option<&str>) -> Vec<usize> {
        let mut hit = vec![false; self.services.len()];
        for (p, addr) in self.provider_address.iter().enumerate() {
            if filter.is_none_or(|f| addr.contains(f)) {
                hit[self.provider_service[p] as usize] = true;
            }
        }
        (0..hit.len()).filter(|&s| hit[s]).collect()
    }

    /// The positions of the applications whose name contains `filter`.
    pub fn applications_named(&self, filter: Option<&str>) -> Vec<usize> {
        let apps = self.apps_matching(filter);
        (0..apps.len()).filter(|&a| apps[a]).collect()
    }

    /// The positions of the instances whose application or id contains `filter`.
    pub fn instances_matching(&self, filter: Option<&str>) -> Vec<usize> {
        let apps = self.apps_matching(filter);
        (0..self.instance_text.len())
            .filter(|&i| {
                apps[self.instance_app[i] as usize]
                    || filter.is_none_or(|f| self.instance_text[i].contains(f))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::merge;

    fn provider(service: &str, app: &str, address: &str) -> ProviderEntry {
        ProviderEntry {
            service: service.into(),
            version: "1.0.0".into(),
            group: "".into(),
            application: app.into(),
            protocol: "dubbo".into(),
            address: address.into(),
            registered_address: address.into(),
            sources: crate::sources::Sources::INTERFACE,
            weight: 100,
        }
    }

    #[test]
    fn searches_find_services_applications_and_instances() {
        let qos = |_: &str| 22222;
        let tri = InstanceEntry {
            id: "10.0.0.9:20880".into(),
            application: "Billing".into(),
            host: "10.0.0.9".into(),
            ports: [("dubbo", 20880), ("tri", 50051)].into_iter().collect(),
            revision: "r".into(),
            sources: crate::sources::Sources::APPLICATION,
            qos_address: "10.0.0.9:22222".into(),
        };
        let c = merge(
            vec![
                provider("org.Order", "orders", "10.0.0.1:20880"),
                provider("org.Order", "orders", "10.0.0.2:20880"),
                provider("org.Order", "billing-x", "10.0.0.3:20880"),
                provider("org.Pay", "Billing", "10.0.0.9:20880"),
            ],
            vec![tri],
            &qos,
            &mut crate::interner::Interner::new(),
        );
        let ix = c.index();
        let keys = |v: Vec<usize>| -> Vec<String> {
            v.into_iter()
                .map(|s| ix.services()[s].service_key.clone())
                .collect()
        };
        assert_eq!(
            keys(ix.services_named(None)),
            ["org.Order:1.0.0", "org.Pay:1.0.0"]
        );
        assert_eq!(keys(ix.services_named(Some("pay"))), ["org.Pay:1.0.0"]);
        assert_eq!(ix.services()[0].providers, 3);
        assert_eq!(ix.services()[0].applications.len(), 2);
        // Application names match case-insensitively (the filter comes in lower case).
        assert_eq!(
            keys(ix.services_of_apps(Some("billing"))),
            ["org.Order:1.0.0", "org.Pay:1.0.0"]
        );
        assert_eq!(keys(ix.services_at(Some("10.0.0.2:"))), ["org.Order:1.0.0"]);
        assert!(ix.services_at(Some("10.9.")).is_empty());
        let s = ix.service("org.Pay:1.0.0").unwrap();
        assert_eq!(&*c.providers[ix.providers_of(s)][0].application, "Billing");
        assert!(ix.service("org.Nothing").is_none());

        // Instances: by application or address; by id or any protocol's host:port.
        assert_eq!(ix.instances_matching(None).len(), 4);
        assert_eq!(ix.instances_matching(Some("billing")).len(), 2);
        assert_eq!(ix.instances_matching(Some("0.0.0.2:")).len(), 1);
        let i = ix.instance("10.0.0.9:50051").unwrap();
        assert_eq!(&*c.instances[i].id, "10.0.0.9:20880");
        assert_eq!(ix.instance("10.0.0.9:20880"), Some(i));

        // Applications: instance counts, services, and what belongs to each.
        let names: Vec<&str> = ix
            .applications_named(Some("bill"))
            .into_iter()
            .map(|a| ix.applications()[a].application.as_str())
            .collect();
        assert_eq!(names, ["Billing", "billing-x"]);
        let a = ix.application("orders").unwrap();
        assert_eq!(ix.applications()[a].instances, 2);
        assert_eq!(ix.app_providers(a).len(), 2);
        assert_eq!(ix.app_instances(a).len(), 2);
        assert!(c.instances[ix.app_instances(a)]
            .iter()
            .all(|i| &*i.application == "orders"));
    }
}
