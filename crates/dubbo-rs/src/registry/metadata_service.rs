//! The built-in `org.apache.dubbo.metadata.MetadataService`: how consumers of application-level
//! discovery learn what an instance serves, and its client side.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use dubbo_core::{
    BoxFuture, ErrorCode, Invocation, Invoker, MethodSignature, Payload, RequestContext, RpcError,
    ServiceDefinition, ServiceHandler, ServiceKey, Value,
};
use dubbo_hessian2::{Map, Object};
use dubbo_registry::{MetadataInfo, ServiceInfo};

use crate::sync::lock;

/// The interface name Java consumers call.
pub(crate) const INTERFACE: &str = "org.apache.dubbo.metadata.MetadataService";
/// The version it is exported with (V1; the group is the application name).
pub(crate) const VERSION: &str = "1.0.0";
const METADATA_INFO_CLASS: &str = "org.apache.dubbo.metadata.MetadataInfo";
const SERVICE_INFO_CLASS: &str = "org.apache.dubbo.metadata.MetadataInfo$ServiceInfo";
const STRING: &str = "java.lang.String";

/// What the MetadataService answers from: the application's current metadata, the URLs it
/// exports and subscribes to. Written by the registration task, read by calls.
pub(crate) struct MetadataState {
    pub(crate) current: ArcSwap<MetadataInfo>,
    pub(crate) exported: Mutex<Vec<String>>,
    pub(crate) subscribed: Mutex<Vec<String>>,
    pub(crate) instance_metadata: Mutex<Option<String>>,
    /// Service definitions of the exported services, by Java's service key
    /// (`group/interface:version`).
    pub(crate) definitions: Mutex<BTreeMap<String, Arc<ServiceDefinition>>>,
}

impl MetadataState {
    pub(crate) fn new(app: &str) -> Self {
        Self {
            current: ArcSwap::from_pointee(MetadataInfo::new(app)),
            exported: Mutex::new(Vec::new()),
            subscribed: Mutex::new(Vec::new()),
            instance_metadata: Mutex::new(None),
            definitions: Mutex::new(BTreeMap::new()),
        }
    }
}

/// The provider side: a hand-written [`ServiceHandler`] with Java's method set.
pub(crate) struct MetadataServiceHandler {
    app: String,
    state: Arc<MetadataState>,
    methods: Vec<Arc<MethodSignature>>,
}

impl MetadataServiceHandler {
    pub(crate) fn new(app: &str, state: Arc<MetadataState>) -> Self {
        let m = |name: &str, params: &[&str], ret: &str| {
            Arc::new(MethodSignature::new(name, params, ret))
        };
        let sorted_set = "java.util.SortedSet";
        Self {
            app: app.to_owned(),
            state,
            methods: vec![
                m("serviceName", &[], STRING),
                m("version", &[], STRING),
                m("getSubscribedURLs", &[], sorted_set),
                m("getExportedURLs", &[], sorted_set),
                m("getExportedURLs", &[STRING], sorted_set),
                m("getExportedURLs", &[STRING, STRING], sorted_set),
                m("getExportedURLs", &[STRING, STRING, STRING], sorted_set),
                m(
                    "getExportedURLs",
                    &[STRING, STRING, STRING, STRING],
                    sorted_set,
                ),
                m("getExportedServiceURLs", &[], "java.util.Set"),
                m("getMetadataInfo", &[STRING], METADATA_INFO_CLASS),
                m("getMetadataInfos", &[], "java.util.List"),
                m("exportInstanceMetadata", &[STRING], "void"),
                m("getServiceDefinition", &[STRING], STRING),
                m("getServiceDefinition", &[STRING, STRING, STRING], STRING),
            ],
        }
    }

    /// `getExportedURLs(interface, group, version, protocol)`: `*` or an absent interface
    /// means every service; absent filters match anything.
    fn exported(&self, args: &[Value]) -> Value {
        let filter = |i: usize| args.get(i).and_then(Value::as_str).map(str::to_owned);
        let (iface, group, version, protocol) = (filter(0), filter(1), filter(2), filter(3));
        let urls: Vec<String> = lock(&self.state.exported).clone();
        let mut matching: Vec<Value> = urls
            .into_iter()
            .filter(|u| {
                let Ok(url) = dubbo_url::Url::parse(u) else {
                    return false;
                };
                let ok = |want: &Option<String>, have: Option<&str>| match want.as_deref() {
                    None | Some("*") => true,
                    Some(w) => have.unwrap_or("") == w,
                };
                ok(&iface, url.service_interface())
                    && ok(&group, url.group())
                    && ok(&version, url.version())
                    && ok(&protocol, url.protocol())
            })
            .map(Value::String)
            .collect();
        matching.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        Value::typed_list("java.util.TreeSet", matching)
    }
}

