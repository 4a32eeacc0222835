//! The configuration tree, with Dubbo's key names.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::lenient;

/// Declares a provider-side section (`dubbo.provider`, `dubbo.modules.<name>.provider`,
/// `dubbo.services.<id>`): its own keys, then the keys every provider-side section takes,
/// written once here. Each section stays a plain struct with the keys at its top level, so
/// unknown keys are refused and a bad value's error names its full key
/// (`dubbo.services.<id>.weight`), which a `#[serde(flatten)]` shared part would lose.
///
/// `provider_url_parameters` gives the shared keys that become URL parameters, in Java's
/// names, for the layers of an export to be applied alike.
macro_rules! provider_section {
    ($(#[$meta:meta])* pub struct $name:ident { $($own:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
        #[serde(rename_all = "kebab-case", deny_unknown_fields)]
        pub struct $name {
            $($own)*
            /// Call timeout in ms advertised to consumers.
            #[serde(default, deserialize_with = "lenient::number")]
            pub timeout: Option<u64>,
            /// The version.
            #[serde(default, deserialize_with = "lenient::text")]
            pub version: Option<String>,
            /// The group.
            #[serde(default, deserialize_with = "lenient::text")]
            pub group: Option<String>,
            /// Filter list (`-name` removes one).
            #[serde(default, deserialize_with = "lenient::text")]
            pub filter: Option<String>,
            /// Token required from consumers (`true` for a random one).
            #[serde(default, deserialize_with = "lenient::text")]
            pub token: Option<String>,
            /// Maximum concurrent executions per method (`executes`).
            #[serde(default, deserialize_with = "lenient::number")]
            pub executes: Option<u32>,
            /// Adaptive limit of a service's concurrent calls: `heuristicSmoothingFlowControl`
            /// or `autoConcurrencyLimier` (Java's `flowcontrol`).
            #[serde(default, deserialize_with = "lenient::text")]
            pub flowcontrol: Option<String>,
            /// Weight of the provider.
            #[serde(default, deserialize_with = "lenient::number")]
            pub weight: Option<u32>,
            /// Access log: `true` logs each call through `tracing` (target `dubbo.accesslog`),
            /// a path appends to that file.
            #[serde(default, deserialize_with = "lenient::text")]
            pub accesslog: Option<String>,
            /// Whether to register with registries (default true).
            #[serde(default, deserialize_with = "lenient::flag")]
            pub register: Option<bool>,
            /// Extra URL parameters.
            #[serde(default, deserialize_with = "lenient::text_map")]
            pub parameters: BTreeMap<String, String>,
        }

        impl $name {
            /// The shared provider keys that become URL parameters, by their URL names
            /// (`None` where unset).
            pub fn provider_url_parameters(&self) -> [(&'static str, Option<String>); 9] {
                [
                    ("version", self.version.clone()),
                    ("group", self.group.clone()),
                    ("timeout", self.timeout.map(|v| v.to_string())),
                    ("filter", self.filter.clone()),
                    ("token", self.token.clone()),
                    ("weight", self.weight.map(|v| v.to_string())),
                    ("executes", self.executes.map(|v| v.to_string())),
                    ("flowcontrol", self.flowcontrol.clone()),
                    ("accesslog", self.accesslog.clone()),
                ]
            }
        }
    };
}

/// Declares a consumer-side section (`dubbo.consumer`, `dubbo.modules.<name>.consumer`,
/// `dubbo.references.<id>`): its own keys, then the keys every consumer-side section takes,
/// written once here (see [`provider_section`] for why not a flattened struct).
///
/// `consumer_url_parameters` gives the shared keys that become URL parameters.
macro_rules! consumer_section {
    ($(#[$meta:meta])* pub struct $name:ident { $($own:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
        #[serde(rename_all = "kebab-case", deny_unknown_fields)]
        pub struct $name {
            $($own)*
            /// Call timeout in ms.
            #[serde(default, deserialize_with = "lenient::number")]
            pub timeout: Option<u64>,
            /// Retries (failover).
            #[serde(default, deserialize_with = "lenient::number")]
            pub retries: Option<i32>,
            /// Load balance.
            #[serde(default, deserialize_with = "lenient::text")]
            pub loadbalance: Option<String>,
            /// Cluster strategy.
            #[serde(default, deserialize_with = "lenient::text")]
            pub cluster: Option<String>,
            /// Whether a reference fails at start when its provider cannot be reached (default
            /// true; `false`: calls fail until it is up).
            #[serde(default, deserialize_with = "lenient::flag")]
            pub check: Option<bool>,
            /// Filter list (`-name` removes one).
            #[serde(default, deserialize_with = "lenient::text")]
            pub filter: Option<String>,
            /// `dubbo` or `tri`: the protocol of a direct address given without a scheme; on a
            /// reference it also selects which providers to use, and never rewrites the scheme
            /// of `url`.
            #[serde(default, deserialize_with = "lenient::text")]
            pub protocol: Option<String>,
            /// Connections per provider (dubbo:// only; refused for tri references).
            #[serde(default, deserialize_with = "lenient::number")]
            pub connections: Option<u32>,
            /// Connect on first call instead of at start.
            #[serde(default, deserialize_with = "lenient::flag")]
            pub lazy: Option<bool>,
            /// Maximum concurrent calls per method (`actives`).
            #[serde(default, deserialize_with = "lenient::number")]
            pub actives: Option<u32>,
            /// `prefer-serialization`: the serializations to send in, in order (`fastjson2`,
            /// `hessian2`); the first one dubbo-rs speaks is used. Unset: the provider's
            /// advertised preference, then Hessian 2.
            #[serde(default, deserialize_with = "lenient::text")]
            pub prefer_serialization: Option<String>,
            /// Extra URL parameters.
            #[serde(default, deserialize_with = "lenient::text_map")]
            pub parameters: BTreeMap<String, String>,
        }

        impl $name {
            /// The shared consumer keys that become URL parameters, by their URL names
            /// (`None` where unset). `protocol` is not one: it picks providers and schemes.
            pub fn consumer_url_parameters(&self) -> [(&'static str, Option<String>); 10] {
                [
                    ("timeout", self.timeout.map(|v| v.to_string())),
                    ("retries", self.retries.map(|v| v.to_string())),
                    ("loadbalance", self.loadbalance.clone()),
                    ("cluster", self.cluster.clone()),
                    ("check", self.check.map(|v| v.to_string())),
                    ("filter", self.filter.clone()),
                    ("connections", self.connections.map(|v| v.to_string())),
                    ("lazy", self.lazy.map(|v| v.to_string())),
                    ("actives", self.actives.map(|v| v.to_string())),
                    ("prefer.serialization", self.prefer_serialization.clone()),
                ]
            }
        }
    };
}

/// The whole configuration: the `dubbo:` section of a YAML file.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct DubboConfig {
    /// `dubbo.application`.
    #[serde(default)]
    pub application: ApplicationConfig,
    /// `dubbo.protocol`: a single protocol (Spring Boot's short form).
    #[serde(default)]
    pub protocol: Option<ProtocolConfig>,
    /// `dubbo.protocols.<id>`: several protocols by id.
    #[serde(default)]
    pub protocols: BTreeMap<String, ProtocolConfig>,
    /// `dubbo.registry`: a single registry.
    #[serde(default)]
    pub registry: Option<RegistryConfig>,
    /// `dubbo.registries.<id>`.
    #[serde(default)]
    pub registries: BTreeMap<String, RegistryConfig>,
    /// `dubbo.config-center`: where governance rules and external configuration are read
    /// from. Without it, the first registry that can serve as one (ZooKeeper, etcd, the file
    /// registry) does, unless it says `use-as-config-center: false`.
    #[serde(default)]
    pub config_center: Option<ConfigCenterConfig>,
    /// `dubbo.provider`: defaults for every exported service.
    #[serde(default)]
    pub provider: ProviderConfig,
    /// `dubbo.consumer`: defaults for every reference.
    #[serde(default)]
    pub consumer: ConsumerConfig,
    /// `dubbo.services.<id>`: services to export; the id names the Rust service registered with
    /// the bootstrap (by default its Java interface name).
    #[serde(default)]
    pub services: BTreeMap<String, ServiceConfig>,
    /// `dubbo.references.<id>`: services to call.
    #[serde(default)]
    pub references: BTreeMap<String, ReferenceConfig>,
    /// `dubbo.modules.<name>`: defaults of one module of the application, over `dubbo.provider`
    /// and `dubbo.consumer` for the services and references of
    /// `dubbo_rs::Application::module(name)` (`default` is the default
    /// module's).
    #[serde(default)]
    pub modules: BTreeMap<String, ModuleConfig>,
    /// `dubbo.metrics`: where the metrics go besides the QoS port's `/metrics`.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// `dubbo.tracing`: spans of consumer and provider calls, exported over OTLP.
    #[serde(default)]
    pub tracing: Option<TracingConfig>,
    /// `dubbo.security`: credentials for authentication and the classes generic calls may
    /// name (docs/security-auth.md).
    #[serde(default)]
    pub security: super::SecurityConfig,
    /// `dubbo.ssl`: TLS for the application's ports and connections (see [`SslConfig`]).
    #[serde(default)]
    pub ssl: Option<super::SslConfig>,
    /// Deployment variables that are not configuration keys (`DUBBO_IP_TO_REGISTRY`,
    /// `DUBBO_PORT_TO_BIND`, ...): the `DUBBO_*` and `*_DUBBO_*` pairs of the environment the
    /// configuration was loaded with ([`from_file`](Self::from_file): the process environment;
    /// [`from_yaml_with_env`](Self::from_yaml_with_env): the pairs given). Never read from YAML.
    #[serde(skip)]
    pub environment: BTreeMap<String, String>,
}

/// `dubbo.application`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ApplicationConfig {
    /// The application name; required.
    #[serde(default, deserialize_with = "lenient::text")]
    pub name: Option<String>,
    /// Free-form version of the application; every URL carries it as `application.version`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub version: Option<String>,
    /// The person responsible (informational, as in Java): every URL carries it as `owner`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub owner: Option<String>,
    /// The organisation (informational): every URL carries it as `organization`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub organization: Option<String>,
    /// `develop`, `test` or `product` (Java's values; others are refused): every URL carries it
    /// as `environment`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub environment: Option<String>,
    /// Whether the QoS port is opened (HTTP and telnet: `metrics`, `live`, `ready`, `ls`,
    /// `invoke`, ...). Unlike Java (default `true`), QoS is off unless this, `qos-port` or one of
    /// the foreign-access keys asks for it.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub qos_enable: Option<bool>,
    /// The QoS port (Java's default 22222); setting it turns QoS on unless `qos-enable: false`.
    #[serde(default, deserialize_with = "lenient::number")]
    pub qos_port: Option<u16>,
    /// Whether foreign callers (not on this machine) may connect to the QoS port whatever
    /// their address (default false). They still run only the commands their permission level
    /// allows (see `qos-anonymous-access-permission-level`).
    #[serde(default, deserialize_with = "lenient::flag")]
    pub qos_accept_foreign_ip: Option<bool>,
    /// Foreign addresses trusted with `PROTECTED` commands, comma-separated: exact addresses
    /// (`10.0.0.7`, `::1`), CIDR ranges (`10.0.0.0/8`) or IPv4 patterns with `*` and ranges
    /// per octet (`192.168.1.*`, `192.168.1.10-20`).
    #[serde(default, deserialize_with = "lenient::text")]
    pub qos_accept_foreign_ip_whitelist: Option<String>,
    /// What anonymous foreign callers may run: `PUBLIC` (the default: the probes and `quit`),
    /// `PROTECTED` (most commands), `PRIVATE` (everything) or `NONE` (no check: the
    /// connection rules alone decide); Java's numbers 1, 2, 3 are accepted too.
    #[serde(default, deserialize_with = "lenient::text")]
    pub qos_anonymous_access_permission_level: Option<String>,
    /// Commands every caller may run whatever its level, comma-separated (`metrics,ls`).
    #[serde(default, deserialize_with = "lenient::text")]
    pub qos_anonymous_allow_commands: Option<String>,
    /// `interface`, `instance` or `all` (the default, as Java 3.3): how providers register.
    #[serde(default, deserialize_with = "lenient::text")]
    pub register_mode: Option<String>,
    /// `local` (the default: consumers fetch metadata from this instance's MetadataService) or
    /// `remote` (metadata is also published to the metadata centre).
    #[serde(default, deserialize_with = "lenient::text")]
    pub metadata_type: Option<String>,
    /// How consumers choose between interface-level and application-level addresses
    /// (`dubbo.application.migration.step`, `.threshold`).
    #[serde(default)]
    pub migration: Option<MigrationConfig>,
    /// How long graceful shutdown may take, in ms (`dubbo.service.shutdown.wait` in Java).
    #[serde(default, deserialize_with = "lenient::number")]
    pub shutdown_wait: Option<u64>,
}

/// `dubbo.metrics`. The metrics are always recorded (the `metrics` filter, unless a filter
/// list says `-metrics`); this section says where they are sent.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MetricsConfig {
    /// `dubbo.metrics.prometheus`.
    #[serde(default)]
    pub prometheus: PrometheusConfig,
    /// Serve the metrics over RPC as Java's `org.apache.dubbo.metrics.service.MetricsService`
    /// (group = the application's name, version `1.0.0`, not registered); default false.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub export_metrics_service: Option<bool>,
    /// The protocol id the MetricsService is served on (default: the `dubbo` protocol, else
    /// the first).
    #[serde(default, deserialize_with = "lenient::text")]
    pub export_service_protocol: Option<String>,
}

/// `dubbo.metrics.prometheus`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PrometheusConfig {
    /// `dubbo.metrics.prometheus.pushgateway`: push the metrics to a Prometheus Pushgateway.
    #[serde(default)]
    pub pushgateway: PushgatewayConfig,
}

