//! `#[service]` end to end, in process: a typed client calling a generated server through a
//! `ServiceInvoker`, with no network in between.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::{
    ErrorCode, Invocation, Invoker, MethodSignature, RequestContext, RpcError, ServiceHandler,
    ServiceKey, Value,
};
use dubbo_url::Url;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

/// What the facade crate re-exports; the generated code reaches the runtime through it.
mod dubbo_rs {
    pub use dubbo_core as core;
    pub use dubbo_hessian2 as hessian2;
    pub use dubbo_url as url;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    pub name: String,
    pub age: i32,
}
dubbo_hessian2::java_type!(User => "org.apache.dubbo.interop.User");

#[dubbo_macros::service(
    interface = "org.apache.dubbo.interop.InteropService",
    crate = "crate::dubbo_rs"
)]
pub trait InteropService: Send + Sync + 'static {
    /// Greets.
    async fn say_hello(&self, name: String) -> Result<String, RpcError>;
    async fn add_int(&self, a: i32, b: i32) -> Result<i32, RpcError>;
    #[dubbo(name = "echoBytes")]
    async fn echo_bytes(&self, v: ByteBuf) -> Result<ByteBuf, RpcError>;
    async fn echo_user(
        &self,
        #[dubbo(java_type = "org.apache.dubbo.interop.User")] u: Option<User>,
    ) -> Result<Option<User>, RpcError>;
    async fn get_attachment(
        &self,
        ctx: &mut RequestContext,
        key: String,
    ) -> Result<Option<String>, RpcError>;
    async fn fail(&self, message: String) -> Result<(), RpcError>;
    /// A shared context, and no wire argument.
    async fn whoami(&self, ctx: &RequestContext) -> Result<String, RpcError>;
    async fn has_deadline(&self, ctx: &RequestContext) -> Result<bool, RpcError>;
    async fn ping(&self) -> Result<(), RpcError>;
    /// Overloads: one Java name, told apart by parameter types.
    #[dubbo(name = "add")]
    async fn add_longs(&self, a: i64, b: i64) -> Result<i64, RpcError>;
    #[dubbo(name = "add")]
    async fn add_strings(&self, a: String, b: String) -> Result<String, RpcError>;
    /// A default body.
    async fn twice(&self, mut n: i32) -> Result<i32, RpcError> {
        n *= 2;
        Ok(n)
    }
    #[dubbo(return_type = "java.lang.Object")]
    async fn anything(&self) -> Result<Value, RpcError>;
    #[cfg(any())]
    async fn compiled_out(&self) -> Result<(), RpcError>;
}

struct Impl;

impl InteropService for Impl {
    async fn say_hello(&self, name: String) -> Result<String, RpcError> {
        Ok(format!("Hello {name}"))
    }

    async fn add_int(&self, a: i32, b: i32) -> Result<i32, RpcError> {
        Ok(a.wrapping_add(b))
    }

    async fn echo_bytes(&self, v: ByteBuf) -> Result<ByteBuf, RpcError> {
        Ok(v)
    }

    async fn echo_user(&self, u: Option<User>) -> Result<Option<User>, RpcError> {
        Ok(u)
    }

    async fn get_attachment(
        &self,
        ctx: &mut RequestContext,
        key: String,
    ) -> Result<Option<String>, RpcError> {
        let value = ctx.attachment(&key).map(str::to_owned);
        ctx.set_response_attachment("seen", key);
        Ok(value)
    }

    async fn fail(&self, message: String) -> Result<(), RpcError> {
        tokio::task::yield_now().await;
        Err(RpcError::business(
            "java.lang.IllegalStateException",
            message,
        ))
    }

    async fn whoami(&self, ctx: &RequestContext) -> Result<String, RpcError> {
        Ok(ctx
            .service
            .as_ref()
            .map(|s| s.to_string())
            .unwrap_or_default())
    }

    async fn has_deadline(&self, ctx: &RequestContext) -> Result<bool, RpcError> {
        Ok(ctx.deadline.is_some())
    }

    async fn ping(&self) -> Result<(), RpcError> {
        Ok(())
    }