impl ServiceHandler for MetadataServiceHandler {
    fn interface(&self) -> &str {
        INTERFACE
    }

    fn methods(&self) -> &[Arc<MethodSignature>] {
        &self.methods
    }

    fn call<'a>(
        &'a self,
        method: &'a MethodSignature,
        args: Vec<Payload>,
        _ctx: &'a mut RequestContext,
    ) -> BoxFuture<'a, Result<Payload, RpcError>> {
        Box::pin(async move {
            let args = dubbo_core::arg_values(args)?;
            let current = self.state.current.load_full();
            Ok(Payload::Value(match (method.name(), args.len()) {
                ("serviceName", 0) => Value::String(self.app.clone()),
                ("version", 0) => Value::String(VERSION.to_owned()),
                ("getSubscribedURLs", 0) => {
                    let mut urls = lock(&self.state.subscribed).clone();
                    urls.sort();
                    Value::typed_list(
                        "java.util.TreeSet",
                        urls.into_iter().map(Value::String).collect(),
                    )
                }
                ("getExportedURLs", _) => self.exported(&args),
                ("getExportedServiceURLs", 0) => self.exported(&[]),
                ("getMetadataInfo", 1) => {
                    let wanted = args.first().and_then(Value::as_str).unwrap_or_default();
                    if current.revision == wanted {
                        to_value(&current)
                    } else {
                        Value::Null
                    }
                }
                ("getMetadataInfos", 0) => {
                    Value::typed_list("java.util.ArrayList", vec![to_value(&current)])
                }
                ("exportInstanceMetadata", 1) => {
                    *lock(&self.state.instance_metadata) =
                        args.first().and_then(Value::as_str).map(str::to_owned);
                    Value::Null
                }
                // The definition's JSON, as the metadata report holds it (Java 3.3 answers "").
                ("getServiceDefinition", 1 | 3) => {
                    let text = |i: usize| args.get(i).and_then(Value::as_str).unwrap_or_default();
                    let key = match args.len() {
                        1 => text(0).to_owned(),
                        _ => java_service_key(text(0), text(2), text(1)),
                    };
                    let found = lock(&self.state.definitions).get(&key).cloned();
                    Value::String(match found {
                        Some(def) => serde_json::to_string(def.as_ref()).unwrap_or_default(),
                        None => String::new(),
                    })
                }
                _ => return Err(dubbo_core::service::method_not_found(INTERFACE, method)),
            }))
        })
    }
}

/// Java's service key: `group/interface:version`, without the empty parts.
pub(crate) fn java_service_key(interface: &str, group: &str, version: &str) -> String {
    let mut key = String::new();
    if !group.is_empty() {
        key.push_str(group);
        key.push('/');
    }
    key.push_str(interface);
    if !version.is_empty() {
        key.push(':');
        key.push_str(version);
    }
    key
}

/// `MetadataInfo` as Java's hessian writes it: fields `services, revision, app`; services a
/// `ConcurrentHashMap` of `ServiceInfo` (`params, path, port, protocol, version, group, name`).
pub(crate) fn to_value(info: &MetadataInfo) -> Value {
    let text = |s: &Option<String>| s.clone().map(Value::String).unwrap_or(Value::Null);
    let services: Vec<(Value, Value)> = info
        .services
        .iter()
        .map(|(key, s)| {
            let params: Vec<(Value, Value)> = s
                .params
                .iter()
                .map(|(k, v)| (Value::String(k.clone()), Value::String(v.clone())))
                .collect();
            let service = Object::new(
                SERVICE_INFO_CLASS,
                vec![
                    ("params", Value::typed_map("java.util.HashMap", params)),
                    ("path", Value::String(s.path.clone())),
                    ("port", Value::Int(i32::from(s.port))),
                    ("protocol", Value::String(s.protocol.clone())),
                    ("version", text(&s.version)),
                    ("group", text(&s.group)),
                    ("name", Value::String(s.name.clone())),
                ],
            );
            (Value::String(key.clone()), Value::Object(service))
        })
        .collect();
    Value::Object(Object::new(
        METADATA_INFO_CLASS,
        vec![
            (
                "services",
                Value::typed_map("java.util.concurrent.ConcurrentHashMap", services),
            ),
            ("revision", Value::String(info.revision.clone())),
            ("app", Value::String(info.app.clone())),
        ],
    ))
}

