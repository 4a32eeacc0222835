//! Overloaded methods in the default REST form, with curl over HTTP/1.1 and h2c: the `~`
//! suffix of parameter types names an overload (`/{interface}/add~ll`), a plain name is
//! chosen by its query parameter count or is ambiguous (500, as in Java Dubbo 3.3).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::borrow::Cow;
use std::process::Command;

use common::*;
use dubbo_core::rest::{ParamSource, RestMethod, RestParam, RestService};
use dubbo_core::{invoker_fn, Invocation, RpcResponse, ServiceKey, Value};
use dubbo_protocol_triple::TripleConfig;
use dubbo_url::Url;

const CALC: &str = "org.example.Calc";

fn long() -> Cow<'static, str> {
    "long".into()
}
fn string() -> Cow<'static, str> {
    "java.lang.String".into()
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

/// `add(long, long)`, `add(String, String)`, `add(long)`, `twice(String)`.
static CALC_REST: RestService = RestService {
    interface: CALC,
    methods: &[
        method!("add", [param!("a", long), param!("b", long)]),
        method!("add", [param!("a", string), param!("b", string)]),
        method!("add", [param!("a", long)]),
        method!("twice", [param!("s", string)]),
    ],
};

/// Answers which overload the call reached: `add(long,long)=5`.
async fn calc(inv: Invocation) -> dubbo_core::RpcResult {
    let types = inv.method().parameter_types().join(",");
    let args = inv.arg_values().unwrap_or_default();
    let text: Vec<String> = args
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.as_i64().map(|n| n.to_string()).unwrap_or_default(),
        })
        .collect();
    Ok(RpcResponse::new(Value::String(format!(
        "{}({types})={}",
        inv.method_name(),
        text.join("+")
    ))))
}

/// `curl` with `args`; the status and the body.
fn curl(args: &[&str]) -> (u16, String) {
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "10", "-w", "\n%{http_code}"])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, status) = text.rsplit_once('\n').unwrap();
    (status.trim().parse().unwrap_or(0), body.to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overloads_by_suffix_and_by_query_count_over_http1_and_h2c() {
    if !have_tool("curl") {
        return;
    }
    let server = start_server(TripleConfig::default()).await;
    let url = Url::parse(&format!("tri://127.0.0.1/{CALC}")).unwrap();
    let key = ServiceKey::new(CALC, None, None);
    server.export_invoker(key.clone(), std::sync::Arc::new(invoker_fn(url, calc)));
    server.add_rest(&key, &CALC_REST).unwrap();
    let base = format!("http://{}/{CALC}", server.local_addr());

    for http in ["--http1.1", "--http2-prior-knowledge"] {
        let json = |path: &str, body: &str| {
            let url = format!("{base}/{path}");
            let args = [
                http,
                "-H",
                "Content-Type: application/json",
                "-d",
                body,
                &url,
            ];
            tokio::task::block_in_place(|| curl(&args))
        };
        // The suffix names the overload, and the call carries its Java types.
        assert_eq!(
            json("add~ll", "[2, 3]"),
            (200, r#""add(long,long)=2+3""#.to_owned()),
            "{http}"
        );
        assert_eq!(
            json("add~SS", r#"["a", "b"]"#),
            (
                200,
                r#""add(java.lang.String,java.lang.String)=a+b""#.to_owned()
            ),
            "{http}"
        );
        assert_eq!(
            json("add~l", "[7]"),
            (200, r#""add(long)=7""#.to_owned()),
            "{http}"
        );
        // No overload has that suffix.
        let (status, body) = json("add~ii", "[1, 2]");
        assert_eq!(status, 404, "{http} {body}");
        assert!(body.contains("~ii"), "{body}");
        // A plain name with a JSON body: ambiguous, as Java answers it.
        let (status, body) = json("add", "[1, 2]");
        assert_eq!(status, 500, "{http} {body}");
        assert!(
            body.contains(&format!("Ambiguous mapping for '/{CALC}/add'"))
                && body.contains("add~ll, add~SS, add~l"),
            "{body}"
        );
        // Query parameters: their count picks the only overload with as many parameters...
        let get = |query: &str| {
            let url = format!("{base}/add?{query}");
            tokio::task::block_in_place(|| curl(&[http, &url]))
        };
        assert_eq!(get("a=9"), (200, r#""add(long)=9""#.to_owned()), "{http}");
        // ...and two names fit two overloads: ambiguous again, unless the suffix says.
        assert_eq!(get("a=1&b=2").0, 500, "{http}");
        let url = format!("{base}/add~SS?a=x&b=y");
        assert_eq!(
            tokio::task::block_in_place(|| curl(&[http, &url])),
            (
                200,
                r#""add(java.lang.String,java.lang.String)=x+y""#.to_owned()
            ),
            "{http}"
        );
        // A name that is not overloaded needs no suffix, and ignores none it is given.
        assert_eq!(
            json("twice", r#"["t"]"#),
            (200, r#""twice(java.lang.Object)=t""#.to_owned()),
            "{http}"
        );
        assert_eq!(json("twice~S", r#"["t"]"#).0, 200, "{http}");
        assert_eq!(json("twice~l", r#"["t"]"#).0, 404, "{http}");
    }

    // The OpenAPI document lists each overload at its suffix.
    let docs = format!("http://{}/dubbo/openapi/api-docs", server.local_addr());
    let (status, body) = tokio::task::block_in_place(|| curl(&[&docs]));
    assert_eq!(status, 200);
    let doc: serde_json::Value = serde_json::from_str(&body).unwrap();
    let paths = doc["paths"].as_object().unwrap();
    for p in ["add~ll", "add~SS", "add~l", "twice"] {
        assert!(paths.contains_key(&format!("/{CALC}/{p}")), "{p}: {body}");
    }
    assert!(!paths.contains_key(&format!("/{CALC}/add")), "{body}");
}
