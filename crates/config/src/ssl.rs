//! `dubbo.ssl`: TLS for the application's ports and connections, with Java Dubbo's keys
//! (`org.apache.dubbo.config.SslConfig`), plus two of dubbo-rs's own: plaintext beside TLS on
//! one port, and how often the certificate files are looked at for a change.
//!
//! - The server side is on when `server-key-cert-chain-path` and `server-private-key-path` are
//!   set: every dubbo:// and tri:// port serves TLS, except one whose protocol says
//!   `ssl-enabled: false`. With `server-trust-cert-collection-path`, client certificates signed
//!   by those CAs are required (mutual TLS).
//! - The client side is on when `client-trust-cert-collection-path` is set: every connection
//!   dials TLS, except references whose URL says `ssl-enabled=false`; with
//!   `client-key-cert-chain-path` and `client-private-key-path` it presents that certificate.

use std::path::PathBuf;
use std::time::Duration;

use dubbo_tls::{ClientTlsSettings, ServerTlsSettings};
use serde::{Deserialize, Serialize};

use crate::{lenient, ConfigError, DubboConfig};

/// `dubbo.ssl`.
#[derive(Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SslConfig {
    /// `server-key-cert-chain-path`: the servers' certificate chain (PEM, leaf first).
    #[serde(default, deserialize_with = "lenient::text")]
    pub server_key_cert_chain_path: Option<String>,
    /// `server-private-key-path`: the servers' private key (PEM: PKCS#8, PKCS#1, SEC1, or
    /// encrypted PKCS#8 with `server-key-password`).
    #[serde(default, deserialize_with = "lenient::text")]
    pub server_private_key_path: Option<String>,
    /// `server-key-password`: the password of an encrypted server key.
    #[serde(default, deserialize_with = "lenient::text")]
    pub server_key_password: Option<String>,
    /// `server-trust-cert-collection-path`: CA certificates (PEM) that client certificates must
    /// chain to; set, clients must present one (mutual TLS).
    #[serde(default, deserialize_with = "lenient::text")]
    pub server_trust_cert_collection_path: Option<String>,
    /// `client-key-cert-chain-path`: the client certificate chain presented to servers that
    /// ask for one.
    #[serde(default, deserialize_with = "lenient::text")]
    pub client_key_cert_chain_path: Option<String>,
    /// `client-private-key-path`: the client's private key.
    #[serde(default, deserialize_with = "lenient::text")]
    pub client_private_key_path: Option<String>,
    /// `client-key-password`: the password of an encrypted client key.
    #[serde(default, deserialize_with = "lenient::text")]
    pub client_key_password: Option<String>,
    /// `client-trust-cert-collection-path`: CA certificates (PEM) that servers' certificates
    /// must chain to; set, the application's connections use TLS.
    #[serde(default, deserialize_with = "lenient::text")]
    pub client_trust_cert_collection_path: Option<String>,
    /// `server-allow-plaintext` (dubbo-rs): also serve plaintext on the TLS ports, told apart
    /// by the first byte (port unification). Default false. Never under mutual TLS.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub server_allow_plaintext: Option<bool>,
    /// `cert-reload-interval` (dubbo-rs): in ms, how often at most the certificate, key and
    /// trust collection files (server and client side) are looked at for a change (loaded for
    /// new connections). Default 5000; 0 turns reloading off.
    #[serde(default, deserialize_with = "lenient::number")]
    pub cert_reload_interval: Option<u64>,
}

impl std::fmt::Debug for SslConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let masked = |p: &Option<String>| p.as_ref().map(|_| "***");
        f.debug_struct("SslConfig")
            .field(
                "server_key_cert_chain_path",
                &self.server_key_cert_chain_path,
            )
            .field("server_private_key_path", &self.server_private_key_path)
            .field("server_key_password", &masked(&self.server_key_password))
            .field(
                "server_trust_cert_collection_path",
                &self.server_trust_cert_collection_path,
            )
            .field(
                "client_key_cert_chain_path",
                &self.client_key_cert_chain_path,
            )
            .field("client_private_key_path", &self.client_private_key_path)
            .field("client_key_password", &masked(&self.client_key_password))
            .field(
                "client_trust_cert_collection_path",
                &self.client_trust_cert_collection_path,
            )
            .field("server_allow_plaintext", &self.server_allow_plaintext)
            .field("cert_reload_interval", &self.cert_reload_interval)
            .finish()
    }
}

