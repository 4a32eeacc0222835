//! [`is_match`]: whether a registered URL is one a subscriber asked for (Java's
//! `UrlUtils.isMatch`).

use dubbo_registry::Category;
use dubbo_url::Url;

const ANY: &str = "*";

/// Whether `provider` belongs to the service, category, group, version and classifier that
/// `consumer` subscribed to, and is enabled.
pub(crate) fn is_match(consumer: &Url, provider: &Url) -> bool {
    let ci = consumer.service_interface().unwrap_or_default();
    let pi = provider.service_interface().unwrap_or_default();
    if !(ci == ANY || pi == ANY || ci == pi) {
        return false;
    }
    if !category_matches(consumer, Category::of(provider)) {
        return false;
    }
    if !provider.parameter_bool_or("enabled", true) && consumer.parameter("enabled") != Some(ANY) {
        return false;
    }
    let cg = consumer.group().unwrap_or_default();
    let pg = provider.group().unwrap_or_default();
    let group_ok = cg == ANY || cg == pg || cg.split(',').any(|g| g.trim() == pg && !pg.is_empty());
    let cv = consumer.version().unwrap_or_default();
    let version_ok = cv == ANY || cv == provider.version().unwrap_or_default();
    let cc = consumer.parameter("classifier").unwrap_or_default();
    let classifier_ok = cc == ANY || cc == provider.parameter("classifier").unwrap_or_default();
    group_ok && version_ok && classifier_ok
}

/// Java's `isMatchCategory`: `*` takes all, `-name` excludes, no list means providers.
fn category_matches(consumer: &Url, category: Category) -> bool {
    let wanted = consumer.parameter_list("category");
    if wanted.is_empty() {
        return category == Category::Providers;
    }
    let name = category.as_str();
    if wanted.contains(&ANY) {
        return true;
    }
    wanted.contains(&name) && !wanted.iter().any(|w| w.strip_prefix('-') == Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn group_version_and_category() {
        let consumer =
            url("consumer://1.1.1.1/a.B?interface=a.B&group=g1&version=1.0&category=providers");
        assert!(is_match(
            &consumer,
            &url("dubbo://2.2.2.2:1/a.B?interface=a.B&group=g1&version=1.0")
        ));
        assert!(!is_match(
            &consumer,
            &url("dubbo://2.2.2.2:1/a.B?interface=a.B&group=g2&version=1.0")
        ));
        assert!(!is_match(
            &consumer,
            &url("dubbo://2.2.2.2:1/a.B?interface=a.B&group=g1&version=2.0")
        ));
        assert!(!is_match(
            &consumer,
            &url("dubbo://2.2.2.2:1/a.B?interface=a.B&group=g1&version=1.0&enabled=false")
        ));
        let any = url(
            "consumer://1.1.1.1/a.B?interface=a.B&group=*&version=*&category=providers,routers",
        );
        assert!(is_match(
            &any,
            &url("dubbo://2.2.2.2:1/a.B?interface=a.B&group=x&version=9")
        ));
        assert!(is_match(
            &any,
            &url("condition://0.0.0.0/a.B?interface=a.B&category=routers")
        ));
        assert!(!is_match(
            &any,
            &url("override://0.0.0.0/a.B?interface=a.B&category=configurators")
        ));
        let list = url("consumer://1.1.1.1/a.B?interface=a.B&group=g1,g2&category=providers");
        assert!(is_match(
            &list,
            &url("dubbo://2.2.2.2:1/a.B?interface=a.B&group=g2")
        ));
    }
}
