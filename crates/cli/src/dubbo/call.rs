//! `dubbo call TARGET SERVICE.METHOD 'JSON args'`: a generic invocation (Dubbo's `$invoke`)
//! over dubbo:// or tri://, at a direct address or through a registry, timed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_core::attachments::keys;
use dubbo_core::{Extensions, Invocation, MethodSignature, Value};
use dubbo_hessian2::json::{json_to_value, value_to_json};
use dubbo_hessian2::List;
use dubbo_rs::{Application, ReferenceOptions};
use serde_json::json;

use crate::dubbo::connect;
use crate::dubbo::describe::{self, Wanted};
use crate::dubbo::idl::{self, IdlAnswer};
use crate::dubbo::output::{self, Format};
use crate::dubbo::tls::TlsFlags;
use crate::dubbo::CliError;

/// One `dubbo call`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallRequest {
    /// `dubbo://HOST:PORT`, `tri://HOST:PORT`, or a registry URL.
    pub target: String,
    /// The interface.
    pub service: String,
    /// The Java method name.
    pub method: String,
    /// The arguments: a JSON array (one element per parameter), or one JSON value for a
    /// method of one parameter.
    pub args: String,
    /// Java parameter types given with `--types`.
    pub types: Option<Vec<String>>,
    /// `--attachment K=V`, in order.
    pub attachments: Vec<(String, String)>,
    /// `--version`.
    pub version: Option<String>,
    /// `--group`.
    pub group: Option<String>,
    /// `--timeout` in ms.
    pub timeout_ms: u64,
    /// `--protocol`: which registered protocol to call through a registry.
    pub protocol: Option<String>,
}

/// Whether `target` is a direct provider address (rather than a registry).
pub fn is_direct(target: &str) -> bool {
    target.starts_with("dubbo://") || target.starts_with("tri://")
}

/// The arguments as JSON values: an array is the argument list; anything else is the one
/// argument.
pub fn parse_args(text: &str) -> Result<Vec<serde_json::Value>, CliError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| CliError::bad("JSON arguments", e.to_string()))?;
    Ok(match value {
        serde_json::Value::Array(items) => items,
        other => vec![other],
    })
}

/// A Java type for an argument when nothing better is known: what Java's generic service
/// would accept for that JSON.
pub fn inferred_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "java.lang.Object",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) if i32::try_from(i).is_ok() => "int",
            Some(_) => "long",
            None => "double",
        },
        serde_json::Value::String(_) => "java.lang.String",
        serde_json::Value::Array(_) => "java.util.List",
        serde_json::Value::Object(_) => "java.util.Map",
    }
}

/// The parameter types: `--types`, else the published definition's method of that name and
/// arity (through a registry), else inferred from the JSON.
async fn parameter_types(
    ext: &Extensions,
    request: &CallRequest,
    args: &[serde_json::Value],
    tls: &TlsFlags,
) -> Result<Vec<String>, CliError> {
    if let Some(types) = &request.types {
        if types.len() != args.len() {
            return Err(CliError::bad(
                "--types",
                format!("{} types for {} arguments", types.len(), args.len()),
            ));
        }
        return Ok(types.clone());
    }
    if !is_direct(&request.target) {
        let url = connect::registry_url(&request.target)?;
        let wanted = Wanted {
            service: request.service.clone(),
            version: request.version.clone(),
            group: request.group.clone(),
            app: None,
        };
        if let Ok(found) = describe::definitions_with(ext, &url, &wanted, tls).await {
            if let Some(m) = found
                .iter()
                .find_map(|f| f.definition.method(&request.method, args.len()))
            {
                // Generic parameter types name the raw class, as Java's `$invoke` takes them.
                return Ok(m
                    .parameter_types
                    .iter()
                    .map(|t| t.split('<').next().unwrap_or(t).to_owned())
                    .collect());
            }
        }
    }
    Ok(args.iter().map(|a| inferred_type(a).to_owned()).collect())
}

/// What one generic call answered.
#[derive(Debug, Clone)]
pub struct CallAnswer {
    /// The Java parameter types the call was made with.
    pub parameter_types: Vec<String>,
    /// The result, as JSON.
    pub result: serde_json::Value,
    /// How long the call took (without connecting).
    pub elapsed: Duration,
}

/// Makes the generic call `request` describes, under an application named `app_name`, dialling
/// plaintext, and answers its result: what `dubbo call` prints and the admin console shows.
pub async fn invoke(
    ext: &Extensions,
    app_name: &str,
    request: &CallRequest,
) -> Result<CallAnswer, CliError> {
    invoke_with(ext, app_name, request, &TlsFlags::default()).await
}

/// Runs `dubbo call`, dialling plaintext.
pub async fn run(ext: &Extensions, request: &CallRequest, format: Format) -> Result<(), CliError> {
    run_with(ext, request, &TlsFlags::default(), format).await
}

