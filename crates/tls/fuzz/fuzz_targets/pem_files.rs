//! What a certificate or key file can hold, arbitrary: the PEM readers (certificates, plain and
//! encrypted keys, with and without a password), the validity reader on every certificate found,
//! and the first-byte sniffing of port unification never panic.
#![no_main]

use std::path::Path;

use dubbo_tls::pem::{certs_from_pem, key_from_pem};
use dubbo_tls::{sniff, FirstByte, Validity, TLS_HANDSHAKE_RECORD};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.pem");
    let (password, text) = match data.split_first() {
        Some((&b, rest)) if b % 2 == 0 => (Some("secret"), rest),
        Some((_, rest)) => (None, rest),
        None => (None, data),
    };
    if let Ok(certs) = certs_from_pem(text, path, "k") {
        assert!(!certs.is_empty());
        for c in &certs {
            let _ = Validity::of(c);
        }
    }
    let _ = key_from_pem(text, path, "k", password, "p");
    // Raw DER too, as a certificate.
    let _ = Validity::of(&rustls_pki_types::CertificateDer::from(text));
    if let Some(&first) = data.first() {
        assert_eq!(sniff(first) == FirstByte::Tls, first == TLS_HANDSHAKE_RECORD);
    }
});