    async fn add_longs(&self, a: i64, b: i64) -> Result<i64, RpcError> {
        Ok(a + b)
    }

    async fn add_strings(&self, a: String, b: String) -> Result<String, RpcError> {
        Ok(a + &b)
    }

    async fn anything(&self) -> Result<Value, RpcError> {
        Ok(Value::Long(7))
    }
}

const INTERFACE: &str = "org.apache.dubbo.interop.InteropService";

fn url() -> Url {
    Url::parse(&format!("dubbo://127.0.0.1:20880/{INTERFACE}")).expect("a valid url")
}

fn client() -> InteropServiceClient {
    let invoker = InteropServiceServer::new(Impl).into_invoker(url());
    InteropServiceClient::from_invoker(invoker)
}

fn signature(java_name: &str) -> Arc<MethodSignature> {
    InteropServiceClient::method_signatures()
        .iter()
        .find(|m| m.name() == java_name)
        .unwrap_or_else(|| panic!("no signature {java_name}"))
        .clone()
}

#[tokio::test]
async fn round_trips_every_method() {
    let c = client();
    assert_eq!(c.say_hello("world".into()).await.unwrap(), "Hello world");
    assert_eq!(c.add_int(40, 2).await.unwrap(), 42);
    assert_eq!(c.add_int(i32::MAX, 1).await.unwrap(), i32::MIN);
    let bytes = ByteBuf::from(vec![0u8, 1, 2, 255]);
    assert_eq!(c.echo_bytes(bytes.clone()).await.unwrap(), bytes);
    let user = User {
        name: "ann".into(),
        age: 33,
    };
    assert_eq!(c.echo_user(Some(user.clone())).await.unwrap(), Some(user));
    assert_eq!(c.echo_user(None).await.unwrap(), None);
    assert_eq!(c.get_attachment("missing".into()).await.unwrap(), None);
    c.ping().await.unwrap();
    assert_eq!(c.add_longs(1, 2).await.unwrap(), 3);
    assert_eq!(c.add_strings("a".into(), "b".into()).await.unwrap(), "ab");
    assert_eq!(c.twice(21).await.unwrap(), 42);
    assert_eq!(c.anything().await.unwrap(), Value::Long(7));
}

#[tokio::test]
async fn business_errors_come_back_as_business_errors() {
    let err = client().fail("boom".into()).await.unwrap_err();
    let business = err.as_business().expect("a business error");
    assert_eq!(business.class_name, "java.lang.IllegalStateException");
    assert_eq!(business.message.as_deref(), Some("boom"));
}

#[tokio::test]
async fn request_and_response_attachments() {
    let base = client();
    let c = base.clone().with_attachment("trace", "t-1");
    let (value, attachments) = c.get_attachment_full("trace".into()).await.unwrap();
    assert_eq!(value.as_deref(), Some("t-1"));
    assert_eq!(attachments.get_str("seen"), Some("trace"));

    // The base client is unchanged: attachments are copied on write.
    assert_eq!(base.get_attachment("trace".into()).await.unwrap(), None);
    let c2 = c.clone().with_attachment("trace", "t-2");
    assert_eq!(
        c.get_attachment("trace".into()).await.unwrap().as_deref(),
        Some("t-1")
    );
    assert_eq!(
        c2.get_attachment("trace".into()).await.unwrap().as_deref(),
        Some("t-2")
    );
}

#[tokio::test]
async fn service_key_and_timeout_travel_with_the_call() {
    let c = client();
    assert_eq!(c.whoami().await.unwrap(), INTERFACE);
    let versioned = c.clone().with_version("1.0.0").with_group("g");
    assert_eq!(
        versioned.whoami().await.unwrap(),
        format!("g/{INTERFACE}:1.0.0")
    );
    let keyed = c
        .clone()
        .with_service_key(ServiceKey::new(INTERFACE, None, Some("2.0")));
    assert_eq!(keyed.service_key().version(), Some("2.0"));
    assert_eq!(keyed.whoami().await.unwrap(), format!("{INTERFACE}:2.0"));

    assert!(!c.has_deadline().await.unwrap());
    let timed = c.with_timeout(Duration::from_secs(5));
    assert!(timed.has_deadline().await.unwrap());
}