/// `dubbo.metrics.prometheus.pushgateway`, as Java Dubbo 3.3 reads it: every `push-interval`
/// seconds the text `/metrics` serves is POSTed to `{base-url}/metrics/job/{job}` (Java's
/// `pushAdd`), with basic authentication when a `username` is set.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PushgatewayConfig {
    /// Whether to push (default false).
    #[serde(default, deserialize_with = "lenient::flag")]
    pub enabled: Option<bool>,
    /// The Pushgateway: `host:port` as in Java (`localhost:9091`), or `http://host:port`
    /// with an optional path prefix. Required when `enabled`; `https` is not supported.
    #[serde(default, deserialize_with = "lenient::text")]
    pub base_url: Option<String>,
    /// The `job` grouping key (default `default_dubbo_job`, Java's).
    #[serde(default, deserialize_with = "lenient::text")]
    pub job: Option<String>,
    /// Seconds between pushes (default 30, at least 1); the first push comes one interval
    /// after start.
    #[serde(default, deserialize_with = "lenient::number")]
    pub push_interval: Option<u64>,
    /// Basic-authentication user; none when absent or blank.
    #[serde(default, deserialize_with = "lenient::text")]
    pub username: Option<String>,
    /// Basic-authentication password (with `username`).
    #[serde(default, deserialize_with = "lenient::text")]
    pub password: Option<String>,
}

