//! A small command-line parser for the interop programs' fixed flags.

use std::collections::HashMap;

/// `--flag value` pairs and bare `--switch`es. A value flag may be given more than once
/// (`--attachment a=1 --attachment b=2`): [`Args::all`] returns every value in order,
/// [`Args::get`] the last one.
#[derive(Debug, Default)]
pub struct Args {
    values: HashMap<String, Vec<String>>,
    switches: Vec<String>,
}

impl Args {
    /// Parses `args` (without the program name). `switches` names the flags that take no value.
    pub fn parse(
        args: impl IntoIterator<Item = String>,
        switches: &[&str],
    ) -> Result<Self, String> {
        let mut out = Args::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--") else {
                return Err(format!("unexpected argument {a:?}"));
            };
            if let Some((k, v)) = name.split_once('=') {
                out.values
                    .entry(k.to_owned())
                    .or_default()
                    .push(v.to_owned());
            } else if switches.contains(&name) {
                out.switches.push(name.to_owned());
            } else {
                let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
                out.values.entry(name.to_owned()).or_default().push(v);
            }
        }
        Ok(out)
    }

    /// The value of `--name` (the last one when given more than once).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(|v| v.last())
            .map(String::as_str)
    }

    /// Every value of `--name`, in the order given.
    pub fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.values
            .get(name)
            .into_iter()
            .flatten()
            .map(String::as_str)
    }

    /// Every `--name K=V`, split at the first `=`.
    pub fn pairs(&self, name: &str) -> Result<Vec<(&str, &str)>, String> {
        self.all(name)
            .map(|p| {
                p.split_once('=')
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| format!("--{name} {p}: expected KEY=VALUE"))
            })
            .collect()
    }

    /// The value of `--name` as a port.
    pub fn port(&self, name: &str, default: u16) -> Result<u16, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{name}: {v:?} is not a port")),
        }
    }

    /// Whether `--name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    /// Names of all value flags given, to reject unknown ones.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values
            .keys()
            .map(String::as_str)
            .chain(self.switches.iter().map(String::as_str))
    }

    /// The first flag given that `known` does not name.
    pub fn unknown<'a>(&'a self, known: &[&str]) -> Option<&'a str> {
        self.names().find(|n| !known.contains(n))
    }
}

#[cfg(test)]
mod tests {
    use super::Args;

    fn parse(args: &[&str]) -> Result<Args, String> {
        Args::parse(args.iter().map(|s| s.to_string()), &["current-thread"])
    }

    #[test]
    fn repeated_values_are_kept_in_order() {
        let a = parse(&[
            "--attachment",
            "a=1",
            "--attachment=b=2",
            "--timeout",
            "300",
            "--current-thread",
        ])
        .unwrap();
        assert_eq!(a.all("attachment").collect::<Vec<_>>(), ["a=1", "b=2"]);
        assert_eq!(a.pairs("attachment").unwrap(), [("a", "1"), ("b", "2")]);
        assert_eq!(a.get("timeout"), Some("300"));
        assert!(a.has("current-thread"));
        assert_eq!(
            a.unknown(&["attachment", "timeout", "current-thread"]),
            None
        );
        assert_eq!(
            a.unknown(&["attachment", "current-thread"]),
            Some("timeout")
        );
    }

    #[test]
    fn a_pair_needs_a_key_and_an_equals_sign() {
        assert!(parse(&["--param", "novalue"])
            .unwrap()
            .pairs("param")
            .is_err());
        assert!(parse(&["--param", "=v"]).unwrap().pairs("param").is_err());
        assert_eq!(
            parse(&["--param", "k="]).unwrap().pairs("param").unwrap(),
            [("k", "")]
        );
    }
}
