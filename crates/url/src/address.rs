//! The address half of a Url (Java `URLAddress` / `PathURLAddress`).

use std::fmt;
use std::sync::Arc;

use crate::error::UrlError;
use crate::text::Text;

/// Protocol, credentials, host, port and path of a Url: everything but the parameters.
///
/// Dubbo 3 keeps this apart from the parameters so that a registry can share one parameter set
/// between many provider addresses and vice versa; [`Url::from_parts`](crate::Url::from_parts)
/// puts the halves together.
///
/// Absent parts are `None`; a part that was present but empty (`dubbo://host/` has the path
/// `""`) is `Some("")`, as in Java, where the two compare unequal but format the same. The
/// path never starts with `/`: leading slashes are trimmed on construction, as Java's
/// `PathURLAddress` does. A port of `0` means "no port".
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct UrlAddress {
    pub(crate) protocol: Option<Arc<str>>,
    /// User name and password, `None` when both are: registry and provider Urls rarely
    /// carry them, so they cost one pointer there instead of two optional strings.
    pub(crate) credentials: Option<Arc<Credentials>>,
    /// Inline when short (an IPv4 address and most names): no allocation of its own.
    pub(crate) host: Option<Text>,
    pub(crate) port: u16,
    pub(crate) path: Option<Arc<str>>,
}

impl UrlAddress {
    /// Builds an address, rejecting a password without a username as Java's `URL` constructor
    /// does.
    ///
    /// ```
    /// use dubbo_url::UrlAddress;
    /// let a = UrlAddress::new(Some("dubbo"), None, None, Some("10.0.0.1"), 20880, Some("/org.Foo")).unwrap();
    /// assert_eq!(a.path(), Some("org.Foo"));
    /// assert_eq!(a.address(), "10.0.0.1:20880");
    /// assert!(UrlAddress::new(None, None, Some("secret"), Some("h"), 0, None).is_err());
    /// ```
    pub fn new(
        protocol: Option<&str>,
        username: Option<&str>,
        password: Option<&str>,
        host: Option<&str>,
        port: u16,
        path: Option<&str>,
    ) -> Result<Self, UrlError> {
        if username.is_none_or(str::is_empty) && password.is_some_and(|p| !p.is_empty()) {
            return Err(UrlError::PasswordWithoutUsername);
        }
        Ok(UrlAddress {
            protocol: protocol.map(Arc::from),
            credentials: credentials(username.map(Arc::from), password.map(Arc::from)),
            host: host.map(Text::new),
            port,
            path: path.map(|p| Arc::from(trim_leading_slashes(p))),
        })
    }

    /// The protocol (`dubbo`, `tri`, `zookeeper`, ...), if any.
    pub fn protocol(&self) -> Option<&str> {
        self.protocol.as_deref()
    }

    /// The user name, if any.
    pub fn username(&self) -> Option<&str> {
        self.credentials.as_ref()?.username.as_deref()
    }

    /// The password, if any.
    pub fn password(&self) -> Option<&str> {
        self.credentials.as_ref()?.password.as_deref()
    }

    /// The host, if any. IPv6 hosts keep their brackets (`[::1]`), as in Java.
    pub fn host(&self) -> Option<&str> {
        self.host.as_ref().map(Text::as_str)
    }

    /// The port; `0` when there is none.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The path without leading `/`, if any.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// `host:port`, or just the host when the port is 0 (Java `getAddress`). Without a host this
    /// is `""` (or `:port`).
    pub fn address(&self) -> String {
        let host = self.host().unwrap_or("");
        if self.port == 0 {
            host.to_owned()
        } else {
            format!("{host}:{}", self.port)
        }
    }

    /// A copy with another protocol.
    pub fn with_protocol(&self, protocol: Option<&str>) -> Self {
        UrlAddress {
            protocol: protocol.map(Arc::from),
            ..self.clone()
        }
    }

    /// A copy with another user name.
    pub fn with_username(&self, username: Option<&str>) -> Self {
        UrlAddress {
            credentials: credentials(username.map(Arc::from), self.shared_password()),
            ..self.clone()
        }
    }

    /// A copy with another password (not checked against the user name, as Java's
    /// `setPassword`).
    pub fn with_password(&self, password: Option<&str>) -> Self {
        UrlAddress {
            credentials: credentials(self.shared_username(), password.map(Arc::from)),
            ..self.clone()
        }
    }

    /// A copy with another host.
    pub fn with_host(&self, host: Option<&str>) -> Self {
        UrlAddress {
            host: host.map(Text::new),
            ..self.clone()
        }
    }

    /// A copy with another port.
    pub fn with_port(&self, port: u16) -> Self {
        UrlAddress {
            port,
            ..self.clone()
        }
    }

    /// A copy with another path (leading `/` trimmed).
    pub fn with_path(&self, path: Option<&str>) -> Self {
        UrlAddress {
            path: path.map(|p| Arc::from(trim_leading_slashes(p))),
            ..self.clone()
        }
    }
}

impl UrlAddress {
    fn shared_username(&self) -> Option<Arc<str>> {
        self.credentials.as_ref()?.username.clone()
    }

    fn shared_password(&self) -> Option<Arc<str>> {
        self.credentials.as_ref()?.password.clone()
    }
}

/// A Url's user name and password, at least one of them present.
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct Credentials {
    username: Option<Arc<str>>,
    password: Option<Arc<str>>,
}

/// The credentials of `username` and `password`, `None` when both are absent (so that
/// addresses without them compare and hash alike however they were built).
pub(crate) fn credentials(
    username: Option<Arc<str>>,
    password: Option<Arc<str>>,
) -> Option<Arc<Credentials>> {
    (username.is_some() || password.is_some()).then(|| Arc::new(Credentials { username, password }))
}

impl fmt::Debug for UrlAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UrlAddress")
            .field("protocol", &self.protocol())
            .field("username", &self.username())
            .field("password", &self.password().map(|_| "***"))
            .field("host", &self.host())
            .field("port", &self.port)
            .field("path", &self.path())
            .finish()
    }
}

/// Java `PathURLAddress`: `while (path.startsWith("/")) path = path.substring(1)`.
pub(crate) fn trim_leading_slashes(path: &str) -> &str {
    path.trim_start_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn credentials_read_back_and_absent_ones_compare_alike() {
        let plain = UrlAddress::new(Some("dubbo"), None, None, Some("h"), 1, None).unwrap();
        assert!(plain.credentials.is_none());
        let user = plain.with_username(Some("u"));
        assert_eq!((user.username(), user.password()), (Some("u"), None));
        let both = user.with_password(Some("p"));
        assert_eq!((both.username(), both.password()), (Some("u"), Some("p")));
        let pass_only = plain.with_password(Some("p"));
        assert_eq!(
            (pass_only.username(), pass_only.password()),
            (None, Some("p"))
        );
        let cleared = both.with_username(None).with_password(None);
        assert!(cleared.credentials.is_none());
        assert_eq!(cleared, plain);
        let s = std::collections::hash_map::RandomState::new();
        assert_eq!(s.hash_one(&cleared), s.hash_one(&plain));
        assert_ne!(both, plain);
        assert!(!format!("{both:?}").contains("\"p\""));
        let parsed = crate::Url::parse("dubbo://u:p@h:1").unwrap();
        assert_eq!(
            parsed.address_part(),
            &both.with_path(None).with_protocol(Some("dubbo"))
        );
    }
}
