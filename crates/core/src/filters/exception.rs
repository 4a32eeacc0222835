use crate::error::{BusinessError, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

/// The Java class a provider's exception is wrapped in when the consumer may not have its own.
pub const WRAPPER_EXCEPTION: &str = "java.lang.RuntimeException";

/// `exception` (provider, Java's `ExceptionFilter`): a business exception whose class the
/// consumer may not have is replaced by a `java.lang.RuntimeException` whose message is the
/// original's `toString()` (`class: message`), so any consumer can read it.
///
/// Passed unchanged, as in Java: JDK exceptions (`java.`, `javax.`), Dubbo's `RpcException`,
/// exceptions of the service interface's own package (Java: its jar), and every exception of a
/// generic call. Java also passes unchecked exceptions and those the method declares; a class
/// name here carries neither its hierarchy nor the method's `throws`, so any other class is
/// wrapped, as Java wraps an undeclared checked exception from another jar. Framework failures
/// are never touched.
#[derive(Debug, Default, Clone, Copy)]
pub struct ExceptionFilter;

impl Filter for ExceptionFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let generic = invocation.method().is_generic();
        let url = next.url();
        let service = invocation.service().clone();
        Box::pin(async move {
            let result = next.run(invocation).await;
            match result {
                Err(RpcError::Business(e)) if !generic => {
                    let interface = url
                        .parameter("interface")
                        .unwrap_or_else(|| service.interface());
                    if passes(&e.class_name, interface) {
                        Err(RpcError::Business(e))
                    } else {
                        Err(RpcError::Business(wrap(&e)))
                    }
                }
                other => other,
            }
        })
    }
}

/// Whether a consumer can be expected to have the exception class `class`.
fn passes(class: &str, interface: &str) -> bool {
    if class.starts_with("java.") || class.starts_with("javax.") {
        return true;
    }
    // HttpStatusException is unchecked in Java, so Java passes it too; REST answers with its
    // status.
    if class == "org.apache.dubbo.rpc.RpcException"
        || class == "com.alibaba.dubbo.rpc.RpcException"
        || class == crate::rest::HTTP_STATUS_EXCEPTION
    {
        return true;
    }
    match (package(class), package(interface)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

fn package(class: &str) -> Option<&str> {
    class.rsplit_once('.').map(|(p, _)| p)
}

fn wrap(e: &BusinessError) -> BusinessError {
    // Java's `Throwable.toString()`: the class name, then `: message` when there is one.
    let text = match e.message.as_deref() {
        Some(m) => format!("{}: {m}", e.class_name),
        None => e.class_name.clone(),
    };
    BusinessError::new(WRAPPER_EXCEPTION, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_classes_pass() {
        let iface = "org.example.Greeter";
        assert!(passes("java.lang.IllegalStateException", iface));
        assert!(passes("javax.validation.ValidationException", iface));
        assert!(passes("org.apache.dubbo.rpc.RpcException", iface));
        assert!(passes("org.example.GreeterException", iface));
        assert!(!passes("com.other.SecretException", iface));
        assert!(!passes("org.example.sub.DeepException", iface));
        assert!(!passes("NoPackage", iface));
    }

    #[test]
    fn the_wrapper_carries_the_original_to_string() {
        let e = BusinessError::new("com.other.SecretException", "boom");
        let w = wrap(&e);
        assert_eq!(w.class_name, WRAPPER_EXCEPTION);
        assert_eq!(
            w.message.as_deref(),
            Some("com.other.SecretException: boom")
        );
        assert!(w.raw.is_none());
    }
}
