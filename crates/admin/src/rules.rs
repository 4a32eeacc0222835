//! Governance rules as the console edits them: override, weight, condition, tag and migration
//! rules at Java's keys, validated with the parsers running applications use before anything
//! is written, each write keeping the version it replaced so one step rolls it back.
//!
//! The versions replaced live in the config centre too (group [`HISTORY_GROUP`], the rule's
//! key, a JSON list newest last), so every admin reading that centre sees the same history.

use std::sync::Arc;

use dubbo_cli::dubbo::rules::RuleKey;
use dubbo_cluster::router::{ConditionRule, TagRule};
use dubbo_cluster::Configurators;
use dubbo_config_center::{DynamicConfiguration, RuleKind};
use serde::{Deserialize, Serialize};

use crate::error::AdminError;

/// The config centre group the replaced versions are kept in.
pub const HISTORY_GROUP: &str = "dubbo-admin-history";

/// How many replaced versions are kept per rule.
pub const HISTORY_DEPTH: usize = 20;

/// The kinds of rule the console edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Override rules (`.configurators`).
    Override,
    /// Weight rules: override rules that set `weight` on some addresses, at the same key.
    Weight,
    /// Condition routing rules.
    Condition,
    /// Tag routing rules (application scope).
    Tag,
    /// Migration rules (application scope, their own group).
    Migration,
}

impl Kind {
    /// `override`, `weight`, `condition`, `tag` or `migration`.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "override" => Kind::Override,
            "weight" => Kind::Weight,
            "condition" => Kind::Condition,
            "tag" => Kind::Tag,
            "migration" => Kind::Migration,
            _ => return None,
        })
    }

    /// Where Java keeps it.
    pub fn rule_kind(self) -> RuleKind {
        match self {
            Kind::Override | Kind::Weight => RuleKind::Configurators,
            Kind::Condition => RuleKind::ConditionRouter,
            Kind::Tag => RuleKind::TagRouter,
            Kind::Migration => RuleKind::Migration,
        }
    }
}

/// Which rule: its kind, and the service (`interface:version:group`) or application it is
/// about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleId {
    /// The kind.
    pub kind: Kind,
    /// `true` for a service, `false` for an application.
    pub service_scope: bool,
    /// The service or application.
    pub target: String,
}

impl RuleId {
    /// The rule at `kind`/`scope`/`target` of the API path.
    pub fn parse(kind: &str, scope: &str, target: &str) -> Result<Self, AdminError> {
        let kind = Kind::parse(kind).ok_or_else(|| {
            AdminError::BadRequest(format!(
                "rule kind {kind:?} is not override, weight, condition, tag or migration"
            ))
        })?;
        let service_scope = match scope {
            "service" => true,
            "application" => false,
            _ => {
                return Err(AdminError::BadRequest(format!(
                    "scope {scope:?} is not service or application"
                )))
            }
        };
        if target.is_empty() {
            return Err(AdminError::BadRequest(
                "no service or application named".into(),
            ));
        }
        Ok(Self {
            kind,
            service_scope,
            target: target.to_owned(),
        })
    }

    /// The key and group in the config centre.
    pub fn key(&self) -> Result<(String, String), AdminError> {
        let key = if self.service_scope {
            RuleKey::Service(self.target.clone(), self.kind.rule_kind())
        } else {
            RuleKey::App(self.target.clone(), self.kind.rule_kind())
        };
        let (key, group) = key
            .resolve()
            .map_err(|e| AdminError::BadRequest(e.to_string()))?;
        Ok((key, group.to_owned()))
    }
}

/// Checks `text` as a rule of `kind`, with the parser the applications apply it with.
pub fn validate(kind: Kind, text: &str) -> Result<(), AdminError> {
    let bad = |e: &dyn std::fmt::Display| AdminError::BadRequest(format!("rule refused: {e}"));
    if text.trim().is_empty() {
        return Err(AdminError::BadRequest("rule refused: it is empty".into()));
    }
    match kind {
        Kind::Override | Kind::Weight => Configurators::from_yaml(text)
            .map(|_| ())
            .map_err(|e| bad(&e)),
        Kind::Condition => ConditionRule::from_yaml(text)
            .map(|_| ())
            .map_err(|e| bad(&e)),
        Kind::Tag => TagRule::from_yaml(text).map(|_| ()).map_err(|e| bad(&e)),
        Kind::Migration => dubbo_rs::validate_migration_rule(text).map_err(|e| bad(&e)),
    }
}

/// A weight rule as Dubbo Admin writes it: an override rule (v3.0) giving the providers at
/// `addresses` the weight `weight`. `key` is the service (`interface:version:group`) or the
/// application.
pub fn weight_rule(service_scope: bool, key: &str, weight: u32, addresses: &[String]) -> String {
    let scope = if service_scope {
        "service"
    } else {
        "application"
    };
    // The key as Java's rule carries it: the interface and version, without empty parts.
    let key = key.trim_end_matches(':');
    let addresses: Vec<String> = addresses.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "configVersion: v3.0\nscope: {scope}\nkey: {key}\nenabled: true\nconfigs:\n  - side: provider\n    addresses: [{}]\n    parameters:\n      weight: {weight}\n",
        addresses.join(", ")
    )
}

/// One version a write replaced.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Replaced {
    /// When it was replaced, seconds since the epoch.
    pub time: u64,
    /// Who replaced it.
    pub user: String,
    /// The rule text in force before, `None` when there was none.
    pub content: Option<String>,
}

