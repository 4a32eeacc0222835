//! Code generation: the rewritten trait, the signatures, the server and the client.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemTrait, LitStr, Pat, ReturnType, TraitItem, Type};

use crate::model::{replace_ok_type, ContextParam, Method, Service};

mod streams;

/// Everything the attribute expands to.
pub fn expand(service: &Service) -> TokenStream {
    let names = Names::new(service);
    let service_trait = rewrite_trait(&service.item);
    let signatures = signatures(service, &names);
    let stream_signatures = streams::signatures(service, &names);
    let server = server(service, &names);
    let client = client(service, &names);
    let definition =
        crate::definition::service_definition(service, &names.core, &names.hessian, &names.client);
    quote! {
        #service_trait
        #signatures
        #stream_signatures
        #server
        #client
        #definition
    }
}

/// Paths and names shared by the generators.
struct Names {
    trait_ident: Ident,
    server: Ident,
    client: Ident,
    /// `<crate>::core`
    core: TokenStream,
    /// `<crate>::hessian2`
    hessian: TokenStream,
    /// `<crate>::url`
    url: TokenStream,
    /// `<crate>::protocol_triple`, which only streaming methods need.
    triple: TokenStream,
    interface: LitStr,
}

impl Names {
    fn new(service: &Service) -> Self {
        let krate = &service.krate;
        let ident = &service.item.ident;
        Self {
            trait_ident: ident.clone(),
            server: format_ident!("{}Server", ident),
            client: format_ident!("{}Client", ident),
            core: quote!(#krate::core),
            hessian: quote!(#krate::hessian2),
            url: quote!(#krate::url),
            triple: quote!(#krate::protocol_triple),
            interface: LitStr::new(&service.interface, Span::call_site()),
        }
    }
}

/// The trait with every `async fn` turned into `fn ... -> impl Future<Output = ...> + Send`, so
/// that the provider can hold the futures across threads, while implementors still write
/// `async fn` (the compiler then checks that their futures are `Send`).
pub fn rewrite_trait(item: &ItemTrait) -> ItemTrait {
    let mut item = item.clone();
    for trait_item in &mut item.items {
        let TraitItem::Fn(f) = trait_item else {
            continue;
        };
        if f.sig.asyncness.take().is_none() {
            continue;
        }
        let span = f.sig.ident.span();
        let output = match &f.sig.output {
            ReturnType::Type(_, ty) => quote!(#ty),
            ReturnType::Default => quote!(()),
        };
        f.sig.output = syn::parse_quote_spanned! {span=>
            -> impl ::core::future::Future<Output = #output> + ::core::marker::Send
        };
        match f.default.take() {
            Some(body) => {
                f.default = Some(syn::parse_quote_spanned! {body.span()=>
                    { async move #body }
                });
            }
            None => {
                // A declaration without a body takes only names: drop `mut`, and turn the
                // patterns the macro has already reported into `_` so that rustc does not
                // report them a second time.
                for arg in &mut f.sig.inputs {
                    if let FnArg::Typed(pt) = arg {
                        match &mut *pt.pat {
                            Pat::Ident(pi) => pi.mutability = None,
                            Pat::Wild(_) => {}
                            other => *other = syn::parse_quote!(_),
                        }
                    }
                }
            }
        }
    }
    item
}

/// The Java type-name expression of a parameter or return type.
fn java_type_expr(names: &Names, ty: &Type, explicit: Option<&LitStr>) -> TokenStream {
    let hessian = &names.hessian;
    match explicit {
        Some(lit) => quote!(::std::borrow::Cow::<'static, str>::Borrowed(#lit)),
        // `java_type_name()` returns `Cow<'static, str>`. The span points a missing `JavaType`
        // impl at the user's type.
        None => quote_spanned! {ty.span()=>
            <#ty as #hessian::java::JavaType>::java_type_name()
        },
    }
}

/// The interface constant, the per-method signatures (built once per process) and the
/// overload resolution the server uses. They live on the client type, which is not generic.
fn signatures(service: &Service, names: &Names) -> TokenStream {
    let Names {
        core,
        client,
        interface,
        ..
    } = names;

    let rest_static = crate::rest::static_ident(&service.item.ident);
    let signature_fns = service.methods.iter().enumerate().map(|(index, m)| {
        let sig_fn = m.signature_fn();
        let cfgs = m.cfg_attrs();
        let java_name = &m.java_name;
        let param_types = m
            .params
            .iter()
            .map(|p| java_type_expr(names, &p.ty, p.java_type.as_ref()));
        let n = m.params.len();
        let return_type = java_type_expr(names, &m.ok_ty, m.return_java_type.as_ref());
        quote! {
            #(#cfgs)*
            fn #sig_fn() -> &'static ::std::sync::Arc<#core::MethodSignature> {
                static SIGNATURE: ::std::sync::OnceLock<::std::sync::Arc<#core::MethodSignature>> =
                    ::std::sync::OnceLock::new();
                SIGNATURE.get_or_init(|| {
                    let parameter_types: [::std::borrow::Cow<'static, str>; #n] = [#(#param_types),*];
                    let return_type: ::std::borrow::Cow<'static, str> = #return_type;
                    // The HTTP mapping travels with the signature, for a REST invoker.
                    ::std::sync::Arc::new(#core::MethodSignature::new(
                        #java_name,
                        &parameter_types,
                        &return_type,
                    ).with_rest(&#rest_static.methods[#index]))
                })
            }
        }
    });
    let pushes = service.methods.iter().map(|m| {
        let sig_fn = m.signature_fn();
        let cfgs = m.cfg_attrs();
        quote! {
            #(#cfgs)*
            signatures.push(::std::clone::Clone::clone(Self::#sig_fn()));
        }
    });

    quote! {
        impl #client {
            /// The Java interface name of the service.
            pub const INTERFACE: &'static str = #interface;

            /// The Java signatures of the service's methods, in declaration order. They are
            /// built once per process and shared by every client and server of the service.
            pub fn method_signatures() -> &'static [::std::sync::Arc<#core::MethodSignature>] {
                static SIGNATURES: ::std::sync::OnceLock<::std::vec::Vec<::std::sync::Arc<#core::MethodSignature>>> =
                    ::std::sync::OnceLock::new();
                SIGNATURES.get_or_init(|| {
                    #[allow(unused_mut)]
                    let mut signatures = ::std::vec::Vec::new();
                    #(#pushes)*
                    signatures
                })
            }

            /// The declared method a call of `method` with `arity` arguments is for: the one with
            /// the same name, arity and parameter types; failing that, the only one with the same
            /// name and arity (a caller may not know the exact Java types, e.g. `int` against
            /// `java.lang.Integer`: the arguments then have to decode).
            fn __dubbo_resolve(
                method: &#core::MethodSignature,
                arity: usize,
            ) -> ::std::option::Option<&'static ::std::sync::Arc<#core::MethodSignature>> {
                let mut candidate = ::std::option::Option::None;
                let mut candidates = 0usize;
                for signature in Self::method_signatures() {
                    if signature.name() == method.name() && signature.parameter_types().len() == arity {
                        if signature.parameter_types() == method.parameter_types() {
                            return ::std::option::Option::Some(signature);
                        }
                        candidate = ::std::option::Option::Some(signature);
                        candidates += 1;
                    }
                }
                if candidates == 1 { candidate } else { ::std::option::Option::None }
            }

            #(#signature_fns)*
        }
    }
}

fn server(service: &Service, names: &Names) -> TokenStream {
    let Names {
        trait_ident,
        server,
        client,
        core,
        url,
        ..
    } = names;
    let vis = &service.item.vis;
    let interface = &service.interface;

    let arms = service.methods.iter().map(|m| server_arm(m, names));
    let (stream_server, stream_handler) = streams::server(service, names);
    let rest_static = crate::rest::static_ident(trait_ident);

    let doc = format!(
        "The provider side of [`{trait_ident}`]: serves an implementation as the Java interface \
         `{interface}`.\n\nIt implements `ServiceHandler`: a call is \
         dispatched by Java method name and arity (and parameter types between overloads), its \
         arguments are decoded into the method's Rust types (a failure is a `BadRequest` error) \
         and the result is encoded back into a Hessian value."
    );

    quote! {
        #[doc = #doc]
        #vis struct #server<T> {
            service: ::std::sync::Arc<T>,
        }

        impl<T> #server<T> {
            /// The Java interface name of the service.
            pub const INTERFACE: &'static str = #client::INTERFACE;

            /// Serves `service`.
            pub fn new(service: T) -> Self {
                Self::from_arc(::std::sync::Arc::new(service))
            }

            /// Serves a shared `service`.
            pub fn from_arc(service: ::std::sync::Arc<T>) -> Self {
                Self { service }
            }

            /// The implementation.
            pub fn get_ref(&self) -> &T {
                &self.service
            }

            /// The shared implementation.
            pub fn service(&self) -> &::std::sync::Arc<T> {
                &self.service
            }
        }

        impl<__DubboService> #server<__DubboService>
        where
            __DubboService: #trait_ident + ::core::marker::Send + ::core::marker::Sync + 'static,
        {
            /// An in-process invoker that runs this service, described by `url`: the innermost
            /// stage of the provider side, and a convenient stand-in for a remote provider in
            /// tests.
            pub fn into_invoker(self, url: #url::Url) -> #core::ServiceInvoker<Self> {
                #core::ServiceInvoker::new(::std::sync::Arc::new(self), url)
            }
        }

        #stream_server

        impl<T> ::std::clone::Clone for #server<T> {
            fn clone(&self) -> Self {
                Self { service: ::std::clone::Clone::clone(&self.service) }
            }
        }

        impl<T> ::std::fmt::Debug for #server<T> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(::std::stringify!(#server))
                    .field("interface", &#client::INTERFACE)
                    .finish_non_exhaustive()
            }
        }

        impl<__DubboService> #core::ServiceHandler for #server<__DubboService>
        where
            __DubboService: #trait_ident + ::core::marker::Send + ::core::marker::Sync + 'static,
        {
            fn interface(&self) -> &str {
                #client::INTERFACE
            }

            fn methods(&self) -> &[::std::sync::Arc<#core::MethodSignature>] {
                #client::method_signatures()
            }

            fn rest(&self) -> ::std::option::Option<&'static #core::rest::RestService> {
                ::std::option::Option::Some(&#rest_static)
            }

            fn definition(&self) -> ::std::option::Option<#core::ServiceDefinition> {
                ::std::option::Option::Some(::std::clone::Clone::clone(#client::service_definition()))
            }

            #stream_handler

            fn call<'a>(
                &'a self,
                __dubbo_method: &'a #core::MethodSignature,
                __dubbo_args: ::std::vec::Vec<#core::Payload>,
                __dubbo_ctx: &'a mut #core::RequestContext,
            ) -> #core::BoxFuture<'a, ::std::result::Result<#core::Payload, #core::RpcError>> {
                ::std::boxed::Box::pin(async move {
                    let ::std::option::Option::Some(__dubbo_signature) =
                        #client::__dubbo_resolve(__dubbo_method, __dubbo_args.len())
                    else {
                        return ::std::result::Result::Err(
                            #core::method_not_found(#client::INTERFACE, __dubbo_method),
                        );
                    };
                    #(#arms)*
                    ::std::result::Result::Err(#core::method_not_found(#client::INTERFACE, __dubbo_method))
                })
            }
        }
    }
}

/// The dispatch of one method inside `ServiceHandler::call`.
fn server_arm(m: &Method, names: &Names) -> TokenStream {
    let Names {
        trait_ident,
        client,
        core,
        ..
    } = names;
    let ident = &m.ident;
    let sig_fn = m.signature_fn();
    let cfgs = m.cfg_attrs();
    let n = m.params.len();
    let raw: Vec<Ident> = (0..n).map(|i| format_ident!("__dubbo_raw{}", i)).collect();
    let decoded: Vec<Ident> = (0..n).map(|i| format_ident!("__dubbo_arg{}", i)).collect();
    let decodes = m.params.iter().enumerate().map(|(i, p)| {
        let ty = &p.ty;
        let raw = &raw[i];
        let decoded = &decoded[i];
        let message = format!("argument {} of {}: {{}}", i + 1, m.java_name);
        let decode = quote_spanned!(ty.span()=> #core::Payload::decode::<#ty>);
        quote! {
            let #decoded: #ty = match #decode(#raw) {
                ::std::result::Result::Ok(v) => v,
                ::std::result::Result::Err(e) => {
                    return ::std::result::Result::Err(#core::RpcError::framework(
                        #core::ErrorCode::BadRequest,
                        ::std::format!(#message, e),
                    ));
                }
            };
        }
    });
    let ctx_arg = match m.context {
        Some(ContextParam::Mutable) => quote!(&mut *__dubbo_ctx,),
        Some(ContextParam::Shared) => quote!(&*__dubbo_ctx,),
        None => quote!(),
    };
    let ok_ty = &m.ok_ty;
    let typed = quote_spanned!(ok_ty.span()=> #core::Payload::typed::<#ok_ty>);
    let into_rpc_error = quote_spanned! {m.output.span()=>
        <_ as ::std::convert::Into<#core::RpcError>>::into
    };
    quote! {
        #(#cfgs)*
        if ::std::sync::Arc::ptr_eq(__dubbo_signature, #client::#sig_fn()) {
            let [#(#raw),*] = match <[#core::Payload; #n]>::try_from(__dubbo_args) {
                ::std::result::Result::Ok(args) => args,
                ::std::result::Result::Err(_) => {
                    return ::std::result::Result::Err(
                        #core::method_not_found(#client::INTERFACE, __dubbo_method),
                    );
                }
            };
            #(#decodes)*
            let __dubbo_result =
                <__DubboService as #trait_ident>::#ident(&*self.service, #ctx_arg #(#decoded),*).await;
            let __dubbo_value = match __dubbo_result {
                ::std::result::Result::Ok(v) => v,
                ::std::result::Result::Err(e) => return ::std::result::Result::Err(#into_rpc_error(e)),
            };
            // Handed over typed: the protocol encodes it straight from its Serialize impl
            // instead of through a Value tree.
            return ::std::result::Result::Ok(#typed(__dubbo_value));
        }
    }
}

fn client(service: &Service, names: &Names) -> TokenStream {
    let Names {
        trait_ident,
        client,
        core,
        ..
    } = names;
    let vis = &service.item.vis;
    let interface = &service.interface;
    let methods = service.methods.iter().map(|m| client_methods(m, names));
    let stream_methods = service
        .streams
        .iter()
        .map(|m| streams::client_method(m, names));

    let doc = format!(
        "A typed client of [`{trait_ident}`], calling the Java interface `{interface}` through \
         any invoker (a remote reference, a cluster, or an in-process server).\n\n\
         Each service method `m` has two forms here: `m(...)` returns the decoded value, and \
         `m_full(...)` also returns the attachments the provider sent back. The client is cheap \
         to clone; `with_attachment` and `with_timeout` return a configured copy, so one base \
         client can serve many differently configured calls."
    );

    quote! {
        #[doc = #doc]
        #[derive(Clone)]
        #vis struct #client {
            invoker: #core::BoxInvoker,
            service: #core::ServiceKey,
            attachments: ::std::option::Option<::std::sync::Arc<#core::Attachments>>,
            timeout: ::std::option::Option<::std::time::Duration>,
        }

        impl ::std::fmt::Debug for #client {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(::std::stringify!(#client))
                    .field("service", &self.service)
                    .field("attachments", &self.attachments)
                    .field("timeout", &self.timeout)
                    .finish_non_exhaustive()
            }
        }

        impl #client {
            /// A client calling through `invoker`, for the service with no group and no version.
            pub fn new(invoker: #core::BoxInvoker) -> Self {
                Self {
                    invoker,
                    service: #core::ServiceKey::interface_only(Self::INTERFACE),
                    attachments: ::std::option::Option::None,
                    timeout: ::std::option::Option::None,
                }
            }

            /// A client calling through any invoker (wrapped in an `Arc`).
            pub fn from_invoker<I: #core::Invoker>(invoker: I) -> Self {
                Self::new(::std::sync::Arc::new(invoker))
            }

            /// Calls the service under `key` (its group and version; the interface normally
            /// stays [`Self::INTERFACE`]).
            pub fn with_service_key(mut self, key: #core::ServiceKey) -> Self {
                self.service = key;
                self
            }

            /// Calls the given version of the service (`""` and `"0.0.0"` mean none).
            pub fn with_version(mut self, version: &str) -> Self {
                self.service = self.service.with_version(::std::option::Option::Some(version));
                self
            }

            /// Calls the given group of the service (`""` means none).
            pub fn with_group(mut self, group: &str) -> Self {
                self.service = self.service.with_group(::std::option::Option::Some(group));
                self
            }

            /// Sends a string attachment with every call made through the returned client.
            /// The attachments are shared between copies and copied only when one changes.
            pub fn with_attachment(
                mut self,
                key: impl ::std::convert::Into<::std::string::String>,
                value: impl ::std::convert::Into<::std::string::String>,
            ) -> Self {
                let attachments = self.attachments.get_or_insert_with(::std::default::Default::default);
                ::std::sync::Arc::make_mut(attachments).insert(key, value);
                self
            }

            /// Gives every call made through the returned client a deadline `timeout` after it
            /// starts (an earlier deadline already in the call context is kept).
            pub fn with_timeout(mut self, timeout: ::std::time::Duration) -> Self {
                self.timeout = ::std::option::Option::Some(timeout);
                self
            }

            /// The service key calls are made to.
            pub fn service_key(&self) -> &#core::ServiceKey {
                &self.service
            }

            /// The invoker calls go through.
            pub fn invoker(&self) -> &#core::BoxInvoker {
                &self.invoker
            }

            /// An invocation of `method` with `args`, carrying this client's service key,
            /// attachments and timeout.
            pub fn new_invocation(
                &self,
                method: ::std::sync::Arc<#core::MethodSignature>,
                args: ::std::vec::Vec<#core::Payload>,
            ) -> #core::Invocation {
                let mut invocation = #core::Invocation::with_payloads(
                    ::std::clone::Clone::clone(&self.service),
                    method,
                    args,
                );
                if let ::std::option::Option::Some(attachments) = &self.attachments {
                    invocation.attachments_mut().extend_from(attachments);
                }
                if let ::std::option::Option::Some(timeout) = self.timeout {
                    invocation.context_mut().set_timeout(timeout);
                }
                invocation
            }

            /// Calls `method` with already-encoded `args` and returns the raw response (its
            /// value undecoded, and its attachments). The typed methods are built on this; use
            /// it for a method the trait does not declare.
            pub fn invoke_raw(
                &self,
                method: ::std::sync::Arc<#core::MethodSignature>,
                args: ::std::vec::Vec<#core::Payload>,
            ) -> #core::BoxFuture<'_, #core::RpcResult> {
                self.invoker.invoke(self.new_invocation(method, args))
            }

            #(#methods)*
            #(#stream_methods)*
        }
    }
}

