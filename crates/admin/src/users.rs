//! [`User`] and [`Role`]: who may log in, checked against a SHA-256 digest of the password.

use sha2::{Digest, Sha256};

use crate::error::AdminError;

/// What a user may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Read everything; call services, write rules.
    Admin,
    /// Read everything, change nothing, call nothing.
    ReadOnly,
}

impl Role {
    /// `admin` or `read-only`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "admin" => Some(Role::Admin),
            "read-only" | "readonly" => Some(Role::ReadOnly),
            _ => None,
        }
    }

    /// The name `parse` reads.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::ReadOnly => "read-only",
        }
    }
}

/// A user who may log in.
#[derive(Debug, Clone)]
pub struct User {
    /// The login name.
    pub name: String,
    /// SHA-256 of the password.
    digest: [u8; 32],
    /// The role.
    pub role: Role,
}

/// SHA-256 of `text`.
pub fn sha256(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

impl User {
    /// A user with this clear-text password.
    pub fn with_password(name: &str, password: &str, role: Role) -> Self {
        Self {
            name: name.to_owned(),
            digest: sha256(password),
            role,
        }
    }

    /// A user with the password whose SHA-256 is `hex`.
    pub fn with_digest(name: &str, hex: &str, role: Role) -> Result<Self, AdminError> {
        let bad =
            || AdminError::Config(format!("user {name}: password-sha256 is not 64 hex digits"));
        let hex = hex.trim();
        if hex.len() != 64 {
            return Err(bad());
        }
        let mut digest = [0u8; 32];
        for (i, b) in digest.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2).ok_or_else(bad)?, 16)
                .map_err(|_| bad())?;
        }
        Ok(Self {
            name: name.to_owned(),
            digest,
            role,
        })
    }

    /// Whether `password` is this user's, compared in constant time.
    pub fn check(&self, password: &str) -> bool {
        let given = sha256(password);
        given
            .iter()
            .zip(self.digest.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

/// The SHA-256 of `text` in hexadecimal.
pub fn sha256_hex(text: &str) -> String {
    sha256(text).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_check_passwords() {
        let u = User::with_digest("a", &sha256_hex("secret"), Role::Admin).unwrap();
        assert!(u.check("secret"));
        assert!(!u.check("Secret"));
        assert!(User::with_digest("a", "zz", Role::Admin).is_err());
        assert_eq!(Role::parse("read-only"), Some(Role::ReadOnly));
        assert_eq!(Role::parse("root"), None);
    }
}
