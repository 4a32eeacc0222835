//! [`Url`]: Dubbo's unified Url.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crate::address::UrlAddress;
use crate::codec::encode;
use crate::error::{snippet, UrlError};
use crate::intern::{Interner, Strings};
use crate::keys;
use crate::params::{java_trim, UrlParams};
use crate::parser::{self, parse_java_int};
use crate::split::java_split;
use crate::text::Text;

/// Dubbo's Url: an address part ([`UrlAddress`]) and a parameter part ([`UrlParams`]).
///
/// Immutable and cheap to clone (one `Arc`). Every `with_*` / `without_*` method returns a new
/// Url that shares whatever did not change. Parsing and formatting follow Java Dubbo 3.3's
/// `URLStrParser` and `URL.buildString` exactly, quirks included; the
/// [crate documentation](crate) lists the forms and the few deliberate differences.
///
/// Equality (`==`, `Hash`) compares every part and every parameter. Java's `URL.equals`
/// ignores the value of `timestamp`; [`equivalent`](Self::equivalent) does that.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Url {
    /// Both halves in one allocation: a registry's provider Url is one reference count to
    /// touch when cloned or dropped, and one pointer where it is kept.
    inner: Arc<Parts>,
}

#[derive(PartialEq, Eq, Hash)]
struct Parts {
    address: UrlAddress,
    params: UrlParams,
}

impl fmt::Debug for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Url")
            .field("address", &self.inner.address)
            .field("params", &self.inner.params)
            .finish()
    }
}

impl Url {
    // ---------------------------------------------------------------- construction

    /// Parses a decoded Url string (Java `URL.valueOf(s)` / `URLStrParser.parseDecodedStr`)
    /// without sharing strings with other Urls. Use [`parse_with`](Self::parse_with) when
    /// parsing many Urls that repeat the same keys and values (registry data).
    ///
    /// ```
    /// let url = dubbo_url::Url::parse("dubbo://admin:pw@10.0.0.1:20880/org.Foo?version=1.0&side=provider").unwrap();
    /// assert_eq!(url.protocol(), Some("dubbo"));
    /// assert_eq!(url.username(), Some("admin"));
    /// assert_eq!(url.host(), Some("10.0.0.1"));
    /// assert_eq!(url.port(), 20880);
    /// assert_eq!(url.path(), Some("org.Foo"));
    /// assert_eq!(url.parameter("side"), Some("provider"));
    /// ```
    pub fn parse(s: &str) -> Result<Url, UrlError> {
        parser::parse_decoded(s, Strings::Fresh)
    }

    /// Like [`parse`](Self::parse), taking keys, common values, protocol and path from
    /// `interner` so equal strings are stored once.
    pub fn parse_with(s: &str, interner: &Interner) -> Result<Url, UrlError> {
        parser::parse_decoded(s, Strings::Interned(interner))
    }

    /// Parses a Url that was percent-encoded as a whole, such as a ZooKeeper provider node name
    /// `dubbo%3A%2F%2F10.0.0.1%3A20880%2Forg.Foo%3Fside%3Dprovider` (Java
    /// `URLStrParser.parseEncodedStr`, i.e. `URL.valueOf(s, true)`), without decoding it first.
    ///
    /// ```
    /// let node = dubbo_url::encode("dubbo://10.0.0.1:20880/org.Foo?methods=a,b&side=provider");
    /// let url = dubbo_url::Url::parse_encoded(&node).unwrap();
    /// assert_eq!(url.parameter("methods"), Some("a,b"));
    /// assert_eq!(url.to_encoded_full_string(), node);
    /// ```
    pub fn parse_encoded(s: &str) -> Result<Url, UrlError> {
        parser::parse_encoded(s, Strings::Fresh)
    }

    /// Like [`parse_encoded`](Self::parse_encoded), sharing strings through `interner`.
    pub fn parse_encoded_with(s: &str, interner: &Interner) -> Result<Url, UrlError> {
        parser::parse_encoded(s, Strings::Interned(interner))
    }

