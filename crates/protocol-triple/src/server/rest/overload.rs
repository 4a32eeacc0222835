//! Overloads in the default mapping, as Java Dubbo 3.3 tells them apart.
//!
//! Every overload of a Java method name answers the same `/{interface}/{method}`. A path may
//! name one with a suffix: `/{interface}/{method}~{signature}`, where the signature has one
//! character per parameter, the first letter of the parameter class's simple name as
//! `Class.getName()` writes it (`add(long, long)` is `add~ll`, `add(String, String)`
//! `add~SS`, `put(java.util.Map)` `put~M`, `echo(byte[])` `echo~[`, `echo(String[])`
//! `echo~S`). A method without parameters has no signature and takes any suffix.
//!
//! Without a suffix, one overload of several is chosen only when the request has as many
//! query parameter names as it has parameters and every other overload has another count;
//! otherwise the name is ambiguous and the answer is Java's: 500, `Ambiguous mapping for
//! '/path'` (the choices listed after it here).

use dubbo_core::rest::{overload_suffix, RestMethod};
use dubbo_hessian2::java::class_get_name;

use super::routes::DefaultRoute;

/// The overload a request reaches.
#[derive(Debug)]
pub(crate) enum Choice<'a> {
    /// This one.
    One(&'a DefaultRoute),
    /// No overload has the suffix given.
    NoSuch,
    /// Several fit; the message lists their suffixed names.
    Ambiguous(String),
}

/// Splits a default-mapping method segment into the name and the `~` suffix, if any.
pub(crate) fn split_suffix(segment: &str) -> (&str, Option<&str>) {
    match segment.rsplit_once('~') {
        Some((name, sig)) if !name.is_empty() => (name, Some(sig)),
        _ => (segment, None),
    }
}

/// The signature suffix of `method`: one character per parameter, the one after the last
/// `.` of its Java class name (so `[` for a primitive array); `None` without parameters.
pub(crate) fn signature(method: &RestMethod) -> Option<String> {
    let names: Vec<String> = method
        .params
        .iter()
        .map(|p| class_get_name(&(p.java_type)()))
        .collect();
    overload_suffix(&names)
}

