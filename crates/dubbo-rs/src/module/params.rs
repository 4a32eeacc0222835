//! The URL parameters of exports and references, built from the layered configuration: where a
//! protocol binds and what it advertises, the provider's and the consumer's parameters, and the
//! URL they end up in.

use super::*;

/// The dubbo:// protocol version every Java peer sends and expects.
const DUBBO_PROTOCOL_VERSION: &str = "2.0.2";

/// Where protocol `id` (named `name`) of `app` binds and what it advertises.
pub(super) fn resolve_address(
    app: &Application,
    id: &str,
    name: &str,
    pc: &ProtocolConfig,
    default_port: u16,
) -> Result<ProviderAddress, ConfigError> {
    let config = app.config();
    let key = if config.protocols.contains_key(id) {
        format!("dubbo.protocols.{id}")
    } else {
        "dubbo.protocol".to_owned()
    };
    address::resolve(
        name,
        &key,
        pc,
        default_port,
        &config.environment,
        address::machine_ipv4,
    )
}

/// The URL parameters that tell a protocol where to bind: always given, so that port `0`
/// reaches the protocol as "a free port" rather than "no port".
pub(super) fn put_address(params: &mut BTreeMap<String, String>, address: &ProviderAddress) {
    params.insert("bind.ip".into(), address.bind_host.clone());
    params.insert("bind.port".into(), address.bind_port.to_string());
    params.insert("anyhost".into(), address.anyhost.to_string());
}

/// The exported URL as it is advertised: `bind.ip` and `bind.port` only where they differ
/// from the URL's host and port, and no credentials (what export returns, logs, registers and
/// the MetadataService lists).
pub(super) fn advertised_url(url: &Url) -> Url {
    let mut url = crate::registry::without_credentials(url);
    if url.parameter("bind.ip").is_some() && url.parameter("bind.ip") == url.host() {
        url = url.without_parameter("bind.ip");
    }
    if url.parameter("bind.port") == Some(url.port().to_string().as_str()) {
        url = url.without_parameter("bind.port");
    }
    url
}

/// Milliseconds since the Unix epoch, for the `timestamp` parameter that load balancing's
/// warm-up reads.
pub(super) fn now_millis() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
        .to_string()
}

/// The protocol a reference to `target` speaks. A direct URL's own scheme is kept: a
/// reference-level `protocol` (from `options` or `dubbo.references.<id>`) only selects which
/// providers to use, so one that names another protocol is an error; for an address without a
/// scheme it is the protocol, else `dubbo.consumer.protocol`, else `dubbo`.
pub(super) fn reference_scheme(
    key: &str,
    target: &str,
    options: &ReferenceOptions,
    rc: &ReferenceConfig,
    consumer: &ConsumerConfig,
) -> Result<String, ConfigError> {
    let normal = |p: &str| dubbo_url::canonical_protocol(p).to_owned();
    let wanted = options
        .protocol
        .as_deref()
        .or(rc.protocol.as_deref())
        .map(normal);
    match target.split_once("://") {
        Some((scheme, _)) => {
            let scheme = normal(scheme);
            match wanted {
                Some(w) if w != scheme => Err(ConfigError::invalid(
                    format!("{key}.protocol"),
                    format!("{w:?} conflicts with the direct url {target:?}, which is {scheme}"),
                )),
                _ => Ok(scheme),
            }
        }
        None => Ok(wanted
            .or(consumer.protocol.as_deref().map(normal))
            .unwrap_or_else(|| "dubbo".to_owned())),
    }
}

