//! Code generation for streaming methods: their Java signatures, the `StreamingInterface` the
//! server hands Triple, and the client methods that call them through the invoker.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Type;

use super::{java_type_expr, Names};
use crate::model::{replace_ok_type, Method, Service, StreamKind, StreamShape};

use crate::streams::STREAM_OBSERVER;

fn shape(m: &Method) -> Option<&StreamShape> {
    m.stream.as_ref()
}

/// The hidden signature functions of the streaming methods (on the client type), with Java's
/// signatures: `void m(Req, StreamObserver)` and `StreamObserver m(StreamObserver)`.
pub fn signatures(service: &Service, names: &Names) -> TokenStream {
    let Names { core, client, .. } = names;
    let fns = service.streams.iter().filter_map(|m| {
        let s = shape(m)?;
        let sig_fn = m.signature_fn();
        let cfgs = m.cfg_attrs();
        let java_name = &m.java_name;
        let (params, ret) = match s.kind {
            StreamKind::Server => {
                let req = java_type_expr(names, &s.request, None);
                (
                    quote!([#req, ::std::borrow::Cow::Borrowed(#STREAM_OBSERVER)]),
                    quote!(::std::borrow::Cow::Borrowed("void")),
                )
            }
            StreamKind::Client | StreamKind::Bidi => (
                quote!([::std::borrow::Cow::Borrowed(#STREAM_OBSERVER)]),
                quote!(::std::borrow::Cow::Borrowed(#STREAM_OBSERVER)),
            ),
        };
        Some(quote! {
            #(#cfgs)*
            fn #sig_fn() -> &'static ::std::sync::Arc<#core::MethodSignature> {
                static SIGNATURE: ::std::sync::OnceLock<::std::sync::Arc<#core::MethodSignature>> =
                    ::std::sync::OnceLock::new();
                SIGNATURE.get_or_init(|| {
                    let parameter_types: ::std::vec::Vec<::std::borrow::Cow<'static, str>> =
                        ::std::vec::Vec::from(#params);
                    let return_type: ::std::borrow::Cow<'static, str> = #ret;
                    ::std::sync::Arc::new(#core::MethodSignature::new(
                        #java_name,
                        &parameter_types,
                        &return_type,
                    ))
                })
            }
        })
    });
    quote! {
        impl #client {
            #(#fns)*
        }
    }
}

/// `streaming_interface()` on the server, and the `ServiceHandler::streams` that hands it to
/// the application (inside the `ServiceHandler` impl).
pub fn server(service: &Service, names: &Names) -> (TokenStream, TokenStream) {
    if service.streams.is_empty() {
        return (quote!(), quote!());
    }
    let Names {
        trait_ident,
        server,
        client,
        core,
        triple,
        ..
    } = names;
    let adds = service.streams.iter().filter_map(|m| {
        let s = shape(m)?;
        let ident = &m.ident;
        let cfgs = m.cfg_attrs();
        let java_name = &m.java_name;
        let (builder, arg_ty) = match s.kind {
            StreamKind::Server => (quote!(server_streaming_with_context), s.request.clone()),
            StreamKind::Client => (
                quote!(client_streaming_with_context),
                streaming_of(triple, &s.request),
            ),
            StreamKind::Bidi => (
                quote!(bidi_streaming_with_context),
                streaming_of(triple, &s.request),
            ),
        };
        // A method that asks for the request context gets it first, as a unary one does.
        let ctx_arg = m.context.map(|_| quote!(&__dubbo_ctx,));
        let into_rpc_error = quote_spanned! {m.output.span()=>
            <_ as ::std::convert::Into<#core::RpcError>>::into
        };
        Some(quote! {
            #(#cfgs)*
            let __dubbo_streams = {
                let __dubbo_service = ::std::clone::Clone::clone(&self.service);
                __dubbo_streams.#builder(#java_name, move |__dubbo_ctx: #core::RequestContext, __dubbo_request: #arg_ty| {
                    let __dubbo_service = ::std::clone::Clone::clone(&__dubbo_service);
                    async move {
                        match <__DubboService as #trait_ident>::#ident(&*__dubbo_service, #ctx_arg __dubbo_request).await {
                            ::std::result::Result::Ok(v) => ::std::result::Result::Ok(v),
                            ::std::result::Result::Err(e) => ::std::result::Result::Err(
                                <#triple::Status as ::std::convert::From<#core::RpcError>>::from(#into_rpc_error(e)),
                            ),
                        }
                    }
                })
            };
        })
    });
    let inherent = quote! {
        impl<__DubboService> #server<__DubboService>
        where
            __DubboService: #trait_ident + ::core::marker::Send + ::core::marker::Sync + 'static,
        {
            /// The service's streaming methods as Triple serves them (Java `StreamObserver`
            /// methods, in wrapper mode). An application serves them by itself next to the
            /// service's other methods on every tri:// port the service is exported on.
            pub fn streaming_interface(&self) -> #triple::server::interface_stream::StreamingInterface {
                let __dubbo_streams =
                    #triple::server::interface_stream::StreamingInterface::new(#client::INTERFACE);
                #(#adds)*
                __dubbo_streams
            }
        }
    };
    let handler = quote! {
        fn streams(
            &self,
        ) -> ::std::option::Option<::std::sync::Arc<dyn ::std::any::Any + ::core::marker::Send + ::core::marker::Sync>> {
            ::std::option::Option::Some(::std::sync::Arc::new(self.streaming_interface()))
        }
    };
    (inherent, handler)
}

fn streaming_of(triple: &TokenStream, ty: &Type) -> Type {
    syn::parse_quote!(#triple::Streaming<#ty>)
}

/// The client method of a streaming method.
pub fn client_method(m: &Method, names: &Names) -> TokenStream {
    let Some(s) = shape(m) else {
        return quote!();
    };
    let Names {
        triple, interface, ..
    } = names;
    let ident = &m.ident;
    let sig_fn = m.signature_fn();
    let attrs = &m.attrs;
    let output = &m.output;
    let req = &s.request;
    let resp = &s.response;
    let from_rpc_error = quote_spanned!(output.span()=> ::std::convert::From::from);
    let helpers = quote!(#triple::client::interface_reference);
    let (param, ret, call) = match s.kind {
        StreamKind::Server => {
            let name = &m.params[0].ident;
            (
                quote!(#name: #req),
                replace_ok_type(output, streaming_of(triple, resp)),
                quote!(#helpers::server_stream::<#req, #resp>(&*self.invoker, __dubbo_invocation, &#name)),
            )
        }
        StreamKind::Client => {
            let name = &m.params[0].ident;
            (
                quote!(#name: impl #helpers::Stream<Item = #req> + ::core::marker::Send + 'static),
                output.clone(),
                quote!(#helpers::client_stream::<_, #req, #resp>(&*self.invoker, __dubbo_invocation, #name)),
            )
        }
        StreamKind::Bidi => {
            let name = &m.params[0].ident;
            (
                quote!(#name: impl #helpers::Stream<Item = #req> + ::core::marker::Send + 'static),
                replace_ok_type(output, streaming_of(triple, resp)),
                quote!(#helpers::bidi_stream::<_, #req, #resp>(&*self.invoker, __dubbo_invocation, #name)),
            )
        }
    };
    let kind = match s.kind {
        StreamKind::Server => "a server stream: the responses as they come",
        StreamKind::Client => "a client stream: the requests as the stream yields them, one response",
        StreamKind::Bidi => "a bidirectional stream: the requests as the stream yields them, the responses as they come",
    };
    let call_doc = format!(
        "Calls `{}` of `{}`, {kind}. It goes through the invoker like a unary call (over tri:// \
         only); dropping the response stream cancels the call.",
        m.java_name,
        interface.value()
    );
    let separator = attrs
        .iter()
        .any(|a| a.path().is_ident("doc"))
        .then(|| quote!(#[doc = ""]));
    quote! {
        #(#attrs)*
        #separator
        #[doc = #call_doc]
        pub async fn #ident(&self, #param) -> #ret {
            let __dubbo_invocation =
                self.new_invocation(::std::clone::Clone::clone(Self::#sig_fn()), ::std::vec::Vec::new());
            match #call.await {
                ::std::result::Result::Ok(v) => ::std::result::Result::Ok(v),
                ::std::result::Result::Err(e) => ::std::result::Result::Err(#from_rpc_error(e)),
            }
        }
    }
}