/// `m(...)` and `m_full(...)` of the client.
fn client_methods(m: &Method, names: &Names) -> TokenStream {
    let Names {
        core, interface, ..
    } = names;
    let ident = &m.ident;
    let full = m.full_ident();
    let sig_fn = m.signature_fn();
    let attrs = &m.attrs;
    let cfgs: Vec<_> = m.cfg_attrs().collect();
    let params: Vec<&Ident> = m.params.iter().map(|p| &p.ident).collect();
    let types: Vec<&Type> = m.params.iter().map(|p| &p.ty).collect();
    let output = &m.output;
    let ok_ty = &m.ok_ty;
    let full_output = replace_ok_type(output, syn::parse_quote!((#ok_ty, #core::Attachments)));

    // Handed over typed: the protocol encodes each straight from its Serialize impl, and a
    // value that does not encode fails the call there as a codec error naming the method.
    let encodes = m.params.iter().map(|p| {
        let name = &p.ident;
        let ty = &p.ty;
        quote_spanned!(ty.span()=> #core::Payload::typed::<#ty>(#name))
    });
    let result_message = format!("result of {}: {{}}", m.java_name);
    let decode = quote_spanned!(ok_ty.span()=> #core::Payload::decode::<#ok_ty>);
    let from_rpc_error = quote_spanned!(output.span()=> ::std::convert::From::from);
    let full_doc = format!(
        "Like [`{ident}`](Self::{ident}), and also returns the attachments the provider sent \
         back with the result."
    );
    let call_doc = format!("Calls `{}` of `{}`.", m.java_name, interface.value());

    let separator = attrs
        .iter()
        .any(|a| a.path().is_ident("doc"))
        .then(|| quote!(#[doc = ""]));

    quote! {
        #(#attrs)*
        #separator
        #[doc = #call_doc]
        #[allow(clippy::too_many_arguments)]
        pub async fn #ident(&self, #(#params: #types),*) -> #output {
            match self.#full(#(#params),*).await {
                ::std::result::Result::Ok((value, _)) => ::std::result::Result::Ok(value),
                ::std::result::Result::Err(e) => ::std::result::Result::Err(e),
            }
        }

        #(#cfgs)*
        #[doc = #full_doc]
        #[allow(clippy::too_many_arguments)]
        pub async fn #full(&self, #(#params: #types),*) -> #full_output {
            let args = ::std::vec![#(#encodes),*];
            let mut invocation = self.new_invocation(::std::clone::Clone::clone(Self::#sig_fn()), args);
            let response = match self.invoker.invoke(invocation).await {
                ::std::result::Result::Ok(response) => response,
                ::std::result::Result::Err(e) => return ::std::result::Result::Err(#from_rpc_error(e)),
            };
            // Straight from the bytes into the declared type, with no tree in between.
            match #decode(response.value) {
                ::std::result::Result::Ok(value) => ::std::result::Result::Ok((value, response.attachments)),
                ::std::result::Result::Err(e) => ::std::result::Result::Err(#from_rpc_error(
                    #core::RpcError::framework(#core::ErrorCode::Codec, ::std::format!(#result_message, e)),
                )),
            }
        }
    }
}
