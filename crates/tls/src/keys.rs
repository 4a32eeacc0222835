//! Java Dubbo's `dubbo.ssl` key names (`org.apache.dubbo.config.SslConfig`), used in messages
//! and by the configuration loader.

/// The server's certificate chain, PEM (leaf first).
pub const SERVER_KEY_CERT_CHAIN_PATH: &str = "dubbo.ssl.server-key-cert-chain-path";
/// The server's private key, PEM.
pub const SERVER_PRIVATE_KEY_PATH: &str = "dubbo.ssl.server-private-key-path";
/// The password of an encrypted server key.
pub const SERVER_KEY_PASSWORD: &str = "dubbo.ssl.server-key-password";
/// CA certificates a client certificate must chain to; given, client certificates are required.
pub const SERVER_TRUST_CERT_COLLECTION_PATH: &str = "dubbo.ssl.server-trust-cert-collection-path";
/// The client's certificate chain, PEM (for mutual TLS).
pub const CLIENT_KEY_CERT_CHAIN_PATH: &str = "dubbo.ssl.client-key-cert-chain-path";
/// The client's private key, PEM.
pub const CLIENT_PRIVATE_KEY_PATH: &str = "dubbo.ssl.client-private-key-path";
/// The password of an encrypted client key.
pub const CLIENT_KEY_PASSWORD: &str = "dubbo.ssl.client-key-password";
/// CA certificates the server's certificate must chain to.
pub const CLIENT_TRUST_CERT_COLLECTION_PATH: &str = "dubbo.ssl.client-trust-cert-collection-path";
