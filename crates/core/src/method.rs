//! Java-facing description of a method: its name and its parameter and return types.

use std::sync::Arc;

use dubbo_hessian2::java;

use crate::error::{ErrorCode, RpcError};

/// The name of Dubbo's generic-call method.
pub const GENERIC_INVOKE: &str = "$invoke";
/// The asynchronous form of the generic-call method.
pub const GENERIC_INVOKE_ASYNC: &str = "$invokeAsync";
/// The name of Dubbo's built-in echo method.
pub const ECHO: &str = "$echo";
/// The dubbo:// parameter descriptor of `$invoke` and `$invokeAsync`.
pub const GENERIC_DESCRIPTOR: &str = "Ljava/lang/String;[Ljava/lang/String;[Ljava/lang/Object;";
/// The dubbo:// parameter descriptor of `$echo`.
pub const ECHO_DESCRIPTOR: &str = "Ljava/lang/Object;";

/// A method as Java sees it.
///
/// Parameter types are kept in `Class.getName()` form (`int`, `java.lang.String`,
/// `[Ljava.lang.String;`), which is what Triple's wrapper carries; the dubbo:// descriptor
/// (`ILjava/lang/String;`) is computed once, when the signature is built.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MethodSignature {
    name: Arc<str>,
    parameter_types: Arc<[Arc<str>]>,
    descriptor: Arc<str>,
    return_type: Arc<str>,
    rest: RestLink,
}

/// The HTTP mapping a generated signature carries, so that a REST invoker knows the verb, path
/// and parameter places of the call it sends. It is a property of the method, not part of its
/// identity: two signatures with the same name and types are equal with or without it (a
/// signature decoded from the wire has none).
#[derive(Debug, Clone, Copy, Default)]
struct RestLink(Option<&'static crate::rest::RestMethod>);

impl PartialEq for RestLink {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for RestLink {}

impl std::hash::Hash for RestLink {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl MethodSignature {
    /// A signature from Java type names (`Class.getName()` or source form such as `int[]`).
    pub fn new<S: AsRef<str>>(name: &str, parameter_types: &[S], return_type: &str) -> Self {
        let parameter_types: Arc<[Arc<str>]> = parameter_types
            .iter()
            .map(|t| Arc::from(java::class_get_name(t.as_ref())))
            .collect();
        let descriptor: String = parameter_types
            .iter()
            .map(|t| java::java_name_to_descriptor(t))
            .collect();
        Self {
            name: Arc::from(name),
            parameter_types,
            descriptor: Arc::from(descriptor),
            return_type: Arc::from(java::class_get_name(return_type)),
            rest: RestLink::default(),
        }
    }

    /// The same signature carrying the method's HTTP mapping (what `#[dubbo_rs::service]`
    /// builds for every method).
    pub fn with_rest(mut self, rest: &'static crate::rest::RestMethod) -> Self {
        self.rest = RestLink(Some(rest));
        self
    }

    /// The method's HTTP mapping, when the signature was built from a service definition.
    pub fn rest(&self) -> Option<&'static crate::rest::RestMethod> {
        self.rest.0
    }

    /// A signature from a dubbo:// descriptor such as `Ljava/lang/String;I`.
    pub fn from_descriptor(name: &str, descriptor: &str) -> Result<Self, RpcError> {
        let parts = java::split_descriptors(descriptor).map_err(|e| {
            RpcError::framework(
                ErrorCode::BadRequest,
                format!("bad parameter descriptor {descriptor:?}: {e}"),
            )
        })?;
        let mut types = Vec::with_capacity(parts.len());
        for d in &parts {
            let n = java::descriptor_to_java_name(d).map_err(|e| {
                RpcError::framework(
                    ErrorCode::BadRequest,
                    format!("bad parameter descriptor {d:?}: {e}"),
                )
            })?;
            types.push(Arc::from(java::class_get_name(&n)));
        }
        Ok(Self {
            name: Arc::from(name),
            parameter_types: types.into(),
            descriptor: Arc::from(descriptor),
            return_type: Arc::from("java.lang.Object"),
            rest: RestLink::default(),
        })
    }

    /// The signature of `$invoke(String method, String[] types, Object[] args)`.
    pub fn generic_invoke() -> Self {
        Self::new(
            GENERIC_INVOKE,
            &[
                "java.lang.String",
                "[Ljava.lang.String;",
                "[Ljava.lang.Object;",
            ],
            "java.lang.Object",
        )
    }

    /// The signature of `$echo(Object)`.
    pub fn echo() -> Self {
        Self::new(ECHO, &["java.lang.Object"], "java.lang.Object")
    }

    /// The Java method name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The shared method name.
    pub fn name_arc(&self) -> &Arc<str> {
        &self.name
    }

    /// Parameter types in `Class.getName()` form.
    pub fn parameter_types(&self) -> &[Arc<str>] {
        &self.parameter_types
    }

    /// The dubbo:// descriptor: JVM descriptors concatenated with no separator.
    pub fn descriptor(&self) -> &str {
        &self.descriptor
    }

    /// The declared return type in `Class.getName()` form (`void` for none).
    pub fn return_type(&self) -> &str {
        &self.return_type
    }

    /// Whether this is `$invoke`/`$invokeAsync` with the generic descriptor.
    pub fn is_generic(&self) -> bool {
        (&*self.name == GENERIC_INVOKE || &*self.name == GENERIC_INVOKE_ASYNC)
            && &*self.descriptor == GENERIC_DESCRIPTOR
    }

    /// Whether this is `$echo` with one parameter.
    pub fn is_echo(&self) -> bool {
        &*self.name == ECHO && self.parameter_types.len() == 1
    }
}
