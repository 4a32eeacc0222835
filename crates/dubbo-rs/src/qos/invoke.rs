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

use dubbo_core::{ErrorCode, Invocation, MethodSignature, RpcError, ServiceKey, Value};
use dubbo_hessian2::json::{json_to_value, value_to_json};

use crate::application::Application;
use crate::view::LocalService;

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
pub(crate) fn parse(text: &str, default_service: Option<&str>) -> Result<InvokeRequest, String> {
    let text = text.trim();
    let (Some(open), true) = (text.find('('), text.ends_with(')')) else {
        return Err("Invalid parameters, format: service.method(args)".to_owned());
    };
    let target = text[..open].trim();
    let (service, method) = target.rsplit_once('.').unwrap_or(("", target));
    let (service, method) = (service.trim(), method.trim());
    let service = match (service, default_service) {
        ("", Some(default)) => default,
        (s, _) => s,
    };
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

/// What a telnet session remembers between `invoke` and `select`: the call whose method was
/// ambiguous, and the overloads it could be.
#[derive(Default)]
pub(crate) struct Selection {
    pending: Option<(InvokeRequest, Vec<Arc<MethodSignature>>)>,
    /// The service `cd` chose: `invoke method(...)` without a service calls it.
    default_service: Option<String>,
}

/// `cd SERVICE` (Java's telnet command): `invoke` may then leave the service out; `cd /` or
/// `cd ..` cancels it. The service must be one the application serves.
pub(crate) fn cd(app: &Application, args: &[String], selection: &mut Selection) -> String {
    let Some(target) = args.first().map(|a| a.trim()) else {
        return "Please input service name, eg: \r\ncd XxxService\r\ncd com.xxx.XxxService"
            .to_owned();
    };
    if target == "/" || target == ".." {
        return match selection.default_service.take() {
            Some(service) => format!("Cancelled default service {service}."),
            None => "Cancelled default service.".to_owned(),
        };
    }
    if find_service(app.provider_chains(), target).is_none() {
        return format!("No such service {target}");
    }
    selection.default_service = Some(target.to_owned());
    format!("Used the {target} as default.\r\nYou can cancel default service by command: cd /")
}

/// `pwd`: the service `cd` chose, or `/`.
pub(crate) fn pwd(selection: &Selection) -> String {
    match &selection.default_service {
        Some(service) => service.clone(),
        None => "/".to_owned(),
    }
}

/// Runs `invoke` for `app` with the command's arguments (the whole `service.method(...)` text
/// is the first). Overloads the arguments do not tell apart are listed and remembered in
/// `selection` for `select`.
pub(crate) async fn run(app: &Application, args: &[String], selection: &mut Selection) -> String {
    let Some(text) = args.first() else {
        return USAGE.to_owned();
    };
    let request = match parse(text, selection.default_service.as_deref()) {
        Ok(r) => r,
        Err(answer) => return answer,
    };
    let mut out = format!("Use default service {}.", request.service);
    let Some(local) = find_service(app.provider_chains(), &request.service) else {
        out.push_str(&format!("\r\nNo such service {}", request.service));
        return out;
    };
    let signature = match choose_method(&local, &request) {
        Choice::One(signature) => signature,
        Choice::None => {
            out.push_str(&no_such_method(&request));
            return out;
        }
        Choice::Several(candidates) => {
            let listed = list_overloads(&candidates);
            selection.pending = Some((request, candidates));
            return listed;
        }
    };
    out.push_str(&call(&local, signature, &request).await);
    out
}

/// `select N`: runs the remembered `invoke` with the `N`th overload it listed.
pub(crate) async fn select(
    app: &Application,
    args: &[String],
    selection: &mut Selection,
) -> String {
    let Some(index) = args.first() else {
        return "Name the method by its number in the list invoke gave, e.g. select 1".to_owned();
    };
    let Some((request, candidates)) = &selection.pending else {
        return "Nothing to select: run an invoke whose method has several overloads first."
            .to_owned();
    };
    let Some(signature) = index
        .parse::<usize>()
        .ok()
        .and_then(|i| candidates.get(i.checked_sub(1)?))
    else {
        return format!("Illegal index {index}: select 1 to {}", candidates.len());
    };
    let mut out = format!("Use default service {}.", request.service);
    match find_service(app.provider_chains(), &request.service) {
        Some(local) => out.push_str(&call(&local, signature.clone(), request).await),
        None => out.push_str(&format!("\r\nNo such service {}", request.service)),
    }
    selection.pending = None;
    out
}

enum Choice {
    One(Arc<MethodSignature>),
    None,
    Several(Vec<Arc<MethodSignature>>),
}

/// The method `request` calls: the only one with its name and arity, else the only one whose
/// parameter types its JSON arguments fit (Java's rule). A service whose methods are not
/// known (an IDL service) is called by name with the arguments as they are.
fn choose_method(local: &LocalService, request: &InvokeRequest) -> Choice {
    if local.methods.is_empty() {
        let methods = local.service.url.parameter("methods").unwrap_or("");
        if !methods.split(',').any(|m| m == request.method) {
            return Choice::None;
        }
        let types = vec!["java.lang.Object"; request.args.len()];
        return Choice::One(Arc::new(MethodSignature::new(
            &request.method,
            &types,
            "java.lang.Object",
        )));
    }
    let same_arity: Vec<Arc<MethodSignature>> = local
        .methods
        .iter()
        .filter(|m| m.name() == request.method && m.parameter_types().len() == request.args.len())
        .cloned()
        .collect();
    let mut fitting = match same_arity.len() {
        0 => return Choice::None,
        1 => same_arity,
        _ => same_arity
            .into_iter()
            .filter(|m| {
                m.parameter_types()
                    .iter()
                    .zip(&request.args)
                    .all(|(t, v)| fits(t, v))
            })
            .collect(),
    };
    match fitting.len() {
        0 => Choice::None,
        1 => Choice::One(fitting.remove(0)),
        _ => Choice::Several(fitting),
    }
}

/// Whether a JSON argument can become a parameter of Java type `ty` (`Class.getName()`
/// form).
fn fits(ty: &str, value: &Value) -> bool {
    const INTEGRAL: &[&str] = &[
        "int",
        "long",
        "short",
        "byte",
        "java.lang.Integer",
        "java.lang.Long",
        "java.lang.Short",
        "java.lang.Byte",
        "java.math.BigInteger",
    ];
    const DECIMAL: &[&str] = &[
        "double",
        "float",
        "java.lang.Double",
        "java.lang.Float",
        "java.math.BigDecimal",
    ];
    const PRIMITIVE: &[&str] = &[
        "int", "long", "short", "byte", "double", "float", "boolean", "char",
    ];
    let any = matches!(ty, "java.lang.Object" | "java.io.Serializable");
    let array = ty.starts_with('[');
    let collection = ty.starts_with("java.util.")
        && ["List", "Set", "Collection"]
            .iter()
            .any(|c| ty.ends_with(c));
    let boxed = ty.starts_with("java.lang.") || ty.starts_with("java.math.");
    match value {
        Value::Null => !PRIMITIVE.contains(&ty),
        Value::Bool(_) => any || matches!(ty, "boolean" | "java.lang.Boolean"),
        Value::Int(_) | Value::Long(_) => {
            any || ty == "java.lang.Number" || INTEGRAL.contains(&ty) || DECIMAL.contains(&ty)
        }
        Value::Double(_) => any || ty == "java.lang.Number" || DECIMAL.contains(&ty),
        // Also an enum constant's name: any type of the application's own.
        Value::String(_) => {
            any || matches!(
                ty,
                "java.lang.String" | "java.lang.CharSequence" | "char" | "java.lang.Character"
            ) || !(boxed || array || collection || PRIMITIVE.contains(&ty))
        }
        Value::List(_) => any || array || collection,
        // An object: any type that is not a scalar, an array or a collection.
        _ => any || !(boxed || array || collection || PRIMITIVE.contains(&ty)),
    }
}

/// Java's list of overloads to choose from.
fn list_overloads(candidates: &[Arc<MethodSignature>]) -> String {
    let mut out = String::from("Methods:\r\n");
    for (i, m) in candidates.iter().enumerate() {
        let types: Vec<&str> = m
            .parameter_types()
            .iter()
            .map(|t| t.rsplit('.').next().unwrap_or(t))
            .collect();
        out.push_str(&format!("{}. {}({})\r\n", i + 1, m.name(), types.join(",")));
    }
    out.push_str("Choose one with select, e.g. select 1");
    out
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
fn find_service(served: Vec<LocalService>, name: &str) -> Option<LocalService> {
    served.into_iter().find(|s| names(&s.service.key, name))
}

fn names(key: &ServiceKey, name: &str) -> bool {
    let interface = key.interface();
    let simple = interface.rsplit('.').next().unwrap_or(interface);
    [key.to_string().as_str(), interface, simple]
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name))
}

