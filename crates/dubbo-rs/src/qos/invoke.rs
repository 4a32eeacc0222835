//! The `invoke` command: `invoke [service.]method(json arguments)` calls a served service
//! in-process, through its provider filters, and answers the JSON result and the time taken,
//! in the shape of Java Dubbo 3.3's telnet `invoke`:
//!
//! ```text
//! Use default service org.example.Greeter.
//! result: "hello world"
//! elapsed: 0 ms.
//! ```
//!
//! The service is named by its service key (`group/interface:version`), its interface or the
//! interface's simple name, in any case. Each argument is JSON, converted as the Triple JSON
//! form converts a body, and the method is the one with that name and as many parameters.

use std::sync::Arc;
use std::time::Instant;

use dubbo_core::{ErrorCode, Invocation, Invoker, MethodSignature, RpcError, ServiceKey, Value};
use dubbo_hessian2::json::{json_to_value, value_to_json};

use crate::application::Application;
use crate::view::ExportedService;

/// What `invoke` answers without arguments.
const USAGE: &str = "Name a service, a method and JSON arguments, e.g.:\r\n\
invoke org.example.Greeter.sayHello(\"world\")\r\n\
invoke Greeter.add(1, 2)\r\n\
invoke org.example.Greeter.save({\"name\": \"x\", \"tags\": [\"a\"]})";

/// A parsed `invoke` line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InvokeRequest {
    pub(crate) service: String,
    pub(crate) method: String,
    pub(crate) args: Vec<Value>,
}

/// Parses `service.method(arg, ...)`; the error is the answer to give.
pub(crate) fn parse(text: &str) -> Result<InvokeRequest, String> {
    let text = text.trim();
    let (Some(open), true) = (text.find('('), text.ends_with(')')) else {
        return Err("Invalid parameters, format: service.method(args)".to_owned());
    };
    let target = text[..open].trim();
    let (service, method) = target.rsplit_once('.').unwrap_or(("", target));
    let (service, method) = (service.trim(), method.trim());
    if service.is_empty() {
        return Err(format!(
            "Name the service too, e.g. invoke org.example.Greeter.{method}(...) or \
             invoke Greeter.{method}(...)"
        ));
    }
    if method.is_empty() {
        return Err("Invalid parameters, format: service.method(args)".to_owned());
    }
    let args = json_arguments(&text[open + 1..text.len() - 1])?;
    Ok(InvokeRequest {
        service: service.to_owned(),
        method: method.to_owned(),
        args,
    })
}

/// The comma-separated JSON values of an argument list, one at a time so that an error names
/// the argument at fault.
fn json_arguments(text: &str) -> Result<Vec<Value>, String> {
    let mut args = Vec::new();
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return Ok(args);
    }
    loop {
        let position = args.len() + 1;
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
        let value = match values.next() {
            Some(Ok(v)) => v,
            Some(Err(e)) => return Err(format!("Invalid json argument {position}: {e}")),
            None => return Err(format!("Invalid json argument {position}: missing value")),
        };
        args.push(json_to_value(&value));
        rest = rest[values.byte_offset()..].trim_start();
        match rest.strip_prefix(',') {
            Some(next) => rest = next.trim_start(),
            None if rest.is_empty() => return Ok(args),
            None => {
                return Err(format!(
                "Invalid json argument {position}: expected `,` or the end after it, found {:?}",
                rest.chars().next().unwrap_or(' ')
            ))
            }
        }
    }
}

/// Runs `invoke` for `app` with the command's arguments (the whole `service.method(...)` text
/// is the first).
pub(crate) async fn run(app: &Application, args: &[String]) -> String {
    let Some(text) = args.first() else {
        return USAGE.to_owned();
    };
    let request = match parse(text) {
        Ok(r) => r,
        Err(answer) => return answer,
    };
    let mut out = format!("Use default service {}.", request.service);
    let Some((served, chain)) = find_service(app.provider_chains(), &request.service) else {
        out.push_str(&format!("\r\nNo such service {}", request.service));
        return out;
    };
    let methods = served.url.parameter("methods").unwrap_or("");
    if !methods.split(',').any(|m| m == request.method) {
        out.push_str(&no_such_method(&request));
        return out;
    }
    let started = Instant::now();
    match call(&served, chain, &request).await {
        Ok(value) => {
            let elapsed = started.elapsed().as_millis();
            out.push_str(&format!(
                "\r\nresult: {}\r\nelapsed: {elapsed} ms.",
                value_to_json(&value)
            ));
            out
        }
        Err(e) if e.code() == Some(ErrorCode::MethodNotFound) => {
            out.push_str(&no_such_method(&request));
            out
        }
        Err(RpcError::Business(b)) => format!(
            "Failed to invoke method {}, cause: {}: {}",
            request.method,
            b.class_name,
            b.message.as_deref().unwrap_or("")
        ),
        Err(e) => format!("Failed to invoke method {}, cause: {e}", request.method),
    }
}

