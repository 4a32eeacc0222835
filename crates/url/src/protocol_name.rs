//! The one place where a protocol's other names are mapped to the name dubbo-rs uses.

/// The name a protocol goes by in URLs, extension tables and configuration checks: `tri` for
/// Triple however it was spelled (Java accepts `triple` in configuration and writes `tri` in
/// URLs), every other name trimmed and otherwise as given.
///
/// ```
/// assert_eq!(dubbo_url::canonical_protocol("triple"), "tri");
/// assert_eq!(dubbo_url::canonical_protocol(" tri "), "tri");
/// assert_eq!(dubbo_url::canonical_protocol("dubbo"), "dubbo");
/// ```
pub fn canonical_protocol(name: &str) -> &str {
    match name.trim() {
        "triple" => "tri",
        other => other,
    }
}

/// Whether `name` names Triple (`tri` or `triple`).
pub fn is_triple(name: &str) -> bool {
    canonical_protocol(name) == "tri"
}
