//! The client side of the contract: every method of InteropService, checked.

use std::collections::HashMap;
use std::time::Duration;

use dubbo_rs::core::{ErrorCode, RpcError, Value};
use dubbo_rs::hessian2::java::{BigDecimal, Date};
use dubbo_rs::prelude::*;
use serde_bytes::ByteBuf;

use crate::reference_flags::ReferenceFlags;
use crate::report::Report;
use crate::service::{InteropServiceClient, User};

/// The interface name of the contract's service.
pub const INTEROP_SERVICE: &str = "org.apache.dubbo.interop.InteropService";

/// The target that means "the providers the application's registry knows, over this
/// protocol": `registry:dubbo` or `registry:tri`, optionally followed by `@APP1,APP2`, the
/// applications that provide the services (Dubbo's `provided-by`, for application-level
/// discovery without a service-name mapping in the registry).
pub const REGISTRY_TARGET: &str = "registry:";

/// A reference to `interface` at `url`: a direct address, or [`REGISTRY_TARGET`] and a
/// protocol (and `@` the providing applications) for the registry's providers of that protocol.
pub fn reference_to(interface: &str, url: &str) -> ReferenceOptions {
    match url.strip_prefix(REGISTRY_TARGET) {
        Some(target) => match target.split_once('@') {
            Some((protocol, apps)) => ReferenceOptions::new(interface)
                .protocol(protocol)
                .parameter("provided-by", apps),
            None => ReferenceOptions::new(interface).protocol(target),
        },
        None => ReferenceOptions::new(interface).url(url),
    }
}

/// The reference to InteropService 1.0.0 at `url`, sending Dubbo's token when one is given.
pub fn interop_reference(url: &str, token: Option<&str>) -> ReferenceOptions {
    let options = reference_to(INTEROP_SERVICE, url)
        .version("1.0.0")
        .timeout(Duration::from_secs(10));
    match token {
        Some(t) => options.parameter("token", t),
        None => options,
    }
}

