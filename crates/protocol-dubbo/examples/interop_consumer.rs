//! Calls a dubbo:// provider of `org.apache.dubbo.interop.InteropService` 1.0.0 (the Java interop
//! Provider, or `interop_provider`) with the Rust client; one `PASS`/`FAIL` line per case and a
//! last line `N passed, N failed`. Exits 1 on any failure.
//!
//! ```sh
//! java -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.Provider --dubbo-port 20880
//! cargo run -p dubbo-protocol-dubbo --example interop_consumer -- 127.0.0.1:20880
//! ```

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::{ErrorCode, Invocation, MethodSignature, RpcResult, ServiceKey, Value};
use dubbo_hessian2::{List, Map, Object};
use dubbo_protocol_dubbo::{ClientConfig, DubboClient};

const SERVICE: &str = "org.apache.dubbo.interop.InteropService";
const USER: &str = "org.apache.dubbo.interop.User";

struct Run {
    client: DubboClient,
    passed: usize,
    failed: usize,
}

impl Run {
    async fn call(
        &self,
        version: &str,
        method: &str,
        types: &[&str],
        ret: &str,
        args: Vec<Value>,
    ) -> RpcResult {
        let sig = Arc::new(MethodSignature::new(method, types, ret));
        let inv = Invocation::new(ServiceKey::new(SERVICE, None, Some(version)), sig, args);
        self.client.invoke(inv).await
    }

    fn check(&mut self, name: &str, ok: bool, detail: impl std::fmt::Debug) {
        if ok {
            self.passed += 1;
            println!("PASS {name}");
        } else {
            self.failed += 1;
            println!("FAIL {name}: {detail:?}");
        }
    }
}

