//! Parameter keys and well-known values, spelled as Java Dubbo spells them
//! (`CommonConstants`, `RegistryConstants`, `RemotingConstants`).

/// `interface`: the Java interface a service Url describes.
pub const INTERFACE: &str = "interface";
/// `group`: service group.
pub const GROUP: &str = "group";
/// `version`: service version.
pub const VERSION: &str = "version";
/// `side`: `provider` or `consumer`.
pub const SIDE: &str = "side";
/// `application`: application name.
pub const APPLICATION: &str = "application";
/// `remote.application`: the peer's application name.
pub const REMOTE_APPLICATION: &str = "remote.application";
/// `methods`: comma-separated method names of the interface.
pub const METHODS: &str = "methods";
/// `dubbo`: the Dubbo protocol version, e.g. `2.0.2`.
pub const DUBBO_VERSION: &str = "dubbo";
/// `release`: the Dubbo release that produced the Url.
pub const RELEASE: &str = "release";
/// `category`: registry category (`providers`, `consumers`, `configurators`, `routers`).
pub const CATEGORY: &str = "category";
/// `timestamp`: registration time in milliseconds.
pub const TIMESTAMP: &str = "timestamp";
/// `remote.timestamp`: the provider's registration time, as seen by a consumer.
pub const REMOTE_TIMESTAMP: &str = "remote.timestamp";
/// `pid`: process id.
pub const PID: &str = "pid";
/// `anyhost`: the provider bound 0.0.0.0.
pub const ANYHOST: &str = "anyhost";
/// `localhost`: force the Url to count as local.
pub const LOCALHOST: &str = "localhost";
/// `check`: fail at startup when no provider is available.
pub const CHECK: &str = "check";
/// `deprecated`: the service is deprecated.
pub const DEPRECATED: &str = "deprecated";
/// `dynamic`: the registry node is ephemeral.
pub const DYNAMIC: &str = "dynamic";
/// `generic`: generic invocation.
pub const GENERIC: &str = "generic";
/// `metadata-type`: `local` or `remote`.
pub const METADATA_TYPE: &str = "metadata-type";
/// `timeout`: call timeout in milliseconds.
pub const TIMEOUT: &str = "timeout";
/// `retries`: extra attempts of the failover cluster.
pub const RETRIES: &str = "retries";
/// `loadbalance`: load balancer name.
pub const LOADBALANCE: &str = "loadbalance";
/// `cluster`: fault-tolerance strategy name.
pub const CLUSTER: &str = "cluster";
/// `weight`: provider weight.
pub const WEIGHT: &str = "weight";
/// `serialization`: serialization name.
pub const SERIALIZATION: &str = "serialization";
/// `prefer.serialization`: preferred serializations, in order.
pub const PREFER_SERIALIZATION: &str = "prefer.serialization";
/// `register-mode`: `interface`, `instance` or `all`.
pub const REGISTER_MODE: &str = "register-mode";
/// `service-name-mapping`: the provider publishes interface-to-app mapping.
pub const SERVICE_NAME_MAPPING: &str = "service-name-mapping";
/// `executor-management-mode`: `isolation` or `default`.
pub const EXECUTOR_MANAGEMENT_MODE: &str = "executor-management-mode";
/// `file-cache`: cache registry data on disk.
pub const FILE_CACHE: &str = "file-cache";
/// `background`: export in the background.
pub const BACKGROUND: &str = "background";
/// `qos.port`: QoS port.
pub const QOS_PORT: &str = "qos.port";
/// `backup`: comma-separated backup addresses of a registry Url.
pub const BACKUP: &str = "backup";
/// `enabled`: whether the provider is enabled.
pub const ENABLED: &str = "enabled";
/// `reference.filter`: consumer-side filter list.
pub const REFERENCE_FILTER: &str = "reference.filter";
/// `invoker.listener`: consumer-side invoker listeners.
pub const INVOKER_LISTENER: &str = "invoker.listener";
/// `threadname`: provider thread pool name.
pub const THREAD_NAME: &str = "threadname";
/// `threadpool`: provider thread pool kind.
pub const THREADPOOL: &str = "threadpool";
/// `corethreads`: provider core threads.
pub const CORE_THREADS: &str = "corethreads";
/// `threads`: provider threads.
pub const THREADS: &str = "threads";
/// `queues`: provider queue size.
pub const QUEUES: &str = "queues";
/// `alive`: provider thread keep-alive.
pub const ALIVE: &str = "alive";
/// `transporter`: transport implementation.
pub const TRANSPORTER: &str = "transporter";
/// `dubbo.tag`: tag-router tag.
pub const TAG: &str = "dubbo.tag";
/// `protocol`: pseudo key used by address defaults.
pub const PROTOCOL: &str = "protocol";
/// `username`: pseudo key used by address defaults.
pub const USERNAME: &str = "username";
/// `password`: pseudo key used by address defaults.
pub const PASSWORD: &str = "password";
/// `host`: pseudo key used by address defaults.
pub const HOST: &str = "host";
/// `port`: pseudo key used by address defaults.
pub const PORT: &str = "port";
/// `path`: pseudo key used by address defaults.
pub const PATH: &str = "path";

/// Prefix of provider-wide defaults written by old Dubbo versions (`default.timeout`).
pub const DEFAULT_KEY_PREFIX: &str = "default.";

/// Value of `side` on a consumer Url; also the protocol of consumer registry entries.
pub const CONSUMER: &str = "consumer";
/// Value of `side` on a provider Url.
pub const PROVIDER: &str = "provider";
/// Registry category of providers (also the default category).
pub const PROVIDERS_CATEGORY: &str = "providers";
/// Registry category of consumers.
pub const CONSUMERS_CATEGORY: &str = "consumers";
/// Registry category of dynamic configuration.
pub const CONFIGURATORS_CATEGORY: &str = "configurators";
/// Registry category of routing rules.
pub const ROUTERS_CATEGORY: &str = "routers";
/// The "any host" address.
pub const ANYHOST_VALUE: &str = "0.0.0.0";
/// `*`: matches any value.
pub const ANY_VALUE: &str = "*";
/// Dubbo's default version string, equivalent to no version when matching.
pub const DEFAULT_VERSION: &str = "0.0.0";
