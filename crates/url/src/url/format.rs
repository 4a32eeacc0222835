//! A [`Url`] as text, the way Java's `URL.buildString` writes it.

use std::fmt;

use super::identity::non_empty;
use super::Url;
use crate::codec::encode;

impl Url {
    /// Java `toFullString`: user info, address, path and every parameter sorted by key.
    ///
    /// ```
    /// let url = dubbo_url::Url::parse("dubbo://u:p@h:1/org.Foo?side=provider&application=demo").unwrap();
    /// assert_eq!(url.to_full_string(), "dubbo://u:p@h:1/org.Foo?application=demo&side=provider");
    /// assert_eq!(url.to_string(), "dubbo://h:1/org.Foo?application=demo&side=provider");
    /// ```
    pub fn to_full_string(&self) -> String {
        self.build_string(true, true, false, &[])
    }

    /// Java `toFullString(String... parameters)`: only the listed parameters (all when empty).
    pub fn to_full_string_with(&self, parameters: &[&str]) -> String {
        self.build_string(true, true, false, parameters)
    }

    /// Java `toString(String... parameters)`: no user info, only the listed parameters (all
    /// when empty). `to_string()` (via `Display`) is Java's `toString()`.
    pub fn to_string_with(&self, parameters: &[&str]) -> String {
        self.build_string(false, true, false, parameters)
    }

    /// Java `toIdentityString`: user info, address and path, no parameters.
    pub fn to_identity_string(&self) -> String {
        self.build_string(true, false, false, &[])
    }

    /// Java `toServiceString`: user info, address and the service key as path. Java resolves
    /// the host to an IP first; this crate does no DNS, so the host is used as written (Java's
    /// `toServiceStringWithoutResolving`).
    pub fn to_service_string(&self) -> String {
        self.build_string(true, false, true, &[])
    }

    /// Java `toServiceString(String... parameters)`: [`to_service_string`](Self::to_service_string)
    /// plus the listed parameters (all when empty).
    pub fn to_service_string_with(&self, parameters: &[&str]) -> String {
        self.build_string(true, true, true, parameters)
    }

    /// Java `toParameterString`: the sorted `k=v&...` part alone.
    pub fn to_parameter_string(&self) -> String {
        self.inner.params.to_query_string()
    }

    /// `encode(to_full_string())`: the name of this Url's node in a ZooKeeper registry
    /// (`/dubbo/{interface}/{category}/{this}`).
    pub fn to_encoded_full_string(&self) -> String {
        encode(&self.to_full_string())
    }

    fn build_string(
        &self,
        append_user: bool,
        append_params: bool,
        use_service: bool,
        includes: &[&str],
    ) -> String {
        let mut buf = String::with_capacity(64 + self.inner.params.len() * 24);
        if let Some(protocol) = non_empty(self.protocol()) {
            buf.push_str(protocol);
            buf.push_str("://");
        }
        if append_user {
            if let Some(user) = non_empty(self.username()) {
                buf.push_str(user);
                if let Some(pass) = non_empty(self.password()) {
                    buf.push(':');
                    buf.push_str(pass);
                }
                buf.push('@');
            }
        }
        if let Some(host) = non_empty(self.host()) {
            buf.push_str(host);
            if self.port() > 0 {
                buf.push(':');
                buf.push_str(&self.port().to_string());
            }
        }
        let service_key;
        let path = if use_service {
            service_key = self.service_key();
            service_key.as_deref()
        } else {
            self.path()
        };
        if let Some(path) = non_empty(path) {
            buf.push('/');
            buf.push_str(path);
        }
        if append_params {
            self.inner.params.write_query(&mut buf, true, includes);
        }
        buf
    }
}

impl fmt::Display for Url {
    /// Java `toString`: no user info, parameters sorted by key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.build_string(false, true, false, &[]))
    }
}
