//! [`ParamFacts`]: what a directory reads of a provider URL's parameters, read once per
//! shared parameter map of a push.

use dubbo_url::{keys, Url};

/// A provider whose effective URL says `disabled=true` gets no invoker.
pub(crate) const DISABLED_KEY: &str = "disabled";
/// Without `disabled`, `enabled=false` does the same (Java `RegistryDirectory.toInvokers`).
pub(crate) const ENABLED_KEY: &str = keys::ENABLED;

/// Every key [`ParamFacts`] reads.
const KEYS: [&str; 5] = [
    keys::INTERFACE,
    keys::GROUP,
    keys::VERSION,
    DISABLED_KEY,
    ENABLED_KEY,
];

/// The parameters of a provider URL that its identity (see
/// [`KeyIndex`](super::provider_key::KeyIndex)) and its enablement depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ParamFacts<'a> {
    /// The non-empty `interface` parameter (the identity falls back to the path without it).
    pub(crate) interface: Option<&'a str>,
    /// The `group`, `""` when absent or empty.
    pub(crate) group: &'a str,
    /// The `version`, `""` when absent or empty.
    pub(crate) version: &'a str,
    /// The raw `disabled` parameter.
    pub(crate) disabled: Option<&'a str>,
    /// The raw `enabled` parameter.
    pub(crate) enabled: Option<&'a str>,
}

impl<'a> ParamFacts<'a> {
    /// Reads them from `url`.
    pub(crate) fn of(url: &'a Url) -> Self {
        let params = url.params();
        let non_empty = |k: &str| params.get(k).filter(|v| !v.is_empty());
        ParamFacts {
            interface: non_empty(keys::INTERFACE),
            group: non_empty(keys::GROUP).unwrap_or_default(),
            version: non_empty(keys::VERSION).unwrap_or_default(),
            disabled: params.get(DISABLED_KEY),
            enabled: params.get(ENABLED_KEY),
        }
    }
}

/// How many shared maps a [`FactsMemo`] remembers: an application's instances come in a few
/// revisions, usually interleaved.
const REMEMBERED: usize = 4;

/// The facts of the URLs of one walk over a push, read again only when a URL's parameters
/// share none of the last few maps seen (or layer one of the keys themselves).
///
/// A registry's URLs of one service are layered on a few shared maps (one per revision or
/// parameter text), so a walk over 1,000 of them reads five keys a few times instead of
/// 5,000 string-keyed lookups.
#[derive(Default)]
pub(crate) struct FactsMemo<'a> {
    /// Newest first.
    recent: Vec<(&'a Url, ParamFacts<'a>)>,
}

impl<'a> FactsMemo<'a> {
    /// The facts of `url`.
    pub(crate) fn get(&mut self, url: &'a Url) -> ParamFacts<'a> {
        let params = url.params();
        if let Some((_, facts)) = self
            .recent
            .iter()
            .find(|(known, _)| known.params().shares_values(params, &KEYS))
        {
            return *facts;
        }
        let facts = ParamFacts::of(url);
        self.recent.truncate(REMEMBERED - 1);
        self.recent.insert(0, (url, facts));
        facts
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::Arc;

    use super::*;

    #[test]
    fn remembered_facts_are_the_facts_read_afresh() {
        let shared =
            Url::parse("dubbo://0.0.0.0:1/a.B?interface=a.B&group=g&version=1&enabled=false")
                .unwrap();
        let at = |host: &str, pairs: &[(&str, &str)]| {
            let pairs: Vec<(Arc<str>, &str)> =
                pairs.iter().map(|(k, v)| (Arc::from(*k), *v)).collect();
            shared.with_host_port_layered(host, 2, &pairs)
        };
        let urls = [
            at("10.0.0.1", &[("timestamp", "1")]),
            at("10.0.0.2", &[("timestamp", "2")]),
            at("10.0.0.3", &[("disabled", "true"), ("timestamp", "3")]),
            at("10.0.0.4", &[("timestamp", "4")]),
            Url::parse("dubbo://10.0.0.5:2/a.B?group=h&disabled=").unwrap(),
            at("10.0.0.6", &[("version", "2")]),
            Url::parse("dubbo://10.0.0.7:2/a.C?interface=&version=3").unwrap(),
            at("10.0.0.8", &[]),
        ];
        let other = Url::parse("tri://0.0.0.0:1/a.B?interface=a.B&version=9").unwrap();
        // Another shared map in between, as interleaved revisions have it.
        let others: Vec<Url> = (0..urls.len())
            .map(|i| other.with_host_port_layered(&format!("10.0.1.{i}"), 3, &[]))
            .collect();
        let mut memo = FactsMemo::default();
        for (u, v) in urls.iter().zip(&others) {
            assert_eq!(memo.get(u), ParamFacts::of(u), "{u}");
            assert_eq!(memo.get(v).version, "9");
        }
        // More maps than remembered: still read right.
        let many: Vec<Url> = (0..2 * REMEMBERED)
            .map(|i| Url::parse(&format!("dubbo://10.0.2.{i}:1/a.B?version={i}")).unwrap())
            .collect();
        for _ in 0..2 {
            for (i, u) in many.iter().enumerate() {
                assert_eq!(memo.get(u).version, i.to_string());
            }
        }
        let third = ParamFacts::of(&urls[2]);
        assert_eq!(
            (third.disabled, third.enabled),
            (Some("true"), Some("false"))
        );
        assert_eq!(ParamFacts::of(&urls[5]).version, "2");
        assert_eq!(ParamFacts::of(&urls[6]).interface, None);
    }
}
