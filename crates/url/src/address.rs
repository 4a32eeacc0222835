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
    pub(crate) username: Option<Arc<str>>,
    pub(crate) password: Option<Arc<str>>,
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
            username: username.map(Arc::from),
            password: password.map(Arc::from),
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
        self.username.as_deref()
    }

    /// The password, if any.
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
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
            username: username.map(Arc::from),
            ..self.clone()
        }
    }

    /// A copy with another password (not checked against the user name, as Java's
    /// `setPassword`).
    pub fn with_password(&self, password: Option<&str>) -> Self {
        UrlAddress {
            password: password.map(Arc::from),
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

impl fmt::Debug for UrlAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UrlAddress")
            .field("protocol", &self.protocol())
            .field("username", &self.username())
            .field("password", &self.password.as_ref().map(|_| "***"))
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
