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
    put_all(&mut params, provider.provider_url_parameters());
    put_all(
        &mut params,
        [
            ("retries", text(provider.retries)),
            ("loadbalance", provider.loadbalance.clone()),
        ],
    );
    params.extend(service_config.parameters.clone());
    put_all(&mut params, service_config.provider_url_parameters());
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
    put_all(&mut params, consumer.consumer_url_parameters());
    params.extend(rc.parameters.clone());
    // The reference's own `timeout` reaches the URL through `options` too (folded in there
    // below anything set in code), which is put last.
    put_all(&mut params, rc.consumer_url_parameters());
    put_all(
        &mut params,
        [
            ("merger", rc.merger.clone()),
            ("generic", rc.generic.clone()),
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
    params.insert("interface".into(), options.interface.clone());
    params.insert("application".into(), app.name().to_owned());
    params.extend(config.application.url_parameters());
    params.insert("side".into(), "consumer".into());
    params.insert("dubbo".into(), DUBBO_PROTOCOL_VERSION.into());
    params.insert("release".into(), crate::RELEASE.into());
    // Java's consumer URLs carry the process id too (`ReferenceConfig`'s `appendRuntimeParameters`).
    params.insert("pid".into(), std::process::id().to_string());
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

/// Sets `key` to `value` when there is one and it is not empty (an empty setting leaves the
/// lower layer's value in place, as Java's `appendParameters` does).
pub(super) fn put(params: &mut BTreeMap<String, String>, key: &str, value: Option<String>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        params.insert(key.to_owned(), v);
    }
}

/// The URL of a service at `host:port` over `scheme`, with `params`: built from typed parts,
/// so a value reaches the URL as it is (no text to escape and parse back).
pub(super) fn build_url(
    scheme: &str,
    host: &str,
    port: u16,
    interface: &str,
    params: &BTreeMap<String, String>,
) -> Result<Url, DubboError> {
    // An IPv6 host goes in brackets, as Java writes it (`[::ffff:127.0.0.1]:20880`), so the
    // port stays separable and a consumer's `:authority` is well formed.
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    let mut builder = Url::builder()
        .protocol(dubbo_url::canonical_protocol(scheme))
        .host(host.as_str())
        .port(port)
        .path(interface);
    for (key, value) in params {
        builder = builder.param(key.as_str(), value.as_str());
    }
    let url = builder.build().map_err(|e| DubboError::Url {
        url: format!("{scheme}://{host}:{port}/{interface}"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderConfig;

    #[test]
    fn urls_carry_parameter_values_as_they_are() {
        let mut params = BTreeMap::new();
        params.insert("application".to_owned(), "shop & co=1".to_owned());
        params.insert("tag".to_owned(), "a;b".to_owned());
        let url = build_url("triple", "::1", 50051, "org.example.Greeter", &params).unwrap();
        assert_eq!(url.protocol(), Some("tri"));
        assert_eq!(url.host(), Some("[::1]"));
        assert_eq!(url.port(), 50051);
        assert_eq!(url.path(), Some("org.example.Greeter"));
        assert_eq!(url.parameter("application"), Some("shop & co=1"));
        assert_eq!(url.parameter("tag"), Some("a;b"));
        assert_eq!(url.parameter("co"), None);
        let consumer =
            build_url("consumer", "10.0.0.5", 0, "org.example.Greeter", &params).unwrap();
        assert_eq!(consumer.protocol(), Some("consumer"));
        assert_eq!(consumer.port(), 0);
    }

    #[test]
    fn shared_keys_become_the_same_parameters_on_every_layer() {
        let provider = ProviderConfig {
            weight: Some(7),
            retries: Some(1),
            ..Default::default()
        };
        let service = ServiceConfig {
            weight: Some(9),
            token: Some("t".into()),
            ..Default::default()
        };
        let mut params = BTreeMap::new();
        put_all(&mut params, provider.provider_url_parameters());
        put_all(&mut params, service.provider_url_parameters());
        assert_eq!(params.get("weight").map(String::as_str), Some("9"));
        assert_eq!(params.get("token").map(String::as_str), Some("t"));
        let consumer = ConsumerConfig {
            check: Some(false),
            protocol: Some("tri".into()),
            ..Default::default()
        };
        let mut params = BTreeMap::new();
        put_all(&mut params, consumer.consumer_url_parameters());
        assert_eq!(params.get("check").map(String::as_str), Some("false"));
        // `protocol` picks providers and schemes; it is no URL parameter.
        assert_eq!(params.get("protocol"), None);
    }
}
