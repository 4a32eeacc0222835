//! What a server or a client needs to speak TLS: file paths and switches, as configured.

use std::path::PathBuf;
use std::time::Duration;

/// Default: how often, at most, the server's certificate files are looked at for a change.
pub const DEFAULT_RELOAD_INTERVAL: Duration = Duration::from_secs(5);
/// Default: how long a new connection may take to send its first byte and finish the handshake.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A server's TLS: its certificate and key (PEM files, re-read when they change), and the CA
/// certificates that client certificates must chain to (mutual TLS).
#[derive(Clone)]
pub struct ServerTlsSettings {
    /// `server-key-cert-chain-path`: the certificate chain, leaf first.
    pub cert_chain: PathBuf,
    /// `server-private-key-path`: the private key.
    pub private_key: PathBuf,
    /// `server-key-password`: the password of an encrypted PKCS#8 key.
    pub key_password: Option<String>,
    /// `server-trust-cert-collection-path`: given, every client must present a certificate
    /// signed by one of these CAs (mutual TLS), and plaintext is refused whatever
    /// `allow_plaintext` says.
    pub trust: Option<PathBuf>,
    /// Port unification: also serve plaintext connections on the TLS port (told apart by their
    /// first byte). Default false: plaintext is refused.
    pub allow_plaintext: bool,
    /// The certificate, key and trust collection files are checked for a change (modification
    /// time, size) at most this often, when a connection comes; what changed is loaded for new
    /// connections. Zero turns reloading off.
    pub reload_interval: Duration,
    /// How long a new connection may take to start and finish its handshake.
    pub handshake_timeout: Duration,
}

impl ServerTlsSettings {
    /// Settings with a certificate chain and key, no client authentication, plaintext refused.
    pub fn new(cert_chain: impl Into<PathBuf>, private_key: impl Into<PathBuf>) -> Self {
        Self {
            cert_chain: cert_chain.into(),
            private_key: private_key.into(),
            key_password: None,
            trust: None,
            allow_plaintext: false,
            reload_interval: DEFAULT_RELOAD_INTERVAL,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
        }
    }

    /// Requires client certificates signed by the CAs of `trust` (mutual TLS).
    pub fn with_client_auth(mut self, trust: impl Into<PathBuf>) -> Self {
        self.trust = Some(trust.into());
        self
    }

    /// Also serves plaintext on the same port (ignored under mutual TLS).
    pub fn with_plaintext_allowed(mut self, allow: bool) -> Self {
        self.allow_plaintext = allow;
        self
    }

    /// The password of an encrypted key.
    pub fn with_key_password(mut self, password: impl Into<String>) -> Self {
        self.key_password = Some(password.into());
        self
    }

    /// Whether client certificates are required.
    pub fn mutual(&self) -> bool {
        self.trust.is_some()
    }
}

impl std::fmt::Debug for ServerTlsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The password is never printed.
        f.debug_struct("ServerTlsSettings")
            .field("cert_chain", &self.cert_chain)
            .field("private_key", &self.private_key)
            .field("key_password", &self.key_password.as_ref().map(|_| "***"))
            .field("trust", &self.trust)
            .field("allow_plaintext", &self.allow_plaintext)
            .field("reload_interval", &self.reload_interval)
            .finish()
    }
}

/// A client's TLS: the CA certificates the server's certificate must chain to, and its own
/// certificate for mutual TLS.
#[derive(Clone)]
pub struct ClientTlsSettings {
    /// `client-trust-cert-collection-path`: the CAs that sign servers' certificates.
    pub trust: Option<PathBuf>,
    /// `client-key-cert-chain-path`: the client's certificate chain (mutual TLS).
    pub cert_chain: Option<PathBuf>,
    /// `client-private-key-path`: the client's private key.
    pub private_key: Option<PathBuf>,
    /// `client-key-password`: the password of an encrypted PKCS#8 key.
    pub key_password: Option<String>,
    /// The trust collection and certificate files are checked for a change (modification
    /// time, size) at most this often, when a connection is opened; what changed is loaded
    /// for new connections. Zero turns reloading off.
    pub reload_interval: Duration,
}

impl Default for ClientTlsSettings {
    fn default() -> Self {
        Self {
            trust: None,
            cert_chain: None,
            private_key: None,
            key_password: None,
            reload_interval: DEFAULT_RELOAD_INTERVAL,
        }
    }
}

impl ClientTlsSettings {
    /// Settings trusting the CAs of `trust`, with no client certificate.
    pub fn new(trust: impl Into<PathBuf>) -> Self {
        Self {
            trust: Some(trust.into()),
            ..Self::default()
        }
    }

    /// Presents this certificate and key when the server asks for one.
    pub fn with_identity(
        mut self,
        cert_chain: impl Into<PathBuf>,
        private_key: impl Into<PathBuf>,
    ) -> Self {
        self.cert_chain = Some(cert_chain.into());
        self.private_key = Some(private_key.into());
        self
    }
}

impl std::fmt::Debug for ClientTlsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTlsSettings")
            .field("trust", &self.trust)
            .field("cert_chain", &self.cert_chain)
            .field("private_key", &self.private_key)
            .field("key_password", &self.key_password.as_ref().map(|_| "***"))
            .field("reload_interval", &self.reload_interval)
            .finish()
    }
}