/// `dubbo.application.migration`: the consumer's discovery model.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MigrationConfig {
    /// `FORCE_INTERFACE`, `APPLICATION_FIRST` (the default) or `FORCE_APPLICATION`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub step: Option<String>,
    /// `APPLICATION_FIRST` uses application-level addresses once their count reaches this
    /// share of the interface-level count (a decimal number; default 0: any application-level
    /// address wins).
    #[serde(default, deserialize_with = "lenient::text")]
    pub threshold: Option<String>,
}

/// One protocol: `dubbo.protocols.<id>` or `dubbo.protocol`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ProtocolConfig {
    /// `dubbo` or `tri`; defaults to the id.
    #[serde(default, deserialize_with = "lenient::text")]
    pub name: Option<String>,
    /// The port to listen on: `0` binds a free one; `-1` or absent means the protocol's default
    /// (20880 / 50051).
    #[serde(default, deserialize_with = "lenient::number")]
    pub port: Option<i32>,
    /// The address to bind and to advertise; absent or an any-address (`0.0.0.0`) binds every
    /// interface and advertises the machine's address (see `DUBBO_IP_TO_REGISTRY`).
    #[serde(default, deserialize_with = "lenient::text")]
    pub host: Option<String>,
    /// Handler concurrency of the worker pool (dubbo:// only; refused on tri).
    #[serde(default, deserialize_with = "lenient::number")]
    pub threads: Option<u32>,
    /// `all` (worker pool) or `direct` (on the connection task) (dubbo:// only).
    #[serde(default, deserialize_with = "lenient::text")]
    pub dispatcher: Option<String>,
    /// `fixed`, `limited` or `eager` (at most `threads` handlers at once) or `cached` (no
    /// bound); dubbo:// only, other values are refused.
    #[serde(default, deserialize_with = "lenient::text")]
    pub threadpool: Option<String>,
    /// Largest message in bytes (dubbo:// only).
    #[serde(default, deserialize_with = "lenient::number")]
    pub payload: Option<u64>,
    /// Heartbeat interval in ms (dubbo:// only).
    #[serde(default, deserialize_with = "lenient::number")]
    pub heartbeat: Option<u64>,
    /// Most consumer connections the server keeps open at once (`accepts`, dubbo:// and tri://);
    /// one more is closed as soon as it is accepted. 0 or absent: no limit.
    #[serde(default, deserialize_with = "lenient::number")]
    pub accepts: Option<u32>,
    /// Serialization: `hessian2` (the default) or `fastjson2`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub serialization: Option<String>,
    /// Preferred serializations advertised to consumers, in order (`hessian2`, `fastjson2`);
    /// default `hessian2,fastjson2`, as Java 3.3 advertises.
    #[serde(default, deserialize_with = "lenient::text")]
    pub prefer_serialization: Option<String>,
    /// `ssl-enabled`: `false` keeps this protocol's port plaintext while `dubbo.ssl` configures
    /// TLS; `true` requires the `dubbo.ssl` server keys. Absent: TLS when they are set.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub ssl_enabled: Option<bool>,
    /// `triple`: settings of the Triple port (Java's `TripleConfig`); only `rest.cors` is
    /// read ([`rest_cors`](crate::rest_cors)).
    #[serde(default)]
    pub triple: Option<super::ProtocolTripleConfig>,
    /// Extra URL parameters.
    #[serde(default, deserialize_with = "lenient::text_map")]
    pub parameters: BTreeMap<String, String>,
}

