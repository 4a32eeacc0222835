//! The service a trait describes, parsed and checked: what the code generator works from.

use std::collections::HashMap;

use quote::{format_ident, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, ItemTrait, LitStr, Pat, Path, PathArguments,
    ReturnType, TraitItem, TraitItemFn, Type,
};

use crate::names::{is_java_identifier, lower_camel_case};

/// The name of the helper attribute on methods and parameters.
const HELPER: &str = "dubbo";

/// Names the generated client defines itself; a service method may not take them.
const CLIENT_RESERVED: &[&str] = &[
    "new",
    "from_invoker",
    "with_service_key",
    "with_version",
    "with_group",
    "with_attachment",
    "with_timeout",
    "service_key",
    "invoker",
    "new_invocation",
    "invoke_raw",
    "method_signatures",
    "clone",
    "fmt",
];

/// Collects every error found, so the user sees them all at once.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(e) => e.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// How many errors are collected.
    pub fn count(&self) -> usize {
        self.0.as_ref().map_or(0, |e| e.into_iter().count())
    }

    pub fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The arguments of `#[service(...)]`.
#[derive(Default)]
pub struct ServiceArgs {
    /// `interface = "org.example.Greeter"`: the Java interface name.
    pub interface: Option<LitStr>,
    /// `crate = "::dubbo_rs"`: where the runtime is.
    pub krate: Option<Path>,
}

impl ServiceArgs {
    /// Parses one `key = value` item of the attribute.
    pub fn parse_item(&mut self, meta: syn::meta::ParseNestedMeta) -> syn::Result<()> {
        if meta.path.is_ident("interface") {
            if self.interface.is_some() {
                return Err(meta.error("`interface` is given more than once"));
            }
            let lit: LitStr = meta.value()?.parse()?;
            check_interface_name(&lit)?;
            self.interface = Some(lit);
            Ok(())
        } else if meta.path.is_ident("crate") {
            if self.krate.is_some() {
                return Err(meta.error("`crate` is given more than once"));
            }
            let lit: LitStr = meta.value()?.parse()?;
            self.krate = Some(lit.parse().map_err(|e| {
                syn::Error::new(lit.span(), format!("`crate` must be a path: {e}"))
            })?);
            Ok(())
        } else {
            Err(meta.error(
                "unknown argument of #[service]: expected `interface = \"...\"` or `crate = \"...\"`",
            ))
        }
    }
}

fn check_interface_name(lit: &LitStr) -> syn::Result<()> {
    let name = lit.value();
    if name.is_empty() || !name.split('.').all(is_java_identifier) {
        return Err(syn::Error::new(
            lit.span(),
            format!("`{name}` is not a Java interface name such as `org.example.Greeter`"),
        ));
    }
    Ok(())
}

/// A checked service definition.
pub struct Service {
    /// The trait as written, with the helper attributes removed.
    pub item: ItemTrait,
    /// The Java interface name.
    pub interface: String,
    /// The path of the runtime facade (`::dubbo_rs`).
    pub krate: Path,
    /// The unary methods in declaration order.
    pub methods: Vec<Method>,
    /// The streaming methods in declaration order.
    pub streams: Vec<Method>,
}

/// One service method.
pub struct Method {
    /// The Rust name.
    pub ident: Ident,
    /// The method's own attributes that the generated client methods repeat (`doc`, `cfg`,
    /// `allow`, `deprecated`...), the helper attribute excluded.
    pub attrs: Vec<Attribute>,
    /// The Java method name.
    pub java_name: String,
    /// A Java return type given with `#[dubbo(return_type = "...")]`.
    pub return_java_type: Option<LitStr>,
    /// Whether the method takes the provider's `RequestContext` first, and how.
    pub context: Option<ContextParam>,
    /// The wire parameters, in order.
    pub params: Vec<Param>,
    /// The declared return type, `Result<T, E>` (or an alias spelled `...::Result<T>`).
    pub output: Type,
    /// `T` of the return type.
    pub ok_ty: Type,
    /// How the method streams, for a streaming method.
    pub stream: Option<StreamShape>,
}

