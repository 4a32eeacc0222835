//! The admin's data directory: the session key generated at first start, the password
//! generated for `admin` when no user is configured, and the audit log.

use std::io::Write;
use std::path::Path;

use crate::error::AdminError;
use crate::session::SessionKey;
use crate::users::{sha256_hex, Role, User};

const KEY_FILE: &str = "session.key";
const GENERATED_USER_FILE: &str = "admin-password.sha256";

/// `n` random bytes from the operating system.
pub fn random_bytes(n: usize) -> Result<Vec<u8>, AdminError> {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b).map_err(|e| AdminError::io("random bytes", &e))?;
    Ok(b)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `text` to a new file readable by its owner only.
fn write_private(path: &Path, text: &str) -> Result<(), AdminError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options
        .open(path)
        .map_err(|e| AdminError::io(path.display().to_string(), &e))?;
    f.write_all(text.as_bytes())
        .map_err(|e| AdminError::io(path.display().to_string(), &e))
}

/// Creates the directory if it is missing.
pub fn ensure(dir: &Path) -> Result<(), AdminError> {
    std::fs::create_dir_all(dir).map_err(|e| AdminError::io(dir.display().to_string(), &e))
}

/// The configured session key, else the one kept in `dir`, else a new one written there.
pub fn session_key(dir: &Path, configured: Option<&str>) -> Result<SessionKey, AdminError> {
    if let Some(k) = configured {
        if k.len() < 32 {
            return Err(AdminError::Config(
                "session-key must have at least 32 characters".into(),
            ));
        }
        return Ok(SessionKey::new(k.as_bytes().to_vec()));
    }
    let path = dir.join(KEY_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().len() >= 64 => Ok(SessionKey::new(text.trim().as_bytes().to_vec())),
        Ok(_) => Err(AdminError::Config(format!(
            "{}: not a session key (64 hex digits); remove it to have a new one made",
            path.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = hex(&random_bytes(32)?);
            write_private(&path, &key)?;
            Ok(SessionKey::new(key.into_bytes()))
        }
        Err(e) => Err(AdminError::io(path.display().to_string(), &e)),
    }
}

/// The `admin` user when no user is configured: its password is generated at the first start,
/// printed once (returned here), and only its digest kept in `dir`.
pub fn generated_admin(dir: &Path) -> Result<(User, Option<String>), AdminError> {
    let path = dir.join(GENERATED_USER_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok((User::with_digest("admin", text.trim(), Role::Admin)?, None)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let password = hex(&random_bytes(12)?);
            write_private(&path, &sha256_hex(&password))?;
            Ok((
                User::with_password("admin", &password, Role::Admin),
                Some(password),
            ))
        }
        Err(e) => Err(AdminError::io(path.display().to_string(), &e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_password_is_told_once_and_kept_as_a_digest() {
        let dir = std::env::temp_dir().join(format!("dubbo-admin-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        ensure(&dir).unwrap();
        let (user, told) = generated_admin(&dir).unwrap();
        let password = told.unwrap();
        assert!(user.check(&password));
        let (again, told_again) = generated_admin(&dir).unwrap();
        assert!(told_again.is_none() && again.check(&password));
        let k1 = session_key(&dir, None).unwrap();
        let k2 = session_key(&dir, None).unwrap();
        let s = crate::session::Session {
            user: "admin".into(),
            role: Role::Admin,
            expires: 10,
        };
        assert!(k2.verify(&k1.sign(&s), 1).is_some());
        assert!(session_key(&dir, Some("short")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
