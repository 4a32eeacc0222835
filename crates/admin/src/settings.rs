//! [`Settings`]: what the admin is started with: the registry, the port, the users and their
//! roles, the session key, the data directory and where instances serve QoS.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use dubbo_cli::dubbo::tls::TlsFlags;

use crate::error::AdminError;
use crate::users::{Role, User};

/// The port the admin listens on unless told otherwise (CONTRACT: 38080).
pub const DEFAULT_PORT: u16 = 38080;

/// The QoS port assumed for an instance nobody configured one for: Java Dubbo's default.
pub const DEFAULT_QOS_PORT: u16 = 22222;

/// The admin's settings, from flags and the configuration file.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The registry (and, as Java's default, config centre and metadata report) URL.
    pub registry: String,
    /// The config centre URL, when it is not the registry.
    pub config_center: Option<String>,
    /// The port on 127.0.0.1.
    pub port: u16,
    /// Where the session key, a generated password and the audit log are kept.
    pub data_dir: PathBuf,
    /// The users who may log in.
    pub users: Vec<User>,
    /// The key that signs session cookies, when configured (else generated and kept in the
    /// data directory).
    pub session_key: Option<String>,
    /// The QoS port of instances whose application has none in `qos_ports`.
    pub qos_port: u16,
    /// QoS ports by application.
    pub qos_ports: BTreeMap<String, u16>,
    /// A Prometheus server scraping the instances (`http://host:port`), for metrics over time.
    pub prometheus: Option<String>,
    /// The most providers and instances the catalog is kept live for (through watches); a
    /// registry holding more is re-read instead.
    pub watch_limit: usize,
    /// The TLS instances are dialled with (their MetadataService, generic calls); plaintext
    /// without a CA.
    pub tls: TlsFlags,
}

/// The default of [`Settings::watch_limit`]: the registries' watches keep a copy of every
/// provider URL and instance, and a data watch per instance, which at 100,000 instances costs
/// ~250 MB more than the catalog itself.
pub const DEFAULT_WATCH_LIMIT: usize = 20_000;

/// The configuration file (`--config FILE`, YAML).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FileSettings {
    /// `users: [{name, password | password-sha256, role}]`.
    #[serde(default)]
    pub users: Vec<FileUser>,
    /// `session-key`: a secret of at least 32 characters.
    #[serde(default)]
    pub session_key: Option<String>,
    /// `data-dir`.
    #[serde(default)]
    pub data_dir: Option<PathBuf>,
    /// `qos-port`.
    #[serde(default)]
    pub qos_port: Option<u16>,
    /// `qos-ports: {application: port}`.
    #[serde(default)]
    pub qos_ports: BTreeMap<String, u16>,
    /// `config-center`: a config centre other than the registry.
    #[serde(default)]
    pub config_center: Option<String>,
    /// `prometheus`: a Prometheus server's base URL (`http://host:port`).
    #[serde(default)]
    pub prometheus: Option<String>,
    /// `watch-limit`: the most providers and instances kept live through watches.
    #[serde(default)]
    pub watch_limit: Option<usize>,
    /// `tls-ca`: the CA certificates (PEM) providers' certificates chain to; instances are
    /// dialled with TLS when it is set.
    #[serde(default)]
    pub tls_ca: Option<PathBuf>,
    /// `tls-cert`: the client certificate chain (PEM) presented for mutual TLS.
    #[serde(default)]
    pub tls_cert: Option<PathBuf>,
    /// `tls-key`: the private key (PEM) of `tls-cert`.
    #[serde(default)]
    pub tls_key: Option<PathBuf>,
}

/// One user of the configuration file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FileUser {
    /// The login name.
    pub name: String,
    /// The password in clear text (better kept out of files others read).
    #[serde(default)]
    pub password: Option<String>,
    /// The password's SHA-256, hexadecimal.
    #[serde(default)]
    pub password_sha256: Option<String>,
    /// `admin` or `read-only`.
    pub role: String,
}

impl FileSettings {
    /// Reads the configuration file at `path`.
    pub fn read(path: &Path) -> Result<Self, AdminError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| AdminError::io(path.display().to_string(), &e))?;
        serde_yaml_ng::from_str(&text)
            .map_err(|e| AdminError::Config(format!("{}: {e}", path.display())))
    }

    /// The users, checked: a known role, exactly one kind of password, a name used once.
    pub fn users(&self) -> Result<Vec<User>, AdminError> {
        let mut users: Vec<User> = Vec::new();
        for u in &self.users {
            let role = Role::parse(&u.role).ok_or_else(|| {
                AdminError::Config(format!(
                    "user {}: role {:?} is not admin or read-only",
                    u.name, u.role
                ))
            })?;
            let user = match (&u.password, &u.password_sha256) {
                (Some(p), None) if !p.is_empty() => User::with_password(&u.name, p, role),
                (None, Some(h)) => User::with_digest(&u.name, h, role)?,
                _ => {
                    return Err(AdminError::Config(format!(
                        "user {}: give one non-empty password or password-sha256",
                        u.name
                    )))
                }
            };
            if users.iter().any(|x| x.name == user.name) {
                return Err(AdminError::Config(format!("user {} given twice", u.name)));
            }
            users.push(user);
        }
        Ok(users)
    }
}

impl Settings {
    /// The QoS port of an instance of `app`.
    pub fn qos_port_of(&self, app: &str) -> u16 {
        self.qos_ports.get(app).copied().unwrap_or(self.qos_port)
    }

    /// The config centre: the one configured, else the registry.
    pub fn center(&self) -> &str {
        self.config_center.as_deref().unwrap_or(&self.registry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_are_checked() {
        let f: FileSettings = serde_yaml_ng::from_str(
            "users:\n  - {name: a, password: pw, role: admin}\n  - {name: b, password: x, role: read-only}\n",
        )
        .unwrap();
        let users = f.users().unwrap();
        assert_eq!(users.len(), 2);
        assert!(users[0].check("pw") && !users[0].check("x"));
        assert_eq!(users[1].role, Role::ReadOnly);
        let bad: FileSettings =
            serde_yaml_ng::from_str("users:\n  - {name: a, password: '', role: admin}\n").unwrap();
        assert!(bad.users().is_err());
        let role: FileSettings =
            serde_yaml_ng::from_str("users:\n  - {name: a, password: p, role: root}\n").unwrap();
        assert!(role.users().is_err());
        assert!(serde_yaml_ng::from_str::<FileSettings>("userz: []").is_err());
    }
}