/// Reads a `MetadataInfo` answered by any provider (Java's or ours); fields are found by name.
pub(crate) fn from_value(value: &Value) -> Result<MetadataInfo, String> {
    let field = |v: &Value, name: &str| -> Option<String> {
        v.get(name).and_then(Value::as_str).map(str::to_owned)
    };
    if value.is_null() {
        return Err("the provider has no metadata for this revision".to_owned());
    }
    let app = field(value, "app").ok_or("the metadata has no app")?;
    let revision = field(value, "revision").ok_or("the metadata has no revision")?;
    let mut services = BTreeMap::new();
    if let Some(Value::Map(Map { entries, .. })) = value.get("services") {
        for (key, s) in entries {
            let Some(key) = key.as_str() else { continue };
            let params = match s.get("params") {
                Some(Value::Map(m)) => m
                    .entries
                    .iter()
                    .filter_map(|(k, v)| Some((k.as_str()?.to_owned(), v.as_str()?.to_owned())))
                    .collect(),
                _ => BTreeMap::new(),
            };
            let name = field(s, "name").ok_or_else(|| format!("service {key} has no name"))?;
            let port = s
                .get("port")
                .and_then(Value::as_i64)
                .and_then(|p| u16::try_from(p).ok())
                .unwrap_or(0);
            services.insert(
                key.to_owned(),
                ServiceInfo {
                    path: field(s, "path").unwrap_or_else(|| name.clone()),
                    name,
                    group: field(s, "group").filter(|g| !g.is_empty()),
                    version: field(s, "version").filter(|v| !v.is_empty()),
                    protocol: field(s, "protocol").unwrap_or_else(|| "dubbo".to_owned()),
                    port,
                    params,
                },
            );
        }
    }
    Ok(MetadataInfo {
        app,
        revision,
        services,
    })
}

/// Asks `invoker` (a reference to an instance's MetadataService) for the metadata of
/// `revision`.
pub(crate) async fn fetch(
    invoker: &dyn Invoker,
    app: &str,
    revision: &str,
) -> Result<MetadataInfo, RpcError> {
    let key = ServiceKey::new(INTERFACE, Some(app), Some(VERSION));
    let method = Arc::new(MethodSignature::new(
        "getMetadataInfo",
        &[STRING],
        METADATA_INFO_CLASS,
    ));
    let invocation = Invocation::new(key, method, vec![Value::String(revision.to_owned())]);
    let value = invoker.invoke(invocation).await?.value;
    let value = value.into_value().map_err(|e| {
        RpcError::framework(ErrorCode::Codec, format!("decoding MetadataInfo: {e}"))
    })?;
    from_value(&value).map_err(|e| {
        RpcError::framework(
            ErrorCode::Codec,
            format!("MetadataInfo of {app} revision {revision}: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_survives_javas_hessian_shape() {
        let url = dubbo_url::Url::parse(
            "dubbo://127.0.0.1:20880/org.foo.Svc?interface=org.foo.Svc&group=g&version=1&side=provider",
        )
        .unwrap();
        let mut info = MetadataInfo::new("app");
        info.add_service(ServiceInfo::from_url(&url));
        let value = to_value(&info);
        let bytes = dubbo_hessian2::to_vec(&value).unwrap();
        let back: Value = dubbo_hessian2::from_slice(&bytes).unwrap();
        assert_eq!(back.type_name(), Some(METADATA_INFO_CLASS));
        assert_eq!(from_value(&back).unwrap(), info);
        assert!(from_value(&Value::Null).is_err());
    }

    /// `getServiceDefinition` answers the definition's JSON by interface, version and group,
    /// and by service key; `""` for a service without one (as Java 3.3 answers every time).
    #[tokio::test]
    async fn service_definitions_by_key() {
        let state = Arc::new(MetadataState::new("app"));
        let def = ServiceDefinition::new("org.foo.Svc", "crate-1");
        lock(&state.definitions).insert(java_service_key("org.foo.Svc", "g", "1.0"), Arc::new(def));
        let handler = MetadataServiceHandler::new("app", state);
        async fn ask(handler: &MetadataServiceHandler, args: &[&str]) -> String {
            let method = handler
                .find_method("getServiceDefinition", args.len())
                .unwrap()
                .clone();
            let args = args
                .iter()
                .map(|a| Payload::Value(Value::from(*a)))
                .collect();
            let mut ctx = RequestContext::default();
            let out = handler.call(&method, args, &mut ctx).await.unwrap();
            out.into_value().unwrap().as_str().unwrap().to_owned()
        }
        let json = ask(&handler, &["org.foo.Svc", "1.0", "g"]).await;
        let back: ServiceDefinition = serde_json::from_str(&json).unwrap();
        assert_eq!(back.canonical_name, "org.foo.Svc");
        assert_eq!(back.unique_id, "org.foo.Svc@crate-1");
        assert_eq!(ask(&handler, &["g/org.foo.Svc:1.0"]).await, json);
        assert_eq!(ask(&handler, &["org.foo.Svc", "2.0", "g"]).await, "");
        assert_eq!(java_service_key("org.foo.Svc", "", ""), "org.foo.Svc");
    }
}
