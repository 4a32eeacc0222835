//! The `offline` and `online` commands (and their `App` / `Interface` forms): take the
//! matching services out of the registries, or put them back, while they keep serving.

use dubbo_core::ServiceKey;
use http::StatusCode;
use regex::Regex;

use super::commands::{text, Answer};
use crate::application::Application;
use crate::registry::{RegisterMode, Switch, INTERFACE as METADATA_SERVICE};

/// Java's answer when a service matched.
const OK: &str = "OK";
/// Java's answer when none did (still HTTP 200, as in Java).
const NOT_FOUND: &str = "service not found";

/// Which switch a command name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OnlineCommand {
    /// `online` when true, `offline` when false.
    online: bool,
    /// Both levels (`offline`), application level (`offlineApp`) or interface level
    /// (`offlineInterface`).
    levels: RegisterMode,
}

impl OnlineCommand {
    /// `offline` of every service at both levels (what `gracefulShutdown` runs).
    pub(crate) const OFFLINE_ALL: Self = Self {
        online: false,
        levels: RegisterMode::All,
    };

    /// The command named `name`, if it is one of the six.
    pub(crate) fn named(name: &str) -> Option<Self> {
        let (online, level) = if let Some(rest) = name.strip_prefix("offline") {
            (false, rest)
        } else {
            (true, name.strip_prefix("online")?)
        };
        let levels = match level {
            "" => RegisterMode::All,
            "App" => RegisterMode::Instance,
            "Interface" => RegisterMode::Interface,
            _ => return None,
        };
        Some(Self { online, levels })
    }

    /// Runs the command on `app`'s exports matching the pattern in `args` (all of them when
    /// there is none). The MetadataService is never switched.
    pub(crate) async fn run(self, app: &Application, args: &[String]) -> Answer {
        let pattern = match ServicePattern::from_args(args) {
            Ok(p) => p,
            Err(e) => {
                return text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("invalid service pattern: {e}"),
                )
            }
        };
        let urls: Vec<_> = app
            .exported()
            .into_iter()
            .filter(|e| e.key.interface() != METADATA_SERVICE && pattern.matches(&e.key))
            .map(|e| e.url)
            .collect();
        if urls.is_empty() {
            return text(StatusCode::OK, NOT_FOUND);
        }
        tracing::info!(
            online = self.online,
            levels = ?self.levels,
            pattern = %pattern.0,
            services = urls.len(),
            "QoS switch"
        );
        // Shutdown withdraws every registration; nothing is put back once it has begun.
        let shutting_down = self.online && app.is_shut_down();
        if let (Some(layer), false) = (&app.inner.registry, shutting_down) {
            layer
                .set_online(Switch {
                    urls,
                    online: self.online,
                    levels: self.levels,
                })
                .await;
        }
        text(StatusCode::OK, OK)
    }
}

/// Java's service pattern: a regular expression that the whole service key
/// (`group/interface:version`) or the display key (`interface:version`) must match.
struct ServicePattern(Regex);

impl ServicePattern {
    /// The pattern in the first argument, `.*` when there is none.
    fn from_args(args: &[String]) -> Result<Self, regex::Error> {
        let pattern = args.first().map(String::as_str).unwrap_or(".*");
        // Anchored: Java's `String.matches` is a whole-string match.
        Regex::new(&format!("^(?:{pattern})$")).map(Self)
    }

    fn matches(&self, key: &ServiceKey) -> bool {
        self.0.is_match(&key.to_string()) || self.0.is_match(&display_key(key))
    }
}

/// `interface:version`, or the interface alone when there is no version.
fn display_key(key: &ServiceKey) -> String {
    match key.version() {
        Some(v) => format!("{}:{v}", key.interface()),
        None => key.interface().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(p: Option<&str>) -> ServicePattern {
        let args: Vec<String> = p.into_iter().map(str::to_owned).collect();
        ServicePattern::from_args(&args).unwrap()
    }

    #[test]
    fn names_the_six_commands() {
        let c = |online, levels| Some(OnlineCommand { online, levels });
        assert_eq!(OnlineCommand::named("offline"), c(false, RegisterMode::All));
        assert_eq!(
            OnlineCommand::named("offlineApp"),
            c(false, RegisterMode::Instance)
        );
        assert_eq!(
            OnlineCommand::named("offlineInterface"),
            c(false, RegisterMode::Interface)
        );
        assert_eq!(OnlineCommand::named("online"), c(true, RegisterMode::All));
        assert_eq!(
            OnlineCommand::named("onlineApp"),
            c(true, RegisterMode::Instance)
        );
        assert_eq!(
            OnlineCommand::named("onlineInterface"),
            c(true, RegisterMode::Interface)
        );
        assert_eq!(OnlineCommand::named("offlineapp"), None);
        assert_eq!(OnlineCommand::named("onlineMetadata"), None);
        assert_eq!(OnlineCommand::named("ls"), None);
    }

    #[test]
    fn matches_the_whole_service_key_or_display_key() {
        let grouped = ServiceKey::new("org.example.Echo", Some("g"), Some("1.0.0"));
        let bare = ServiceKey::interface_only("org.example.Echo");
        assert!(pattern(None).matches(&grouped));
        assert!(pattern(Some("g/org.example.Echo:1.0.0")).matches(&grouped));
        assert!(pattern(Some("org.example.Echo:1.0.0")).matches(&grouped));
        assert!(pattern(Some(".*Echo.*")).matches(&grouped));
        // A whole-key match: the bare interface is not enough once there is a version.
        assert!(!pattern(Some("org.example.Echo")).matches(&grouped));
        assert!(!pattern(Some("Echo")).matches(&bare));
        assert!(pattern(Some("org.example.Echo")).matches(&bare));
        assert!(pattern(Some("org\\.example\\..*")).matches(&bare));
        // Alternatives stay inside the anchors.
        assert!(!pattern(Some("x|org")).matches(&bare));
    }

    #[test]
    fn an_invalid_pattern_is_an_error() {
        assert!(ServicePattern::from_args(&["(".to_owned()]).is_err());
    }
}
