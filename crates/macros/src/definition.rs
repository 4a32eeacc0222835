//! Service definitions: the `FullServiceDefinition` the `#[service]` macro generates from the
//! trait's Rust types, and `#[derive(JavaTypeDefinition)]` for the classes they use.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Path, Type};

use crate::model::{Service, StreamKind};
use crate::streams::STREAM_OBSERVER;

/// The expression that adds `ty`'s definitions to `__dubbo_defs` and gives its name: the
/// explicit Java type when one is given, else the type's own definition, else its Java name.
fn define_expr(hessian: &TokenStream, ty: &Type, explicit: Option<&LitStr>) -> TokenStream {
    match explicit {
        Some(lit) => quote!(__dubbo_defs.simple(#lit)),
        None => quote_spanned! {ty.span()=>
            (&#hessian::java::DefinitionProbe::<#ty>::new()).define_type(&mut __dubbo_defs)
        },
    }
}

/// `impl Client { pub fn service_definition() }`: the definition, built once per process, of
/// every method, streaming ones included. The code source is the defining crate and its
/// version, as Java's is the interface's jar.
pub fn service_definition(
    service: &Service,
    core: &TokenStream,
    hessian: &TokenStream,
    client: &Ident,
) -> TokenStream {
    let methods = service.methods.iter().map(|m| {
        let cfgs = m.cfg_attrs();
        let java_name = &m.java_name;
        let params = m
            .params
            .iter()
            .map(|p| define_expr(hessian, &p.ty, p.java_type.as_ref()));
        let ret = define_expr(hessian, &m.ok_ty, m.return_java_type.as_ref());
        push_method(
            core,
            cfgs,
            java_name,
            quote!(::std::vec![#(#params),*]),
            ret,
        )
    });
    // Streaming methods as Java's `ServiceDefinitionBuilder` reads a `StreamObserver` method:
    // `void m(Req, StreamObserver)` and `StreamObserver m(StreamObserver)`, the observer a type
    // of no properties (an interface), its type argument not written.
    let streams = service.streams.iter().filter_map(|m| {
        let shape = m.stream.as_ref()?;
        let cfgs = m.cfg_attrs();
        let java_name = &m.java_name;
        let observer = quote!(__dubbo_defs.simple(#STREAM_OBSERVER));
        let (params, ret) = match shape.kind {
            StreamKind::Server => {
                let req = define_expr(hessian, &shape.request, None);
                (
                    quote!(::std::vec![#req, #observer]),
                    quote!(__dubbo_defs.simple("void")),
                )
            }
            StreamKind::Client | StreamKind::Bidi => {
                (quote!(::std::vec![#observer]), observer.clone())
            }
        };
        Some(push_method(core, cfgs, java_name, params, ret))
    });
    quote! {
        impl #client {
            /// Java's `FullServiceDefinition` of the service: every method with its Java
            /// parameter and return types, and a definition of each type they reach. Built once
            /// per process; providers publish it to the metadata report.
            pub fn service_definition() -> &'static #core::ServiceDefinition {
                static DEFINITION: ::std::sync::OnceLock<#core::ServiceDefinition> =
                    ::std::sync::OnceLock::new();
                DEFINITION.get_or_init(|| {
                    #[allow(unused_imports)]
                    use #hessian::java::{ByDefinition as _, ByName as _};
                    #[allow(unused_mut, clippy::needless_borrow)]
                    let mut __dubbo_defs = #hessian::java::TypeDefinitions::new();
                    let mut definition = #core::ServiceDefinition::new(
                        Self::INTERFACE,
                        ::std::concat!(
                            ::std::env!("CARGO_PKG_NAME"), "-", ::std::env!("CARGO_PKG_VERSION")
                        ),
                    );
                    #(#methods)*
                    #(#streams)*
                    definition.types = __dubbo_defs.into_vec();
                    definition
                })
            }
        }
    }
}

/// The arguments of the derive: `#[java(crate = "path")]`.
/// The statements adding one method to the definition under construction (`definition`),
/// behind the method's `#[cfg]`s.
fn push_method<'a>(
    core: &TokenStream,
    cfgs: impl Iterator<Item = &'a syn::Attribute>,
    java_name: &impl quote::ToTokens,
    parameter_types: TokenStream,
    return_type: TokenStream,
) -> TokenStream {
    let cfgs = cfgs.collect::<Vec<_>>();
    quote! {
        #(#cfgs)*
        {
            let parameter_types = #parameter_types;
            let return_type = #return_type;
            definition.methods.push(#core::MethodDefinition {
                name: ::std::string::String::from(#java_name),
                parameter_types,
                return_type,
                ..::std::default::Default::default()
            });
        }
    }
}

fn krate(input: &DeriveInput) -> syn::Result<Path> {
    let mut krate: Path = syn::parse_quote!(::dubbo_rs);
    for attr in &input.attrs {
        if attr.path().is_ident("java") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("crate") {
                    let lit: LitStr = meta.value()?.parse()?;
                    krate = lit.parse()?;
                    Ok(())
                } else {
                    Err(meta.error("unknown #[java] option: expected `crate = \"...\"`"))
                }
            })?;
        }
    }
    Ok(krate)
}

/// What serde says about a field: its name on the wire (`rename`), and whether it is skipped.
fn serde_field(field: &syn::Field) -> syn::Result<(Option<String>, bool)> {
    let mut rename = None;
    let mut skip = false;
    for attr in &field.attrs {
        if !attr.path().is_ident("serde") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                // `rename = "x"`; `rename(serialize = "x", ...)` keeps the Rust name.
                if let Ok(value) = meta.value() {
                    let lit: LitStr = value.parse()?;
                    rename = Some(lit.value());
                } else {
                    meta.parse_nested_meta(|inner| {
                        let _: LitStr = inner.value()?.parse()?;
                        Ok(())
                    })?;
                }
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_serializing") {
                skip = true;
            } else if meta.input.peek(syn::Token![=]) {
                // Other options with a value (`default = "..."`, `with = "..."`): not ours.
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|_| Ok(()))?;
            }
            Ok(())
        })?;
    }
    Ok((rename, skip))
}

/// `#[derive(JavaTypeDefinition)]`: the class's Java name from its `JavaType` impl, its fields
/// (serde's names, skipped fields left out) as properties.
pub fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let krate = krate(input)?;
    let hessian = quote!(#krate::hessian2);
    let ident = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "JavaTypeDefinition cannot be derived for a generic type: Java classes in a service definition have fixed field types",
        ));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            ident.span(),
            "JavaTypeDefinition can be derived for structs with named fields only",
        ));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new(
            ident.span(),
            "JavaTypeDefinition can be derived for structs with named fields only",
        ));
    };
    let mut properties = Vec::new();
    for field in &fields.named {
        let (rename, skip) = serde_field(field)?;
        if skip {
            continue;
        }
        let name = match (rename, &field.ident) {
            (Some(r), _) => r,
            (None, Some(i)) => i.to_string().trim_start_matches("r#").to_owned(),
            (None, None) => continue,
        };
        let ty = &field.ty;
        properties.push(quote_spanned! {ty.span()=>
            let __dubbo_field = (&#hessian::java::DefinitionProbe::<#ty>::new()).define_type(defs);
            def.properties.insert(::std::string::String::from(#name), __dubbo_field);
        });
    }
    Ok(quote! {
        impl #hessian::java::JavaTypeDefinition for #ident {
            fn define(defs: &mut #hessian::java::TypeDefinitions) -> ::std::string::String {
                #[allow(unused_imports)]
                use #hessian::java::{ByDefinition as _, ByName as _};
                let name = <Self as #hessian::java::JavaType>::java_type_name().into_owned();
                if defs.contains(&name) {
                    return name;
                }
                // The class's own entry goes in first, so that a field of its own type ends.
                defs.simple(&name);
                let mut def = #hessian::java::TypeDefinition::named(name.clone());
                #(#properties)*
                defs.replace(def);
                name
            }
        }
    })
}
