//! What a real Java Dubbo 3.3.6 provider wrote into ZooKeeper, read back with this crate.
//!
//! The fixtures in `tests/fixtures/java-3.3/` come from `interop/java/capture-zk.sh`: a Java
//! provider (application `interop-provider-java`, InteropService 1.0.0 and 2.0.0 over dubbo://
//! on 22980 and tri:// on 52980, the Greeter over tri://, registered as `[::ffff:127.0.0.1]`)
//! registered with Java's defaults (register-mode `all`) in a real ZooKeeper:
//!
//! * `nodes.json`: every node under `/dubbo` and `/services`, path to
//!   `{"ephemeral", "base64", "text"}`;
//! * `metadata-service.json`: the provider's `MetadataService.getMetadataInfo(revision)` answer
//!   for the revision its instance announces.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;

use dubbo_registry::{MetadataInfo, ServiceInfo, ServiceInstance};
use dubbo_url::Url;
use serde_json::Value;

const APP: &str = "interop-provider-java";
const INSTANCE: &str = "/services/interop-provider-java/[::ffff:127.0.0.1]:22980";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/java-3.3")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Path to (ephemeral, text) of every captured node.
fn nodes() -> BTreeMap<String, (bool, String)> {
    let all: BTreeMap<String, Value> = serde_json::from_str(&fixture("nodes.json")).unwrap();
    all.into_iter()
        .map(|(path, node)| {
            let ephemeral = node["ephemeral"].as_bool().unwrap();
            let text = node["text"]
                .as_str()
                .expect("every node is UTF-8")
                .to_owned();
            (path, (ephemeral, text))
        })
        .collect()
}

fn metadata() -> MetadataInfo {
    MetadataInfo::from_json(
        "metadata-service.json",
        fixture("metadata-service.json").as_bytes(),
    )
    .unwrap()
}

