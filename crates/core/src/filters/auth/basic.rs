//! `authenticator=basic`: HTTP Basic credentials, Java's `BasicAuthenticator`.

use base64::Engine as _;
use dubbo_url::Url;

use super::signature::same_signature;
use super::{required, AuthError, AUTHORIZATION_ATTACHMENT, PASSWORD_KEY, USERNAME_KEY};
use crate::attachments::Attachments;

/// `Basic base64(user:password)`, the `Authorization` header value of RFC 7617.
pub fn basic_header_value(username: &str, password: &str) -> String {
    let encoded =
        base64::engine::general_purpose::STANDARD.encode(format!("{username}:{password}"));
    format!("Basic {encoded}")
}

/// The user name and password of a URL.
#[derive(Clone, PartialEq, Eq)]
pub struct BasicAuthenticator {
    header: String,
    username: String,
}

impl std::fmt::Debug for BasicAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicAuthenticator")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

impl BasicAuthenticator {
    /// Credentials `username` / `password`.
    pub fn new(username: &str, password: &str) -> Self {
        Self {
            header: basic_header_value(username, password),
            username: username.to_owned(),
        }
    }

    /// Reads `username` and `password` from `url`.
    pub fn from_url(url: &Url) -> Result<Self, AuthError> {
        let user = required(url, "basic", USERNAME_KEY)?;
        let password = required(url, "basic", PASSWORD_KEY)?;
        Ok(Self::new(user, password))
    }

    /// Puts the `authorization` attachment on a call (over Triple, the HTTP header).
    pub fn sign(&self, attachments: &mut Attachments) {
        attachments.insert(AUTHORIZATION_ATTACHMENT, self.header.as_str());
    }

    /// Checks the `authorization` (or `Authorization`) attachment of a call.
    pub fn authenticate(&self, attachments: &Attachments) -> Result<(), AuthError> {
        let given = attachments
            .get_str(AUTHORIZATION_ATTACHMENT)
            .or_else(|| attachments.get_str("Authorization"));
        match given {
            Some(v) if same_signature(v.trim(), &self.header) => Ok(()),
            _ => Err(AuthError::NotSigned),
        }
    }
}