/// One registry: `dubbo.registries.<id>` or `dubbo.registry`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RegistryConfig {
    /// e.g. `zookeeper://127.0.0.1:2181`, or `N/A` for none.
    #[serde(default, deserialize_with = "lenient::text")]
    pub address: Option<String>,
    /// The registry's protocol if `address` has none.
    #[serde(default, deserialize_with = "lenient::text")]
    pub protocol: Option<String>,
    /// Session / request timeout in ms.
    #[serde(default, deserialize_with = "lenient::number")]
    pub timeout: Option<u64>,
    /// Root group (ZooKeeper root node).
    #[serde(default, deserialize_with = "lenient::text")]
    pub group: Option<String>,
    /// Whether to register providers (false: subscribe only).
    #[serde(default, deserialize_with = "lenient::flag")]
    pub register: Option<bool>,
    /// `interface`, `instance` or `all`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub register_mode: Option<String>,
    /// Whether the registry also serves as config center.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub use_as_config_center: Option<bool>,
    /// The zone the registry serves: consumers prefer providers of their own zone
    /// (`registry_zone`) when they read several registries.
    #[serde(default, deserialize_with = "lenient::text")]
    pub zone: Option<String>,
    /// Whether consumers reading several registries use this one's providers first.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub preferred: Option<bool>,
    /// Whether the registry also serves as metadata center.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub use_as_metadata_center: Option<bool>,
    /// Extra URL parameters.
    #[serde(default, deserialize_with = "lenient::text_map")]
    pub parameters: BTreeMap<String, String>,
}

