//! The consumer's choice between interface-level and application-level addresses.

use dubbo_cluster::router::migration::{INTERFACE_MODEL, MIGRATION_MODEL_KEY};
use std::sync::Arc;

use dubbo_url::Url;

use super::modes::MigrationStep;

/// The migration settings a reference follows; a migration rule changes them live.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Mode {
    pub(crate) step: MigrationStep,
    pub(crate) threshold: f64,
    /// Under `APPLICATION_FIRST` with application-level addresses chosen, the percentage of
    /// calls that go to them (Java's rule `proportion`, default 100); the rest go to the
    /// interface-level addresses.
    pub(crate) proportion: u8,
}

/// The provider list a reference gets under `mode`, and the promotion to split calls by when
/// it holds both models ([`choose`], then Java's `proportion`).
///
/// When a split is in force the list is the application-level addresses plus the
/// interface-level ones marked with [`MIGRATION_MODEL_KEY`], for the reference's
/// `MigrationSplitRouter` to tell apart. The mark also keeps an interface-level URL distinct
/// from an identical application-level one (a provider registering in both models).
///
/// Without a split, the interface-level list chosen is that very list (a shared one), not a
/// copy.
pub(crate) fn provider_list(
    mode: Mode,
    interface: &Arc<[Url]>,
    application: &[Url],
) -> (Arc<[Url]>, Option<u8>) {
    let chosen = choose(mode.step, mode.threshold, interface, application);
    let split = mode.step == MigrationStep::ApplicationFirst
        && mode.proportion < 100
        && !interface.is_empty()
        && !application.is_empty()
        && std::ptr::eq(chosen, application);
    if !split {
        let list = if std::ptr::eq(chosen, &**interface) {
            Arc::clone(interface)
        } else {
            Arc::from(chosen)
        };
        return (list, None);
    }
    let mut list = application.to_vec();
    list.extend(
        interface
            .iter()
            .map(|u| u.with_parameter(MIGRATION_MODEL_KEY, INTERFACE_MODEL)),
    );
    (list.into(), Some(mode.proportion))
}

/// The addresses a consumer uses, given both lists: Java's `MigrationInvoker` with
/// `DefaultMigrationAddressComparator`.
///
/// Under `APPLICATION_FIRST`, application-level addresses win when there are some and either
/// no interface-level address exists or their count reaches `threshold` times the
/// interface-level count (the default threshold 0 lets any application-level address win);
/// otherwise interface-level addresses are used. The forced steps use their own list, even
/// empty.
pub(crate) fn choose<'a>(
    step: MigrationStep,
    threshold: f64,
    interface: &'a [Url],
    application: &'a [Url],
) -> &'a [Url] {
    match step {
        MigrationStep::ForceInterface => interface,
        MigrationStep::ForceApplication => application,
        MigrationStep::ApplicationFirst => {
            if application.is_empty() {
                return interface;
            }
            if interface.is_empty() {
                return application;
            }
            let share = application.len() as f64 / interface.len() as f64;
            if share >= threshold {
                application
            } else {
                interface
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(n: usize) -> Vec<Url> {
        (0..n)
            .map(|i| Url::parse(&format!("dubbo://10.0.0.{i}:20880/a.B")).unwrap())
            .collect()
    }

    #[test]
    fn application_first_prefers_application_addresses_over_the_threshold() {
        let (i, a) = (urls(4), urls(2));
        assert_eq!(
            choose(MigrationStep::ApplicationFirst, 0.0, &i, &a).len(),
            2
        );
        assert_eq!(
            choose(MigrationStep::ApplicationFirst, 0.5, &i, &a).len(),
            2
        );
        assert_eq!(
            choose(MigrationStep::ApplicationFirst, 0.6, &i, &a).len(),
            4
        );
        assert_eq!(
            choose(MigrationStep::ApplicationFirst, 9.0, &[], &a).len(),
            2
        );
        assert_eq!(
            choose(MigrationStep::ApplicationFirst, 0.0, &i, &[]).len(),
            4
        );
    }

    #[test]
    fn forced_steps_use_their_own_list_even_empty() {
        let i = urls(3);
        assert!(choose(MigrationStep::ForceApplication, 0.0, &i, &[]).is_empty());
        assert_eq!(choose(MigrationStep::ForceInterface, 0.0, &i, &[]).len(), 3);
    }

    #[test]
    fn a_proportion_below_100_lists_both_models_with_interface_ones_marked() {
        let (i, a): (Arc<[Url]>, _) = (urls(2).into(), urls(1));
        let none: Arc<[Url]> = Arc::from(Vec::new());
        let mode = |step, proportion| Mode {
            step,
            threshold: 0.0,
            proportion,
        };
        let (list, split) = provider_list(mode(MigrationStep::ApplicationFirst, 30), &i, &a);
        assert_eq!(split, Some(30));
        assert_eq!(list.len(), 3);
        let marked = list
            .iter()
            .filter(|u| u.parameter(MIGRATION_MODEL_KEY) == Some(INTERFACE_MODEL))
            .count();
        assert_eq!(marked, 2);
        // 100, a forced step, a threshold not reached or one model missing: no split.
        for (m, i, a) in [
            (mode(MigrationStep::ApplicationFirst, 100), &i, &a),
            (mode(MigrationStep::ForceApplication, 30), &i, &a),
            (mode(MigrationStep::ForceInterface, 30), &i, &a),
            (mode(MigrationStep::ApplicationFirst, 30), &i, &vec![]),
            (mode(MigrationStep::ApplicationFirst, 30), &none, &a),
        ] {
            let (list, split) = provider_list(m, i, a);
            assert_eq!(split, None, "{m:?}");
            assert!(list
                .iter()
                .all(|u| u.parameter(MIGRATION_MODEL_KEY).is_none()));
        }
        let high = Mode {
            threshold: 0.9,
            ..mode(MigrationStep::ApplicationFirst, 30)
        };
        let (list, split) = provider_list(high, &i, &a);
        assert!(
            Arc::ptr_eq(&list, &i),
            "the interface-level list itself, not a copy"
        );
        assert_eq!(split, None);
    }
}
