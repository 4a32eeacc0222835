//! `dubbo rules get|set|delete|watch`: governance rules in the config centre (what
//! `dubbo-cli config` does), with keys built from an application or service and a rule kind.

use dubbo_config_center::{RuleKind, DEFAULT_GROUP, MIGRATION_GROUP};
use serde_json::json;

use crate::args::{Source, Target};
use crate::commands::{self, Outcome};
use crate::dubbo::output::{self, Format};
use crate::dubbo::CliError;

/// How notes name the program.
const PROG: &str = "dubbo";

/// What the rule is about: a key given as is, or one built from a scope and a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleKey {
    /// `KEY`, as stored.
    Key(String),
    /// `--app A --kind K`: `A.{suffix}`.
    App(String, RuleKind),
    /// `--service IFACE[:VERSION[:GROUP]] --kind K`: `IFACE:VERSION:GROUP.{suffix}`.
    Service(String, RuleKind),
}

/// `override`, `condition`, `tag`, `script` or `migration`.
pub fn parse_kind(text: &str) -> Option<RuleKind> {
    Some(match text {
        "override" | "configurators" => RuleKind::Configurators,
        "condition" | "condition-router" => RuleKind::ConditionRouter,
        "tag" | "tag-router" => RuleKind::TagRouter,
        "script" | "script-router" => RuleKind::ScriptRouter,
        "migration" => RuleKind::Migration,
        _ => return None,
    })
}

impl RuleKey {
    /// The key in the config centre, and the group it lives in unless `--group` says
    /// otherwise (migration rules have their own).
    pub fn resolve(&self) -> Result<(String, &'static str), CliError> {
        let group = |kind: RuleKind| {
            if kind == RuleKind::Migration {
                MIGRATION_GROUP
            } else {
                DEFAULT_GROUP
            }
        };
        match self {
            RuleKey::Key(key) => Ok((key.clone(), DEFAULT_GROUP)),
            RuleKey::App(app, kind) => Ok((format!("{app}.{}", kind.suffix()), group(*kind))),
            RuleKey::Service(service, kind) => {
                if !matches!(kind, RuleKind::Configurators | RuleKind::ConditionRouter) {
                    return Err(CliError::bad(
                        "--kind",
                        format!(
                            "{} rules have application scope only: use --app",
                            kind.suffix()
                        ),
                    ));
                }
                let mut parts: Vec<&str> = service.splitn(3, ':').collect();
                parts.resize(3, "");
                Ok((
                    format!("{}.{}", parts.join(":"), kind.suffix()),
                    DEFAULT_GROUP,
                ))
            }
        }
    }
}

/// One `rules` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleAction {
    /// Print the rule.
    Get,
    /// Write the rule from a file or standard input.
    Set(Source),
    /// Remove the rule.
    Delete,
    /// Print changes, until Ctrl-C or `count` changes.
    Watch(Option<u64>),
}

/// Runs `dubbo rules`, against the config centre at `center`.
pub async fn run(
    center: &str,
    key: &RuleKey,
    group: Option<&str>,
    action: &RuleAction,
    format: Format,
) -> Result<Outcome, CliError> {
    let (key, default_group) = key.resolve()?;
    let target = Target {
        center: center.to_owned(),
        group: group.unwrap_or(default_group).to_owned(),
        key,
    };
    // Read before connecting: a missing file should not wait for a server.
    let value = match action {
        RuleAction::Set(source) => Some(commands::read_value(source)?),
        _ => None,
    };
    let ext = crate::centre::extensions();
    let config = crate::centre::open(&ext, &target.center).await?;
    let outcome: Result<Outcome, CliError> = match (action, format) {
        (RuleAction::Get, Format::Json) => {
            let content = config.get_config(&target.key, &target.group).await;
            match content {
                Ok(content) => output::print_json(&json!({
                    "key": target.key,
                    "group": target.group,
                    "content": content,
                }))
                .map(|()| {
                    if content.is_some() {
                        Outcome::Done
                    } else {
                        Outcome::Missing
                    }
                }),
                Err(e) => Err(e.into()),
            }
        }
        (RuleAction::Get, Format::Table) => {
            Ok(commands::get(PROG, config.as_ref(), &target).await?)
        }
        (RuleAction::Set(_), _) => Ok(commands::put(
            PROG,
            config.as_ref(),
            &target,
            value.as_deref().unwrap_or_default(),
        )
        .await?),
        (RuleAction::Delete, _) => Ok(commands::delete(PROG, config.as_ref(), &target).await?),
        (RuleAction::Watch(count), _) => {
            Ok(commands::watch(PROG, config.as_ref(), &target, *count).await?)
        }
    };
    config.close().await;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_as_java_stores_them() {
        let k = |key: RuleKey| key.resolve().unwrap();
        assert_eq!(
            k(RuleKey::App("demo".into(), RuleKind::Configurators)),
            ("demo.configurators".to_owned(), "dubbo")
        );
        assert_eq!(
            k(RuleKey::Service(
                "org.Foo:1.0.0".into(),
                RuleKind::ConditionRouter
            )),
            ("org.Foo:1.0.0:.condition-router".to_owned(), "dubbo")
        );
        assert_eq!(
            k(RuleKey::App("demo".into(), RuleKind::Migration)),
            ("demo.migration".to_owned(), MIGRATION_GROUP)
        );
        assert!(RuleKey::Service("org.Foo".into(), RuleKind::TagRouter)
            .resolve()
            .is_err());
        assert_eq!(parse_kind("tag"), Some(RuleKind::TagRouter));
        assert_eq!(parse_kind("weight"), None);
    }
}
