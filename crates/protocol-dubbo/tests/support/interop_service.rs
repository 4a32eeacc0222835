//! `org.apache.dubbo.interop.InteropService` implemented on dynamic values, shared by the
//! `interop_provider` example and the Java interop test.

#![allow(dead_code)]

use std::time::Duration;

use dubbo_core::{Invocation, RpcError, RpcResponse, Value};
use dubbo_hessian2::{List, Map, Object};

pub const SERVICE: &str = "org.apache.dubbo.interop.InteropService";
pub const USER: &str = "org.apache.dubbo.interop.User";

pub fn user(i: i32) -> Value {
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

pub async fn serve(inv: Invocation, v2: bool) -> Result<RpcResponse, RpcError> {
    let values = inv.arg_values().unwrap_or_default();
    let arg = |i: usize| values.get(i).cloned().unwrap_or(Value::Null);
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