/// `dubbo.modules.<name>`: one module's own defaults (seed 001's third level: framework,
/// application, module). A key set here overrides the application's `dubbo.provider` /
/// `dubbo.consumer` for that module only; a service's or reference's own keys override both.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ModuleConfig {
    /// Defaults for the module's services.
    #[serde(default)]
    pub provider: Option<ProviderConfig>,
    /// Defaults for the module's references.
    #[serde(default)]
    pub consumer: Option<ConsumerConfig>,
}

/// `dubbo.config-center`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ConfigCenterConfig {
    /// e.g. `zookeeper://127.0.0.1:2181`, or `N/A` for none (not even a registry).
    #[serde(default, deserialize_with = "lenient::text")]
    pub address: Option<String>,
    /// The config centre's protocol if `address` has none.
    #[serde(default, deserialize_with = "lenient::text")]
    pub protocol: Option<String>,
    /// The root of the tree (ZooKeeper: `/{namespace}/config`); default `dubbo`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub namespace: Option<String>,
    /// The group of global configuration; default `dubbo`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub group: Option<String>,
    /// Connection timeout in ms.
    #[serde(default, deserialize_with = "lenient::number")]
    pub timeout: Option<u64>,
    /// The key of the external configuration (Java `.properties` text) read at start by
    /// `dubbo_rs::ApplicationBuilder::build_async`: global
    /// under `group`, the application's own under the application's name; default
    /// `dubbo.properties`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub config_file: Option<String>,
    /// The key of the application's own external configuration, if not `config-file`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub app_config_file: Option<String>,
    /// Whether an unreachable config centre stops the application from starting (default
    /// `true`, as Java's `check`); `false` starts without the external configuration.
    #[serde(default, deserialize_with = "lenient::flag")]
    pub check: Option<bool>,
    /// Extra URL parameters.
    #[serde(default, deserialize_with = "lenient::text_map")]
    pub parameters: BTreeMap<String, String>,
}