/// The provider URLs under `/dubbo/{iface}/providers/`, node name and URL.
fn provider_urls() -> Vec<(String, Url)> {
    nodes()
        .into_iter()
        .filter_map(|(path, (ephemeral, _))| {
            let (parent, name) = path.rsplit_once('/')?;
            if !parent.starts_with("/dubbo/") || !parent.ends_with("/providers") {
                return None;
            }
            assert!(ephemeral, "{path}: provider nodes are ephemeral");
            let url = Url::parse_encoded(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            Some((name.to_owned(), url))
        })
        .collect()
}

#[test]
fn the_tree_has_javas_layout() {
    let nodes = nodes();
    let paths: Vec<&str> = nodes.keys().map(String::as_str).collect();
    for expected in [
        "/dubbo/mapping/org.apache.dubbo.interop.InteropService",
        "/dubbo/mapping/org.apache.dubbo.interop.tri.Greeter",
        "/dubbo/org.apache.dubbo.interop.InteropService/providers",
        "/dubbo/org.apache.dubbo.interop.InteropService/configurators",
        "/dubbo/org.apache.dubbo.interop.tri.Greeter/providers",
        "/dubbo/config/DUBBO_SERVICEDISCOVERY_MIGRATION",
        "/dubbo/metadata/org.apache.dubbo.interop.InteropService/1.0.0/provider/interop-provider-java",
        "/dubbo/metadata/org.apache.dubbo.interop.InteropService/2.0.0/provider/interop-provider-java",
        // No version and no group: PathUtils drops the empty segments.
        "/dubbo/metadata/org.apache.dubbo.interop.tri.Greeter/provider/interop-provider-java",
        INSTANCE,
    ] {
        assert!(paths.contains(&expected), "{expected} missing from {paths:#?}");
    }
    // The mapping lists the application; no metadata report entry per revision
    // (report-metadata is off by default, storage-type local).
    assert_eq!(
        nodes["/dubbo/mapping/org.apache.dubbo.interop.InteropService"].1,
        APP
    );
    assert!(!paths
        .iter()
        .any(|p| p.starts_with("/dubbo/metadata/interop-provider-java")));
    // Only the registrations are ephemeral: 5 provider URLs and the instance.
    let ephemeral: Vec<&str> = nodes
        .iter()
        .filter(|(_, (e, _))| *e)
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(ephemeral.len(), 6, "{ephemeral:#?}");
    // Nothing names another interface than the loopback.
    for (path, (_, text)) in &nodes {
        for s in [path, text] {
            for host in s.split(|c: char| !(c.is_ascii_digit() || c == '.')) {
                if host.split('.').count() == 4 && host.split('.').all(|p| p.parse::<u8>().is_ok())
                {
                    assert!(host.starts_with("127."), "{path} names {host}");
                }
            }
        }
    }
}

#[test]
fn the_instance_parses_and_reserialises_byte_for_byte() {
    let nodes = nodes();
    let (ephemeral, json) = &nodes[INSTANCE];
    assert!(ephemeral);
    let instance = ServiceInstance::from_curator_json(INSTANCE, json.as_bytes()).unwrap();
    assert_eq!(instance.app, APP);
    assert_eq!(instance.host, "::ffff:127.0.0.1");
    assert_eq!(instance.port, 22980);
    assert_eq!(instance.address(), "[::ffff:127.0.0.1]:22980");
    assert_eq!(instance.revision(), "85a4b6b630685dd5d66dd862efbae46e");
    assert!(!instance.is_remote_storage());
    assert_eq!(instance.port_for("dubbo"), 22980);
    assert_eq!(instance.port_for("tri"), 52980);
    // With Triple exported, Java 3.3 announces MetadataServiceV2 over tri://.
    assert_eq!(instance.metadata["meta-v"], "2.0.0");
    let ms = instance.metadata_service_params();
    assert_eq!(ms["protocol"], "tri");
    assert_eq!(ms["port"], "52980");
    assert_eq!(ms["version"], "2.0.0");
    // Java writes an IPv6 host in brackets, in the id and the address.
    assert_eq!(instance.to_curator_json(), *json);
}

#[test]
fn provider_urls_parse_and_reencode_to_the_node_names() {
    let urls = provider_urls();
    assert_eq!(urls.len(), 5);
    for (name, url) in &urls {
        assert_eq!(url.host(), Some("[::ffff:127.0.0.1]"), "{name}");
        assert_eq!(url.parameter("side"), Some("provider"));
        assert_eq!(url.parameter("application"), Some(APP));
        assert_eq!(url.to_encoded_full_string(), *name);
        let decoded = dubbo_url::decode(name).unwrap();
        assert_eq!(Url::parse(&decoded).unwrap().to_full_string(), decoded);
    }
    let mut keys: Vec<String> = urls
        .iter()
        .map(|(_, u)| format!("{}://{}", u.protocol().unwrap(), u.service_key().unwrap()))
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "dubbo://org.apache.dubbo.interop.InteropService:1.0.0",
            "dubbo://org.apache.dubbo.interop.InteropService:2.0.0",
            "tri://org.apache.dubbo.interop.InteropService:1.0.0",
            "tri://org.apache.dubbo.interop.InteropService:2.0.0",
            "tri://org.apache.dubbo.interop.tri.Greeter",
        ]
    );
}

#[test]
fn the_revision_recomputed_from_the_metadata_service_answer_is_the_announced_one() {
    let nodes = nodes();
    let instance =
        ServiceInstance::from_curator_json(INSTANCE, nodes[INSTANCE].1.as_bytes()).unwrap();
    let info = metadata();
    assert_eq!(info.app, APP);
    assert_eq!(info.revision, instance.revision());
    assert_eq!(info.services.len(), 5);
    for (key, service) in &info.services {
        assert_eq!(*key, service.match_key());
    }
    assert_eq!(info.calculate_revision(), instance.revision());
}

#[test]
fn service_infos_from_the_registered_urls_match_the_metadata() {
    // The registered URL lacks what the registry URL strips; the metadata is built from the
    // exported URL, which still has REGISTRY_CLUSTER (the registry's id, "default"), and drops
    // the per-instance timestamp.
    let info = metadata();
    for (name, url) in provider_urls() {
        let mut service = ServiceInfo::from_url(&url);
        service
            .params
            .insert("REGISTRY_CLUSTER".to_owned(), "default".to_owned());
        let key = service.match_key();
        let java = info
            .services
            .get(&key)
            .unwrap_or_else(|| panic!("{key} ({name}) not in the metadata"));
        assert_eq!(service, *java, "{key}");
    }
    // So a Rust provider registering these URLs computes Java's revision.
    let mut rebuilt = MetadataInfo::new(APP);
    for (_, url) in provider_urls() {
        let mut service = ServiceInfo::from_url(&url);
        service
            .params
            .insert("REGISTRY_CLUSTER".to_owned(), "default".to_owned());
        rebuilt.add_service(service);
    }
    assert_eq!(rebuilt.revision, info.revision);
}
