//! A QoS command as read from an HTTP request, the way Java's QoS decodes one: the command
//! is the first path segment; its arguments are a second path segment (`GET /offline/PATTERN`),
//! or the values of the query (`GET /offline?service=PATTERN`), or those of a form body
//! (`POST /offline` with `service=PATTERN`). Parameter names do not matter, only the order of
//! their values.

use http::Method;

/// A command and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Command {
    /// `metrics`, `offline`, ...; empty for `/`.
    pub(crate) name: String,
    pub(crate) args: Vec<String>,
}

impl Command {
    /// The command of a request, or `None` when Java's QoS would not read one from it (a
    /// deeper path, a method other than GET and POST, an argument in the path of a POST):
    /// then the answer is 404.
    pub(crate) fn parse(
        method: &Method,
        path: &str,
        query: Option<&str>,
        body: &[u8],
    ) -> Option<Self> {
        // Split as Java's `String.split` does: trailing empty segments dropped.
        let mut segments: Vec<&str> = path.split('/').collect();
        while segments.len() > 1 && segments.last() == Some(&"") {
            segments.pop();
        }
        let (name, in_path) = match segments.as_slice() {
            [""] => ("", None),
            ["", name] => (*name, None),
            // Decoded after the split, so an argument can carry a group: `/offline/g%2Fa.B`.
            ["", name, arg] => (*name, Some(decode(arg))),
            _ => return None,
        };
        let args = match (method, in_path) {
            (&Method::GET, Some(arg)) => vec![arg],
            (&Method::GET, None) => form_values(query.unwrap_or("")),
            (&Method::POST, None) => form_values(&String::from_utf8_lossy(body)),
            _ => return None,
        };
        Some(Self {
            name: name.to_owned(),
            args,
        })
    }
}

/// The values of `a=1&b=2&a=3` as Netty's decoders list them: grouped by name, names in the
/// order they first appear (`1, 3, 2`); a name without `=` has the empty value.
fn form_values(form: &str) -> Vec<String> {
    let mut by_name: Vec<(String, Vec<String>)> = Vec::new();
    for pair in form.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (name, value) = (decode(name), decode(value));
        match by_name.iter_mut().find(|(n, _)| *n == name) {
            Some((_, values)) => values.push(value),
            None => by_name.push((name, vec![value])),
        }
    }
    by_name.into_iter().flat_map(|(_, values)| values).collect()
}

/// `%XX` and `+` decoded; text that does not decode is taken as it is.
fn decode(text: &str) -> String {
    dubbo_url::decode(text).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str, query: Option<&str>) -> Option<Command> {
        Command::parse(&Method::GET, path, query, b"")
    }

    fn command(name: &str, args: &[&str]) -> Option<Command> {
        Some(Command {
            name: name.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
        })
    }

    #[test]
    fn reads_the_argument_from_the_path_the_query_or_the_form() {
        assert_eq!(get("/offline", None), command("offline", &[]));
        assert_eq!(get("/offline/", None), command("offline", &[]));
        assert_eq!(get("/", None), command("", &[]));
        assert_eq!(
            get("/offline/org.example.*", None),
            command("offline", &["org.example.*"])
        );
        assert_eq!(
            get("/offline/g%2Fa.B", None),
            command("offline", &["g/a.B"])
        );
        assert_eq!(
            get("/offline", Some("service=g%2Forg.example.Echo%3A1.0.0")),
            command("offline", &["g/org.example.Echo:1.0.0"])
        );
        assert_eq!(
            Command::parse(&Method::POST, "/online", None, b"service=.*Echo.*"),
            command("online", &[".*Echo.*"])
        );
        assert_eq!(
            Command::parse(&Method::POST, "/online", None, b""),
            command("online", &[])
        );
    }

    #[test]
    fn query_values_keep_netty_order() {
        assert_eq!(form_values("a=1&b=2&a=3"), ["1", "3", "2"]);
        assert_eq!(form_values("x&y=a+b"), ["", "a b"]);
        assert_eq!(form_values(""), Vec::<String>::new());
    }

    #[test]
    fn what_java_does_not_decode_is_refused() {
        assert_eq!(get("/offline/a/b", None), None);
        assert_eq!(get("/offline//a", None), None);
        assert_eq!(Command::parse(&Method::POST, "/offline/a", None, b""), None);
        assert_eq!(Command::parse(&Method::PUT, "/offline", None, b""), None);
    }
}
