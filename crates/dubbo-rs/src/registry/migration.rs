//! The consumer's choice between interface-level and application-level addresses.

use dubbo_url::Url;

use super::modes::MigrationStep;

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
}