/// Which of the three streaming kinds a method is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// `async fn m(&self, request: Req) -> Result<ResponseStream<Resp>, E>`: Java
    /// `void m(Req, StreamObserver<Resp>)`.
    Server,
    /// `async fn m(&self, requests: Streaming<Req>) -> Result<Resp, E>`: Java
    /// `StreamObserver<Req> m(StreamObserver<Resp>)`, answered once.
    Client,
    /// `async fn m(&self, requests: Streaming<Req>) -> Result<ResponseStream<Resp>, E>`: Java
    /// `StreamObserver<Req> m(StreamObserver<Resp>)`.
    Bidi,
}

/// The shape of a streaming method: its kind and the types of the values it streams.
pub struct StreamShape {
    pub kind: StreamKind,
    /// The type of each request value (`Req`).
    pub request: Type,
    /// The type of each response value (`Resp`).
    pub response: Type,
}

/// How a method takes the provider's request context.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ContextParam {
    /// `&RequestContext`
    Shared,
    /// `&mut RequestContext`
    Mutable,
}

/// A parameter that travels on the wire.
pub struct Param {
    /// Its Rust name.
    pub ident: Ident,
    /// Its Rust type.
    pub ty: Type,
    /// A Java type given with `#[dubbo(java_type = "...")]`.
    pub java_type: Option<LitStr>,
}

impl Method {
    /// The name of the generated client method that also returns the response attachments.
    pub fn full_ident(&self) -> Ident {
        format_ident!("{}_full", self.ident.unraw(), span = self.ident.span())
    }

    /// The name of the hidden function that holds the method's signature.
    pub fn signature_fn(&self) -> Ident {
        format_ident!("__dubbo_signature_{}", self.ident.unraw())
    }

    /// The `cfg` attributes, to repeat on everything generated for this method.
    pub fn cfg_attrs(&self) -> impl Iterator<Item = &Attribute> {
        self.attrs.iter().filter(|a| a.path().is_ident("cfg"))
    }
}

/// Parses and checks the trait, removing the helper attributes from it. On failure, the error
/// holds every problem found.
pub fn parse_service(args: ServiceArgs, item: &mut ItemTrait) -> syn::Result<Service> {
    let mut errors = Errors::default();

    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        errors.spanned(
            &item.generics,
            "a dubbo service trait cannot be generic: every method needs one Java signature",
        );
    }
    if let Some(unsafety) = &item.unsafety {
        errors.spanned(unsafety, "a dubbo service trait cannot be `unsafe`");
    }
    if let Some(auto) = &item.auto_token {
        errors.spanned(auto, "a dubbo service trait cannot be an auto trait");
    }

    let mut methods = Vec::new();
    for trait_item in &mut item.items {
        match trait_item {
            TraitItem::Fn(f) => {
                if let Some(m) = parse_method(f, &mut errors) {
                    methods.push(m);
                }
            }
            other => errors.spanned(
                &*other,
                "a dubbo service trait can only have methods (`async fn name(&self, ...) -> Result<T, E>;`)",
            ),
        }
    }
    check_name_clashes(&methods, &mut errors);
    let (streams, methods): (Vec<Method>, Vec<Method>) =
        methods.into_iter().partition(|m| m.stream.is_some());

    let interface = args
        .interface
        .map(|l| l.value())
        .unwrap_or_else(|| item.ident.unraw().to_string());
    let krate = args.krate.unwrap_or_else(|| syn::parse_quote!(::dubbo_rs));

    errors.finish()?;
    Ok(Service {
        item: item.clone(),
        interface,
        krate,
        methods,
        streams,
    })
}

/// Parses one method, removing its helper attributes from `f` as it goes (so the trait can be
/// emitted even when there are errors).
fn parse_method(f: &mut TraitItemFn, all_errors: &mut Errors) -> Option<Method> {
    let mut errs = Errors::default();
    let method = parse_method_inner(f, &mut errs);
    match errs.0 {
        Some(e) => {
            all_errors.push(e);
            None
        }
        None => method,
    }
}

