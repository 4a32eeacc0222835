//! Which of the exports of one service path answers a request, by the `tri-service-group` and
//! `tri-service-version` it names, as Java Dubbo 3.3's Triple server resolves a path
//! (`TriplePathResolver.resolve` with `resolve-fallback-to-default`, its default):
//!
//! 1. the export whose key is exactly the requested one (interface, group, version; a header
//!    left out is no group / no version);
//! 2. else the export of the requested group with version `1.0.0` (Java's default version);
//! 3. else the interface's default export: the one exported with neither group nor version,
//!    or, when there is none, the earliest export still served.
//!
//! So a request that names a version or group no export has still reaches the default one, as
//! a Java provider answers it. Unlike Java, withdrawing an export never withdraws the default
//! of another: the default is read off the exports still served.

use dubbo_core::ServiceKey;

/// Java's default service version (`TripleConstants.DEFAULT_VERSION`), tried when the
/// requested one is not exported.
pub(crate) const DEFAULT_VERSION: &str = "1.0.0";

/// The export (of `exports`, in the order they were exported, all of one service path) that
/// answers a request naming `group` and `version`; `None` only when `exports` is empty.
pub(crate) fn select<'a, T>(
    exports: &'a [T],
    key_of: impl Fn(&T) -> &ServiceKey,
    group: Option<&str>,
    version: Option<&str>,
) -> Option<&'a T> {
    select_keyed(exports, &key_of, group, version).or_else(|| exports.first())
}

/// [`select`]'s first three steps, for exports kept in no order (the unary calls' export
/// table, a hash map): with none of them, no export is chosen rather than an arbitrary one.
pub(crate) fn select_keyed<'a, T>(
    exports: &'a [T],
    key_of: impl Fn(&T) -> &ServiceKey,
    group: Option<&str>,
    version: Option<&str>,
) -> Option<&'a T> {
    // One export answers everything (the common case: no key to compare).
    if let [only] = exports {
        return Some(only);
    }
    let group = group.filter(|g| !g.is_empty());
    let version = version.filter(|v| !v.is_empty() && *v != "0.0.0");
    let is = |k: &ServiceKey, g: Option<&str>, v: Option<&str>| k.group() == g && k.version() == v;
    exports
        .iter()
        .find(|e| is(key_of(e), group, version))
        .or_else(|| {
            exports
                .iter()
                .find(|e| is(key_of(e), group, Some(DEFAULT_VERSION)))
        })
        .or_else(|| exports.iter().find(|e| is(key_of(e), None, None)))
}

/// The export of `requested`'s interface that [`select_keyed`] picks from `exports` for its
/// group and version, with its key; `None` when the interface has no export or the choice
/// would be a guess.
pub(crate) fn java_fallback(
    exports: &dubbo_core::ExportTable,
    requested: &ServiceKey,
) -> Option<(ServiceKey, std::sync::Arc<dyn dubbo_core::Invoker>)> {
    let same: Vec<ServiceKey> = exports
        .keys()
        .into_iter()
        .filter(|k| k.interface() == requested.interface())
        .collect();
    let chosen = select_keyed(&same, |k| k, requested.group(), requested.version())?;
    let invoker = exports.get(chosen)?;
    Some((chosen.clone(), invoker))
}

#[cfg(test)]
mod tests {
    use super::*;

    const I: &str = "org.example.Streams";

    fn keys(spec: &[(Option<&str>, Option<&str>)]) -> Vec<ServiceKey> {
        spec.iter()
            .map(|(g, v)| ServiceKey::new(I, *g, *v))
            .collect()
    }

    fn pick(exports: &[ServiceKey], g: Option<&str>, v: Option<&str>) -> Option<String> {
        select(exports, |k| k, g, v).map(|k| k.to_string())
    }

    #[test]
    fn exact_key_first() {
        let e = keys(&[(None, Some("1.0.0")), (None, Some("2.0.0"))]);
        assert_eq!(pick(&e, None, Some("2.0.0")), Some(format!("{I}:2.0.0")));
        assert_eq!(pick(&e, None, Some("1.0.0")), Some(format!("{I}:1.0.0")));
        // The order of export does not matter for an exact key.
        let e = keys(&[(None, Some("2.0.0")), (None, Some("1.0.0"))]);
        assert_eq!(pick(&e, None, Some("1.0.0")), Some(format!("{I}:1.0.0")));
        assert_eq!(pick(&e, None, Some("2.0.0")), Some(format!("{I}:2.0.0")));
    }

    #[test]
    fn groups_select_too() {
        let e = keys(&[(Some("a"), Some("1.0.0")), (Some("b"), Some("1.0.0"))]);
        assert_eq!(
            pick(&e, Some("b"), Some("1.0.0")),
            Some(format!("b/{I}:1.0.0"))
        );
        // A group without a version: that group's 1.0.0.
        assert_eq!(pick(&e, Some("b"), None), Some(format!("b/{I}:1.0.0")));
        assert_eq!(pick(&e, Some("a"), None), Some(format!("a/{I}:1.0.0")));
    }

    #[test]
    fn no_headers_take_the_default_version() {
        let e = keys(&[(None, Some("2.0.0")), (None, Some("1.0.0"))]);
        assert_eq!(pick(&e, None, None), Some(format!("{I}:1.0.0")));
        // An unknown version falls back to 1.0.0 too, as Java's does.
        assert_eq!(pick(&e, None, Some("9.9.9")), Some(format!("{I}:1.0.0")));
    }

    #[test]
    fn default_export_without_group_or_version() {
        let e = keys(&[(None, Some("2.0.0")), (None, None), (None, Some("3.0.0"))]);
        assert_eq!(pick(&e, None, None), Some(I.to_owned()));
        assert_eq!(pick(&e, Some("x"), Some("9")), Some(I.to_owned()));
        assert_eq!(pick(&e, None, Some("3.0.0")), Some(format!("{I}:3.0.0")));
        // "0.0.0" and empty values mean none.
        assert_eq!(pick(&e, Some(""), Some("0.0.0")), Some(I.to_owned()));
    }

    #[test]
    fn else_the_earliest_export() {
        let e = keys(&[(None, Some("3.0.0")), (None, Some("2.0.0"))]);
        assert_eq!(pick(&e, None, None), Some(format!("{I}:3.0.0")));
        assert_eq!(
            pick(&e, Some("g"), Some("2.0.0")),
            Some(format!("{I}:3.0.0"))
        );
        let one = keys(&[(Some("g"), Some("2.0.0"))]);
        assert_eq!(pick(&one, None, Some("5")), Some(format!("g/{I}:2.0.0")));
        assert_eq!(pick(&[], None, None), None);
    }

    #[test]
    fn in_no_order_no_export_is_guessed() {
        let e = keys(&[(None, Some("3.0.0")), (None, Some("2.0.0"))]);
        assert_eq!(select_keyed(&e, |k| k, None, None), None);
        let e = keys(&[(None, Some("3.0.0")), (None, Some("1.0.0"))]);
        assert_eq!(
            select_keyed(&e, |k| k, None, None).map(|k| k.to_string()),
            Some(format!("{I}:1.0.0"))
        );
    }
}
