//! The TLS flags of the interop programs (CONTRACT.md §5), as `dubbo.ssl` settings.
//!
//! - server: `--tls-cert FILE --tls-key FILE [--tls-ca FILE] [--tls-optional]`: TLS on both
//!   ports; with `--tls-ca`, client certificates signed by that CA are required; with
//!   `--tls-optional`, plaintext is served beside TLS (never under mutual TLS).
//! - client: `--tls-ca FILE [--tls-cert FILE --tls-key FILE]`: dial TLS, trusting that CA,
//!   presenting the certificate when given.
//! - both: `--tls-reload-ms MS`: how often at most the certificate, key and trust files are
//!   looked at for a change (`dubbo.ssl.cert-reload-interval`).

use dubbo_rs::config::SslConfig;

use crate::args::Args;

/// The server's `dubbo.ssl` from its flags; `None` without `--tls-cert`/`--tls-key`.
pub fn server_ssl(args: &Args) -> Result<Option<SslConfig>, String> {
    let (cert, key) = match (args.get("tls-cert"), args.get("tls-key")) {
        (Some(c), Some(k)) => (c, k),
        (None, None) => {
            if args.get("tls-ca").is_some() || args.has("tls-optional") {
                return Err("--tls-ca and --tls-optional need --tls-cert and --tls-key".into());
            }
            return Ok(None);
        }
        _ => return Err("--tls-cert and --tls-key go together".into()),
    };
    Ok(Some(SslConfig {
        server_key_cert_chain_path: Some(cert.to_owned()),
        server_private_key_path: Some(key.to_owned()),
        server_trust_cert_collection_path: args.get("tls-ca").map(str::to_owned),
        server_allow_plaintext: args.has("tls-optional").then_some(true),
        cert_reload_interval: reload_ms(args)?,
        ..SslConfig::default()
    }))
}

/// The client's `dubbo.ssl` from its flags; `None` without `--tls-ca`.
pub fn client_ssl(args: &Args) -> Result<Option<SslConfig>, String> {
    let pair = match (args.get("tls-cert"), args.get("tls-key")) {
        (Some(c), Some(k)) => Some((c, k)),
        (None, None) => None,
        _ => return Err("--tls-cert and --tls-key go together".into()),
    };
    let Some(ca) = args.get("tls-ca") else {
        if pair.is_some() {
            return Err("--tls-cert and --tls-key need --tls-ca".into());
        }
        return Ok(None);
    };
    Ok(Some(SslConfig {
        client_trust_cert_collection_path: Some(ca.to_owned()),
        client_key_cert_chain_path: pair.map(|(c, _)| c.to_owned()),
        client_private_key_path: pair.map(|(_, k)| k.to_owned()),
        cert_reload_interval: reload_ms(args)?,
        ..SslConfig::default()
    }))
}

/// `--tls-reload-ms MS`, when given.
fn reload_ms(args: &Args) -> Result<Option<u64>, String> {
    args.get("tls-reload-ms")
        .map(|ms| {
            ms.parse()
                .map_err(|_| format!("--tls-reload-ms {ms}: not a number of milliseconds"))
        })
        .transpose()
}
