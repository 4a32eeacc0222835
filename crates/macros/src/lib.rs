//! Procedural macros of dubbo-rs. Use them through the facade: `#[dubbo_rs::service]`.
//!
//! [`macro@service`] turns a Rust trait into a Dubbo service: the Java interface it stands for,
//! a typed client, and the provider-side dispatch.

use proc_macro::TokenStream;
use quote::quote;
use syn::parse_macro_input;

mod definition;
mod expand;
mod model;
mod names;
mod rest;
mod rest_case;
mod rest_cors;
mod rest_schema;
#[cfg(test)]
mod rest_schema_tests;
mod streams;

/// Defines a Dubbo service from a trait.
///
/// ```ignore
/// use dubbo_rs::prelude::*;
///
/// #[dubbo_rs::service(interface = "org.apache.dubbo.interop.InteropService")]
/// pub trait InteropService: Send + Sync + 'static {
///     /// Java: `String sayHello(String)`.
///     async fn say_hello(&self, name: String) -> Result<String, RpcError>;
///     /// Java: `int addInt(int, int)`.
///     async fn add_int(&self, a: i32, b: i32) -> Result<i32, RpcError>;
///     /// The Java name is given rather than derived.
///     #[dubbo(name = "echoBytes")]
///     async fn echo_bytes(&self, v: ByteBuf) -> Result<ByteBuf, RpcError>;
///     /// The parameter's Java type is given rather than derived.
///     async fn echo_user(
///         &self,
///         #[dubbo(java_type = "org.apache.dubbo.interop.User")] u: Option<User>,
///     ) -> Result<Option<User>, RpcError>;
///     /// A first parameter `&mut RequestContext` (or `&RequestContext`) is the provider's view
///     /// of the call, not an argument on the wire.
///     async fn get_attachment(&self, ctx: &mut RequestContext, key: String)
///         -> Result<Option<String>, RpcError>;
///     /// `()` is Java `void`.
///     async fn fail(&self, message: String) -> Result<(), RpcError>;
/// }
/// ```
///
/// # Arguments
///
/// - `interface = "org.example.Greeter"`: the Java interface name the service is exported and
///   referenced under. Default: the trait's name.
/// - `crate = "::dubbo_rs"`: the path of the dubbo-rs facade, through which the generated code
///   reaches `core` (dubbo-core), `hessian2` (dubbo-hessian2) and `url` (dubbo-url). Default:
///   `::dubbo_rs`.
///
/// On a method, `#[dubbo(name = "javaName")]` sets the Java method name (default: the
/// lowerCamelCase of the Rust name, `say_hello` → `sayHello`) and
/// `#[dubbo(return_type = "java.lang.Object")]` the Java return type. On a parameter,
/// `#[dubbo(java_type = "org.example.User")]` sets its Java type. Java types default to
/// `<T as dubbo_rs::hessian2::java::JavaType>::java_type_name()` of the Rust type (of `T` in
/// the return type `Result<T, E>`; `()` is `void`).
///
/// # Rules
///
/// Every method is `async fn name(&self, [ctx: &mut RequestContext,] args...) -> Result<T, E>`,
/// with plain parameter names, owned parameter types that are `Serialize + DeserializeOwned +
/// JavaType` (and `Send`), and no generics. `E` is `RpcError` or any error type with
/// `E: Into<RpcError> + From<RpcError>` (the server turns it into an `RpcError`, the client
/// turns framework failures into it). An alias whose name ends in `Result` (`io::Result<T>`,
/// `MyResult<T>`) works too, with `T` as its first type argument. A trait
/// method may have a default body.
///
/// # Streaming methods
///
/// Java methods that take or return a `StreamObserver` (Triple's streams in wrapper mode) are
/// declared with the stream types of `dubbo_rs::protocol_triple` (also in the prelude): a
/// parameter `Streaming<Req>` takes the requests as they come, a result `ResponseStream<Resp>`
/// (a boxed stream of `Result<Resp, Status>`: `Ok(Box::pin(stream))`) sends the responses as
/// they are ready.
///
/// ```ignore
/// #[dubbo_rs::service(interface = "org.apache.dubbo.interop.StreamingService")]
/// pub trait StreamingService: Send + Sync + 'static {
///     /// Java `void serverStream(String, StreamObserver<String>)`.
///     async fn server_stream(&self, request: String) -> Result<ResponseStream<String>, Status>;
///     /// Java `StreamObserver<String> clientStream(StreamObserver<String>)`, answered once.
///     async fn client_stream(&self, requests: Streaming<String>) -> Result<String, Status>;
///     /// Java `StreamObserver<String> biStream(StreamObserver<String>)`.
///     async fn bi_stream(&self, requests: Streaming<String>)
///         -> Result<ResponseStream<String>, Status>;
/// }
/// ```
///
/// A server stream takes exactly one request value; a client or bidirectional stream takes
/// `Streaming<Req>` as its only parameter. A streaming method may take `ctx: &RequestContext`
/// first, as a unary one does (the request's attachments, the consumer's address, the service
/// key, the deadline; a stream sends no response attachments, so not `&mut`), and the Java types of their values come from the values' `JavaType` impls (no `java_type` or
/// `return_type`). `E` is as for unary methods (`Status` and `RpcError` both fit); an `Err`
/// item of a `ResponseStream` ends the call with that status (Java's `onError`), after the
/// items before it.
///
/// The server (`GreeterServer::streaming_interface()`) hands its streams to the application,
/// which serves them next to the service's unary methods on each tri:// port the service is
/// exported on (dubbo:// does not stream, as in Java). The client has, for each streaming
/// method, `m(request)` or `m(requests: impl Stream<Item = Req>)` returning
/// `Result<Streaming<Resp>, E>` (server and bidirectional streams) or `Result<Resp, E>`
/// (client streams); the call goes through the reference's invoker and filters once, is never
/// retried by the cluster (as in Java), and is cancelled by dropping its response stream. A
/// crate naming the runtime with `crate = "..."` adds `protocol_triple`
/// (`dubbo_protocol_triple`) to that module.
///
/// # What it generates (for a trait `Greeter`)
///
/// - The trait, each `async fn` rewritten as `fn ... -> impl Future<Output = ...> + Send`.
///   Implementations still write `async fn`; the compiler checks their futures are `Send`.
/// - `GreeterServer<T>`: `new(T)`, `from_arc(Arc<T>)`, `get_ref()`, `service()`,
///   `into_invoker(self, Url) -> ServiceInvoker<Self>`, `INTERFACE`, and
///   `impl ServiceHandler for GreeterServer<T> where T: Greeter + Send + Sync + 'static`.
/// - `GreeterClient`: `new(Arc<dyn Invoker>)`, `from_invoker(impl Invoker)`,
///   `with_service_key`, `with_version`, `with_group`, `with_attachment`, `with_timeout`,
///   `service_key()`, `invoker()`, `new_invocation(method, args)`,
///   `invoke_raw(method, args) -> BoxFuture<RpcResult>`, `INTERFACE`, `method_signatures()`,
///   and for each method `m(&self, args...) -> Result<T, E>` and
///   `m_full(&self, args...) -> Result<(T, Attachments), E>` (the value with the response
///   attachments).
///
/// # Without the facade
///
/// A crate that depends on dubbo-core, dubbo-hessian2 and dubbo-url directly (as dubbo-rs's own
/// crates do) names them through a module of its own with `crate = "..."`:
///
/// ```
/// mod rt {
///     pub use dubbo_core as core;
///     pub use dubbo_hessian2 as hessian2;
///     pub use dubbo_url as url;
/// }
/// use dubbo_core::RpcError;
///
/// #[dubbo_macros::service(interface = "org.example.Greeter", crate = "rt")]
/// pub trait Greeter: Send + Sync + 'static {
///     async fn say_hello(&self, name: String) -> Result<String, RpcError>;
/// }
///
/// struct Hello;
///
/// impl Greeter for Hello {
///     async fn say_hello(&self, name: String) -> Result<String, RpcError> {
///         Ok(format!("Hello {name}"))
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let url = dubbo_url::Url::parse("dubbo://127.0.0.1:20880/org.example.Greeter").unwrap();
/// let client = GreeterClient::from_invoker(GreeterServer::new(Hello).into_invoker(url));
/// assert_eq!(client.say_hello("world".into()).await.unwrap(), "Hello world");
/// assert_eq!(GreeterClient::method_signatures()[0].name(), "sayHello");
/// // Java's FullServiceDefinition of the service, for the metadata report.
/// let definition = GreeterClient::service_definition();
/// assert_eq!(definition.methods[0].parameter_types, ["java.lang.String"]);
/// assert_eq!(definition.types[0].type_name, "java.lang.String");
/// # });
/// ```
#[proc_macro_attribute]
pub fn service(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut args = model::ServiceArgs::default();
    let parser = syn::meta::parser(|meta| args.parse_item(meta));
    parse_macro_input!(attr with parser);
    let item = parse_macro_input!(item as syn::ItemTrait);
    expand_service(args, item).into()
}

