//! [`MigrationSplitRouter`]: while a consumer moves from interface-level to application-level
//! discovery, a share of its calls still goes to the interface-level providers (Java's
//! migration rule `proportion`).

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, Router};

/// The provider URL parameter that marks a provider found through interface-level discovery
/// when both models are in the list at once. Its value is [`INTERFACE_MODEL`].
pub const MIGRATION_MODEL_KEY: &str = "migration.model";
/// The value of [`MIGRATION_MODEL_KEY`] on interface-level providers.
pub const INTERFACE_MODEL: &str = "interface";

/// Splits calls between the two discovery models, as Java's `MigrationInvoker` does in
/// `APPLICATION_FIRST` when the rule gives a `proportion` below 100: each call goes to the
/// application-level providers with probability `promotion`/100, else to the interface-level
/// ones (those marked [`MIGRATION_MODEL_KEY`]`=`[`INTERFACE_MODEL`]).
///
/// A list with only one of the two models passes unchanged, so a model that lost its last
/// provider never fails a call the other could serve (Java would send the interface share to
/// an empty interface-level invoker).
///
/// The draw is made per call, so the router's result is never cached; it is installed only
/// while a split is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MigrationSplitRouter {
    promotion: u8,
}

impl MigrationSplitRouter {
    /// A router that sends `promotion` percent of calls (at most 100) to the
    /// application-level providers.
    pub fn new(promotion: u8) -> Self {
        Self {
            promotion: promotion.min(100),
        }
    }

    /// The percentage of calls sent to the application-level providers.
    pub fn promotion(&self) -> u8 {
        self.promotion
    }
}

fn interface_level(invoker: &Arc<dyn Invoker>) -> bool {
    invoker.url().parameter(MIGRATION_MODEL_KEY) == Some(INTERFACE_MODEL)
}

impl Router for MigrationSplitRouter {
    fn route(
        &self,
        invokers: &[Arc<dyn Invoker>],
        _invocation: &Invocation,
    ) -> Vec<Arc<dyn Invoker>> {
        // As Java draws it: a value in [0, 100) above the promotion falls back to interface.
        let to_interface = fastrand::f64() * 100.0 > f64::from(self.promotion);
        let side: Vec<Arc<dyn Invoker>> = invokers
            .iter()
            .filter(|i| interface_level(i) == to_interface)
            .cloned()
            .collect();
        if side.is_empty() {
            invokers.to_vec()
        } else {
            side
        }
    }

    fn name(&self) -> &str {
        "migration"
    }

    /// First of all: Java chooses the discovery model before the cluster invoker routes.
    fn priority(&self) -> i32 {
        -200
    }

    fn cache_key(&self, invocation: &Invocation, key: &mut String) -> bool {
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

    fn call() -> Invocation {
        Invocation::new(
            ServiceKey::interface_only("a.B"),
            Arc::new(MethodSignature::new::<&str>("m", &[], "void")),
            vec![],
        )
    }

    fn both() -> Vec<Arc<dyn Invoker>> {
        vec![
            provider("dubbo://10.0.0.1:1/a.B"),
            provider("dubbo://10.0.0.2:1/a.B"),
            provider("dubbo://10.0.0.1:1/a.B?migration.model=interface"),
        ]
    }

    #[test]
    fn calls_are_split_by_the_promotion() {
        let r = MigrationSplitRouter::new(30);
        let list = both();
        let n = 20_000;
        let mut interface = 0;
        for _ in 0..n {
            let out = r.route(&list, &call());
            let ifaces = out.iter().filter(|i| interface_level(i)).count();
            // A call gets one model, never both.
            assert!(ifaces == 0 || ifaces == out.len());
            if ifaces > 0 {
                assert_eq!(out.len(), 1);
                interface += 1;
            } else {
                assert_eq!(out.len(), 2);
            }
        }
        let share = f64::from(interface) / f64::from(n);
        assert!((share - 0.7).abs() < 0.02, "interface share {share}");
    }

    #[test]
    fn the_bounds_send_everything_one_way_and_one_model_passes_unchanged() {
        let list = both();
        let all_app = MigrationSplitRouter::new(100);
        let all_iface = MigrationSplitRouter::new(0);
        for _ in 0..1000 {
            assert!(all_app
                .route(&list, &call())
                .iter()
                .all(|i| !interface_level(i)));
            assert!(all_iface.route(&list, &call()).iter().all(interface_level));
        }
        let only_app = &list[..2];
        assert_eq!(all_iface.route(only_app, &call()).len(), 2);
        assert_eq!(MigrationSplitRouter::new(250).promotion(), 100);
    }
}
