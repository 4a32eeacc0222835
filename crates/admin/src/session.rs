//! Signed session cookies: `name.role.expiry.signature`, the signature an HMAC-SHA256 of the
//! rest under the admin's session key, so a session needs no server-side table and survives a
//! restart with the same key.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::users::Role;

/// The cookie's name.
pub const COOKIE: &str = "dubbo_admin_session";

/// How long a session lasts, in seconds.
pub const SESSION_SECONDS: u64 = 8 * 3600;

/// Who a valid session belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The user's name.
    pub user: String,
    /// The user's role when the session began.
    pub role: Role,
    /// When it ends, in seconds since the epoch.
    pub expires: u64,
}

/// The key sessions are signed with.
#[derive(Clone)]
pub struct SessionKey(Vec<u8>);

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionKey(..)")
    }
}

/// Seconds since the epoch.
pub fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl SessionKey {
    /// A key of these bytes.
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    fn mac(&self, payload: &str) -> Option<Hmac<Sha256>> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).ok()?;
        mac.update(payload.as_bytes());
        Some(mac)
    }

    /// The cookie value of `session`.
    pub fn sign(&self, session: &Session) -> String {
        let payload = format!(
            "{}.{}.{}",
            URL_SAFE_NO_PAD.encode(session.user.as_bytes()),
            session.role.as_str(),
            session.expires
        );
        let signature = self
            .mac(&payload)
            .map(|m| URL_SAFE_NO_PAD.encode(m.finalize().into_bytes()))
            .unwrap_or_default();
        format!("{payload}.{signature}")
    }

    /// The session of a cookie value, if it is signed with this key and has not expired.
    pub fn verify(&self, value: &str, now: u64) -> Option<Session> {
        let (payload, signature) = value.rsplit_once('.')?;
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        self.mac(payload)?.verify_slice(&signature).ok()?;
        let mut parts = payload.split('.');
        let user = String::from_utf8(URL_SAFE_NO_PAD.decode(parts.next()?).ok()?).ok()?;
        let role = Role::parse(parts.next()?)?;
        let expires: u64 = parts.next()?.parse().ok()?;
        if parts.next().is_some() || expires <= now {
            return None;
        }
        Some(Session {
            user,
            role,
            expires,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_verify_only_with_their_key_and_until_they_expire() {
        let key = SessionKey::new(b"0123456789abcdef0123456789abcdef".to_vec());
        let s = Session {
            user: "ann.b".into(),
            role: Role::ReadOnly,
            expires: 1000,
        };
        let cookie = key.sign(&s);
        assert_eq!(key.verify(&cookie, 999), Some(s.clone()));
        assert_eq!(key.verify(&cookie, 1000), None);
        let other = SessionKey::new(b"another key of thirty-two bytes!".to_vec());
        assert_eq!(other.verify(&cookie, 1), None);
        // A role raised by hand breaks the signature.
        let forged = cookie.replacen("read-only", "admin", 1);
        assert_eq!(key.verify(&forged, 1), None);
        assert_eq!(key.verify("garbage", 1), None);
    }
}
