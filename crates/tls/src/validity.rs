//! Certificate validity dates, checked when certificates are loaded: a certificate that has
//! expired or is not valid yet is reported (a warning naming the file and the dates) rather
//! than discovered by the first peer that refuses it.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustls_pki_types::CertificateDer;
use x509_cert::der::Decode;
use x509_cert::Certificate;

/// When one certificate is valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validity {
    /// The subject, as text (`CN=server,O=...`).
    pub subject: String,
    /// Not valid before this time.
    pub not_before: SystemTime,
    /// Not valid after this time.
    pub not_after: SystemTime,
    /// `not_before` as printed in the certificate (UTC).
    pub not_before_text: String,
    /// `not_after` as printed in the certificate (UTC).
    pub not_after_text: String,
}

/// Where a certificate stands at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidityState {
    /// Within its dates.
    Valid,
    /// Its not-before date is still to come.
    NotYetValid,
    /// Its not-after date has passed.
    Expired,
}

impl Validity {
    /// The dates of a DER certificate; `None` when it cannot be parsed (rustls reports such a
    /// certificate itself).
    pub fn of(cert: &CertificateDer<'_>) -> Option<Validity> {
        let c = Certificate::from_der(cert.as_ref()).ok()?;
        let v = &c.tbs_certificate.validity;
        Some(Validity {
            subject: c.tbs_certificate.subject.to_string(),
            not_before: v.not_before.to_system_time(),
            not_after: v.not_after.to_system_time(),
            not_before_text: v.not_before.to_string(),
            not_after_text: v.not_after.to_string(),
        })
    }

    /// Where the certificate stands at `now`.
    pub fn state_at(&self, now: SystemTime) -> ValidityState {
        if now < self.not_before {
            ValidityState::NotYetValid
        } else if now > self.not_after {
            ValidityState::Expired
        } else {
            ValidityState::Valid
        }
    }

    /// Seconds from `now` until the certificate expires; negative once it has.
    pub fn seconds_left(&self, now: SystemTime) -> i64 {
        let secs = |t: SystemTime| {
            t.duration_since(UNIX_EPOCH)
                .unwrap_or(Duration::ZERO)
                .as_secs() as i64
        };
        secs(self.not_after) - secs(now)
    }
}

/// Checks every certificate of a chain read from `path` (named by configuration key `key`) at
/// `now`, logs a warning for each that is expired or not yet valid, and returns the leaf's
/// dates.
pub fn check_chain(
    certs: &[CertificateDer<'_>],
    path: &Path,
    key: &str,
    now: SystemTime,
) -> Option<Validity> {
    let mut leaf = None;
    for (i, cert) in certs.iter().enumerate() {
        let Some(v) = Validity::of(cert) else {
            continue;
        };
        match v.state_at(now) {
            ValidityState::Valid => {}
            ValidityState::Expired => tracing::warn!(
                key,
                file = %path.display(),
                index = i,
                subject = %v.subject,
                not_before = %v.not_before_text,
                not_after = %v.not_after_text,
                "certificate {} of {} has EXPIRED (valid {} to {}); peers will refuse it",
                v.subject, path.display(), v.not_before_text, v.not_after_text
            ),
            ValidityState::NotYetValid => tracing::warn!(
                key,
                file = %path.display(),
                index = i,
                subject = %v.subject,
                not_before = %v.not_before_text,
                not_after = %v.not_after_text,
                "certificate {} of {} is NOT YET VALID (valid {} to {}); peers will refuse it",
                v.subject, path.display(), v.not_before_text, v.not_after_text
            ),
        }
        if i == 0 {
            leaf = Some(v);
        }
    }
    leaf
}
