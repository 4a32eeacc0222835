//! `authenticator=accesskey`: Java's `AccessKeyAuthenticator`, plus a replay window.

use dubbo_url::Url;

use super::signature::{call_signature, same_signature};
use super::{
    required, AuthError, ACCESS_KEY_ID_KEY, AK_ATTACHMENT, CONSUMER_ATTACHMENT,
    SECRET_ACCESS_KEY_KEY, SIGNATURE_ATTACHMENT, TIMESTAMP_ATTACHMENT, TIMESTAMP_WINDOW_KEY,
};
use crate::attachments::Attachments;

/// The default of [`TIMESTAMP_WINDOW_KEY`]: five minutes, in milliseconds.
pub const DEFAULT_TIMESTAMP_WINDOW: u64 = 5 * 60 * 1000;

/// The access-key pair of a URL and how old a signature the provider accepts.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessKeyAuthenticator {
    access_key_id: String,
    secret_access_key: String,
    window_ms: u64,
}

impl std::fmt::Debug for AccessKeyAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret never reaches a log.
        f.debug_struct("AccessKeyAuthenticator")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"******")
            .field("window_ms", &self.window_ms)
            .finish()
    }
}

impl AccessKeyAuthenticator {
    /// A pair with the default window.
    pub fn new(access_key_id: impl Into<String>, secret_access_key: impl Into<String>) -> Self {
        Self {
            access_key_id: access_key_id.into(),
            secret_access_key: secret_access_key.into(),
            window_ms: DEFAULT_TIMESTAMP_WINDOW,
        }
    }

    /// The same pair with a replay window of `window_ms` (0: no check).
    pub fn with_window(mut self, window_ms: u64) -> Self {
        self.window_ms = window_ms;
        self
    }

    /// Reads `.accessKeyId`, `.secretAccessKey` and `auth.timestamp.window` from `url`.
    pub fn from_url(url: &Url) -> Result<Self, AuthError> {
        let ak = required(url, "accesskey", ACCESS_KEY_ID_KEY)?;
        let sk = required(url, "accesskey", SECRET_ACCESS_KEY_KEY)?;
        let window = match url.parameter(TIMESTAMP_WINDOW_KEY) {
            None => DEFAULT_TIMESTAMP_WINDOW,
            Some(v) => v.trim().parse::<u64>().map_err(|_| AuthError::BadSetting {
                key: TIMESTAMP_WINDOW_KEY,
                value: v.to_owned(),
                why: "a number of milliseconds (0 turns the check off)",
            })?,
        };
        Ok(Self::new(ak, sk).with_window(window))
    }

    /// The access key id.
    pub fn access_key_id(&self) -> &str {
        &self.access_key_id
    }

    /// Puts the four attachments of a call of `method` on `service` (its colon-separated key)
    /// signed at `timestamp_ms`, by application `consumer`.
    pub fn sign(
        &self,
        service: &str,
        method: &str,
        timestamp_ms: i64,
        consumer: &str,
        attachments: &mut Attachments,
    ) {
        let timestamp = timestamp_ms.to_string();
        let signature = call_signature(service, method, &self.secret_access_key, &timestamp);
        attachments.insert(SIGNATURE_ATTACHMENT, signature);
        attachments.insert(TIMESTAMP_ATTACHMENT, timestamp);
        attachments.insert(AK_ATTACHMENT, self.access_key_id.as_str());
        attachments.insert(CONSUMER_ATTACHMENT, consumer);
    }

    /// Checks the attachments of a call of `method` on `service` received at `now_ms`: all four
    /// present, the access key id the provider's, the signature right, and the timestamp
    /// within the window.
    pub fn authenticate(
        &self,
        service: &str,
        method: &str,
        attachments: &Attachments,
        now_ms: i64,
    ) -> Result<(), AuthError> {
        let get = |k: &str| attachments.get_str(k).filter(|v| !v.is_empty());
        let (Some(ak), Some(timestamp), Some(signature), Some(_consumer)) = (
            get(AK_ATTACHMENT),
            get(TIMESTAMP_ATTACHMENT),
            get(SIGNATURE_ATTACHMENT),
            get(CONSUMER_ATTACHMENT),
        ) else {
            return Err(AuthError::NotSigned);
        };
        let expected = call_signature(service, method, &self.secret_access_key, timestamp);
        if !same_signature(&expected, signature) {
            return Err(AuthError::BadSignature);
        }
        // Checked after the signature, so that only a holder of the secret learns this.
        if ak != self.access_key_id {
            return Err(AuthError::UnknownAccessKey(ak.to_owned()));
        }
        if self.window_ms > 0 {
            let ts: i64 = timestamp
                .trim()
                .parse()
                .map_err(|_| AuthError::BadTimestamp(timestamp.to_owned()))?;
            let skew_ms = now_ms.abs_diff(ts);
            if skew_ms > self.window_ms {
                return Err(AuthError::StaleTimestamp {
                    timestamp: ts,
                    skew_ms,
                    window_ms: self.window_ms,
                });
            }
        }
        Ok(())
    }
}
