//! The address part of a [`Url`]: protocol, user, host, port, path.

use std::sync::Arc;

use super::Url;
use crate::address::UrlAddress;
use crate::error::{snippet, UrlError};
use crate::keys;
use crate::params::UrlParams;
use crate::parser::parse_java_int;
use crate::text::Text;

impl Url {
    /// The protocol, if any.
    pub fn protocol(&self) -> Option<&str> {
        self.inner.address.protocol()
    }

    /// The user name, if any.
    pub fn username(&self) -> Option<&str> {
        self.inner.address.username()
    }

    /// The password, if any.
    pub fn password(&self) -> Option<&str> {
        self.inner.address.password()
    }

    /// The host, if any (IPv6 hosts keep their brackets).
    pub fn host(&self) -> Option<&str> {
        self.inner.address.host()
    }

    /// The port, `0` when absent.
    pub fn port(&self) -> u16 {
        self.inner.address.port()
    }

    /// The port, or `default` when it is 0.
    pub fn port_or(&self, default: u16) -> u16 {
        match self.port() {
            0 => default,
            p => p,
        }
    }

    /// The path without leading `/`, if any.
    pub fn path(&self) -> Option<&str> {
        self.inner.address.path()
    }

    /// The path with one leading `/` (Java `getAbsolutePath`).
    pub fn absolute_path(&self) -> Option<String> {
        self.path().map(|p| format!("/{p}"))
    }

    /// `host:port`, or the host alone when the port is 0 (Java `getAddress`).
    pub fn address(&self) -> String {
        self.inner.address.address()
    }

    /// Java `getUserInformation`: `user:password`, `user:`, `:password`, or `""`.
    pub fn user_information(&self) -> String {
        let user = self.username().unwrap_or("");
        let pass = self.password().unwrap_or("");
        if user.is_empty() && pass.is_empty() {
            String::new()
        } else {
            format!("{user}:{pass}")
        }
    }

    /// Java `getAuthority`: `[user:password@]host[:port]`, `None` when all parts are empty.
    pub fn authority(&self) -> Option<String> {
        let mut out = self.user_information();
        if let Some(host) = self.host().filter(|h| !h.is_empty()) {
            if !out.is_empty() {
                out.push('@');
            }
            out.push_str(host);
            if self.port() != 0 {
                out.push(':');
                out.push_str(&self.port().to_string());
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// True for host `0.0.0.0` or `anyhost=true` (Java `isAnyHost`).
    pub fn is_any_host(&self) -> bool {
        self.host() == Some(keys::ANYHOST_VALUE) || self.parameter_bool_or(keys::ANYHOST, false)
    }

    /// True for `localhost`, `127.x.y.z`, or `localhost=true` (Java `isLocalHost`).
    pub fn is_local_host(&self) -> bool {
        let host_is_local = self.host().is_some_and(|h| {
            h.eq_ignore_ascii_case("localhost")
                || h.strip_prefix("127.").is_some_and(|rest| {
                    let parts: Vec<&str> = rest.split('.').collect();
                    parts.len() == 3
                        && parts.iter().all(|p| {
                            (1..=3).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit())
                        })
                })
        });
        host_is_local || self.parameter_bool_or(keys::LOCALHOST, false)
    }

    /// A copy with another protocol.
    pub fn with_protocol(&self, protocol: &str) -> Url {
        self.with_address_part(self.inner.address.with_protocol(Some(protocol)))
    }

    /// A copy with another user name.
    pub fn with_username(&self, username: &str) -> Url {
        self.with_address_part(self.inner.address.with_username(Some(username)))
    }

    /// A copy with another password.
    pub fn with_password(&self, password: &str) -> Url {
        self.with_address_part(self.inner.address.with_password(Some(password)))
    }

    /// A copy with another host.
    pub fn with_host(&self, host: &str) -> Url {
        self.with_address_part(self.inner.address.with_host(Some(host)))
    }

    /// A copy with another port.
    pub fn with_port(&self, port: u16) -> Url {
        self.with_address_part(self.inner.address.with_port(port))
    }

    /// A copy with another path (leading `/` trimmed).
    pub fn with_path(&self, path: &str) -> Url {
        self.with_address_part(self.inner.address.with_path(Some(path)))
    }

    /// A copy with host and port taken from `host[:port]`, split at the last `:` (Java
    /// `setAddress`); without a `:` only the host changes.
    pub fn with_address(&self, address: &str) -> Result<Url, UrlError> {
        let (host, port) = match address.rfind(':') {
            Some(i) => {
                let text = &address[i + 1..];
                let port = parse_java_int(text).ok_or_else(|| UrlError::InvalidPort {
                    text: snippet(text),
                    input: snippet(address),
                })?;
                let port = u16::try_from(port.max(0)).map_err(|_| UrlError::PortOutOfRange {
                    port: i64::from(port),
                })?;
                (&address[..i], port)
            }
            None => (address, self.port()),
        };
        Ok(self.with_address_part(self.inner.address.with_host(Some(host)).with_port(port)))
    }

    /// A copy at `host` and `port` with `pairs` layered on its parameters (see
    /// [`UrlParams::layered_pairs`]), built in one step: the same Url as
    /// `with_host(host).with_port(port)` given `params().layered_pairs(pairs)`, without the
    /// intermediate copies. Made for a registry stamping one template per provider instance.
    ///
    /// ```
    /// use std::sync::Arc;
    /// let template = dubbo_url::Url::parse("tri://0.0.0.0/a.B?interface=a.B").unwrap();
    /// let url = template.with_host_port_layered("10.0.0.1", 50051, &[(Arc::from("timestamp"), "42")]);
    /// assert_eq!(url.to_string(), "tri://10.0.0.1:50051/a.B?interface=a.B&timestamp=42");
    /// ```
    pub fn with_host_port_layered(&self, host: &str, port: u16, pairs: &[(Arc<str>, &str)]) -> Url {
        let address = UrlAddress {
            host: Some(Text::new(host)),
            port,
            ..self.inner.address.clone()
        };
        Url::from_parts(address, self.inner.params.layered_pairs(pairs))
    }

    /// A copy with a whole new address part (the parameters are shared).
    pub fn with_address_part(&self, address: UrlAddress) -> Url {
        Url::from_parts(address, self.inner.params.clone())
    }

    /// A copy with a whole new parameter part (the address's strings are shared).
    pub fn with_params(&self, params: UrlParams) -> Url {
        Url::from_parts(self.inner.address.clone(), params)
    }
}