#[test]
fn java_names_and_descriptors() {
    assert_eq!(InteropServiceClient::INTERFACE, INTERFACE);
    assert_eq!(InteropServiceServer::<Impl>::INTERFACE, INTERFACE);
    let names: Vec<&str> = InteropServiceClient::method_signatures()
        .iter()
        .map(|m| m.name())
        .collect();
    assert_eq!(
        names,
        [
            "sayHello",
            "addInt",
            "echoBytes",
            "echoUser",
            "getAttachment",
            "fail",
            "whoami",
            "hasDeadline",
            "ping",
            "add",
            "add",
            "twice",
            "anything"
        ]
    );
    let say_hello = signature("sayHello");
    assert_eq!(say_hello.descriptor(), "Ljava/lang/String;");
    assert_eq!(say_hello.return_type(), "java.lang.String");
    let add_int = signature("addInt");
    assert_eq!(add_int.descriptor(), "II");
    assert_eq!(
        add_int.parameter_types(),
        [Arc::from("int"), Arc::from("int")]
    );
    assert_eq!(add_int.return_type(), "int");
    assert_eq!(signature("echoBytes").descriptor(), "[B");
    let echo_user = signature("echoUser");
    assert_eq!(echo_user.descriptor(), "Lorg/apache/dubbo/interop/User;");
    assert_eq!(echo_user.return_type(), "org.apache.dubbo.interop.User");
    // The context is not a wire parameter.
    assert_eq!(
        signature("getAttachment").descriptor(),
        "Ljava/lang/String;"
    );
    assert_eq!(signature("whoami").descriptor(), "");
    assert_eq!(signature("fail").return_type(), "void");
    assert_eq!(signature("ping").return_type(), "void");
    assert_eq!(signature("anything").return_type(), "java.lang.Object");

    // Built once, shared by the server.
    let server = InteropServiceServer::new(Impl);
    assert_eq!(server.interface(), INTERFACE);
    assert!(std::ptr::eq(
        server.methods(),
        InteropServiceClient::method_signatures()
    ));
    assert!(Arc::ptr_eq(
        server.find_method("addInt", 2).unwrap(),
        &add_int
    ));
}

/// Calls the server directly with hand-made arguments.
async fn raw_call(method: Arc<MethodSignature>, args: Vec<Value>) -> Result<Value, RpcError> {
    let invoker = InteropServiceServer::new(Impl).into_invoker(url());
    let call = Invocation::new(ServiceKey::interface_only(INTERFACE), method, args);
    Ok(invoker.invoke(call).await?.value.into_value()?)
}

#[tokio::test]
async fn wrong_argument_types_are_bad_requests() {
    let err = raw_call(
        signature("addInt"),
        vec![Value::Int(1), Value::String("two".into())],
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::BadRequest), "{err}");
    assert!(err.message().starts_with("argument 2 of addInt: "), "{err}");

    let err = raw_call(signature("sayHello"), vec![Value::Bool(true)])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::BadRequest), "{err}");
    assert!(
        err.message().starts_with("argument 1 of sayHello: "),
        "{err}"
    );
}

#[tokio::test]
async fn unknown_methods_are_not_found() {
    let unknown = Arc::new(MethodSignature::new("nope", &["int"], "void"));
    let err = raw_call(unknown, vec![Value::Int(1)]).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::MethodNotFound), "{err}");
    assert!(err.message().contains(INTERFACE), "{err}");

    // Known name, wrong arity.
    let err = raw_call(signature("addInt"), vec![Value::Int(1)])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::MethodNotFound), "{err}");

    // Two overloads of `add` take two arguments: unknown types cannot pick one.
    let vague = Arc::new(MethodSignature::new(
        "add",
        &["java.lang.Object", "java.lang.Object"],
        "java.lang.Object",
    ));
    let err = raw_call(vague, vec![Value::Long(1), Value::Long(2)])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::MethodNotFound), "{err}");
}