    /// Parses the encoded Url `s` as [`parse_encoded_with`](Self::parse_encoded_with) does
    /// and gives it `params` in place of the parameters `s` carries (none, typically: `s` is
    /// the address of a registry node name whose parameters the caller keeps apart, shared
    /// and layered), so the Url is built once. Fails on the same texts.
    ///
    /// ```
    /// use dubbo_url::{Interner, Url, UrlParams};
    /// let interner = Interner::new();
    /// let params = UrlParams::parse("side=provider");
    /// let url = Url::parse_encoded_with_params("dubbo%3A%2F%2F10.0.0.1%3A20880%2Forg.Foo", &interner, params).unwrap();
    /// assert_eq!(url.to_string(), "dubbo://10.0.0.1:20880/org.Foo?side=provider");
    /// ```
    pub fn parse_encoded_with_params(
        s: &str,
        interner: &Interner,
        params: UrlParams,
    ) -> Result<Url, UrlError> {
        parser::parse_encoded_with_params(s, Strings::Interned(interner), params)
    }

    /// Puts an address part and a parameter part together.
    pub fn from_parts(address: UrlAddress, params: UrlParams) -> Url {
        Url {
            inner: Arc::new(Parts { address, params }),
        }
    }

    /// Starts building a Url from parts.
    ///
    /// ```
    /// let url = dubbo_url::Url::builder()
    ///     .protocol("tri")
    ///     .host("10.0.0.1")
    ///     .port(50051)
    ///     .path("org.Foo")
    ///     .param("version", "1.0")
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(url.to_string(), "tri://10.0.0.1:50051/org.Foo?version=1.0");
    /// ```
    pub fn builder() -> UrlBuilder {
        UrlBuilder::default()
    }

    /// Whether `a` and `b` are clones of one Url (they share its one allocation), a check
    /// that costs a pointer comparison. Equal Urls parsed separately are not `ptr_eq`; registries that
    /// hand out the same Url for an unchanged provider let consumers skip comparing them.
    pub fn ptr_eq(a: &Url, b: &Url) -> bool {
        Arc::ptr_eq(&a.inner, &b.inner)
    }

    /// The address of this Url's one allocation, shared by its clones: a key for sets of
    /// Urls compared as [`ptr_eq`](Self::ptr_eq) compares them. Only an identity; never
    /// dereferenced.
    pub fn as_ptr(&self) -> *const () {
        Arc::as_ptr(&self.inner).cast()
    }

    /// The address part.
    pub fn address_part(&self) -> &UrlAddress {
        &self.inner.address
    }

    /// The parameter part.
    pub fn params(&self) -> &UrlParams {
        &self.inner.params
    }

    // ---------------------------------------------------------------- address

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

    // ---------------------------------------------------------------- parameters

    /// The raw value of `key`, if present (possibly `""`).
    pub fn parameter(&self, key: &str) -> Option<&str> {
        self.inner.params.get(key)
    }

