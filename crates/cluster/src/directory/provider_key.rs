//! [`ProviderKey`]: what makes two notified URLs the same provider.

use dubbo_url::Url;

/// The parameter a registry stamps on each registration; it changes without the provider
/// changing, so it is ignored when comparing URLs.
const TIMESTAMP_KEY: &str = "timestamp";

/// The identity of a provider across notifications: protocol, host, port and service key
/// (group/interface:version, or the path when the URL names no interface).
///
/// Two URLs with the same key are the same provider; whether it *changed* is told by
/// [`fingerprint`], which compares everything but the registration `timestamp`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ProviderKey {
    protocol: String,
    host: String,
    port: u16,
    service: String,
}

impl ProviderKey {
    /// The key of the provider `url`.
    pub(crate) fn of(url: &Url) -> Self {
        Self {
            protocol: url.protocol().unwrap_or_default().to_owned(),
            host: url.host().unwrap_or_default().to_owned(),
            port: url.port(),
            service: url
                .service_key()
                .or_else(|| url.path().map(str::to_owned))
                .unwrap_or_default(),
        }
    }
}

/// `url` without its registration timestamp: two URLs of one provider with different
/// fingerprints describe a changed provider (new weight, new tag, new serialization, ...).
pub(crate) fn fingerprint(url: &Url) -> Url {
    if url.params().contains_key(TIMESTAMP_KEY) {
        Url::from_parts(
            url.address_part().clone(),
            url.params().without(TIMESTAMP_KEY),
        )
    } else {
        url.clone()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn identity_ignores_parameters_and_fingerprint_ignores_timestamp() {
        let a =
            Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=100&timestamp=1").unwrap();
        let b =
            Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=100&timestamp=2").unwrap();
        let c = Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=50").unwrap();
        let other_group = Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&group=g").unwrap();
        assert_eq!(ProviderKey::of(&a), ProviderKey::of(&b));
        assert_eq!(ProviderKey::of(&a), ProviderKey::of(&c));
        assert_ne!(ProviderKey::of(&a), ProviderKey::of(&other_group));
        assert_eq!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&a), fingerprint(&c));
    }
}
