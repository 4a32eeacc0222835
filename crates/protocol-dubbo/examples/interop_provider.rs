//! A Rust provider of `org.apache.dubbo.interop.InteropService` (versions 1.0.0 and 2.0.0) over
//! dubbo://, for the Java interop Consumer (`interop/java`).
//!
//! ```sh
//! cargo run -p dubbo-protocol-dubbo --example interop_provider -- 20880
//! java -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.Consumer --url dubbo://127.0.0.1:20880
//! ```
//!
//! Prints `READY <port>` once serving; stops gracefully on Ctrl-C.

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::{invoker_fn, Invocation, Protocol, RpcError, RpcResponse, Value};
use dubbo_hessian2::{List, Map, Object};
use dubbo_protocol_dubbo::DubboProtocol;
use dubbo_url::Url;

const SERVICE: &str = "org.apache.dubbo.interop.InteropService";
const USER: &str = "org.apache.dubbo.interop.User";

fn user(i: i32) -> Value {
    Value::Object(Object {
        class: USER.into(),
        fields: vec![
            ("id".into(), Value::Long(i64::from(i))),
            ("name".into(), Value::String(format!("user-{i}"))),
            ("age".into(), Value::Int(20 + i % 50)),
            (
                "tags".into(),
                Value::List(List::new(vec![Value::String(format!("t{i}"))])),
            ),
            (
                "attrs".into(),
                Value::Map(Map::new(vec![("k".into(), Value::String(format!("v{i}")))])),
            ),
        ],
    })
}

async fn serve(inv: Invocation, v2: bool) -> Result<RpcResponse, RpcError> {
    let arg = |i: usize| inv.args().get(i).cloned().unwrap_or(Value::Null);
    let value = match inv.method_name() {
        "sayHello" => {
            let name = arg(0).as_str().unwrap_or("null").to_owned();
            if v2 {
                Value::String(format!("Hello v2 {name}"))
            } else {
                Value::String(format!("Hello {name}"))
            }
        }
        "addInt" => {
            let a = arg(0).as_i64().unwrap_or(0) as i32;
            let b = arg(1).as_i64().unwrap_or(0) as i32;
            Value::Int(a.wrapping_add(b))
        }
        "echoLong" | "echoDouble" | "echoBool" | "echoString" | "echoBytes" | "echoList"
        | "echoMap" | "echoUser" | "echoDecimal" | "echoDate" => arg(0),
        "listUsers" => {
            let n = arg(0).as_i64().unwrap_or(0).clamp(0, 10_000) as i32;
            Value::List(List::new((0..n).map(user).collect()))
        }
        "fail" => {
            let msg = arg(0).as_str().unwrap_or("").to_owned();
            return Err(RpcError::business("java.lang.IllegalStateException", msg));
        }
        "getAttachment" => {
            let key = arg(0).as_str().unwrap_or("").to_owned();
            let v = inv.attachments().get_str(&key).map(str::to_owned);
            let mut resp = RpcResponse::new(v.clone().map(Value::String).unwrap_or(Value::Null));
            if let Some(v) = v {
                resp.attachments.insert(format!("echo.{key}"), v);
            }
            return Ok(resp);
        }
        "sleep" => {
            let ms = arg(0).as_i64().unwrap_or(0).max(0);
            tokio::time::sleep(Duration::from_millis(ms as u64)).await;
            Value::String(format!("slept {ms}"))
        }
        other => {
            return Err(RpcError::framework(
                dubbo_core::ErrorCode::MethodNotFound,
                format!("Not found method \"{other}\" in {SERVICE}"),
            ))
        }
    };
    Ok(RpcResponse::new(value))
}

#[tokio::main]
async fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(20880);
    let protocol = DubboProtocol::new();
    let mut bound = None;
    for (version, v2) in [("1.0.0", false), ("2.0.0", true)] {
        let url = Url::parse(&format!(
            "dubbo://127.0.0.1:{port}/{SERVICE}?version={version}&bind.port={port}&prefer.serialization=hessian2"
        ))
        .expect("valid url");
        let invoker = Arc::new(invoker_fn(url.clone(), move |inv: Invocation| {
            serve(inv, v2)
        }));
        if let Err(e) = protocol.export(url.clone(), invoker).await {
            eprintln!("export failed: {e}");
            std::process::exit(1);
        }
        bound = protocol.server_addr(&url);
    }
    println!("READY {}", bound.map(|a| a.port()).unwrap_or(port));
    let _ = tokio::signal::ctrl_c().await;
    protocol.shutdown(Duration::from_secs(2)).await;
}
