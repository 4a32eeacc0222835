//! The parameters of a [`Url`]: typed reads (Java's parsing rules) and `with_*` copies.

use std::str::FromStr;
use std::time::Duration;

use super::identity::non_empty;
use super::java::{java_parse_bool, java_parse_double};
use super::Url;
use crate::codec::encode;
use crate::error::{snippet, UrlError};
use crate::params::UrlParams;
use crate::split::java_split;

impl Url {
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
}

pub(super) fn invalid(key: &str, value: &str, expected: &'static str) -> UrlError {
    UrlError::InvalidParameter {
        key: key.to_owned(),
        value: snippet(value),
        expected,
    }
}

pub(super) fn parse_opt<T: FromStr>(key: &str, value: Option<&str>) -> Result<Option<T>, UrlError> {
    match non_empty(value) {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| invalid(key, v, std::any::type_name::<T>())),
    }
}