    /// The value of `key`, or `default` when it is absent or empty (Java
    /// `getParameter(key, defaultValue)`).
    pub fn parameter_or<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        non_empty(self.parameter(key)).unwrap_or(default)
    }

    /// True when `key` has a non-empty value (Java `hasParameter`).
    pub fn has_parameter(&self, key: &str) -> bool {
        non_empty(self.parameter(key)).is_some()
    }

    /// The value of `key` split like Java's `COMMA_SPLIT_PATTERN` (`\s*,+\s*`; trailing empty
    /// items dropped); empty when absent or empty.
    pub fn parameter_list(&self, key: &str) -> Vec<&str> {
        non_empty(self.parameter(key)).map_or_else(Vec::new, |v| java_split(v, &[',']))
    }

    /// `Some(true)` when the value equals `true` ignoring ASCII case, `Some(false)` for any
    /// other non-empty value, `None` when absent or empty (Java `Boolean.parseBoolean`).
    pub fn parameter_bool(&self, key: &str) -> Option<bool> {
        non_empty(self.parameter(key)).map(java_parse_bool)
    }

    /// [`parameter_bool`](Self::parameter_bool) with a default.
    pub fn parameter_bool_or(&self, key: &str, default: bool) -> bool {
        self.parameter_bool(key).unwrap_or(default)
    }

    /// The value parsed as `u64`; `Ok(None)` when absent or empty, an error when malformed.
    pub fn parameter_u64(&self, key: &str) -> Result<Option<u64>, UrlError> {
        self.parameter_parse(key)
    }

    /// The value parsed as `i64` (Java `Long.parseLong` grammar).
    pub fn parameter_i64(&self, key: &str) -> Result<Option<i64>, UrlError> {
        self.parameter_parse(key)
    }

    /// The value parsed as `f64` (Java `Double.parseDouble` decimal grammar: surrounding
    /// control characters and spaces ignored, optional `f`/`d` suffix, `NaN`, `Infinity`).
    pub fn parameter_f64(&self, key: &str) -> Result<Option<f64>, UrlError> {
        match non_empty(self.parameter(key)) {
            None => Ok(None),
            Some(v) => java_parse_double(v)
                .map(Some)
                .ok_or_else(|| invalid(key, v, "f64")),
        }
    }

    /// The value as a number of milliseconds (`timeout=3000` gives 3 s).
    pub fn parameter_duration_ms(&self, key: &str) -> Result<Option<Duration>, UrlError> {
        Ok(self.parameter_u64(key)?.map(Duration::from_millis))
    }

    /// The value parsed with `FromStr`; `Ok(None)` when absent or empty.
    pub fn parameter_parse<T: FromStr>(&self, key: &str) -> Result<Option<T>, UrlError> {
        parse_opt(key, self.parameter(key))
    }

    /// The value of `key` percent-decoded with [`decode`](crate::decode) (Java
    /// `getParameterAndDecoded`); `Ok(None)` when absent or empty.
    pub fn parameter_decoded(&self, key: &str) -> Result<Option<String>, UrlError> {
        non_empty(self.parameter(key))
            .map(crate::codec::decode)
            .transpose()
    }

    /// A Url carried encoded inside a parameter, such as `export=` of a `registry://` Url
    /// or `refer=` of a consumer's registry Url (Java `getUrlParameter`).
    ///
    /// ```
    /// use dubbo_url::{encode, Url};
    /// let provider = "dubbo://10.0.0.7:20880/org.Foo?version=1.0";
    /// let registry = Url::parse("registry://10.0.0.1:2181/org.apache.dubbo.registry.RegistryService")
    ///     .unwrap()
    ///     .with_parameter_encoded("export", provider);
    /// assert!(registry.to_string().ends_with(&format!("?export={}", encode(provider))));
    /// let export = registry.url_parameter("export").unwrap().unwrap();
    /// assert_eq!(export.service_key().as_deref(), Some("org.Foo:1.0"));
    /// ```
    pub fn url_parameter(&self, key: &str) -> Result<Option<Url>, UrlError> {
        match self.parameter_decoded(key)? {
            Some(text) if !text.is_empty() => Url::parse(&text).map(Some),
            _ => Ok(None),
        }
    }

    /// Java `getMethodParameter(method, key)`: the non-empty value of `<method>.<key>` (see
    /// [`UrlParams::method_parameter_strict`]), else the value of `key`.
    ///
    /// ```
    /// let url = dubbo_url::Url::parse("dubbo://h:1/org.Foo?timeout=1000&sayHello.timeout=3000").unwrap();
    /// assert_eq!(url.method_parameter("sayHello", "timeout"), Some("3000"));
    /// assert_eq!(url.method_parameter("bye", "timeout"), Some("1000"));
    /// ```
    pub fn method_parameter(&self, method: &str, key: &str) -> Option<&str> {
        self.method_parameter_strict(method, key)
            .or_else(|| self.parameter(key))
    }

    /// Java `getMethodParameterStrict`: only the method-level value, `None` when empty.
    pub fn method_parameter_strict(&self, method: &str, key: &str) -> Option<&str> {
        self.inner.params.method_parameter_strict(method, key)
    }

    /// [`method_parameter`](Self::method_parameter) parsed as `u64`.
    pub fn method_parameter_u64(&self, method: &str, key: &str) -> Result<Option<u64>, UrlError> {
        parse_opt(key, self.method_parameter(method, key))
    }

    /// [`method_parameter`](Self::method_parameter) as milliseconds.
    pub fn method_parameter_duration_ms(
        &self,
        method: &str,
        key: &str,
    ) -> Result<Option<Duration>, UrlError> {
        Ok(self
            .method_parameter_u64(method, key)?
            .map(Duration::from_millis))
    }

    /// [`method_parameter`](Self::method_parameter) as a Java boolean.
    pub fn method_parameter_bool(&self, method: &str, key: &str) -> Option<bool> {
        non_empty(self.method_parameter(method, key)).map(java_parse_bool)
    }

    /// A copy with `key=value`. Like Java's `addParameter`, an empty key or value leaves the
    /// Url unchanged, and an unchanged value returns a clone of `self`.
    pub fn with_parameter(&self, key: &str, value: &str) -> Url {
        if key.is_empty() || value.is_empty() {
            return self.clone();
        }
        self.with_params(self.inner.params.with(key, value))
    }

    /// A copy with `key` set to `encode(value)` (Java `addParameterAndEncoded`); an empty value
    /// leaves the Url unchanged.
    pub fn with_parameter_encoded(&self, key: &str, value: &str) -> Url {
        self.with_parameter(key, &encode(value))
    }

    /// A copy with `key=value` unless `key` is already present (Java
    /// `addParameterIfAbsent`).
    pub fn with_parameter_if_absent(&self, key: &str, value: &str) -> Url {
        if key.is_empty() || value.is_empty() {
            return self.clone();
        }
        self.with_params(self.inner.params.with_if_absent(key, value))
    }

    /// A copy with all `pairs` set (Java `addParameters`; empty values are kept, as there).
    pub fn with_parameters<'a, I>(&self, pairs: I) -> Url
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        self.with_params(self.inner.params.with_all(pairs))
    }

    /// A copy without `key`.
    pub fn without_parameter(&self, key: &str) -> Url {
        self.with_params(self.inner.params.without(key))
    }

    /// A copy without any of `keys`.
    pub fn without_parameters<'a, I>(&self, keys: I) -> Url
    where
        I: IntoIterator<Item = &'a str>,
    {
        self.with_params(self.inner.params.without_all(keys))
    }

    /// A copy without parameters.
    pub fn clear_parameters(&self) -> Url {
        self.with_params(UrlParams::new())
    }

    // ---------------------------------------------------------------- service identity

    /// The non-empty `interface` parameter, else the path (Java `getServiceInterface`).
    pub fn service_interface(&self) -> Option<&str> {
        non_empty(self.parameter(keys::INTERFACE)).or_else(|| self.path())
    }

    /// The non-empty `group` parameter.
    pub fn group(&self) -> Option<&str> {
        non_empty(self.parameter(keys::GROUP))
    }

    /// The non-empty `version` parameter.
    pub fn version(&self) -> Option<&str> {
        non_empty(self.parameter(keys::VERSION))
    }

    /// The non-empty `side` parameter (`provider` / `consumer`).
    pub fn side(&self) -> Option<&str> {
        non_empty(self.parameter(keys::SIDE))
    }

    /// The non-empty `application` parameter.
    pub fn application(&self) -> Option<&str> {
        non_empty(self.parameter(keys::APPLICATION))
    }

    /// The non-empty `category` parameter.
    pub fn category(&self) -> Option<&str> {
        non_empty(self.parameter(keys::CATEGORY))
    }

    /// `group/interface:version`, each decoration only when non-empty (Java `getServiceKey`,
    /// `URL.buildKey`). Version `0.0.0` is kept, as Java keeps it; see
    /// [`service_key_for_matching`](Self::service_key_for_matching).
    ///
    /// ```
    /// let url = dubbo_url::Url::parse("dubbo://h:1/org.Foo?group=g&version=1.0").unwrap();
    /// assert_eq!(url.service_key().as_deref(), Some("g/org.Foo:1.0"));
    /// ```
    pub fn service_key(&self) -> Option<String> {
        Some(build_key(
            self.service_interface()?,
            self.group(),
            self.version(),
        ))
    }

    /// The service key with version `0.0.0` or `*` treated as no version, the form under which
    /// Java's dubbo protocol registers exporters (`GroupServiceKeyCache`) and so the form two
    /// sides must agree on.
    pub fn service_key_for_matching(&self) -> Option<String> {
        let version = self
            .version()
            .filter(|v| *v != keys::DEFAULT_VERSION && *v != keys::ANY_VALUE);
        Some(build_key(self.service_interface()?, self.group(), version))
    }

    /// Like [`service_key`](Self::service_key) but with the path (when non-empty) instead of
    /// the interface (Java `getPathKey`).
    pub fn path_key(&self) -> Option<String> {
        let inf = non_empty(self.path()).or_else(|| self.service_interface())?;
        Some(build_key(inf, self.group(), self.version()))
    }

    /// `interface[:version]` (Java `getDisplayServiceKey`).
    pub fn display_service_key(&self) -> Option<String> {
        let inf = self.service_interface()?;
        Some(match self.version() {
            Some(v) => format!("{inf}:{v}"),
            None => inf.to_owned(),
        })
    }

    /// The service key followed by `:protocol`, except for `consumer://` Urls (Java
    /// `getProtocolServiceKey`).
    pub fn protocol_service_key(&self) -> Option<String> {
        let key = self.service_key()?;
        Some(if self.protocol() == Some(keys::CONSUMER) {
            key
        } else {
            format!("{key}:{}", self.protocol().unwrap_or("null"))
        })
    }

    /// `interface:version:group` with empty parts keeping their colon, e.g. `org.Foo::` (Java
    /// `getColonSeparatedKey`; versions and groups made of whitespace count as empty). This is
    /// the key of service-scope rules in the config center.
    pub fn colon_separated_key(&self) -> String {
        let mut out = String::from(self.service_interface().unwrap_or(""));
        for key in [keys::VERSION, keys::GROUP] {
            out.push(':');
            if let Some(v) = self.parameter(key).filter(|v| !java_is_blank(v)) {
                out.push_str(v);
            }
        }
        out
    }

    // ---------------------------------------------------------------- formatting

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

    // ---------------------------------------------------------------- backups

    /// The address followed by the `backup` addresses, comma-separated, each given
    /// `default_port` when it has none or port 0 (Java `getBackupAddress(defaultPort)`).
    ///
    /// ```
    /// let url = dubbo_url::Url::parse("zookeeper://10.0.0.1:2181?backup=10.0.0.2:2181,10.0.0.3").unwrap();
    /// assert_eq!(url.backup_address(2181).unwrap(), "10.0.0.1:2181,10.0.0.2:2181,10.0.0.3:2181");
    /// ```
    pub fn backup_address(&self, default_port: u16) -> Result<String, UrlError> {
        let mut out = append_default_port(&self.address(), default_port)?;
        for backup in self.parameter_list(keys::BACKUP) {
            out.push(',');
            out.push_str(&append_default_port(backup, default_port)?);
        }
        Ok(out)
    }

    /// This Url followed by one copy per `backup` address (Java `getBackupUrls`).
    pub fn backup_urls(&self) -> Result<Vec<Url>, UrlError> {
        let mut urls = vec![self.clone()];
        for backup in self.parameter_list(keys::BACKUP) {
            urls.push(self.with_address(backup)?);
        }
        Ok(urls)
    }

    // ---------------------------------------------------------------- equality

    /// Java `URL.equals`: same address part and same parameters, where only the presence (not
    /// the value) of `timestamp` matters, so a provider that re-registers is the same provider.
    pub fn equivalent(&self, other: &Url) -> bool {
        if self.inner.address != other.inner.address {
            return false;
        }
        let (a, b) = (&self.inner.params, &other.inner.params);
        a.len() == b.len()
            && a.iter().all(|(k, v)| match b.get(k) {
                Some(w) => k == keys::TIMESTAMP || v == w,
                None => false,
            })
    }
}

