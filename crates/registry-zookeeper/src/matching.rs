//! Which registered URLs a subscription receives (Java's `UrlUtils.isMatch`), and the
//! `empty://` URL that stands for "none".

use dubbo_url::Url;

const ANY: &str = "*";

/// Whether `provider` (a URL read from the registry) belongs to the subscription `consumer`.
///
/// The interfaces must be equal (or either be `*`); the provider's category must be one the
/// consumer asked for; a provider with `enabled=false` is left out unless the consumer says
/// `enabled=*`; the consumer's group must be `*`, equal to the provider's, or a comma list
/// containing it; its version `*` or equal; its `classifier` (default `*`) `*` or equal. A
/// consumer without group or version therefore only matches providers without them.
pub fn is_match(consumer: &Url, provider: &Url) -> bool {
    let ci = consumer.service_interface();
    let pi = provider.service_interface();
    if !(ci == Some(ANY) || pi == Some(ANY) || ci == pi) {
        return false;
    }
    if !is_match_category(
        provider.category().unwrap_or("providers"),
        consumer.category().unwrap_or("providers"),
    ) {
        return false;
    }
    if provider.parameter("enabled") == Some("false") && consumer.parameter("enabled") != Some(ANY)
    {
        return false;
    }
    let cg = consumer.group();
    let pg = provider.group();
    let group_ok = cg == Some(ANY) || cg == pg || is_contains(cg, pg);
    let cv = consumer.version();
    let version_ok = cv == Some(ANY) || cv == provider.version();
    let cc = consumer.parameter("classifier").unwrap_or(ANY);
    let classifier_ok = cc == ANY || Some(cc) == provider.parameter("classifier");
    group_ok && version_ok && classifier_ok
}

/// Java's `UrlUtils.isMatchCategory`: substring tests on the comma list, as Java does them.
fn is_match_category(category: &str, categories: &str) -> bool {
    if categories.is_empty() {
        category == "providers"
    } else if categories.contains(ANY) {
        true
    } else if categories.contains('-') {
        !categories.contains(&format!("-{category}"))
    } else {
        categories.contains(category)
    }
}

/// Whether the comma list `values` holds `value` (both non-empty).
fn is_contains(values: Option<&str>, value: Option<&str>) -> bool {
    match (values, value) {
        (Some(values), Some(value)) if !value.is_empty() => {
            values.split(',').map(str::trim).any(|v| v == value)
        }
        _ => false,
    }
}

/// The `empty://` URL pushed when a category has no matching URL: the consumer URL with
/// protocol `empty` and `category` set to the category.
pub fn empty_url(consumer: &Url, category: &str) -> Url {
    consumer
        .with_protocol("empty")
        .with_parameter("category", category)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn group_and_version_rules() {
        let p = url("dubbo://1.1.1.1:1/org.Foo?interface=org.Foo&group=g1&version=1.0");
        let plain = url("dubbo://1.1.1.1:1/org.Foo?interface=org.Foo");
        let c = |q: &str| url(&format!("consumer://2.2.2.2/org.Foo?interface=org.Foo{q}"));
        assert!(is_match(&c("&group=g1&version=1.0"), &p));
        assert!(is_match(&c("&group=*&version=*"), &p));
        assert!(is_match(&c("&group=g0, g1&version=1.0"), &p));
        assert!(!is_match(&c("&group=g2&version=1.0"), &p));
        assert!(!is_match(&c("&group=g1&version=2.0"), &p));
        assert!(!is_match(&c(""), &p));
        assert!(is_match(&c(""), &plain));
        assert!(!is_match(&c("&group=g1"), &plain));
        let disabled = plain.with_parameter("enabled", "false");
        assert!(!is_match(&c(""), &disabled));
        assert!(is_match(&c("&enabled=*"), &disabled));
        let other = url("dubbo://1.1.1.1:1/org.Bar?interface=org.Bar");
        assert!(!is_match(&c(""), &other));
        let routers = url("route://0.0.0.0/org.Foo?category=routers");
        assert!(!is_match(&c(""), &routers));
        assert!(is_match(&c("&category=providers,routers"), &routers));
    }

    #[test]
    fn empty_keeps_the_consumer() {
        let c = url("consumer://2.2.2.2/org.Foo?interface=org.Foo&category=providers,routers");
        let e = empty_url(&c, "routers");
        assert_eq!(e.protocol(), Some("empty"));
        assert_eq!(e.host(), Some("2.2.2.2"));
        assert_eq!(e.parameter("category"), Some("routers"));
    }
}