fn no_such_method(request: &InvokeRequest) -> String {
    format!(
        "\r\nNo such method {} in service {} taking {} argument(s)",
        request.method,
        request.service,
        request.args.len()
    )
}

/// The first served service that `name` names: its service key, interface or the interface's
/// simple name, ignoring case (Java's match).
fn find_service(
    served: Vec<(ExportedService, Arc<dyn Invoker>)>,
    name: &str,
) -> Option<(ExportedService, Arc<dyn Invoker>)> {
    served.into_iter().find(|(s, _)| names(&s.key, name))
}

fn names(key: &ServiceKey, name: &str) -> bool {
    let interface = key.interface();
    let simple = interface.rsplit('.').next().unwrap_or(interface);
    [key.to_string().as_str(), interface, simple]
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name))
}

/// Calls the provider chain as a local caller would over the wire: the service's attachments,
/// the URL's token (the caller is trusted with it: it may run `invoke` at all), no deadline.
async fn call(
    served: &ExportedService,
    chain: Arc<dyn Invoker>,
    request: &InvokeRequest,
) -> Result<Value, RpcError> {
    let types = vec!["java.lang.Object"; request.args.len()];
    let signature = Arc::new(MethodSignature::new(
        &request.method,
        &types,
        "java.lang.Object",
    ));
    let key = served.key.clone();
    let mut invocation = Invocation::new(key.clone(), signature, request.args.clone());
    let attachments = invocation.attachments_mut();
    attachments.insert_service(&key);
    if let Some(token) = served.url.parameter("token") {
        attachments.insert("token", token);
    }
    chain.invoke(invocation).await.map(|r| r.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(service: &str, method: &str, args: Vec<Value>) -> Result<InvokeRequest, String> {
        Ok(InvokeRequest {
            service: service.into(),
            method: method.into(),
            args,
        })
    }

    #[test]
    fn parses_service_method_and_json_arguments() {
        assert_eq!(
            parse("org.example.Greeter.sayHello(\"x, y\")"),
            request(
                "org.example.Greeter",
                "sayHello",
                vec![Value::String("x, y".into())]
            )
        );
        assert_eq!(
            parse(" Greeter.add( 1 , 2.5,null,true ) "),
            request(
                "Greeter",
                "add",
                vec![
                    Value::Int(1),
                    Value::Double(2.5),
                    Value::Null,
                    Value::Bool(true)
                ]
            )
        );
        assert_eq!(parse("Greeter.now()"), request("Greeter", "now", vec![]));
        let parsed = parse("g/a.B:1.0.0.save({\"k\": [1, \"2\"]}, [3])").unwrap();
        assert_eq!(
            (parsed.service.as_str(), parsed.method.as_str()),
            ("g/a.B:1.0.0", "save")
        );
        assert_eq!(parsed.args.len(), 2);
    }

    #[test]
    fn a_bad_argument_is_named() {
        let err = parse("Greeter.add(1, {\"a\": }, 3)").unwrap_err();
        assert!(err.starts_with("Invalid json argument 2:"), "{err}");
        let err = parse("Greeter.add(\"unterminated)").unwrap_err();
        assert!(err.starts_with("Invalid json argument 1:"), "{err}");
        let err = parse("Greeter.add(1 2)").unwrap_err();
        assert!(err.starts_with("Invalid json argument 1:"), "{err}");
        let err = parse("Greeter.add(1,)").unwrap_err();
        assert!(err.starts_with("Invalid json argument 2:"), "{err}");
    }

    #[test]
    fn refuses_what_is_not_a_call() {
        assert!(parse("Greeter.add").unwrap_err().contains("format"));
        assert!(parse("sayHello(1)")
            .unwrap_err()
            .contains("Name the service"));
        assert!(parse("Greeter.(1)").unwrap_err().contains("format"));
    }

    #[test]
    fn a_service_is_named_by_key_interface_or_simple_name() {
        let key = ServiceKey::new("org.example.Greeter", Some("g"), Some("1.0.0"));
        for name in [
            "g/org.example.Greeter:1.0.0",
            "org.example.greeter",
            "GREETER",
        ] {
            assert!(names(&key, name), "{name}");
        }
        assert!(!names(&key, "example.Greeter"));
    }
}