impl fmt::Display for Url {
    /// Java `toString`: no user info, parameters sorted by key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.build_string(false, true, false, &[]))
    }
}

impl FromStr for Url {
    type Err = UrlError;

    /// Same as [`Url::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Url::parse(s)
    }
}

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

/// `Some(s)` only when `s` is non-empty: Java's `StringUtils.isEmpty` checks.
pub(crate) fn non_empty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

/// `BaseServiceMetadata.buildServiceKey(path, group, version)`.
pub(crate) fn build_key(path: &str, group: Option<&str>, version: Option<&str>) -> String {
    let mut out = String::with_capacity(path.len() + 16);
    if let Some(g) = non_empty(group) {
        out.push_str(g);
        out.push('/');
    }
    out.push_str(path);
    if let Some(v) = non_empty(version) {
        out.push(':');
        out.push_str(v);
    }
    out
}

/// Java `URL.appendDefaultPort`.
fn append_default_port(address: &str, default_port: u16) -> Result<String, UrlError> {
    if address.is_empty() || default_port == 0 {
        return Ok(address.to_owned());
    }
    match address.find(':') {
        None => Ok(format!("{address}:{default_port}")),
        Some(i) => {
            let text = &address[i + 1..];
            match parse_java_int(text) {
                Some(0) => Ok(format!("{}{default_port}", &address[..=i])),
                Some(_) => Ok(address.to_owned()),
                None => Err(UrlError::InvalidPort {
                    text: snippet(text),
                    input: snippet(address),
                }),
            }
        }
    }
}

