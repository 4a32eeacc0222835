//! [`UrlBuilder`]: a [`Url`] from parts.

use super::Url;
use crate::address::UrlAddress;
use crate::error::UrlError;
use crate::keys;
use crate::params::UrlParams;

/// Builds a [`Url`] from parts, like Java's `new URL(protocol, username, password, host, port,
/// path, parameters)`.
#[derive(Debug, Clone, Default)]
pub struct UrlBuilder {
    protocol: Option<String>,
    username: Option<String>,
    password: Option<String>,
    host: Option<String>,
    port: u16,
    path: Option<String>,
    params: Vec<(String, String)>,
}

impl UrlBuilder {
    /// Sets the protocol.
    pub fn protocol(mut self, protocol: impl Into<String>) -> Self {
        self.protocol = Some(protocol.into());
        self
    }

    /// Sets the user name.
    pub fn username(mut self, username: impl Into<String>) -> Self {
        self.username = Some(username.into());
        self
    }

    /// Sets the password (requires a user name at [`build`](Self::build)).
    pub fn password(mut self, password: impl Into<String>) -> Self {
        self.password = Some(password.into());
        self
    }

    /// Sets the host.
    pub fn host(mut self, host: impl Into<String>) -> Self {
        self.host = Some(host.into());
        self
    }

    /// Sets the port.
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Sets the path (leading `/` trimmed).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Adds a parameter (a later value for the same key wins).
    pub fn param(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.params.push((key.into(), value.into()));
        self
    }

    /// Builds the Url. Fails with [`UrlError::PasswordWithoutUsername`] as Java's constructor
    /// does. A `default.<key>` parameter also sets `<key>` when that is not given explicitly.
    pub fn build(self) -> Result<Url, UrlError> {
        let address = UrlAddress::new(
            self.protocol.as_deref(),
            self.username.as_deref(),
            self.password.as_deref(),
            self.host.as_deref(),
            self.port,
            self.path.as_deref(),
        )?;
        let mut params: UrlParams = self.params.iter().map(|(k, v)| (k, v)).collect();
        let defaults: Vec<(&str, &str)> = self
            .params
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(keys::DEFAULT_KEY_PREFIX)?, v.as_str())))
            .collect();
        for (bare, value) in defaults {
            params = params.with_if_absent(bare, value);
        }
        Ok(Url::from_parts(address, params))
    }
}
