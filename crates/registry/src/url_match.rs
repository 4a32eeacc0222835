//! Whether a URL found under a service belongs to a consumer's subscription (Java
//! `UrlUtils.isMatch`): same interface and category, enabled, and group, version and
//! classifier as the consumer asks.

use dubbo_url::Url;

use crate::registry::Category;

const ANY: &str = "*";

/// Whether `provider` (a provider, configurator or router URL) matches the subscription
/// `consumer`.
pub fn is_match(consumer: &Url, provider: &Url) -> bool {
    let (ci, pi) = (consumer.service_interface(), provider.service_interface());
    if ci != Some(ANY) && pi != Some(ANY) && ci != pi {
        return false;
    }
    let wanted = consumer.parameter_list("category");
    let category = Category::of(provider);
    let category_ok = if wanted.is_empty() {
        category == Category::Providers
    } else {
        wanted.contains(&ANY) || wanted.contains(&category.as_str())
    };
    if !category_ok {
        return false;
    }
    if provider.parameter_bool("enabled") == Some(false)
        && consumer.parameter("enabled") != Some(ANY)
    {
        return false;
    }
    let group_ok = match consumer.group() {
        Some(ANY) => true,
        Some(g) if g.contains(',') => provider
            .group()
            .is_some_and(|pg| g.split(',').any(|x| x.trim() == pg)),
        g => g.filter(|s| !s.is_empty()) == provider.group().filter(|s| !s.is_empty()),
    };
    let version_ok = match consumer.version() {
        Some(ANY) => true,
        v => v.filter(|s| !s.is_empty()) == provider.version().filter(|s| !s.is_empty()),
    };
    let classifier_ok = match consumer.parameter("classifier") {
        None | Some(ANY) => true,
        c => c == provider.parameter("classifier"),
    };
    group_ok && version_ok && classifier_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn group_version_and_category_decide() {
        let c = u(
            "consumer://h/org.Foo?interface=org.Foo&group=g&version=1.0&category=providers,routers",
        );
        assert!(is_match(
            &c,
            &u("dubbo://p:1/org.Foo?interface=org.Foo&group=g&version=1.0")
        ));
        assert!(!is_match(
            &c,
            &u("dubbo://p:1/org.Foo?interface=org.Foo&group=h&version=1.0")
        ));
        assert!(!is_match(
            &c,
            &u("dubbo://p:1/org.Foo?interface=org.Foo&group=g&version=2.0")
        ));
        assert!(!is_match(
            &c,
            &u("dubbo://p:1/org.Bar?interface=org.Bar&group=g&version=1.0")
        ));
        assert!(is_match(&c, &u("condition://0.0.0.0/org.Foo?interface=org.Foo&category=routers&group=g&version=1.0")));
        assert!(!is_match(&c, &u("override://0.0.0.0/org.Foo?interface=org.Foo&category=configurators&group=g&version=1.0")));
        assert!(!is_match(
            &c,
            &u("dubbo://p:1/org.Foo?interface=org.Foo&group=g&version=1.0&enabled=false")
        ));
        let any = u("consumer://h/org.Foo?interface=org.Foo&group=*&version=*");
        assert!(is_match(
            &any,
            &u("dubbo://p:1/org.Foo?interface=org.Foo&group=x&version=9")
        ));
        let list = u("consumer://h/org.Foo?interface=org.Foo&group=a,b");
        assert!(is_match(
            &list,
            &u("dubbo://p:1/org.Foo?interface=org.Foo&group=b")
        ));
    }
}