provider_section! {
    /// `dubbo.provider` and `dubbo.modules.<name>.provider`: the defaults of every service.
    pub struct ProviderConfig {
        /// Retries advertised to consumers.
        #[serde(default, deserialize_with = "lenient::number")]
        pub retries: Option<i32>,
        /// Load balance advertised to consumers.
        #[serde(default, deserialize_with = "lenient::text")]
        pub loadbalance: Option<String>,
    }
}

consumer_section! {
    /// `dubbo.consumer` and `dubbo.modules.<name>.consumer`: the defaults of every reference.
    pub struct ConsumerConfig {}
}

provider_section! {
    /// `dubbo.services.<id>`.
    pub struct ServiceConfig {
        /// The Java interface name; defaults to the registered service's.
        #[serde(default, deserialize_with = "lenient::text")]
        pub interface: Option<String>,
        /// Protocol ids to export on; default: all configured protocols.
        #[serde(
            default,
            alias = "protocol-ids",
            deserialize_with = "lenient::text_list"
        )]
        pub protocols: Vec<String>,
        /// Registry ids to register with; default: every configured registry.
        #[serde(
            default,
            alias = "registry-ids",
            alias = "registry",
            deserialize_with = "lenient::text_list"
        )]
        pub registries: Vec<String>,
    }
}

