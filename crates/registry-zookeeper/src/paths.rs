//! Where things live in ZooKeeper, in Apache Dubbo's layout, so that Java and Rust
//! applications find each other.

use dubbo_registry::RegistryError;
use dubbo_url::Url;

/// The default root of interface-level nodes, the metadata report and the mapping.
pub const DEFAULT_ROOT: &str = "/dubbo";
/// The default root of application instances.
pub const DEFAULT_SERVICES_ROOT: &str = "/services";

/// The root a registry or metadata-report URL asks for: `/` + its `group`, else `/dubbo`.
pub fn root_of(url: &Url) -> String {
    match url.group() {
        Some(group) if group.starts_with('/') => group.to_owned(),
        Some(group) => format!("/{group}"),
        None => DEFAULT_ROOT.to_owned(),
    }
}

/// The root of application instances: the `rootPath` parameter, else `/services`.
pub fn services_root_of(url: &Url) -> String {
    match url.parameter("rootPath").filter(|p| !p.is_empty()) {
        Some(p) if p.starts_with('/') => p.trim_end_matches('/').to_owned(),
        Some(p) => format!("/{}", p.trim_end_matches('/')),
        None => DEFAULT_SERVICES_ROOT.to_owned(),
    }
}

/// `root` with one trailing slash (the root `/` stays `/`).
fn root_dir(root: &str) -> String {
    if root == "/" {
        root.to_owned()
    } else {
        format!("{root}/")
    }
}

/// `/{root}/{URL-encoded interface}`.
pub fn service_path(root: &str, interface: &str) -> String {
    format!("{}{}", root_dir(root), dubbo_url::encode(interface))
}

/// `/{root}/{URL-encoded interface}/{category}`.
pub fn category_path(root: &str, interface: &str, category: &str) -> String {
    format!("{}/{category}", service_path(root, interface))
}

/// The interface a URL is about: its `interface` parameter, else its path.
pub fn interface_of(url: &Url) -> Result<&str, RegistryError> {
    url.service_interface()
        .filter(|i| !i.is_empty())
        .ok_or_else(|| RegistryError::Config {
            key: "interface".to_owned(),
            reason: format!("{} names no interface", url.to_full_string()),
        })
}

/// The node of a registered URL:
/// `/{root}/{URL-encoded interface}/{category, default providers}/{URL-encoded full URL}`.
pub fn url_path(root: &str, url: &Url) -> Result<String, RegistryError> {
    let interface = interface_of(url)?;
    let category = url.category().unwrap_or("providers");
    Ok(format!(
        "{}/{}",
        category_path(root, interface, category),
        dubbo_url::encode(&url.to_full_string())
    ))
}

/// `/{services root}/{app}`.
pub fn app_path(services_root: &str, app: &str) -> String {
    format!("{}{app}", root_dir(services_root))
}

/// `/{services root}/{app}/{host}:{port}`.
pub fn instance_path(services_root: &str, app: &str, id: &str) -> String {
    format!("{}/{id}", app_path(services_root, app))
}

/// `/{root}/mapping/{interface}`.
pub fn mapping_path(root: &str, interface: &str) -> String {
    format!("{}mapping/{interface}", root_dir(root))
}

/// `/{root}/metadata/{app}/{revision}`.
pub fn metadata_path(root: &str, app: &str, revision: &str) -> String {
    format!("{}metadata/{app}/{revision}", root_dir(root))
}

/// `/{root}/metadata/{URL-encoded interface}/{version}/{group}/{side}/{app}`: a service
/// definition (Java's `MetadataIdentifier` path; empty version or group left out).
pub fn definition_path(root: &str, id: &dubbo_registry::DefinitionId) -> String {
    format!("{}{}", root_dir(root), id.path_key())
}

/// The node holding every application's entry of one service and side (the parent of
/// [`definition_path`]).
pub fn definition_dir(root: &str, id: &dubbo_registry::DefinitionId) -> String {
    format!("{}{}", root_dir(root), id.side_path_key())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_layout() {
        let url = Url::parse(
            "dubbo://10.0.0.5:20880/org.foo.Greeter?interface=org.foo.Greeter&side=provider",
        )
        .unwrap();
        assert_eq!(
            url_path("/dubbo", &url).unwrap(),
            "/dubbo/org.foo.Greeter/providers/dubbo%3A%2F%2F10.0.0.5%3A20880%2Forg.foo.Greeter%3Finterface%3Dorg.foo.Greeter%26side%3Dprovider"
        );
        let consumer = url.with_parameter("category", "consumers");
        assert!(url_path("/", &consumer)
            .unwrap()
            .starts_with("/org.foo.Greeter/consumers/"));
        let reg = Url::parse("zookeeper://127.0.0.1:2181?group=mine").unwrap();
        assert_eq!(root_of(&reg), "/mine");
        assert_eq!(
            root_of(&Url::parse("zookeeper://127.0.0.1:2181").unwrap()),
            "/dubbo"
        );
        assert_eq!(
            instance_path("/services", "app", "10.0.0.5:20880"),
            "/services/app/10.0.0.5:20880"
        );
        assert_eq!(mapping_path("/dubbo", "org.Foo"), "/dubbo/mapping/org.Foo");
        assert_eq!(
            metadata_path("/dubbo", "app", "abc"),
            "/dubbo/metadata/app/abc"
        );
        assert_eq!(
            services_root_of(&Url::parse("zookeeper://h:1?rootPath=/x/").unwrap()),
            "/x"
        );
    }
}