#[tokio::test]
async fn overloads_are_told_apart_by_parameter_types() {
    let longs = Arc::new(MethodSignature::new("add", &["long", "long"], "long"));
    assert_eq!(
        raw_call(longs, vec![Value::Long(1), Value::Long(2)])
            .await
            .unwrap(),
        Value::Long(3)
    );
    let strings = Arc::new(MethodSignature::new(
        "add",
        &["java.lang.String", "java.lang.String"],
        "java.lang.String",
    ));
    assert_eq!(
        raw_call(strings, vec!["a".into(), "b".into()])
            .await
            .unwrap(),
        Value::String("ab".into())
    );
}

#[tokio::test]
async fn a_lone_method_is_found_whatever_the_declared_types() {
    // A caller that does not know the exact Java types (e.g. `$invoke` with boxed names).
    let boxed = Arc::new(MethodSignature::new(
        "addInt",
        &["java.lang.Integer", "java.lang.Integer"],
        "java.lang.Integer",
    ));
    assert_eq!(
        raw_call(boxed, vec![Value::Int(2), Value::Int(3)])
            .await
            .unwrap(),
        Value::Int(5)
    );
}

#[tokio::test]
async fn raw_calls_through_the_client() {
    let c = client().with_attachment("trace", "raw");
    let response = c
        .invoke_raw(signature("getAttachment"), vec!["trace".into()])
        .await
        .unwrap();
    assert_eq!(response.value, Value::String("raw".into()));
    assert_eq!(response.attachments.get_str("seen"), Some("trace"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_and_servers_are_send() {
    let c = client();
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let c = c.clone();
            tokio::spawn(async move { c.add_int(i, i).await })
        })
        .collect();
    for (i, t) in tasks.into_iter().enumerate() {
        assert_eq!(t.await.unwrap().unwrap(), 2 * i as i32);
    }
    let server: Arc<dyn ServiceHandler> = Arc::new(InteropServiceServer::new(Impl));
    assert_eq!(server.methods().len(), 13);
    let debug = format!("{:?} {:?}", c, InteropServiceServer::new(Impl));
    assert!(debug.contains(INTERFACE), "{debug}");
}

/// A service whose methods use an error type of their own.
mod custom_error {
    use super::dubbo_rs;

    use dubbo_core::RpcError;

    #[derive(Debug)]
    pub enum CalcError {
        DivideByZero,
        Rpc(RpcError),
    }

    impl From<RpcError> for CalcError {
        fn from(e: RpcError) -> Self {
            CalcError::Rpc(e)
        }
    }

    impl From<CalcError> for RpcError {
        fn from(e: CalcError) -> Self {
            match e {
                CalcError::DivideByZero => {
                    RpcError::business("java.lang.ArithmeticException", "/ by zero")
                }
                CalcError::Rpc(e) => e,
            }
        }
    }

    pub type CalcResult<T> = Result<T, CalcError>;

    /// No `interface`: the Java name is the trait's name.
    #[dubbo_macros::service(crate = "dubbo_rs")]
    pub trait Calculator {
        async fn divide(&self, a: i64, b: i64) -> CalcResult<i64>;
    }

    pub struct Calc;

    impl Calculator for Calc {
        async fn divide(&self, a: i64, b: i64) -> CalcResult<i64> {
            if b == 0 {
                return Err(CalcError::DivideByZero);
            }
            Ok(a / b)
        }
    }
}

#[tokio::test]
async fn custom_error_types_convert_both_ways() {
    use custom_error::*;
    let invoker = CalculatorServer::new(Calc).into_invoker(url());
    let c = CalculatorClient::from_invoker(invoker);
    assert_eq!(CalculatorClient::INTERFACE, "Calculator");
    assert_eq!(c.divide(7, 2).await.unwrap(), 3);
    match c.divide(1, 0).await {
        Err(CalcError::Rpc(RpcError::Business(b))) => {
            assert_eq!(b.class_name, "java.lang.ArithmeticException")
        }
        other => panic!("unexpected {other:?}"),
    }
    let (v, _attachments) = c.divide_full(9, 3).await.unwrap();
    assert_eq!(v, 3);
}