/// The parameters every protocol's URL of a provider shares, from, in rising priority:
/// `dubbo.provider`, `dubbo.modules.<module>.provider`, the service's configuration, and
/// `options`.
pub(super) fn provider_params(
    app: &Application,
    module: &str,
    interface: &str,
    service_config: &ServiceConfig,
    options: &ServiceOptions,
) -> BTreeMap<String, String> {
    let config = app.config();
    let mut params: BTreeMap<String, String> = BTreeMap::new();
    let provider = config.provider_for(module);
    params.extend(provider.parameters.clone());
    put_all(
        &mut params,
        [
            ("timeout", text(provider.timeout)),
            ("version", provider.version.clone()),
            ("group", provider.group.clone()),
            ("filter", provider.filter.clone()),
            ("retries", text(provider.retries)),
            ("loadbalance", provider.loadbalance.clone()),
            ("weight", text(provider.weight)),
            ("token", provider.token.clone()),
            ("executes", text(provider.executes)),
            ("flowcontrol", provider.flowcontrol.clone()),
            ("accesslog", provider.accesslog.clone()),
        ],
    );
    params.extend(service_config.parameters.clone());
    put_all(
        &mut params,
        [
            ("version", service_config.version.clone()),
            ("group", service_config.group.clone()),
            ("timeout", text(service_config.timeout)),
            ("filter", service_config.filter.clone()),
            ("token", service_config.token.clone()),
            ("weight", text(service_config.weight)),
            ("executes", text(service_config.executes)),
            ("flowcontrol", service_config.flowcontrol.clone()),
            ("accesslog", service_config.accesslog.clone()),
        ],
    );
    params.extend(options.parameters.clone());
    put(&mut params, "version", options.version.clone());
    put(&mut params, "group", options.group.clone());
    put(
        &mut params,
        "timeout",
        options.timeout.map(|t| t.as_millis().to_string()),
    );
    params.insert("application".into(), app.name().to_owned());
    params.extend(config.application.url_parameters());
    params.insert("interface".into(), interface.to_owned());
    params.insert("side".into(), "provider".into());
    params.insert("dubbo".into(), DUBBO_PROTOCOL_VERSION.into());
    params.insert("release".into(), crate::RELEASE.into());
    params.insert("pid".into(), std::process::id().to_string());
    params.insert("timestamp".into(), now_millis());
    put_security(&mut params, &config.security);
    // Java's ServiceConfig: `token=true|default` becomes a random token, `false` none.
    if let Some(setting) = params.remove("token") {
        if let Some(token) = dubbo_core::filters::resolve_token(&setting) {
            params.insert("token".into(), token);
        }
    }

    params
}

/// The provider URL parameter naming the registries a service registers with (from
/// `dubbo.services.<id>.registries`); never registered itself.
pub(crate) const REGISTRY_IDS: &str = "registry-ids";

/// The host a consumer registers as: `DUBBO_IP_TO_REGISTRY`, else loopback when every registry
/// is on loopback (nothing dials a consumer), else the machine's address.
pub(super) fn consumer_host(app: &Application, layer: &crate::registry::RegistryLayer) -> String {
    let env = &app.config().environment;
    if let Some(ip) = env
        .get("DUBBO_IP_TO_REGISTRY")
        .filter(|v| !v.trim().is_empty())
    {
        return ip.trim().to_owned();
    }
    let all_local = layer.registries.iter().all(|r| {
        matches!(r.url.host(), Some(h) if h == "localhost" || h.starts_with("127.") || h == "::1")
            || r.url.protocol() == Some("file")
    });
    if all_local {
        return "127.0.0.1".to_owned();
    }
    address::machine_ipv4(env)
        .map(|ip| ip.to_string())
        .unwrap_or_else(|| "127.0.0.1".to_owned())
}