fn user(i: i64) -> Value {
    Value::Object(Object {
        class: USER.into(),
        fields: vec![
            ("id".into(), Value::Long(i)),
            ("name".into(), Value::String(format!("user-{i}"))),
            ("age".into(), Value::Int(20 + (i % 50) as i32)),
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

#[tokio::main]
async fn main() {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:20880".into());
    let config = ClientConfig {
        timeout: Duration::from_secs(5),
        ..ClientConfig::default()
    };
    let client = match DubboClient::connect(address.clone(), config).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot connect to {address}: {e}");
            std::process::exit(1);
        }
    };
    let mut run = Run {
        client,
        passed: 0,
        failed: 0,
    };
    const S: &str = "java.lang.String";

    let r = run
        .call("1.0.0", "sayHello", &[S], S, vec!["world".into()])
        .await;
    run.check(
        "sayHello",
        matches!(&r, Ok(v) if v.value == Value::String("Hello world".into())),
        &r,
    );
    let ok = matches!(&r, Ok(v) if v.attachments.get_str("dubbo") == Some("2.0.2"));
    run.check("response_attachment_dubbo", ok, &r);

    let r = run
        .call("2.0.0", "sayHello", &[S], S, vec!["world".into()])
        .await;
    run.check(
        "version_2_0_0",
        matches!(&r, Ok(v) if v.value == Value::String("Hello v2 world".into())),
        &r,
    );

    let r = run
        .call(
            "1.0.0",
            "addInt",
            &["int", "int"],
            "int",
            vec![Value::Int(i32::MAX), Value::Int(1)],
        )
        .await;
    run.check(
        "addInt_overflow",
        matches!(&r, Ok(v) if v.value == Value::Int(i32::MIN)),
        &r,
    );

    let s = "h\u{e9}llo \u{1F600} \u{4e16}\u{754c}";
    let r = run
        .call("1.0.0", "echoString", &[S], S, vec![s.into()])
        .await;
    run.check(
        "echoString_unicode",
        matches!(&r, Ok(v) if v.value == Value::String(s.into())),
        &r,
    );

    let r = run
        .call("1.0.0", "echoString", &[S], S, vec![Value::Null])
        .await;
    run.check(
        "echoString_null",
        matches!(&r, Ok(v) if v.value == Value::Null),
        &r,
    );

    let r = run
        .call(
            "1.0.0",
            "echoLong",
            &["long"],
            "long",
            vec![Value::Long(i64::MIN)],
        )
        .await;
    run.check(
        "echoLong",
        matches!(&r, Ok(v) if v.value == Value::Long(i64::MIN)),
        &r,
    );

    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let r = run
        .call(
            "1.0.0",
            "echoBytes",
            &["[B"],
            "[B",
            vec![Value::Binary(bytes.clone())],
        )
        .await;
    run.check(
        "echoBytes_100k",
        matches!(&r, Ok(v) if v.value == Value::Binary(bytes.clone())),
        r.as_ref().map(|v| v.value.form()),
    );

    let r = run
        .call("1.0.0", "echoUser", &[USER], USER, vec![user(3)])
        .await;
    let ok = matches!(&r, Ok(v) if v.value.to_value().ok().as_ref().and_then(|t| t.get("name").cloned()) .as_ref() == Some(&Value::String("user-3".into())) && v.value.to_value().ok().as_ref().and_then(|t| t.get("id").cloned()) .as_ref() == Some(&Value::Long(3)));
    run.check("echoUser", ok, &r);

    let r = run
        .call(
            "1.0.0",
            "listUsers",
            &["int"],
            "java.util.List",
            vec![Value::Int(3)],
        )
        .await;
    let ok = matches!(&r, Ok(v) if v.value.to_value().ok().as_ref().and_then(|t| t.as_list()).is_some_and(|l| l.items.len() == 3 && l.items[2].get("name") == Some(&Value::String("user-2".into()))));
    run.check("listUsers_3", ok, &r);

    let r = run
        .call("1.0.0", "fail", &[S], "void", vec!["boom".into()])
        .await;
    let ok = matches!(&r, Err(e) if e.as_business().is_some_and(|b| b.class_name == "java.lang.IllegalStateException" && b.message.as_deref() == Some("boom")));
    run.check("fail", ok, r.as_ref().map_err(|e| e.to_string()));

    let sig = Arc::new(MethodSignature::new("getAttachment", &[S], S));
    let inv = Invocation::new(
        ServiceKey::new(SERVICE, None, Some("1.0.0")),
        sig,
        vec!["k1".into()],
    )
    .with_attachment("k1", "v1");
    let r = run.client.invoke(inv).await;
    let ok = matches!(&r, Ok(v) if v.value == Value::String("v1".into()) && v.attachments.get_str("echo.k1") == Some("v1"));
    run.check("attachments", ok, &r);

    let r = run
        .call(
            "1.0.0",
            "$echo",
            &["java.lang.Object"],
            "java.lang.Object",
            vec!["ping".into()],
        )
        .await;
    run.check(
        "echo_service",
        matches!(&r, Ok(v) if v.value == Value::String("ping".into())),
        &r,
    );

    let generic_args = vec![
        "sayHello".into(),
        Value::typed_list("[string", vec![S.into()]),
        Value::typed_list("[object", vec!["world".into()]),
    ];
    let sig = Arc::new(MethodSignature::generic_invoke());
    let inv = Invocation::new(
        ServiceKey::new(SERVICE, None, Some("1.0.0")),
        sig,
        generic_args,
    )
    .with_attachment("generic", "true");
    let r = run.client.invoke(inv).await;
    run.check(
        "generic_sayHello",
        matches!(&r, Ok(v) if v.value == Value::String("Hello world".into())),
        &r,
    );

    let mut inv = Invocation::new(
        ServiceKey::new(SERVICE, None, Some("1.0.0")),
        Arc::new(MethodSignature::new("sleep", &["int"], S)),
        vec![Value::Int(2000)],
    );
    inv.context_mut().set_timeout(Duration::from_millis(300));
    let r = run.client.invoke(inv).await;
    run.check(
        "timeout",
        matches!(&r, Err(e) if e.is_timeout()),
        r.as_ref().map_err(|e| e.to_string()),
    );

    let r = run
        .call("9.9.9", "sayHello", &[S], S, vec!["world".into()])
        .await;
    let ok = matches!(&r, Err(e) if matches!(e.code(), Some(ErrorCode::BadRequest | ErrorCode::ServiceNotFound)));
    run.check("version_missing", ok, r.as_ref().map_err(|e| e.to_string()));

    println!("{} passed, {} failed", run.passed, run.failed);
    if run.failed > 0 {
        std::process::exit(1);
    }
}