/// Describes a class for service definitions: implements
/// `hessian2::java::JavaTypeDefinition` with the type's Java name (from its `JavaType` impl)
/// and its fields as properties, named as serde names them (`#[serde(rename)]` honoured,
/// `#[serde(skip)]` fields left out). `#[java(crate = "path")]` names the facade (default
/// `::dubbo_rs`).
///
/// ```
/// # mod rt { pub use dubbo_hessian2 as hessian2; }
/// use dubbo_hessian2::java::{JavaTypeDefinition, TypeDefinitions};
///
/// #[derive(serde::Serialize, dubbo_macros::JavaTypeDefinition)]
/// #[serde(rename = "org.example.User")]
/// #[java(crate = "rt")] // Through the facade: `#[derive(dubbo_rs::JavaTypeDefinition)]`, no `#[java]`.
/// struct User {
///     id: i64,
///     #[serde(rename = "fullName")]
///     name: Option<String>,
///     #[serde(skip)]
///     cache: u8,
///     tags: Vec<String>,
///     best_friend: Option<Box<User>>,
/// }
/// dubbo_hessian2::java_type!(User => "org.example.User");
///
/// let mut defs = TypeDefinitions::new();
/// assert_eq!(User::define(&mut defs), "org.example.User");
/// let user = defs.get("org.example.User").unwrap();
/// let names: Vec<&str> = user.properties.keys().map(String::as_str).collect();
/// assert_eq!(names, ["best_friend", "fullName", "id", "tags"]);
/// assert_eq!(user.properties["tags"], "java.util.List<java.lang.String>");
/// assert_eq!(user.properties["best_friend"], "org.example.User");
/// ```
#[proc_macro_derive(JavaTypeDefinition, attributes(java))]
pub fn derive_java_type_definition(item: TokenStream) -> TokenStream {
    let input = parse_macro_input!(item as syn::DeriveInput);
    definition::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Describes a struct's or a simple enum's JSON form for the REST document
/// (`/dubbo/openapi/api-docs`): implements `core::rest_schema::RestSchema`, so a service
/// method taking or returning the type lists its fields in the document's
/// `components.schemas` (a type without it is listed by its name only).
///
/// - A struct with named fields is an object: each field that serde writes, under serde's name
///   (`#[serde(rename)]`, `rename_all` on the struct), with its type's schema (the type's own
///   `RestSchema`, else what its written name says); a field is `required` unless it is an
///   `Option` or has `#[serde(default)]`, `skip_serializing_if` or `skip_deserializing`
///   (`#[serde(skip)]` fields are left out). `deny_unknown_fields` adds
///   `additionalProperties: false`; `///` comments become descriptions. A field
///   `#[serde(with = ...)]` may be any JSON value; `flatten` is refused.
/// - A newtype struct, or a `#[serde(transparent)]` one, is its field's schema.
/// - An enum of unit variants is a string of the variants' names (renamed as serde renames
///   them); tagged and untagged enums and variants with data are refused.
///
/// The schema is named after the type (`#[rest_schema(name = "...")]` for another name; types
/// of the same name share one entry), and `#[rest_schema(crate = "path")]` names the facade
/// (default `::dubbo_rs`).
///
/// ```
/// # mod rt { pub use dubbo_core as core; }
/// use dubbo_core::rest_schema::{RestSchema, RestSchemas};
///
/// #[derive(serde::Serialize, dubbo_macros::RestSchema)]
/// #[serde(rename_all = "camelCase")]
/// #[rest_schema(crate = "rt")] // Through the facade: `#[derive(dubbo_rs::RestSchema)]`.
/// struct User {
///     user_id: i64,
///     #[serde(rename = "fullName")]
///     name: Option<String>,
///     #[serde(skip)]
///     cache: u8,
///     role: Role,
/// }
///
/// #[derive(serde::Serialize, dubbo_macros::RestSchema)]
/// #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
/// #[rest_schema(crate = "rt")]
/// enum Role { Admin, PowerUser }
///
/// let mut schemas = RestSchemas::new();
/// assert_eq!(User::rest_schema(&mut schemas)["$ref"], "#/components/schemas/User");
/// let user = schemas.get("User").unwrap();
/// assert_eq!(user["required"], serde_json::json!(["userId", "role"]));
/// assert_eq!(user["properties"]["fullName"]["nullable"], true);
/// assert_eq!(user["properties"]["role"]["$ref"], "#/components/schemas/Role");
/// assert_eq!(schemas.get("Role").unwrap()["enum"], serde_json::json!(["ADMIN", "POWER_USER"]));
/// ```
#[proc_macro_derive(RestSchema, attributes(rest_schema))]
pub fn derive_rest_schema(item: TokenStream) -> TokenStream {
    let input = parse_macro_input!(item as syn::DeriveInput);
    rest_schema::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The expansion, on `proc_macro2` tokens so that it can be unit-tested.
fn expand_service(args: model::ServiceArgs, mut item: syn::ItemTrait) -> proc_macro2::TokenStream {
    // The REST attributes first: they are not attributes Rust knows, so they leave the trait
    // before anything else reads (or emits) it.
    let (rest_attrs, rest_errors) = rest::take_attrs(&mut item);
    let parsed = model::parse_service(args, &mut item).and_then(|service| {
        rest_errors.finish()?;
        let mapping = rest::expand(&service, rest_attrs)?;
        Ok((service, mapping))
    });
    match parsed {
        Ok((service, mapping)) => {
            let service = expand::expand(&service);
            quote! {
                #service
                #mapping
            }
        }
        Err(error) => {
            // Emit the trait too (without the helper attributes, which parsing removed), so
            // that the user's impls do not bury the real errors under "cannot find trait".
            let item = expand::rewrite_trait(&item);
            let error = error.to_compile_error();
            quote! {
                #error
                #item
            }
        }
    }
}

#[cfg(test)]
mod rest_tests;
#[cfg(test)]
mod streams_tests;
#[cfg(test)]
mod tests;

/// Misuses that must not compile (the messages are checked by the unit tests in `tests.rs`;
/// these check that they reach the compiler as errors). Each starts from the same shim as the
/// passing example on [`macro@service`].
///
/// A method that is not `async`:
/// ```compile_fail
/// # mod rt { pub use dubbo_core as core; pub use dubbo_hessian2 as hessian2; pub use dubbo_url as url; }
/// #[dubbo_macros::service(crate = "rt")]
/// trait Svc { fn f(&self) -> Result<(), dubbo_core::RpcError>; }
/// ```
///
/// A method without `&self`:
/// ```compile_fail
/// # mod rt { pub use dubbo_core as core; pub use dubbo_hessian2 as hessian2; pub use dubbo_url as url; }
/// #[dubbo_macros::service(crate = "rt")]
/// trait Svc { async fn f(a: i32) -> Result<(), dubbo_core::RpcError>; }
/// ```
///
/// A return type that is not a `Result`:
/// ```compile_fail
/// # mod rt { pub use dubbo_core as core; pub use dubbo_hessian2 as hessian2; pub use dubbo_url as url; }
/// #[dubbo_macros::service(crate = "rt")]
/// trait Svc { async fn f(&self) -> String; }
/// ```
///
/// A pattern parameter:
/// ```compile_fail
/// # mod rt { pub use dubbo_core as core; pub use dubbo_hessian2 as hessian2; pub use dubbo_url as url; }
/// #[dubbo_macros::service(crate = "rt")]
/// trait Svc { async fn f(&self, (a, b): (i32, i32)) -> Result<(), dubbo_core::RpcError>; }
/// ```
///
/// A borrowed parameter:
/// ```compile_fail
/// # mod rt { pub use dubbo_core as core; pub use dubbo_hessian2 as hessian2; pub use dubbo_url as url; }
/// #[dubbo_macros::service(crate = "rt")]
/// trait Svc { async fn f(&self, s: &str) -> Result<(), dubbo_core::RpcError>; }
/// ```
///
/// A parameter type with no Java type:
/// ```compile_fail
/// # mod rt { pub use dubbo_core as core; pub use dubbo_hessian2 as hessian2; pub use dubbo_url as url; }
/// struct NotJava;
/// #[dubbo_macros::service(crate = "rt")]
/// trait Svc { async fn f(&self, v: NotJava) -> Result<(), dubbo_core::RpcError>; }
/// ```
///
/// An implementation whose future is not `Send`:
/// ```compile_fail
/// # mod rt { pub use dubbo_core as core; pub use dubbo_hessian2 as hessian2; pub use dubbo_url as url; }
/// #[dubbo_macros::service(crate = "rt")]
/// trait Svc: Sync { async fn f(&self) -> Result<(), dubbo_core::RpcError>; }
/// struct S;
/// impl Svc for S {
///     async fn f(&self) -> Result<(), dubbo_core::RpcError> {
///         let rc = std::rc::Rc::new(1);
///         tokio::task::yield_now().await;
///         drop(rc);
///         Ok(())
///     }
/// }
/// ```
///
/// The same shim compiles a well-formed service (even one whose name is the generated code's
/// favourite type parameter):
/// ```
/// # mod rt { pub use dubbo_core as core; pub use dubbo_hessian2 as hessian2; pub use dubbo_url as url; }
/// #[dubbo_macros::service(crate = "rt")]
/// trait Svc { async fn f(&self, v: i32) -> Result<(), dubbo_core::RpcError>; }
/// #[dubbo_macros::service(crate = "rt")]
/// trait T { async fn f(&self, v: i32) -> Result<(), dubbo_core::RpcError>; }
/// ```
#[cfg(doctest)]
#[allow(dead_code)]
struct CompileFail;