fn parse_method_inner(f: &mut TraitItemFn, errors: &mut Errors) -> Option<Method> {
    let method_helpers = take_helper_attrs(&mut f.attrs);
    let param_helpers: Vec<Vec<Attribute>> = f
        .sig
        .inputs
        .iter_mut()
        .map(|arg| match arg {
            FnArg::Typed(pt) => take_helper_attrs(&mut pt.attrs),
            FnArg::Receiver(r) => take_helper_attrs(&mut r.attrs),
        })
        .collect();
    let sig = &f.sig;
    let ident = sig.ident.clone();

    // #[dubbo(name = "...", return_type = "...")]
    let mut java_name: Option<LitStr> = None;
    let mut return_java_type: Option<LitStr> = None;
    for attr in method_helpers {
        let res = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                if java_name.is_some() {
                    return Err(meta.error("`name` is given more than once"));
                }
                let lit: LitStr = meta.value()?.parse()?;
                if !is_java_identifier(&lit.value()) {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!("`{}` is not a Java method name", lit.value()),
                    ));
                }
                java_name = Some(lit);
                Ok(())
            } else if meta.path.is_ident("return_type") {
                if return_java_type.is_some() {
                    return Err(meta.error("`return_type` is given more than once"));
                }
                let lit: LitStr = meta.value()?.parse()?;
                check_java_type(&lit)?;
                return_java_type = Some(lit);
                Ok(())
            } else if meta.path.is_ident("java_type") {
                Err(meta.error(
                    "`java_type` belongs on a parameter; a method's Java return type is `return_type = \"...\"`",
                ))
            } else {
                Err(meta.error(
                    "unknown #[dubbo] option on a method: expected `name = \"...\"` or `return_type = \"...\"`",
                ))
            }
        });
        if let Err(e) = res {
            errors.push(e);
        }
    }

    if sig.asyncness.is_none() {
        errors.push(syn::Error::new(
            sig.fn_token.span(),
            format!(
                "dubbo service methods must be `async fn`: write `async fn {}(&self, ...)`",
                ident
            ),
        ));
    }
    if let Some(c) = &sig.constness {
        errors.spanned(c, "dubbo service methods cannot be `const`");
    }
    if let Some(u) = &sig.unsafety {
        errors.spanned(u, "dubbo service methods cannot be `unsafe`");
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(abi, "dubbo service methods cannot declare an ABI");
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, "dubbo service methods cannot be variadic");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.spanned(
            &sig.generics,
            "dubbo service methods cannot be generic: each needs one Java signature",
        );
    }

    // Receiver, optional context, wire parameters.
    let mut inputs = sig.inputs.iter().zip(param_helpers);
    match inputs.next().map(|(arg, _)| arg) {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        Some(FnArg::Receiver(r)) => errors.spanned(
            r,
            "dubbo service methods take `&self`: the service is shared by concurrent calls",
        ),
        Some(FnArg::Typed(_)) | None => errors.spanned(
            name_and_params(sig),
            format!(
                "dubbo service methods take `&self` first: write `async fn {ident}(&self, ...)`"
            ),
        ),
    }

    let mut context = None;
    let mut params = Vec::new();
    for (position, (arg, helpers)) in inputs.enumerate() {
        let FnArg::Typed(pt) = arg else {
            // A second receiver is already a Rust syntax error.
            continue;
        };
        let mut java_type: Option<LitStr> = None;
        for attr in helpers {
            let res = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("java_type") {
                    if java_type.is_some() {
                        return Err(meta.error("`java_type` is given more than once"));
                    }
                    let lit: LitStr = meta.value()?.parse()?;
                    check_java_type(&lit)?;
                    java_type = Some(lit);
                    Ok(())
                } else {
                    Err(meta.error(
                        "unknown #[dubbo] option on a parameter: expected `java_type = \"...\"`",
                    ))
                }
            });
            if let Err(e) = res {
                errors.push(e);
            }
        }

        if let Some(kind) = request_context_kind(&pt.ty) {
            if position != 0 {
                errors.spanned(
                    &pt.ty,
                    "the `RequestContext` parameter must come first, right after `&self`",
                );
            } else if let Some(lit) = &java_type {
                errors.spanned(
                    lit,
                    "the `RequestContext` parameter is not sent on the wire and has no Java type",
                );
            }
            context = Some(kind);
            continue;
        }

        let ident = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            other => {
                errors.spanned(
                    other,
                    "dubbo service parameters must be plain names (`name: Type`), not patterns",
                );
                continue;
            }
        };
        check_wire_type(&pt.ty, errors);
        params.push(Param {
            ident,
            ty: (*pt.ty).clone(),
            java_type,
        });
    }

    // Return type: Result<T, E>.
    let (output, ok_ty) = match &sig.output {
        ReturnType::Default => {
            errors.spanned(
                name_and_params(sig),
                "dubbo service methods return `Result<T, E>` (use `Result<(), RpcError>` for Java `void`)",
            );
            (None, None)
        }
        ReturnType::Type(_, ty) => match result_ok_type(ty) {
            Some(ok) => {
                check_wire_type(ok, errors);
                (Some((**ty).clone()), Some(ok.clone()))
            }
            None => {
                errors.spanned(
                    ty,
                    "dubbo service methods return `Result<T, E>` (or an alias `...Result<T>`) where `E: Into<RpcError> + From<RpcError>`",
                );
                (None, None)
            }
        },
    };

    let stream = match (&output, &ok_ty) {
        (Some(_), Some(ok)) => {
            crate::streams::shape(sig, context, &params, ok, return_java_type.as_ref(), errors)
        }
        _ => None,
    };

    let java_name = java_name
        .map(|l| l.value())
        .unwrap_or_else(|| lower_camel_case(&ident.unraw().to_string()));
    let attrs = f
        .attrs
        .iter()
        .filter(|a| {
            [
                "doc",
                "cfg",
                "allow",
                "expect",
                "warn",
                "deny",
                "deprecated",
            ]
            .iter()
            .any(|n| a.path().is_ident(n))
        })
        .cloned()
        .collect();

    Some(Method {
        ident,
        attrs,
        java_name,
        return_java_type,
        context,
        params,
        output: output?,
        ok_ty: ok_ty?,
        stream,
    })
}