/// The consumer URL's parameters of a reference, from, in rising priority: `dubbo.consumer`,
/// `dubbo.modules.<module>.consumer`, the reference's configuration, and `options`.
pub(super) fn reference_params(
    app: &Application,
    module: &str,
    options: &ReferenceOptions,
    rc: &ReferenceConfig,
) -> BTreeMap<String, String> {
    let config = app.config();
    let consumer = config.consumer_for(module);
    let mut params: BTreeMap<String, String> = BTreeMap::new();
    params.extend(consumer.parameters.clone());
    put(
        &mut params,
        "timeout",
        consumer.timeout.map(|t| t.to_string()),
    );
    put(
        &mut params,
        "retries",
        consumer.retries.map(|t| t.to_string()),
    );
    put(&mut params, "loadbalance", consumer.loadbalance.clone());
    put(&mut params, "cluster", consumer.cluster.clone());
    put(&mut params, "check", consumer.check.map(|t| t.to_string()));
    put(&mut params, "filter", consumer.filter.clone());
    put(
        &mut params,
        "connections",
        consumer.connections.map(|t| t.to_string()),
    );
    put(&mut params, "lazy", consumer.lazy.map(|t| t.to_string()));
    put(
        &mut params,
        "actives",
        consumer.actives.map(|t| t.to_string()),
    );
    params.extend(rc.parameters.clone());
    put(&mut params, "retries", rc.retries.map(|t| t.to_string()));
    put(&mut params, "loadbalance", rc.loadbalance.clone());
    put(&mut params, "cluster", rc.cluster.clone());
    put(&mut params, "merger", rc.merger.clone());
    put(&mut params, "check", rc.check.map(|t| t.to_string()));
    put(&mut params, "filter", rc.filter.clone());
    put(
        &mut params,
        "connections",
        rc.connections.map(|t| t.to_string()),
    );
    put(&mut params, "lazy", rc.lazy.map(|t| t.to_string()));
    put(&mut params, "actives", rc.actives.map(|t| t.to_string()));
    put(&mut params, "generic", rc.generic.clone());
    params.extend(options.parameters.clone());
    put(&mut params, "version", options.version.clone());
    put(&mut params, "group", options.group.clone());
    put(
        &mut params,
        "timeout",
        options.timeout.map(|t| t.as_millis().to_string()),
    );
    params.insert("interface".into(), options.interface.clone());
    params.insert("application".into(), app.name().to_owned());
    params.extend(config.application.url_parameters());
    params.insert("side".into(), "consumer".into());
    params.insert("dubbo".into(), DUBBO_PROTOCOL_VERSION.into());
    params.insert("release".into(), crate::RELEASE.into());
    params.insert("timestamp".into(), now_millis());
    put_security(&mut params, &config.security);
    params
}

/// The application's credentials and class lists (`dubbo.security`) where the service or
/// reference sets none of its own.
fn put_security(params: &mut BTreeMap<String, String>, security: &crate::config::SecurityConfig) {
    for (k, v) in security.url_parameters() {
        params.entry(k.to_owned()).or_insert(v);
    }
}

/// A setting as URL text.
pub(super) fn text<T: ToString>(value: Option<T>) -> Option<String> {
    value.map(|v| v.to_string())
}

/// [`put`] for each pair, in order (later pairs win).
pub(super) fn put_all<const N: usize>(
    params: &mut BTreeMap<String, String>,
    pairs: [(&str, Option<String>); N],
) {
    for (key, value) in pairs {
        put(params, key, value);
    }
}

pub(super) fn put(params: &mut BTreeMap<String, String>, key: &str, value: Option<String>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        params.insert(key.to_owned(), v);
    }
}

pub(super) fn build_url(
    scheme: &str,
    host: &str,
    port: u16,
    interface: &str,
    params: &BTreeMap<String, String>,
) -> Result<Url, DubboError> {
    let query: Vec<String> = params
        .iter()
        // Java's URL keeps parameter values as they are (only `&` would need care; Dubbo's own
        // values never contain it).
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    // An IPv6 host goes in brackets, as Java writes it (`[::ffff:127.0.0.1]:20880`), so the
    // port stays separable and a consumer's `:authority` is well formed.
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    let text = format!("{scheme}://{host}:{port}/{interface}?{}", query.join("&"));
    let url = Url::parse(&text).map_err(|e| DubboError::Url {
        url: text.clone(),
        reason: e.to_string(),
    })?;
    // Authentication settings fail here, at export or refer, not on every call.
    dubbo_core::filters::auth::check_auth_settings(&url).map_err(|e| {
        crate::config::ConfigError::invalid(
            format!("the authentication of {interface}"),
            e.to_string(),
        )
    })?;
    Ok(url)
}