/// Runs every InteropService case against the provider at `url`, with the client's reference
/// flags (the token sent if given, the timeout and parameters).
pub async fn run_interop_cases(
    app: &Application,
    url: &str,
    flags: &ReferenceFlags,
    report: &mut Report,
) -> Result<(), DubboError> {
    let module = app.default_module();
    let token = flags.token();
    let reference = module
        .refer(flags.apply(interop_reference(url, token)))
        .await?;
    let c = InteropServiceClient::new(reference.invoker());

    report.equal(
        "sayHello",
        c.say_hello(Some("world".into())).await,
        Some("Hello world".into()),
    );
    report.equal(
        "sayHello(null)",
        c.say_hello(None).await,
        Some("Hello null".into()),
    );
    report.equal("addInt", c.add_int(2, 3).await, 5);
    report.equal("addInt wraps", c.add_int(i32::MAX, 1).await, i32::MIN);
    for v in [
        0i64,
        -1,
        15,
        -8,
        2047,
        262_143,
        i64::from(i32::MAX) + 1,
        i64::MIN,
        i64::MAX,
    ] {
        report.equal(&format!("echoLong({v})"), c.echo_long(v).await, v);
    }
    for v in [
        0.0f64,
        1.0,
        -0.5,
        0.1,
        12.25,
        std::f64::consts::PI,
        1e300,
        -2.5e-300,
    ] {
        report.equal(&format!("echoDouble({v})"), c.echo_double(v).await, v);
    }
    report.equal("echoBool(true)", c.echo_bool(true).await, true);
    report.equal("echoBool(false)", c.echo_bool(false).await, false);
    let long_text: String = "abcdefghij".repeat(4_000);
    for (name, v) in [
        ("empty", Some(String::new())),
        ("ascii", Some("hello".to_owned())),
        ("unicode", Some("héllo 中文 Ünïcødé".to_owned())),
        ("surrogate pairs", Some("😀 a😀b 𝄞".to_owned())),
        ("40000 chars", Some(long_text)),
        ("null", None),
    ] {
        report.equal(
            &format!("echoString({name})"),
            c.echo_string(v.clone()).await,
            v,
        );
    }
    let big: Vec<u8> = (0..40_960u32).map(|i| (i % 251) as u8).collect();
    for (name, v) in [
        ("3 bytes", Some(ByteBuf::from(vec![1u8, 2, 3]))),
        ("empty", Some(ByteBuf::new())),
        ("40 KiB", Some(ByteBuf::from(big))),
        ("null", None),
    ] {
        report.equal(
            &format!("echoBytes({name})"),
            c.echo_bytes(v.clone()).await,
            v,
        );
    }
    for (name, v) in [
        (
            "two",
            Some(vec![Some("a".to_owned()), Some("b".to_owned())]),
        ),
        (
            "with null",
            Some(vec![Some("a".to_owned()), None, Some("c".to_owned())]),
        ),
        ("empty", Some(vec![])),
        ("null", None),
    ] {
        report.equal(
            &format!("echoList({name})"),
            c.echo_list(v.clone()).await,
            v,
        );
    }
    let map: HashMap<String, Option<i32>> = HashMap::from([
        ("a".into(), Some(1)),
        ("b".into(), Some(-2)),
        ("c".into(), Some(300_000)),
        ("n".into(), None),
    ]);
    report.equal("echoMap", c.echo_map(Some(map.clone())).await, Some(map));
    report.equal("echoMap(null)", c.echo_map(None).await, None);
    let mut alice = User::numbered(7);
    alice.name = Some("alice".into());
    report.equal(
        "echoUser",
        c.echo_user(Some(alice.clone())).await,
        Some(alice),
    );
    let sparse = User {
        id: 1,
        name: None,
        age: 0,
        tags: None,
        attrs: None,
    };
    report.equal(
        "echoUser(null fields)",
        c.echo_user(Some(sparse.clone())).await,
        Some(sparse),
    );
    report.equal("echoUser(null)", c.echo_user(None).await, None);
    report.equal("listUsers(0)", c.list_users(0).await, vec![]);
    report.equal(
        "listUsers(3)",
        c.list_users(3).await,
        (0..3).map(User::numbered).collect(),
    );
    report.equal(
        "listUsers(100)",
        c.list_users(100).await,
        (0..100).map(User::numbered).collect(),
    );
    for d in [
        "12.34",
        "1E+3",
        "-0.000001",
        "123456789012345678901234567890.5",
    ] {
        let v = Some(BigDecimal(d.to_owned()));
        report.equal(
            &format!("echoDecimal({d})"),
            c.echo_decimal(v.clone()).await,
            v,
        );
    }
    report.equal("echoDecimal(null)", c.echo_decimal(None).await, None);
    for ms in [0i64, 1_700_000_000_000, 1_700_000_000_123, -1000] {
        report.equal(
            &format!("echoDate({ms})"),
            c.echo_date(Some(Date(ms))).await,
            Some(Date(ms)),
        );
    }
    report.equal("echoDate(null)", c.echo_date(None).await, None);

    match c.fail(Some("boom".into())).await {
        Err(RpcError::Business(b)) => report.check(
            "fail -> IllegalStateException",
            b.class_name == "java.lang.IllegalStateException"
                && b.message.as_deref() == Some("boom"),
            || format!("got {} {:?}", b.class_name, b.message),
        ),
        other => report.check("fail -> IllegalStateException", false, || {
            format!("got {other:?}")
        }),
    }

    let with_att = c.clone().with_attachment("k1", "v1");
    match with_att.get_attachment_full(Some("k1".into())).await {
        Ok((value, attachments)) => {
            report.check(
                "attachment reaches provider",
                value.as_deref() == Some("v1"),
                || format!("got {value:?}"),
            );
            report.check(
                "response attachment reaches consumer",
                attachments.get_str("echo.k1") == Some("v1"),
                || format!("response attachments {attachments:?}"),
            );
        }
        Err(e) => {
            report.check("attachment reaches provider", false, || format!("{e:?}"));
            report.check("response attachment reaches consumer", false, || {
                format!("{e:?}")
            });
        }
    }
    report.equal(
        "getAttachment(missing)",
        c.get_attachment(Some("missing".into())).await,
        None,
    );
    report.equal("sleep(10)", c.sleep(10).await, "slept 10".to_owned());

    let short = c.clone().with_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let outcome = short.sleep(2000).await;
    let waited = started.elapsed();
    report.check(
        "timeout (sleep 2000 ms against 300 ms)",
        matches!(&outcome, Err(e) if e.code() == Some(ErrorCode::Timeout))
            && waited < Duration::from_millis(1500),
        || format!("got {outcome:?} after {waited:?}"),
    );
    // The connection stays usable after a timed-out call.
    report.equal(
        "call after timeout",
        c.say_hello(Some("again".into())).await,
        Some("Hello again".into()),
    );

    let generic = GenericClient::new(reference.invoker(), reference.service_key().clone());
    report.equal(
        "$invoke sayHello",
        generic
            .invoke(
                "sayHello",
                &["java.lang.String"],
                vec![Value::from("world")],
            )
            .await,
        Value::from("Hello world"),
    );
    let user_map = Value::Map(dubbo_rs::hessian2::Map {
        type_name: None,
        entries: vec![
            (
                Value::from("class"),
                Value::from("org.apache.dubbo.interop.User"),
            ),
            (Value::from("id"), Value::Long(3)),
            (Value::from("name"), Value::from("bob")),
            (Value::from("age"), Value::Int(33)),
        ],
    });
    match generic
        .invoke(
            "echoUser",
            &["org.apache.dubbo.interop.User"],
            vec![user_map],
        )
        .await
    {
        Ok(v) => report.check(
            "$invoke echoUser (POJO as map)",
            v.get("name").and_then(|n| n.as_str()) == Some("bob")
                && v.get("id").and_then(|n| n.as_i64()) == Some(3)
                && v.get("class").and_then(|n| n.as_str()) == Some("org.apache.dubbo.interop.User"),
            || format!("got {v:?}"),
        ),
        Err(e) => report.check("$invoke echoUser (POJO as map)", false, || format!("{e:?}")),
    }
    report.equal(
        "$echo",
        generic.echo(Value::from("ping")).await,
        Value::from("ping"),
    );

    let v2 = module
        .refer(flags.apply(interop_reference(url, token).version("2.0.0")))
        .await?;
    report.equal(
        "version 2.0.0 selected",
        InteropServiceClient::new(v2.invoker())
            .say_hello(Some("world".into()))
            .await,
        Some("Hello v2 world".into()),
    );
    let missing = module
        .refer(
            reference_to(INTEROP_SERVICE, url)
                .version("9.9.9")
                .parameter("check", "false"),
        )
        .await?;
    let outcome = InteropServiceClient::new(missing.invoker())
        .say_hello(Some("world".into()))
        .await;
    // Java's Triple server resolves an unknown version to the default service
    // (dubbo.rpc.tri.resolve-fallback-to-default); dubbo:// refuses it.
    let tri_fallback = (url.starts_with("tri://") || url == "registry:tri")
        && matches!(&outcome, Ok(Some(s)) if s == "Hello world");
    report.check(
        "unknown version is refused",
        matches!(&outcome, Err(e) if !e.is_business()) || tri_fallback,
        || format!("got {outcome:?}"),
    );
    Ok(())
}