/// Removes and returns the `#[dubbo(...)]` attributes.
fn take_helper_attrs(attrs: &mut Vec<Attribute>) -> Vec<Attribute> {
    let (helper, rest) = std::mem::take(attrs)
        .into_iter()
        .partition(|a| a.path().is_ident(HELPER));
    *attrs = rest;
    helper
}

fn check_java_type(lit: &LitStr) -> syn::Result<()> {
    let name = lit.value();
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '$' | '[' | ']' | ';'));
    if ok {
        Ok(())
    } else {
        Err(syn::Error::new(
            lit.span(),
            format!("`{name}` is not a Java type name such as `int`, `java.lang.String` or `org.example.User[]`"),
        ))
    }
}

/// Where a missing receiver or return type is reported: the method's name and parameter list
/// (an error spanned over tokens covers them from the first to the last).
pub fn name_and_params(sig: &syn::Signature) -> proc_macro2::TokenStream {
    let mut tokens = sig.ident.to_token_stream();
    sig.paren_token
        .surround(&mut tokens, |t| sig.inputs.to_tokens(t));
    tokens
}

pub fn strip_group(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => strip_group(&g.elem),
        Type::Paren(p) => strip_group(&p.elem),
        other => other,
    }
}

/// `Some` when `ty` is `&RequestContext` or `&mut RequestContext` (by the last path segment,
/// so `&mut dubbo_rs::core::RequestContext` counts too).
fn request_context_kind(ty: &Type) -> Option<ContextParam> {
    let Type::Reference(r) = strip_group(ty) else {
        return None;
    };
    let Type::Path(p) = strip_group(&r.elem) else {
        return None;
    };
    let last = p.path.segments.last()?;
    if p.qself.is_none() && last.ident == "RequestContext" && last.arguments.is_empty() {
        Some(if r.mutability.is_some() {
            ContextParam::Mutable
        } else {
            ContextParam::Shared
        })
    } else {
        None
    }
}