/// As [`invoke`], dialling with `tls`.
pub async fn invoke_with(
    ext: &Extensions,
    app_name: &str,
    request: &CallRequest,
    tls: &TlsFlags,
) -> Result<CallAnswer, CliError> {
    let args = parse_args(&request.args)?;
    let types = parameter_types(ext, request, &args, tls).await?;
    let mut builder = Application::builder(app_name);
    let mut options = ReferenceOptions::new(request.service.clone())
        .timeout(Duration::from_millis(request.timeout_ms));
    if is_direct(&request.target) {
        options = options.url(request.target.clone());
    } else {
        builder = builder.registry(&request.target);
        options = options.protocol(request.protocol.as_deref().unwrap_or("dubbo"));
    }
    if let Some(v) = &request.version {
        options = options.version(v.clone());
    }
    if let Some(g) = &request.group {
        options = options.group(g.clone());
    }
    if let Some(ssl) = tls.ssl() {
        builder = builder.ssl(ssl);
    }
    let app = builder.build()?;
    let outcome = call(&app, options, request, &types, &args).await;
    app.shutdown().await;
    let (value, elapsed) = outcome?;
    Ok(CallAnswer {
        parameter_types: types,
        result: value_to_json(&value),
        elapsed,
    })
}

/// Runs `dubbo call`, dialling with `tls`: an IDL method of a tri:// target that reflection
/// describes is called with protobuf JSON; anything else generically.
pub async fn run_with(
    ext: &Extensions,
    request: &CallRequest,
    tls: &TlsFlags,
    format: Format,
) -> Result<(), CliError> {
    if let Some(method) = idl::method_of(request, tls).await? {
        let answer = idl::call(request, &method, tls).await?;
        return print_idl(request, &answer, format);
    }
    let answer = invoke_with(ext, "dubbo-cli", request, tls).await?;
    let (types, result) = (&answer.parameter_types, &answer.result);
    let elapsed_ms = answer.elapsed.as_secs_f64() * 1000.0;
    match format {
        Format::Json => output::print_json(&json!({
            "service": request.service,
            "method": request.method,
            "parameterTypes": types,
            "result": result,
            "elapsedMs": elapsed_ms,
        })),
        Format::Table => {
            let text = serde_json::to_string_pretty(result)
                .map_err(|e| CliError::io("JSON output", &e))?;
            output::print(&format!("{text}\n"))?;
            eprintln!(
                "dubbo: {}.{}({}) took {elapsed_ms:.1} ms",
                request.service,
                request.method,
                types.join(", ")
            );
            Ok(())
        }
    }
}

/// Prints what an IDL call answered, as the generic form prints its result.
fn print_idl(request: &CallRequest, answer: &IdlAnswer, format: Format) -> Result<(), CliError> {
    let elapsed_ms = answer.elapsed.as_secs_f64() * 1000.0;
    match format {
        Format::Json => output::print_json(&json!({
            "service": request.service,
            "method": request.method,
            "parameterTypes": [answer.input],
            "returnType": answer.output,
            "streaming": answer.streaming,
            "result": answer.result,
            "elapsedMs": elapsed_ms,
        })),
        Format::Table => {
            let text = serde_json::to_string_pretty(&answer.result)
                .map_err(|e| CliError::io("JSON output", &e))?;
            output::print(&format!("{text}\n"))?;
            eprintln!(
                "dubbo: {}.{}({}) -> {} ({}) took {elapsed_ms:.1} ms",
                request.service, request.method, answer.input, answer.output, answer.streaming
            );
            Ok(())
        }
    }
}

async fn call(
    app: &Application,
    options: ReferenceOptions,
    request: &CallRequest,
    types: &[String],
    args: &[serde_json::Value],
) -> Result<(Value, Duration), CliError> {
    let reference = app.default_module().refer(options).await?;
    let types = Value::List(List {
        type_name: Some("[string".into()),
        items: types.iter().map(|t| Value::String(t.clone())).collect(),
    });
    let args = Value::List(List {
        type_name: Some("[object".into()),
        items: args.iter().map(json_to_value).collect(),
    });
    let mut invocation = Invocation::new(
        reference.service_key().clone(),
        Arc::new(MethodSignature::generic_invoke()),
        vec![Value::String(request.method.clone()), types, args],
    )
    .with_attachment(keys::GENERIC, "true");
    for (k, v) in &request.attachments {
        invocation.attachments_mut().insert(k.clone(), v.clone());
    }
    let started = Instant::now();
    let response = reference.invoker().invoke(invocation).await?;
    let elapsed = started.elapsed();
    let value = response.value.into_value().map_err(|e| {
        CliError::Rpc(dubbo_core::RpcError::framework(
            dubbo_core::ErrorCode::Codec,
            format!("decoding the result: {e}"),
        ))
    })?;
    Ok((value, elapsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_inferred_types() {
        let args = parse_args(r#"["world", 1, 5000000000, true, 1.5, null]"#).unwrap();
        let types: Vec<&str> = args.iter().map(inferred_type).collect();
        assert_eq!(
            types,
            [
                "java.lang.String",
                "int",
                "long",
                "boolean",
                "double",
                "java.lang.Object"
            ]
        );
        assert_eq!(parse_args(r#""one""#).unwrap().len(), 1);
        assert!(parse_args("").unwrap().is_empty());
        assert!(parse_args("[1,").is_err());
        assert!(is_direct("tri://127.0.0.1:1") && !is_direct("zookeeper://127.0.0.1:2181"));
    }
}