/// Java `Boolean.parseBoolean`.
pub(crate) fn java_parse_bool(s: &str) -> bool {
    s.eq_ignore_ascii_case("true")
}

/// Java `Character.isWhitespace`.
fn java_is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{0B}'
            | '\u{0C}'
            | '\r'
            | '\u{1C}'..='\u{1F}'
            | ' '
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205F}'
            | '\u{3000}'
    )
}

/// Dubbo `StringUtils.isBlank`.
pub(crate) fn java_is_blank(s: &str) -> bool {
    s.chars().all(java_is_whitespace)
}

/// Java `Double.parseDouble` for decimal input.
fn java_parse_double(s: &str) -> Option<f64> {
    let t = java_trim(s);
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "NaN" || unsigned == "Infinity" {
        return t.parse().ok();
    }
    let body = match t.strip_suffix(['f', 'F', 'd', 'D']) {
        Some(rest) => rest,
        None => t,
    };
    // Only digits, sign, dot and exponent: keeps Rust-only spellings ("inf", "nan") out.
    if !body
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    body.parse().ok()
}

fn invalid(key: &str, value: &str, expected: &'static str) -> UrlError {
    UrlError::InvalidParameter {
        key: key.to_owned(),
        value: snippet(value),
        expected,
    }
}

fn parse_opt<T: FromStr>(key: &str, value: Option<&str>) -> Result<Option<T>, UrlError> {
    match non_empty(value) {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| invalid(key, v, std::any::type_name::<T>())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_double() {
        assert_eq!(java_parse_double(" 1.5 "), Some(1.5));
        assert_eq!(java_parse_double("2d"), Some(2.0));
        assert_eq!(java_parse_double("1e3"), Some(1000.0));
        assert_eq!(java_parse_double("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(java_parse_double("NaN").is_some_and(f64::is_nan));
        assert_eq!(java_parse_double("inf"), None);
        assert_eq!(java_parse_double("nan"), None);
        assert_eq!(java_parse_double("0x10"), None);
        assert_eq!(java_parse_double(""), None);
    }

    #[test]
    fn blank_and_bool() {
        assert!(java_is_blank(""));
        assert!(java_is_blank(" \t\u{3000}"));
        assert!(!java_is_blank("\u{A0}"));
        assert!(java_parse_bool("TRUE"));
        assert!(!java_parse_bool("yes"));
    }

    #[test]
    fn default_port_append() {
        assert_eq!(
            append_default_port("10.20.153.10:0", 2181).unwrap(),
            "10.20.153.10:2181"
        );
        assert_eq!(
            append_default_port("10.20.153.10", 2181).unwrap(),
            "10.20.153.10:2181"
        );
        assert_eq!(
            append_default_port("10.20.153.10:1", 2181).unwrap(),
            "10.20.153.10:1"
        );
        assert_eq!(append_default_port("h", 0).unwrap(), "h");
        assert!(append_default_port("a:1,b:2", 2181).is_err());
    }
}
