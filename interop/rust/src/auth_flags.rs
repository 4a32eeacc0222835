//! The authentication flags of the interop programs (CONTRACT.md §5): `--auth accesskey --ak ID
//! --sk SECRET` (Java's `dubbo-auth` access-key signature) and `--auth basic --user U
//! --password P` (HTTP Basic), turned into the URL parameters of Java's names that services
//! check and references sign with.

use crate::args::Args;

/// The flags this module reads.
pub const AUTH_FLAGS: &[&str] = &["auth", "ak", "sk", "user", "password"];

/// The URL parameters `--auth` and its credentials ask for; empty without `--auth`.
pub fn auth_params(args: &Args) -> Result<Vec<(String, String)>, String> {
    let need = |flag: &str, scheme: &str| {
        args.get(flag)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("--auth {scheme} needs --{flag}"))
    };
    let pairs: Vec<(&str, String)> = match args.get("auth") {
        None => {
            if let Some(f) = ["ak", "sk", "user", "password"]
                .iter()
                .find(|f| args.has(f))
            {
                return Err(format!("--{f} goes with --auth"));
            }
            return Ok(Vec::new());
        }
        Some("accesskey") => vec![
            ("auth", "true".into()),
            ("authenticator", "accesskey".into()),
            (".accessKeyId", need("ak", "accesskey")?),
            (".secretAccessKey", need("sk", "accesskey")?),
        ],
        Some("basic") => vec![
            ("auth", "true".into()),
            ("authenticator", "basic".into()),
            ("username", need("user", "basic")?),
            ("password", need("password", "basic")?),
        ],
        Some(other) => return Err(format!("--auth {other}: expected accesskey or basic")),
    };
    Ok(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}