/// A rule, with the versions it replaced.
#[derive(Debug, Clone, Serialize)]
pub struct RuleView {
    /// The key in the config centre.
    pub key: String,
    /// The group.
    pub group: String,
    /// The rule in force, if any.
    pub content: Option<String>,
    /// The versions replaced, newest last.
    pub history: Vec<Replaced>,
}

/// Rules in one config centre.
pub struct RuleStore {
    center: Arc<dyn DynamicConfiguration>,
}

impl RuleStore {
    /// Rules in `center`.
    pub fn new(center: Arc<dyn DynamicConfiguration>) -> Self {
        Self { center }
    }

    async fn history(&self, key: &str) -> Result<Vec<Replaced>, AdminError> {
        let text = self.center.get_config(key, HISTORY_GROUP).await?;
        match text {
            None => Ok(Vec::new()),
            Some(t) => serde_json::from_str(&t).map_err(|e| {
                AdminError::BadRequest(format!("the kept versions of {key} do not read: {e}"))
            }),
        }
    }

    async fn save_history(&self, key: &str, mut history: Vec<Replaced>) -> Result<(), AdminError> {
        let excess = history.len().saturating_sub(HISTORY_DEPTH);
        history.drain(..excess);
        let text = serde_json::to_string(&history)
            .map_err(|e| AdminError::BadRequest(format!("history of {key}: {e}")))?;
        Ok(self
            .center
            .publish_config(key, HISTORY_GROUP, &text)
            .await?)
    }

    /// The rule `id` names, and its history.
    pub async fn get(&self, id: &RuleId) -> Result<RuleView, AdminError> {
        let (key, group) = id.key()?;
        let content = self.center.get_config(&key, &group).await?;
        let history = self.history(&key).await?;
        Ok(RuleView {
            key,
            group,
            content,
            history,
        })
    }

    /// Validates and writes `text` as rule `id`, keeping the version it replaces.
    pub async fn put(&self, id: &RuleId, text: &str, user: &str) -> Result<RuleView, AdminError> {
        validate(id.kind, text)?;
        let (key, group) = id.key()?;
        let previous = self.center.get_config(&key, &group).await?;
        let mut history = self.history(&key).await?;
        history.push(Replaced {
            time: crate::session::now_seconds(),
            user: user.to_owned(),
            content: previous,
        });
        self.save_history(&key, history).await?;
        self.center.publish_config(&key, &group, text).await?;
        self.get(id).await
    }

    /// Removes rule `id`, keeping the version removed.
    pub async fn delete(&self, id: &RuleId, user: &str) -> Result<RuleView, AdminError> {
        let (key, group) = id.key()?;
        let Some(previous) = self.center.get_config(&key, &group).await? else {
            return Err(AdminError::NotFound(format!("no rule at {key} ({group})")));
        };
        let mut history = self.history(&key).await?;
        history.push(Replaced {
            time: crate::session::now_seconds(),
            user: user.to_owned(),
            content: Some(previous),
        });
        self.save_history(&key, history).await?;
        self.center.remove_config(&key, &group).await?;
        self.get(id).await
    }

    /// Puts back the version the last write replaced (removing the rule if there was none),
    /// and forgets that version.
    pub async fn rollback(&self, id: &RuleId) -> Result<RuleView, AdminError> {
        let (key, group) = id.key()?;
        let mut history = self.history(&key).await?;
        let Some(last) = history.pop() else {
            return Err(AdminError::NotFound(format!(
                "no earlier version of {key} is kept"
            )));
        };
        match &last.content {
            Some(text) => self.center.publish_config(&key, &group, text).await?,
            None => {
                self.center.remove_config(&key, &group).await?;
            }
        }
        self.save_history(&key, history).await?;
        self.get(id).await
    }

    /// Closes the connection to the config centre.
    pub async fn close(self) {
        self.center.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_validated_by_kind_and_keyed_as_java_keys_them() {
        let w = weight_rule(
            true,
            "org.apache.dubbo.interop.InteropService:1.0.0:",
            0,
            &["127.0.0.1:20880".to_owned()],
        );
        validate(Kind::Weight, &w).unwrap();
        assert!(w.contains("key: org.apache.dubbo.interop.InteropService:1.0.0\n"));
        assert!(validate(Kind::Override, "configs: [ {side: provider").is_err());
        assert!(validate(Kind::Migration, "step: SIDEWAYS").is_err());
        validate(Kind::Migration, "step: FORCE_APPLICATION").unwrap();
        assert!(validate(Kind::Condition, "").is_err());
        validate(
            Kind::Condition,
            "configVersion: v3.0\nscope: service\nkey: a.B\nenabled: true\nconditions:\n  - method = sayHello => port = 1\n",
        )
        .unwrap();
        let id = RuleId::parse("weight", "service", "org.Svc:1.0.0").unwrap();
        assert_eq!(
            id.key().unwrap(),
            (
                "org.Svc:1.0.0:.configurators".to_owned(),
                "dubbo".to_owned()
            )
        );
        let id = RuleId::parse("migration", "application", "app").unwrap();
        assert_eq!(id.key().unwrap().1, "DUBBO_SERVICEDISCOVERY_MIGRATION");
        assert!(RuleId::parse("tag", "service", "org.Svc")
            .unwrap()
            .key()
            .is_err());
        assert!(RuleId::parse("script", "service", "org.Svc").is_err());
    }
}