/// Calls `method` of the provider chain as a local caller would over the wire (the
/// service's attachments, the URL's token: whoever may run `invoke` is trusted with it, no
/// deadline) and words the outcome as Java does.
async fn call(
    local: &LocalService,
    method: Arc<MethodSignature>,
    request: &InvokeRequest,
) -> String {
    let key = local.service.key.clone();
    let mut invocation = Invocation::new(key.clone(), method, request.args.clone());
    let attachments = invocation.attachments_mut();
    attachments.insert_service(&key);
    if let Some(token) = local.service.url.parameter("token") {
        attachments.insert("token", token);
    }
    // The same trust for `auth=true` (Java's telnet `invoke` calls the implementation directly).
    invocation
        .context_mut()
        .insert(dubbo_core::filters::auth::Authenticated);
    let started = Instant::now();
    match local.chain.invoke(invocation).await {
        Ok(response) => match response.value.into_value() {
            Ok(value) => format!(
                "\r\nresult: {}\r\nelapsed: {} ms.",
                value_to_json(&value),
                started.elapsed().as_millis()
            ),
            Err(e) => format!(
                "\r\nFailed to invoke method {}, cause: the result does not decode: {e}",
                request.method
            ),
        },
        Err(e) if e.code() == Some(ErrorCode::MethodNotFound) => no_such_method(request),
        Err(RpcError::Business(b)) => format!(
            "\r\nFailed to invoke method {}, cause: {}: {}",
            request.method,
            b.class_name,
            b.message.as_deref().unwrap_or("")
        ),
        Err(e) => format!("\r\nFailed to invoke method {}, cause: {e}", request.method),
    }
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
            parse("org.example.Greeter.sayHello(\"x, y\")", None),
            request(
                "org.example.Greeter",
                "sayHello",
                vec![Value::String("x, y".into())]
            )
        );
        assert_eq!(
            parse(" Greeter.add( 1 , 2.5,null,true ) ", None),
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
        assert_eq!(
            parse("Greeter.now()", None),
            request("Greeter", "now", vec![])
        );
        let parsed = parse("g/a.B:1.0.0.save({\"k\": [1, \"2\"]}, [3])", None).unwrap();
        assert_eq!(
            (parsed.service.as_str(), parsed.method.as_str()),
            ("g/a.B:1.0.0", "save")
        );
        assert_eq!(parsed.args.len(), 2);
    }

    #[test]
    fn a_bad_argument_is_named() {
        let err = parse("Greeter.add(1, {\"a\": }, 3)", None).unwrap_err();
        assert!(err.starts_with("Invalid json argument 2:"), "{err}");
        let err = parse("Greeter.add(\"unterminated)", None).unwrap_err();
        assert!(err.starts_with("Invalid json argument 1:"), "{err}");
        let err = parse("Greeter.add(1 2)", None).unwrap_err();
        assert!(err.starts_with("Invalid json argument 1:"), "{err}");
        let err = parse("Greeter.add(1,)", None).unwrap_err();
        assert!(err.starts_with("Invalid json argument 2:"), "{err}");
    }

    #[test]
    fn refuses_what_is_not_a_call() {
        assert!(parse("Greeter.add", None).unwrap_err().contains("format"));
        assert!(parse("sayHello(1)", None)
            .unwrap_err()
            .contains("Name the service"));
        assert!(parse("Greeter.(1)", None).unwrap_err().contains("format"));
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

    #[test]
    fn json_arguments_fit_java_types_as_java_matches_overloads() {
        assert!(fits("int", &Value::Int(1)) && fits("java.lang.Long", &Value::Int(1)));
        assert!(fits("double", &Value::Int(1)) && !fits("int", &Value::Double(1.5)));
        assert!(!fits("int", &Value::String("1".into())));
        assert!(fits("java.lang.String", &Value::String("x".into())));
        assert!(fits("org.example.Color", &Value::String("RED".into())));
        assert!(!fits("int", &Value::Null) && fits("java.lang.Integer", &Value::Null));
        assert!(fits("[Ljava.lang.String;", &Value::list(vec![])));
        assert!(fits("java.util.List", &Value::list(vec![])));
        assert!(!fits("java.lang.String", &Value::list(vec![])));
        assert!(fits("org.example.User", &Value::map(vec![])));
        assert!(!fits("java.lang.String", &Value::map(vec![])));
        assert!(fits("java.lang.Object", &Value::Bool(true)));
    }
}