consumer_section! {
    /// `dubbo.references.<id>`.
    pub struct ReferenceConfig {
        /// The Java interface name; defaults to the id.
        #[serde(default, deserialize_with = "lenient::text")]
        pub interface: Option<String>,
        /// Direct connection: `dubbo://host:port` or `tri://host:port`, several separated by
        /// `;`.
        #[serde(default, deserialize_with = "lenient::text")]
        pub url: Option<String>,
        /// The version.
        #[serde(default, deserialize_with = "lenient::text")]
        pub version: Option<String>,
        /// The group.
        #[serde(default, deserialize_with = "lenient::text")]
        pub group: Option<String>,
        /// Registry ids to find the providers in; default: every configured registry.
        #[serde(
            default,
            alias = "registry-ids",
            alias = "registry",
            deserialize_with = "lenient::text_list"
        )]
        pub registries: Vec<String>,
        /// The applications that provide the service (`provided-by`, comma-separated): found
        /// without the service-name mapping.
        #[serde(default, deserialize_with = "lenient::text")]
        pub provided_by: Option<String>,
        /// How the results of several groups (`group: "*"` or `"a,b"`) are merged: `true` (by
        /// the return type) or a merger's name; unset, one group answers.
        #[serde(default, deserialize_with = "lenient::text")]
        pub merger: Option<String>,
        /// Generic reference: only `false` is accepted; generic calls are made in code with
        /// `GenericClient` over any reference.
        #[serde(default, deserialize_with = "lenient::text")]
        pub generic: Option<String>,
    }
}

/// `dubbo.tracing`, with Java Dubbo 3.3's keys.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TracingConfig {
    /// Whether calls are traced (default `false`).
    #[serde(default, deserialize_with = "lenient::flag")]
    pub enabled: Option<bool>,
    /// `dubbo.tracing.sampling`.
    #[serde(default)]
    pub sampling: Option<TracingSamplingConfig>,
    /// `dubbo.tracing.propagation`.
    #[serde(default)]
    pub propagation: Option<TracingPropagationConfig>,
    /// `dubbo.tracing.tracing-exporter`: where spans are sent.
    #[serde(default)]
    pub tracing_exporter: Option<TracingExporterConfig>,
}

/// `dubbo.tracing.sampling`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TracingSamplingConfig {
    /// The share of new traces recorded, from 0 to 1 (Java's default 0.1).
    #[serde(default, deserialize_with = "lenient::text")]
    pub probability: Option<String>,
}

/// `dubbo.tracing.propagation`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TracingPropagationConfig {
    /// `W3C` (the default and the only one supported; Java's `B3` is refused).
    #[serde(default, rename = "type", deserialize_with = "lenient::text")]
    pub kind: Option<String>,
}

/// `dubbo.tracing.tracing-exporter`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TracingExporterConfig {
    /// `dubbo.tracing.tracing-exporter.otlp-config`.
    #[serde(default)]
    pub otlp_config: Option<TracingOtlpConfig>,
}

/// `dubbo.tracing.tracing-exporter.otlp-config`: an OTLP/HTTP (protobuf) receiver.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TracingOtlpConfig {
    /// `http://host:port` (spans are posted to `/v1/traces` under it, OTLP/HTTP's port being
    /// 4318) or the full `http://host:port/v1/traces`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub endpoint: Option<String>,
    /// How long one export may take: milliseconds, or a number with `ms` or `s` (Java's
    /// default `10s`).
    #[serde(default, deserialize_with = "lenient::text")]
    pub timeout: Option<String>,
    /// `none` (the only one supported).
    #[serde(default, deserialize_with = "lenient::text")]
    pub compression_method: Option<String>,
    /// Extra request headers.
    #[serde(default, deserialize_with = "lenient::text_map")]
    pub headers: BTreeMap<String, String>,
}
