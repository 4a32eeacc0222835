//! The key layout, as Java Dubbo's etcd3 extensions name keys (see docs/registries.md).

use dubbo_registry::Category;
use dubbo_url::Url;

/// The root when the URL has no `group` (Java's `DEFAULT_ROOT`).
const DEFAULT_ROOT: &str = "dubbo";
/// The root of application instances; Java's etcd3 discovery does not let it change.
pub(crate) const SERVICES_ROOT: &str = "/services";

/// `/{group}`, `/dubbo` by default (`EtcdRegistry` and `EtcdMetadataReport` constructors).
pub(crate) fn root(url: &Url) -> String {
    let group = url
        .parameter("group")
        .filter(|g| !g.is_empty())
        .unwrap_or(DEFAULT_ROOT);
    if group.starts_with('/') {
        group.to_owned()
    } else {
        format!("/{group}")
    }
}

/// `{root}/{URL-encoded interface}` (`EtcdRegistry.toServicePath`).
pub(crate) fn service_path(root: &str, interface: &str) -> String {
    format!(
        "{}/{}",
        root.trim_end_matches('/'),
        dubbo_url::encode(interface)
    )
}

/// `{root}/{encoded interface}/{category}` (`toCategoryPath`).
pub(crate) fn category_path(root: &str, interface: &str, category: Category) -> String {
    format!("{}/{}", service_path(root, interface), category.as_str())
}

/// `{category path}/{URL-encoded full URL}` (`toUrlPath`).
pub(crate) fn url_key(root: &str, url: &Url) -> String {
    let interface = url.service_interface().unwrap_or_default();
    format!(
        "{}/{}",
        category_path(root, interface, Category::of(url)),
        dubbo_url::encode(&url.to_full_string())
    )
}

/// `/services/{app}/{host}:{port}` (`EtcdServiceDiscovery.toPath`).
pub(crate) fn instance_key(app: &str, host: &str, port: u16) -> String {
    format!("{SERVICES_ROOT}/{app}/{host}:{port}")
}

/// `/services/{app}` (`toParentPath`).
pub(crate) fn app_path(app: &str) -> String {
    format!("{SERVICES_ROOT}/{app}")
}

/// `{root}/mapping/{interface}`: the ZooKeeper report's layout (Java's etcd report keeps no
/// mapping).
pub(crate) fn mapping_key(root: &str, interface: &str) -> String {
    format!("{}/mapping/{interface}", root.trim_end_matches('/'))
}

/// `{root}/metadata/{app}/{revision}`: the ZooKeeper report's layout (Java's etcd report keeps
/// no application metadata).
pub(crate) fn metadata_key(root: &str, app: &str, revision: &str) -> String {
    format!("{}/metadata/{app}/{revision}", root.trim_end_matches('/'))
}

/// The interface a key under `{root}/` registers (`{root}/{encoded interface}/{category}/…`),
/// if it is a registration: the metadata report's, the mapping's and the config centre's keys
/// share the root and are not.
pub(crate) fn registered_interface(root: &str, key: &str) -> Option<String> {
    let rest = key
        .strip_prefix(root.trim_end_matches('/'))?
        .strip_prefix('/')?;
    let mut parts = rest.split('/');
    let interface = parts.next()?;
    let category = parts.next()?;
    if matches!(interface, "metadata" | "mapping" | "config")
        || !matches!(
            category,
            "providers" | "consumers" | "configurators" | "routers"
        )
    {
        return None;
    }
    Some(dubbo_url::decode(interface).unwrap_or_else(|_| interface.to_owned()))
}

/// `{root}/metadata/{interface}/{version}/{group}/{side}/{app}`: where a service definition is
/// kept, the ZooKeeper report's path (Java's `MetadataIdentifier` path key under the root).
pub(crate) fn definition_key(root: &str, id: &dubbo_registry::DefinitionId) -> String {
    format!("{}/{}", root.trim_end_matches('/'), id.path_key())
}

/// The key prefix of every application's entry of one service and side (the parent of
/// [`definition_key`]).
pub(crate) fn definition_dir_key(root: &str, id: &dubbo_registry::DefinitionId) -> String {
    format!("{}/{}", root.trim_end_matches('/'), id.side_path_key())
}

/// The direct child of `parent` that `key` names, if it is one (one segment, no deeper
/// path), as Java's `getChildren` filters prefix reads.
pub(crate) fn child<'a>(parent: &str, key: &'a str) -> Option<&'a str> {
    let rest = key.strip_prefix(parent)?.strip_prefix('/')?;
    (!rest.is_empty() && !rest.contains('/')).then_some(rest)
}

/// Java's `String.hashCode` in decimal: what Java's etcd3 client stores as the value of the
/// persistent "directory" keys it creates.
pub(crate) fn java_hash(s: &str) -> String {
    let h = s
        .encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
    h.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_java() {
        let url = Url::parse(
            "dubbo://10.0.0.5:20880/org.foo.Greeter?interface=org.foo.Greeter&side=provider&version=1.0",
        )
        .unwrap();
        let root = root(&Url::parse("etcd3://127.0.0.1:2379").unwrap());
        assert_eq!(root, "/dubbo");
        assert_eq!(
            url_key(&root, &url),
            format!(
                "/dubbo/org.foo.Greeter/providers/{}",
                dubbo_url::encode(&url.to_full_string())
            )
        );
        assert_eq!(root_of("etcd3://h:1?group=/custom"), "/custom".to_owned());
        assert_eq!(
            instance_key("app", "10.0.0.5", 20880),
            "/services/app/10.0.0.5:20880"
        );
    }

    fn root_of(s: &str) -> String {
        root(&Url::parse(s).unwrap())
    }

    #[test]
    fn registrations_name_their_interface() {
        let key = "/dubbo/org.a.B/providers/dubbo%3A%2F%2F1.2.3.4%3A20880%2Forg.a.B";
        assert_eq!(
            registered_interface("/dubbo", key).as_deref(),
            Some("org.a.B")
        );
        assert_eq!(
            registered_interface("/dubbo", "/dubbo/org.a.B").as_deref(),
            None
        );
        assert_eq!(
            registered_interface("/dubbo", "/dubbo/metadata/org.a.B/providers/x"),
            None
        );
        assert_eq!(
            registered_interface("/dubbo", "/dubbo/config/dubbo/k"),
            None
        );
        assert_eq!(
            registered_interface("/dubbo", "/other/org.a.B/providers/x"),
            None
        );
        let id = dubbo_registry::DefinitionId::provider("org.a.B", "1.0.0", "", "app");
        assert_eq!(
            definition_key("/dubbo", &id),
            "/dubbo/metadata/org.a.B/1.0.0/provider/app"
        );
    }

    #[test]
    fn child_is_one_segment() {
        assert_eq!(child("/a/b", "/a/b/c"), Some("c"));
        assert_eq!(child("/a/b", "/a/b"), None);
        assert_eq!(child("/a/b", "/a/b/c/d"), None);
        assert_eq!(child("/a/b", "/a/bc/d"), None);
    }

    #[test]
    fn java_string_hash() {
        // "hello".hashCode() == 99162322; "/dubbo/x/providers" checked against the formula.
        assert_eq!(java_hash("hello"), "99162322");
        assert_eq!(java_hash(""), "0");
        assert_eq!(java_hash("polygenelubricants"), "-2147483648");
    }
}