/// Chooses among `candidates` (the default-mapped overloads of one name, in declaration
/// order, their suffixes made at registration), given the path's suffix and how many
/// distinct query parameter names the request has. `path` is the request's path, for the
/// ambiguity message.
pub(crate) fn choose<'a>(
    candidates: &'a [DefaultRoute],
    suffix: Option<&str>,
    query_names: usize,
    path: &str,
) -> Choice<'a> {
    let fits = |r: &&'a DefaultRoute| match (suffix, &r.suffix) {
        (Some(wanted), Some(sig)) => sig == wanted,
        _ => true,
    };
    let mut fitting = candidates.iter().filter(fits);
    let (Some(first), second) = (fitting.next(), fitting.next()) else {
        return Choice::NoSuch;
    };
    if second.is_none() {
        return Choice::One(first);
    }
    let fitting: Vec<&'a DefaultRoute> = candidates.iter().filter(fits).collect();
    // Several: Java ranks an overload first when its parameter count equals the number of
    // query parameter names, against another overload whose count differs; an overload
    // without parameters ranks equal to every other.
    let all_have_signatures = fitting.iter().all(|r| r.suffix.is_some());
    let counted: Vec<_> = fitting
        .iter()
        .filter(|r| {
            r.suffix
                .as_ref()
                .is_some_and(|s| s.chars().count() == query_names)
        })
        .collect();
    if all_have_signatures && counted.len() == 1 {
        return Choice::One(counted[0]);
    }
    let names: Vec<String> = fitting
        .iter()
        .map(|r| match &r.suffix {
            Some(s) => format!("{}~{s}", r.method.java_name),
            None => r.method.java_name.to_owned(),
        })
        .collect();
    Choice::Ambiguous(format!(
        "Ambiguous mapping for '{path}': name one overload with its parameter types, {}",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_core::rest::{ParamSource, RestParam};
    use std::borrow::Cow;

    fn long() -> Cow<'static, str> {
        "long".into()
    }
    fn string() -> Cow<'static, str> {
        "java.lang.String".into()
    }
    fn bytes() -> Cow<'static, str> {
        "byte[]".into()
    }
    fn strings() -> Cow<'static, str> {
        "java.lang.String[]".into()
    }
    fn map() -> Cow<'static, str> {
        "java.util.Map".into()
    }
    fn nested() -> Cow<'static, str> {
        "org.example.Outer$Inner".into()
    }

    macro_rules! param {
        ($name:literal, $ty:ident) => {
            RestParam {
                name: $name,
                source: ParamSource::Query,
                default: None,
                required: true,
                rust_type: "",
                schema: None,
                java_type: $ty,
            }
        };
    }

    macro_rules! method {
        ($name:literal, [$($p:expr),*]) => {
            RestMethod {
                java_name: $name,
                verb: None,
                path: "",
                params: &[$($p),*],
                consumes: &[],
                produces: &[],
                status: 0,
                headers: &[],
                returns: "",
                returns_schema: None,
                cors: None,
                overloaded: false,
            }
        };
    }

    fn picks(choice: Choice<'_>, method: &'static RestMethod) -> bool {
        matches!(choice, Choice::One(r) if std::ptr::eq(r.method, method))
    }

    /// The registered entries of `methods`, as the route table makes them.
    fn routes(methods: &[&'static RestMethod]) -> Vec<DefaultRoute> {
        methods
            .iter()
            .map(|m| DefaultRoute::new(m, methods.len() > 1))
            .collect()
    }

    static ADD_LL: RestMethod = method!("add", [param!("a", long), param!("b", long)]);
    static ADD_SS: RestMethod = method!("add", [param!("a", string), param!("b", string)]);
    static ADD_L: RestMethod = method!("add", [param!("a", long)]);
    static PING: RestMethod = method!("ping", []);
    static PING_S: RestMethod = method!("ping", [param!("who", string)]);
    static ODD: RestMethod = method!(
        "odd",
        [
            param!("a", bytes),
            param!("b", strings),
            param!("c", map),
            param!("d", nested)
        ]
    );

    #[test]
    fn signatures_are_java_first_letters() {
        assert_eq!(signature(&ADD_LL).as_deref(), Some("ll"));
        assert_eq!(signature(&ADD_SS).as_deref(), Some("SS"));
        // byte[] is `[B` (no dot: its first character), String[] `[Ljava.lang.String;`.
        assert_eq!(signature(&ODD).as_deref(), Some("[SMO"));
        assert_eq!(signature(&PING), None);
    }

    #[test]
    fn suffixes_split_at_the_last_tilde() {
        assert_eq!(split_suffix("add~ll"), ("add", Some("ll")));
        assert_eq!(split_suffix("add"), ("add", None));
        assert_eq!(split_suffix("add~"), ("add", Some("")));
        assert_eq!(split_suffix("~ll"), ("~ll", None));
    }

    #[test]
    fn a_suffix_picks_its_overload() {
        let all = routes(&[&ADD_LL, &ADD_SS, &ADD_L]);
        assert!(picks(choose(&all, Some("SS"), 0, "/p"), &ADD_SS));
        assert!(picks(choose(&all, Some("ll"), 0, "/p"), &ADD_LL));
        assert!(picks(choose(&all, Some("l"), 0, "/p"), &ADD_L));
        assert!(matches!(choose(&all, Some("ii"), 0, "/p"), Choice::NoSuch));
        // A method without parameters has no signature: any suffix reaches it.
        assert!(picks(
            choose(&routes(&[&PING]), Some("xyz"), 0, "/p"),
            &PING
        ));
    }

    #[test]
    fn without_a_suffix_the_query_count_decides_or_nothing_does() {
        let all = routes(&[&ADD_LL, &ADD_SS, &ADD_L]);
        // One query parameter: add(long) is the only one-parameter overload.
        assert!(picks(choose(&all, None, 1, "/p"), &ADD_L));
        // Two: add(long,long) and add(String,String) both fit.
        let Choice::Ambiguous(message) = choose(&all, None, 2, "/svc/add") else {
            panic!("two two-parameter overloads must be ambiguous");
        };
        assert_eq!(
            message,
            "Ambiguous mapping for '/svc/add': name one overload with its parameter types, add~ll, add~SS, add~l"
        );
        // A JSON body counts no query parameter.
        assert!(matches!(choose(&all, None, 0, "/p"), Choice::Ambiguous(_)));
        // A lone name is never ambiguous.
        assert!(picks(choose(&routes(&[&ADD_LL]), None, 0, "/p"), &ADD_LL));
        // An overload without parameters ranks equal to every other, as in Java.
        assert!(matches!(
            choose(&routes(&[&PING, &PING_S]), None, 1, "/p"),
            Choice::Ambiguous(_)
        ));
    }
}
