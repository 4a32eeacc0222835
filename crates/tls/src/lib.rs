//! TLS for dubbo-rs transports, with rustls (the `ring` provider).
//!
//! - [`ServerTls`]: a port's TLS. [`ServerTls::accept`] does port unification: a connection
//!   whose first byte opens a TLS handshake (`0x16`) is served over TLS, any other is served
//!   as plaintext only when the port allows it (and never under mutual TLS). The certificate
//!   and the trust collection are re-read from disk when their files change ([`ReloadingCert`]),
//!   for new connections only.
//! - [`ClientTls`]: TLS on a client's connection, checking the server's certificate against
//!   the configured CAs and the dialled host; with a certificate of its own for mutual TLS.
//!   Both are re-read from disk when their files change, for new connections only.
//! - [`ServerTlsSettings`] / [`ClientTlsSettings`]: what to load, with Java Dubbo's
//!   `dubbo.ssl.*` meanings ([`keys`]). PEM files; private keys in PKCS#8, PKCS#1 or SEC1, or
//!   encrypted PKCS#8 with a password.
//! - [`Validity`]: certificates that are expired or not yet valid are reported when loaded.

#![warn(missing_docs)]

pub mod client;
pub mod error;
pub mod keys;
pub mod pem;
pub mod reload;
pub mod server;
pub mod settings;
#[cfg(feature = "testing")]
pub mod testing;
mod trust;
pub mod validity;
mod watch;

use std::sync::Arc;

pub use client::ClientTls;
pub use error::TlsError;
pub use reload::{CertSide, ReloadingCert};
pub use server::{sniff, Accepted, FirstByte, ServerTls, TLS_HANDSHAKE_RECORD};
pub use settings::{ClientTlsSettings, ServerTlsSettings};
pub use tokio_rustls::{
    client::TlsStream as ClientTlsStream, server::TlsStream as ServerTlsStream,
};
pub use validity::{Validity, ValidityState};

/// ALPN protocol id of HTTP/2.
pub const ALPN_H2: &[u8] = b"h2";
/// ALPN protocol id of HTTP/1.1.
pub const ALPN_HTTP1: &[u8] = b"http/1.1";

/// The crypto provider every configuration of this crate is built with: ring's, passed
/// explicitly rather than installed process-wide, so an application that installs another
/// provider for its own rustls use is not disturbed.
///
/// rustls marks ring's provider deprecated because it has no post-quantum key exchange; the
/// aws-lc-rs provider that has it needs cmake (and nasm on some targets) to build, and the
/// Java and gRPC peers this crate talks to negotiate classic ECDHE anyway.
#[allow(deprecated)]
pub(crate) fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}