/// `T` of a type spelled `...Result<T, E>`, or an alias whose name ends in `Result` and whose
/// first type argument is `T` (`io::Result<T>`, `MyResult<T>`).
fn result_ok_type(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = strip_group(ty) else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if !last.ident.unraw().to_string().ends_with("Result") {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let ok = types.next()?;
    if types.count() > 1 {
        return None;
    }
    Some(ok)
}

/// Replaces `T` in `...Result<T, E>` with `with`.
pub fn replace_ok_type(output: &Type, with: Type) -> Type {
    let mut out = strip_group(output).clone();
    if let Type::Path(p) = &mut out {
        if let Some(last) = p.path.segments.last_mut() {
            if let PathArguments::AngleBracketed(args) = &mut last.arguments {
                if let Some(GenericArgument::Type(t)) = args
                    .args
                    .iter_mut()
                    .find(|a| matches!(a, GenericArgument::Type(_)))
                {
                    *t = with;
                }
            }
        }
    }
    out
}

/// Rejects types that cannot be decoded from a request or that have no single Java type.
pub fn check_wire_type(ty: &Type, errors: &mut Errors) {
    match strip_group(ty) {
        Type::Reference(r) => errors.spanned(
            r,
            "values on the wire are decoded into owned types: take `String` rather than `&str`, `Vec<T>` rather than `&[T]`",
        ),
        Type::ImplTrait(t) if crate::streams::is_impl_stream(ty) => errors.spanned(
            t,
            "a stream is taken as `Streaming<Req>` (the requests of a client or bidirectional stream) and returned as `ResponseStream<Resp>` (`Ok(Box::pin(stream))`), both from `dubbo_rs::protocol_triple`",
        ),
        Type::ImplTrait(t) => errors.spanned(t, "`impl Trait` has no Java type: name a concrete type"),
        Type::TraitObject(t) => errors.spanned(t, "a trait object has no Java type: name a concrete type"),
        Type::Infer(t) => errors.spanned(t, "name the type: `_` has no Java type"),
        Type::Never(t) => errors.spanned(t, "`!` has no Java type"),
        Type::BareFn(t) => errors.spanned(t, "a function pointer cannot travel on the wire"),
        Type::Ptr(t) => errors.spanned(t, "a raw pointer cannot travel on the wire"),
        Type::Macro(t) => errors.spanned(t, "write the type out: a type macro is not supported here"),
        _ => {}
    }
}

fn check_name_clashes(methods: &[Method], errors: &mut Errors) {
    let rust_names: HashMap<String, &Ident> = methods
        .iter()
        .map(|m| (m.ident.unraw().to_string(), &m.ident))
        .collect();
    for m in methods {
        let name = m.ident.unraw().to_string();
        if CLIENT_RESERVED.contains(&name.as_str()) {
            errors.spanned(
                &m.ident,
                format!("`{name}` clashes with a method of the generated client; rename it and keep the Java name with #[dubbo(name = \"...\")]"),
            );
        }
        if name.starts_with("__dubbo") {
            errors.spanned(
                &m.ident,
                "names starting with `__dubbo` are reserved for generated code",
            );
        }
        let full = format!("{name}_full");
        if let Some(other) = rust_names.get(&full) {
            errors.spanned(
                other,
                format!("`{full}` clashes with the generated client method that returns `{name}`'s response attachments"),
            );
        }
    }

    // Two methods with the same Java name and the same Rust parameter types would be the same
    // Java overload.
    let mut seen: HashMap<(String, Vec<String>), &Ident> = HashMap::new();
    for m in methods {
        let types = m
            .params
            .iter()
            .map(|p| match &p.java_type {
                Some(l) => l.value(),
                None => p.ty.to_token_stream().to_string(),
            })
            .collect();
        if let Some(first) = seen.insert((m.java_name.clone(), types), &m.ident) {
            errors.spanned(
                &m.ident,
                format!(
                    "`{}` and `{first}` are both the Java method `{}` with the same parameter types",
                    m.ident, m.java_name
                ),
            );
        }
    }
}
