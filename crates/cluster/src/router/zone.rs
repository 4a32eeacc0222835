//! [`ZoneRouter`]: with several registries, prefer the providers of the preferred registry,
//! else those of the caller's zone (Java's `ZoneAwareClusterInvoker`).

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, Router};

/// The provider URL parameter naming the zone of the registry the provider came from.
pub const REGISTRY_ZONE_KEY: &str = "registry.zone";
/// The provider URL parameter marking providers of a preferred registry.
pub const REGISTRY_PREFERRED_KEY: &str = "registry.preferred";
/// The call attachment naming the zone the caller wants (Java's `registry_zone`).
pub const ZONE_ATTACHMENT: &str = "registry_zone";
/// The call attachment that makes the zone mandatory (Java's `registry_zone_force`).
pub const ZONE_FORCE_ATTACHMENT: &str = "registry_zone_force";

/// Chooses among the providers of several registries, as Java's zone-aware cluster does:
///
/// 1. the available providers of a registry marked `preferred`, if any;
/// 2. else, when the call carries a `registry_zone` attachment, the providers of registries in
///    that zone; if there are none, all providers, unless `registry_zone_force=true`, when
///    the call gets none (and fails with no provider);
/// 3. else every provider.
///
/// Providers carry their registry's settings as URL parameters (`registry.preferred`,
/// `registry.zone`), put there by the consumer when it reads them from that registry. The
/// consumer's own zone (its URL's `registry_zone` parameter, e.g.
/// `dubbo.consumer.parameters.registry_zone`) applies to calls that name none.
#[derive(Debug, Default)]
pub struct ZoneRouter {
    local_zone: Option<String>,
    local_force: bool,
}

impl ZoneRouter {
    /// A router with no zone of its own: only calls that name one are steered by zone.
    pub fn new() -> Self {
        Self::default()
    }

    /// A router for a consumer in `zone` (and, with `force`, only that zone).
    pub fn for_zone(zone: Option<String>, force: bool) -> Self {
        Self {
            local_zone: zone.filter(|z| !z.is_empty()),
            local_force: force,
        }
    }
}

impl Router for ZoneRouter {
    fn route(
        &self,
        invokers: &[Arc<dyn Invoker>],
        invocation: &Invocation,
    ) -> Vec<Arc<dyn Invoker>> {
        let preferred: Vec<Arc<dyn Invoker>> = invokers
            .iter()
            .filter(|i| {
                i.url().parameter_bool_or(REGISTRY_PREFERRED_KEY, false) && i.is_available()
            })
            .cloned()
            .collect();
        if !preferred.is_empty() {
            return preferred;
        }
        let attachments = invocation.attachments();
        let asked = attachments
            .get_str(ZONE_ATTACHMENT)
            .filter(|z| !z.is_empty());
        let Some(zone) = asked.or(self.local_zone.as_deref()) else {
            return invokers.to_vec();
        };
        let force = match attachments.get_str(ZONE_FORCE_ATTACHMENT) {
            Some(f) => f == "true",
            None => asked.is_none() && self.local_force,
        };
        let in_zone: Vec<Arc<dyn Invoker>> = invokers
            .iter()
            .filter(|i| i.url().parameter(REGISTRY_ZONE_KEY) == Some(zone))
            .cloned()
            .collect();
        if !in_zone.is_empty() {
            return in_zone;
        }
        if force {
            return Vec::new();
        }
        invokers.to_vec()
    }

    fn name(&self) -> &str {
        "zone"
    }

    /// Before the tag and condition routers: Java chooses the registry first, then routes
    /// within it.
    fn priority(&self) -> i32 {
        -100
    }

    fn cache_key(&self, invocation: &Invocation, key: &mut String) -> bool {
        // Availability of preferred providers changes without a new snapshot.
        let _ = (invocation, key);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_core::{invoker_fn, MethodSignature, RpcResponse, ServiceKey, Value};
    use dubbo_url::Url;

    fn provider(url: &str) -> Arc<dyn Invoker> {
        let url = Url::parse(url).unwrap();
        Arc::new(invoker_fn(url, |_| async {
            Ok(RpcResponse::new(Value::Null))
        }))
    }

    fn call(attachments: &[(&str, &str)]) -> Invocation {
        let mut inv = Invocation::new(
            ServiceKey::interface_only("a.B"),
            Arc::new(MethodSignature::new::<&str>("m", &[], "void")),
            vec![],
        );
        for (k, v) in attachments {
            inv = inv.with_attachment(*k, *v);
        }
        inv
    }

    fn ports(list: &[Arc<dyn Invoker>]) -> Vec<u16> {
        list.iter().map(|i| i.url().port()).collect()
    }

    #[test]
    fn the_consumers_own_zone_applies_when_the_call_names_none() {
        let r = ZoneRouter::for_zone(Some("west".into()), false);
        let list = vec![
            provider("dubbo://10.0.0.1:1/a.B?registry.zone=east"),
            provider("dubbo://10.0.0.1:2/a.B?registry.zone=west"),
        ];
        assert_eq!(ports(&r.route(&list, &call(&[]))), vec![2]);
        assert_eq!(
            ports(&r.route(&list, &call(&[("registry_zone", "east")]))),
            vec![1]
        );
        let forced = ZoneRouter::for_zone(Some("north".into()), true);
        assert!(forced.route(&list, &call(&[])).is_empty());
    }

    #[test]
    fn preferred_then_zone_then_everything() {
        let r = ZoneRouter::new();
        let a = provider("dubbo://10.0.0.1:1/a.B?registry.zone=east");
        let b = provider("dubbo://10.0.0.1:2/a.B?registry.zone=west");
        let c = provider("dubbo://10.0.0.1:3/a.B?registry.zone=west&registry.preferred=true");
        let all = vec![a.clone(), b.clone(), c.clone()];
        assert_eq!(ports(&r.route(&all, &call(&[]))), vec![3]);
        let no_pref = vec![a.clone(), b.clone()];
        assert_eq!(ports(&r.route(&no_pref, &call(&[]))), vec![1, 2]);
        assert_eq!(
            ports(&r.route(&no_pref, &call(&[("registry_zone", "west")]))),
            vec![2]
        );
        assert_eq!(
            ports(&r.route(&no_pref, &call(&[("registry_zone", "north")]))),
            vec![1, 2]
        );
        assert!(r
            .route(
                &no_pref,
                &call(&[("registry_zone", "north"), ("registry_zone_force", "true")])
            )
            .is_empty());
    }
}
