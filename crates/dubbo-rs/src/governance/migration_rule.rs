//! [`MigrationRule`]: the `{app}.migration` rule that moves consumers between interface-level
//! and application-level discovery (Java's `MigrationRule`).

use serde::Deserialize;

use crate::registry::MigrationStep;

/// A migration rule as Dubbo Admin writes it: a step for the whole application, overridden
/// per service (`interfaces`) and per provider application (`applications`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MigrationRule {
    #[serde(flatten)]
    settings: Settings,
    #[serde(default)]
    interfaces: Vec<Entry>,
    #[serde(default)]
    applications: Vec<Entry>,
}

/// The settings a rule, a service or an application entry may give.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
struct Settings {
    #[serde(default)]
    step: Option<String>,
    #[serde(default)]
    threshold: Option<f64>,
    #[serde(default)]
    force: Option<bool>,
    /// Seconds to let the new model's addresses arrive before comparing (Java's `delay`).
    #[serde(default)]
    delay: Option<u64>,
    /// Under `APPLICATION_FIRST`, the percentage of calls sent to application-level
    /// providers once chosen (Java's `proportion`); the rest go to interface-level ones.
    #[serde(default)]
    proportion: Option<u32>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(default)]
    service_key: Option<String>,
    #[serde(flatten)]
    settings: Settings,
}

/// What a rule says for one reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Migration {
    pub(crate) step: MigrationStep,
    pub(crate) threshold: f64,
    pub(crate) force: bool,
    /// How long to let the new model's addresses arrive before deciding.
    pub(crate) delay: std::time::Duration,
    /// The percentage of calls `APPLICATION_FIRST` sends to application-level providers.
    pub(crate) proportion: u8,
}

impl MigrationRule {
    /// Parses the rule's YAML; a step that is not one of Java's three is an error naming it.
    pub(crate) fn from_yaml(text: &str) -> Result<Self, String> {
        let rule: MigrationRule = serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?;
        let entries = rule.interfaces.iter().chain(&rule.applications);
        for step in std::iter::once(&rule.settings)
            .chain(entries.map(|e| &e.settings))
            .filter_map(|s| s.step.as_deref())
        {
            if MigrationStep::parse(step).is_none() {
                return Err(format!(
                    "step {step:?} is not FORCE_INTERFACE, APPLICATION_FIRST or FORCE_APPLICATION"
                ));
            }
        }
        Ok(rule)
    }

    /// What the rule says for the reference to `service_keys` (its interface, with and
    /// without group and version) whose providers are `provider_apps`: a service entry wins
    /// over an application entry, which wins over the rule's own settings, each setting
    /// falling back on its own; `defaults` fills what the rule leaves out.
    pub(crate) fn resolve(
        &self,
        service_keys: &[String],
        provider_apps: &[String],
        defaults: Migration,
    ) -> Migration {
        let service = self.interfaces.iter().find(|e| {
            e.service_key
                .as_deref()
                .is_some_and(|k| service_keys.iter().any(|s| s == k.trim()))
        });
        let app = self.applications.iter().find(|e| {
            e.service_key
                .as_deref()
                .is_some_and(|k| provider_apps.iter().any(|a| a == k.trim()))
        });
        let layers: Vec<&Settings> = [service.map(|e| &e.settings), app.map(|e| &e.settings)]
            .into_iter()
            .flatten()
            .chain(std::iter::once(&self.settings))
            .collect();
        let step = layers
            .iter()
            .find_map(|s| s.step.as_deref().and_then(MigrationStep::parse))
            .unwrap_or(defaults.step);
        let threshold = layers
            .iter()
            .find_map(|s| s.threshold)
            .unwrap_or(defaults.threshold);
        let force = layers
            .iter()
            .find_map(|s| s.force)
            .unwrap_or(defaults.force);
        let delay = layers
            .iter()
            .find_map(|s| s.delay)
            .map_or(defaults.delay, std::time::Duration::from_secs);
        let proportion = layers
            .iter()
            .find_map(|s| s.proportion)
            .map_or(defaults.proportion, |p| p.min(100) as u8);
        Migration {
            step,
            threshold,
            force,
            delay,
            proportion,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULTS: Migration = Migration {
        step: MigrationStep::ApplicationFirst,
        threshold: 0.0,
        force: false,
        delay: std::time::Duration::ZERO,
        proportion: 100,
    };

    fn keys(k: &[&str]) -> Vec<String> {
        k.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn service_entries_beat_application_entries_beat_the_rule() {
        let rule = MigrationRule::from_yaml(
            "key: demo-consumer\nstep: FORCE_INTERFACE\nthreshold: 0.5\ndelay: 3\ninterfaces:\n  - serviceKey: org.foo.A\n    step: FORCE_APPLICATION\napplications:\n  - serviceKey: provider-b\n    step: APPLICATION_FIRST\n    force: true\n",
        )
        .unwrap();
        let a = rule.resolve(&keys(&["org.foo.A"]), &keys(&["provider-b"]), DEFAULTS);
        assert_eq!(a.step, MigrationStep::ForceApplication);
        // The service entry says no force: the application entry's is used.
        assert!(a.force);
        assert_eq!(a.threshold, 0.5);
        assert_eq!(a.delay, std::time::Duration::from_secs(3));
        assert_eq!(a.proportion, 100);
        let b = rule.resolve(&keys(&["org.foo.B"]), &keys(&["provider-b"]), DEFAULTS);
        assert_eq!(b.step, MigrationStep::ApplicationFirst);
        let c = rule.resolve(&keys(&["org.foo.C"]), &keys(&["other"]), DEFAULTS);
        assert_eq!((c.step, c.force), (MigrationStep::ForceInterface, false));
    }

    #[test]
    fn an_empty_rule_keeps_the_defaults_and_a_bad_step_is_refused() {
        let rule = MigrationRule::from_yaml("key: x\n").unwrap();
        assert_eq!(rule.resolve(&[], &[], DEFAULTS), DEFAULTS);
        let err = MigrationRule::from_yaml("step: SIDEWAYS\n").unwrap_err();
        assert!(err.contains("SIDEWAYS"), "{err}");
        assert!(MigrationRule::from_yaml("step: [a\n").is_err());
    }

    #[test]
    fn the_proportion_is_read_per_entry_and_capped_at_100() {
        let rule = MigrationRule::from_yaml(
            "key: c\nstep: APPLICATION_FIRST\nproportion: 60\ninterfaces:\n  - serviceKey: org.foo.A\n    proportion: 30\n  - serviceKey: org.foo.B\n    proportion: 250\n",
        )
        .unwrap();
        let p = |k: &str| rule.resolve(&keys(&[k]), &[], DEFAULTS).proportion;
        assert_eq!(
            (p("org.foo.A"), p("org.foo.B"), p("org.foo.C")),
            (30, 100, 60)
        );
        assert!(MigrationRule::from_yaml("proportion: -1\n").is_err());
    }
}
