//! [`Url`]: Dubbo's unified Url.
//!
//! Here: the type and its parsing. Its methods, one file per part: [`address`],
//! [`parameters`], [`identity`] (the service it names), [`format`](mod@format) (as text), [`backup`]
//! addresses; [`builder`] builds one from parts, [`java`] holds Java's parsing rules.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::address::UrlAddress;
use crate::error::UrlError;
use crate::intern::{Interner, Strings};
use crate::keys;
use crate::params::UrlParams;
use crate::parser;

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

impl FromStr for Url {
    type Err = UrlError;

    /// Same as [`Url::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Url::parse(s)
    }
}

mod address;
mod backup;
mod builder;
mod format;
mod identity;
mod java;
mod parameters;
#[cfg(test)]
mod tests;

pub use builder::UrlBuilder;
pub(crate) use identity::non_empty;
pub(crate) use java::java_parse_bool;