fn path(v: &Option<String>) -> Option<PathBuf> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
}

fn both_or_neither(
    a: &Option<PathBuf>,
    a_key: &str,
    b: &Option<PathBuf>,
    b_key: &str,
) -> Result<(), ConfigError> {
    match (a, b) {
        (Some(_), None) => Err(ConfigError::invalid(
            format!("dubbo.ssl.{b_key}"),
            format!("is required with dubbo.ssl.{a_key}"),
        )),
        (None, Some(_)) => Err(ConfigError::invalid(
            format!("dubbo.ssl.{a_key}"),
            format!("is required with dubbo.ssl.{b_key}"),
        )),
        _ => Ok(()),
    }
}

impl SslConfig {
    /// The servers' TLS settings, if the server side is configured; an incomplete server side
    /// is an error naming the missing key.
    pub fn server_settings(&self) -> Result<Option<ServerTlsSettings>, ConfigError> {
        let chain = path(&self.server_key_cert_chain_path);
        let key = path(&self.server_private_key_path);
        both_or_neither(
            &chain,
            "server-key-cert-chain-path",
            &key,
            "server-private-key-path",
        )?;
        let (Some(chain), Some(key)) = (chain, key) else {
            for (set, name) in [
                (
                    path(&self.server_trust_cert_collection_path).is_some(),
                    "server-trust-cert-collection-path",
                ),
                (self.server_key_password.is_some(), "server-key-password"),
                (
                    self.server_allow_plaintext.is_some(),
                    "server-allow-plaintext",
                ),
            ] {
                if set {
                    return Err(ConfigError::invalid(
                        format!("dubbo.ssl.{name}"),
                        "needs dubbo.ssl.server-key-cert-chain-path and server-private-key-path",
                    ));
                }
            }
            return Ok(None);
        };
        let mut s = ServerTlsSettings::new(chain, key);
        s.key_password = self.server_key_password.clone();
        s.trust = path(&self.server_trust_cert_collection_path);
        s.allow_plaintext = self.server_allow_plaintext.unwrap_or(false);
        if let Some(ms) = self.cert_reload_interval {
            s.reload_interval = Duration::from_millis(ms);
        }
        Ok(Some(s))
    }

    /// The client's TLS settings, if the client side is configured; an incomplete client side
    /// is an error naming the missing key.
    pub fn client_settings(&self) -> Result<Option<ClientTlsSettings>, ConfigError> {
        let chain = path(&self.client_key_cert_chain_path);
        let key = path(&self.client_private_key_path);
        both_or_neither(
            &chain,
            "client-key-cert-chain-path",
            &key,
            "client-private-key-path",
        )?;
        let Some(trust) = path(&self.client_trust_cert_collection_path) else {
            if chain.is_some() || self.client_key_password.is_some() {
                return Err(ConfigError::invalid(
                    "dubbo.ssl.client-trust-cert-collection-path",
                    "is required for a TLS client (the CA certificates that sign the servers' certificates)",
                ));
            }
            return Ok(None);
        };
        Ok(Some(ClientTlsSettings {
            trust: Some(trust),
            cert_chain: chain,
            private_key: key,
            key_password: self.client_key_password.clone(),
            reload_interval: self.cert_reload_interval.map_or(
                dubbo_tls::settings::DEFAULT_RELOAD_INTERVAL,
                Duration::from_millis,
            ),
        }))
    }
}

/// Checks `dubbo.ssl` and every protocol's `ssl-enabled` against it: a protocol that says
/// `ssl-enabled: true` needs the server side.
pub(crate) fn validate(config: &DubboConfig) -> Result<(), ConfigError> {
    let ssl = config.ssl.clone().unwrap_or_default();
    let server = ssl.server_settings()?;
    ssl.client_settings()?;
    for (id, pc) in config.all_protocols() {
        if pc.ssl_enabled == Some(true) && server.is_none() {
            let key = if config.protocols.contains_key(&id) {
                format!("dubbo.protocols.{id}.ssl-enabled")
            } else {
                "dubbo.protocol.ssl-enabled".to_owned()
            };
            return Err(ConfigError::invalid(
                key,
                "TLS needs dubbo.ssl.server-key-cert-chain-path and dubbo.ssl.server-private-key-path",
            ));
        }
    }
    Ok(())
}
