//! A small command-line parser for the interop programs' fixed flags.

use std::collections::HashMap;

/// `--flag value` pairs and bare `--switch`es.
#[derive(Debug, Default)]
pub struct Args {
    values: HashMap<String, String>,
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
                out.values.insert(k.to_owned(), v.to_owned());
            } else if switches.contains(&name) {
                out.switches.push(name.to_owned());
            } else {
                let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
                out.values.insert(name.to_owned(), v);
            }
        }
        Ok(out)
    }

    /// The value of `--name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
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
}
