//! The configuration tree, with Dubbo's key names.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The whole configuration: the `dubbo:` section of a YAML file.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
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
}

/// `dubbo.application`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ApplicationConfig {
    /// The application name; required.
    pub name: Option<String>,
    /// Free-form version of the application.
    pub version: Option<String>,
    /// Owner, organisation and environment labels.
    pub owner: Option<String>,
    /// The organisation.
    pub organization: Option<String>,
    /// `dev`, `test` or `product`.
    pub environment: Option<String>,
    /// Whether the QoS port is opened.
    pub qos_enable: Option<bool>,
    /// The QoS port.
    pub qos_port: Option<u16>,
    /// `interface`, `instance` or `all`.
    pub register_mode: Option<String>,
    /// How long graceful shutdown may take, in ms (`dubbo.service.shutdown.wait` in Java).
    pub shutdown_wait: Option<u64>,
}

/// One protocol: `dubbo.protocols.<id>` or `dubbo.protocol`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ProtocolConfig {
    /// `dubbo` or `tri`; defaults to the id.
    pub name: Option<String>,
    /// The port to listen on; `-1` or absent means the protocol's default.
    pub port: Option<i32>,
    /// The address to bind and to advertise.
    pub host: Option<String>,
    /// Handler concurrency of the worker pool.
    pub threads: Option<u32>,
    /// `all` (worker pool) or `direct` (on the connection task).
    pub dispatcher: Option<String>,
    /// `fixed`, `cached`, ... (accepted for compatibility; the pool is always bounded).
    pub threadpool: Option<String>,
    /// Largest message in bytes.
    pub payload: Option<u64>,
    /// Heartbeat interval in ms.
    pub heartbeat: Option<u64>,
    /// Serialization; only `hessian2` for dubbo://.
    pub serialization: Option<String>,
    /// Preferred serializations advertised to consumers.
    pub prefer_serialization: Option<String>,
    /// Extra URL parameters.
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}

/// One registry: `dubbo.registries.<id>` or `dubbo.registry`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RegistryConfig {
    /// e.g. `zookeeper://127.0.0.1:2181`, or `N/A` for none.
    pub address: Option<String>,
    /// The registry's protocol if `address` has none.
    pub protocol: Option<String>,
    /// Session / request timeout in ms.
    pub timeout: Option<u64>,
    /// Root group (ZooKeeper root node).
    pub group: Option<String>,
    /// Whether to register providers (false: subscribe only).
    pub register: Option<bool>,
    /// `interface`, `instance` or `all`.
    pub register_mode: Option<String>,
    /// Whether the registry also serves as config center.
    pub use_as_config_center: Option<bool>,
    /// Whether the registry also serves as metadata center.
    pub use_as_metadata_center: Option<bool>,
    /// Extra URL parameters.
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}

/// Options shared by providers and consumers and by their defaults.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ProviderConfig {
    /// Default call timeout in ms advertised to consumers.
    pub timeout: Option<u64>,
    /// Default version.
    pub version: Option<String>,
    /// Default group.
    pub group: Option<String>,
    /// Filter list (`-name` removes one).
    pub filter: Option<String>,
    /// Retries advertised to consumers.
    pub retries: Option<i32>,
    /// Load balance advertised to consumers.
    pub loadbalance: Option<String>,
    /// Weight of this provider.
    pub weight: Option<u32>,
    /// Token required from consumers (`true` for a random one).
    pub token: Option<String>,
    /// Maximum concurrent executions per method.
    pub executes: Option<u32>,
    /// Whether to register with registries.
    pub register: Option<bool>,
    /// Extra URL parameters.
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}

/// `dubbo.consumer`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ConsumerConfig {
    /// Default timeout in ms.
    pub timeout: Option<u64>,
    /// Default retries (failover).
    pub retries: Option<i32>,
    /// Default load balance.
    pub loadbalance: Option<String>,
    /// Default cluster strategy.
    pub cluster: Option<String>,
    /// Whether a reference fails at start when no provider is available.
    pub check: Option<bool>,
    /// Filter list.
    pub filter: Option<String>,
    /// Default protocol.
    pub protocol: Option<String>,
    /// Connections per provider.
    pub connections: Option<u32>,
    /// Connect on first call instead of at start.
    pub lazy: Option<bool>,
    /// Maximum concurrent calls per method.
    pub actives: Option<u32>,
    /// Extra URL parameters.
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}

/// `dubbo.services.<id>`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ServiceConfig {
    /// The Java interface name; defaults to the registered service's.
    pub interface: Option<String>,
    /// The version.
    pub version: Option<String>,
    /// The group.
    pub group: Option<String>,
    /// Protocol ids to export on; default: all configured protocols.
    #[serde(default, alias = "protocol-ids")]
    pub protocols: Vec<String>,
    /// Call timeout in ms advertised to consumers.
    pub timeout: Option<u64>,
    /// Filter list.
    pub filter: Option<String>,
    /// Token required from consumers.
    pub token: Option<String>,
    /// Weight.
    pub weight: Option<u32>,
    /// Whether to register.
    pub register: Option<bool>,
    /// Extra URL parameters.
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}

/// `dubbo.references.<id>`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ReferenceConfig {
    /// The Java interface name; defaults to the id.
    pub interface: Option<String>,
    /// Direct connection: `dubbo://host:port` or `tri://host:port`, several separated by `;`.
    pub url: Option<String>,
    /// The version.
    pub version: Option<String>,
    /// The group.
    pub group: Option<String>,
    /// `dubbo` or `tri`.
    pub protocol: Option<String>,
    /// Timeout in ms.
    pub timeout: Option<u64>,
    /// Retries.
    pub retries: Option<i32>,
    /// Load balance.
    pub loadbalance: Option<String>,
    /// Cluster strategy.
    pub cluster: Option<String>,
    /// Whether a reference fails at start when no provider is available.
    pub check: Option<bool>,
    /// Filter list.
    pub filter: Option<String>,
    /// Connections per provider.
    pub connections: Option<u32>,
    /// Connect on first call.
    pub lazy: Option<bool>,
    /// Generic reference (`true`).
    pub generic: Option<String>,
    /// Extra URL parameters.
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}
