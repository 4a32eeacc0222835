//! Unit tests of parsing, checking and expansion (on `proc_macro2` tokens).

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;

use crate::model::{parse_service, Service, ServiceArgs};

fn args(attr: TokenStream) -> syn::Result<ServiceArgs> {
    let mut args = ServiceArgs::default();
    syn::meta::parser(|meta| args.parse_item(meta)).parse2(attr)?;
    Ok(args)
}

fn parse(attr: TokenStream, item: TokenStream) -> Result<Service, Vec<String>> {
    let args = args(attr).map_err(|e| vec![e.to_string()])?;
    let mut item: syn::ItemTrait = syn::parse2(item).expect("a trait");
    parse_service(args, &mut item).map_err(|e| e.into_iter().map(|e| e.to_string()).collect())
}

/// The error messages for `item`, which must fail.
fn errors(item: TokenStream) -> Vec<String> {
    match parse(quote!(interface = "a.B"), item) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e,
    }
}

fn assert_error(item: TokenStream, needle: &str) {
    let errors = errors(item);
    assert!(
        errors.iter().any(|e| e.contains(needle)),
        "no error containing {needle:?} in {errors:#?}"
    );
}

fn interop() -> TokenStream {
    quote! {
        pub trait InteropService: Send + Sync + 'static {
            /// Says hello.
            async fn say_hello(&self, name: String) -> Result<String, RpcError>;
            async fn add_int(&self, a: i32, b: i32) -> Result<i32, RpcError>;
            #[dubbo(name = "echoBytes")]
            async fn echo_bytes(&self, v: ByteBuf) -> Result<ByteBuf, RpcError>;
            async fn echo_user(
                &self,
                #[dubbo(java_type = "org.apache.dubbo.interop.User")] u: Option<User>,
            ) -> Result<Option<User>, RpcError>;
            async fn get_attachment(&self, ctx: &mut RequestContext, key: String) -> Result<Option<String>, RpcError>;
            #[cfg(test)]
            async fn fail(&self, mut message: String) -> std::io::Result<()>;
        }
    }
}

#[test]
fn parses_the_interop_service() {
    let s = parse(
        quote!(
            interface = "org.apache.dubbo.interop.InteropService",
            crate = "crate::dubbo_rs"
        ),
        interop(),
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(s.interface, "org.apache.dubbo.interop.InteropService");
    let krate = &s.krate;
    assert_eq!(
        quote!(#krate).to_string(),
        quote!(crate::dubbo_rs).to_string()
    );
    let names: Vec<&str> = s.methods.iter().map(|m| m.java_name.as_str()).collect();
    assert_eq!(
        names,
        [
            "sayHello",
            "addInt",
            "echoBytes",
            "echoUser",
            "getAttachment",
            "fail"
        ]
    );
    let arity: Vec<usize> = s.methods.iter().map(|m| m.params.len()).collect();
    assert_eq!(arity, [1, 2, 1, 1, 1, 1]);
    assert!(s.methods[4].context.is_some());
    assert_eq!(
        s.methods[3].params[0]
            .java_type
            .as_ref()
            .map(|l| l.value())
            .as_deref(),
        Some("org.apache.dubbo.interop.User")
    );
    assert_eq!(s.methods[5].cfg_attrs().count(), 1);
    assert_eq!(s.methods[0].attrs.len(), 1, "the doc comment is kept");
    // The helper attributes are gone from the emitted trait.
    let item = &s.item;
    let emitted = quote!(#item).to_string();
    assert!(!emitted.contains("dubbo"), "{emitted}");
}

#[test]
fn defaults() {
    let s = parse(
        quote!(),
        quote!(
            trait Greeter {
                async fn hi(&self) -> Result<(), E>;
            }
        ),
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(s.interface, "Greeter");
    let krate = &s.krate;
    assert_eq!(quote!(#krate).to_string(), quote!(::dubbo_rs).to_string());
}

#[test]
fn expansion_is_valid_rust() {
    let args = args(quote!(
        interface = "org.apache.dubbo.interop.InteropService"
    ))
    .unwrap();
    let item: syn::ItemTrait = syn::parse2(interop()).unwrap();
    let tokens = crate::expand_service(args, item);
    let file: syn::File = syn::parse2(tokens.clone()).unwrap_or_else(|e| panic!("{e}: {tokens}"));
    let idents: Vec<String> = file
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Trait(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(
        idents,
        [
            "InteropService",
            "InteropServiceServer",
            "InteropServiceClient"
        ]
    );
    let syn::Item::Trait(service_trait) = &file.items[0] else {
        panic!("the trait comes first")
    };
    for item in &service_trait.items {
        let syn::TraitItem::Fn(f) = item else {
            panic!("only methods")
        };
        assert!(f.sig.asyncness.is_none(), "{} is rewritten", f.sig.ident);
        let output = &f.sig.output;
        assert!(quote!(#output).to_string().contains("Future"));
    }
    let text = tokens.to_string();
    assert!(text.contains("fn say_hello_full"));
    assert!(!text.contains("compile_error"));
}

#[test]
fn erroneous_trait_is_still_emitted() {
    let args = args(quote!()).unwrap();
    let item: syn::ItemTrait = syn::parse2(quote!(
        trait T {
            fn f(&self) -> Result<(), E>;
        }
    ))
    .unwrap();
    let text = crate::expand_service(args, item).to_string();
    assert!(text.contains("compile_error"));
    assert!(text.contains("trait T"));
}

#[test]
fn async_is_required() {
    assert_error(
        quote!(
            trait T {
                fn f(&self) -> Result<(), E>;
            }
        ),
        "dubbo service methods must be `async fn`",
    );
}

#[test]
fn receiver_is_required() {
    assert_error(
        quote!(
            trait T {
                async fn f(a: i32) -> Result<(), E>;
            }
        ),
        "take `&self` first",
    );
    assert_error(
        quote!(
            trait T {
                async fn f() -> Result<(), E>;
            }
        ),
        "take `&self` first",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(&mut self) -> Result<(), E>;
            }
        ),
        "take `&self`",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(self) -> Result<(), E>;
            }
        ),
        "take `&self`",
    );
}

#[test]
fn return_type_must_be_a_result() {
    assert_error(
        quote!(
            trait T {
                async fn f(&self);
            }
        ),
        "return `Result<T, E>`",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(&self) -> String;
            }
        ),
        "return `Result<T, E>`",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(&self) -> Option<String>;
            }
        ),
        "return `Result<T, E>`",
    );
    // An alias with the error fixed is fine.
    parse(
        quote!(),
        quote!(
            trait T {
                async fn f(&self) -> dubbo::Result<String>;
            }
        ),
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
}

#[test]
fn patterns_are_rejected() {
    assert_error(
        quote!(
            trait T {
                async fn f(&self, (a, b): (i32, i32)) -> Result<(), E>;
            }
        ),
        "plain names",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(&self, _: i32) -> Result<(), E>;
            }
        ),
        "plain names",
    );
}

#[test]
fn borrowed_and_unnameable_types_are_rejected() {
    assert_error(
        quote!(
            trait T {
                async fn f(&self, s: &str) -> Result<(), E>;
            }
        ),
        "owned types",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(&self, s: impl Into<String>) -> Result<(), E>;
            }
        ),
        "`impl Trait` has no Java type",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(&self) -> Result<&'static str, E>;
            }
        ),
        "owned types",
    );
}

#[test]
fn context_must_come_first() {
    assert_error(
        quote!(
            trait T {
                async fn f(&self, a: i32, ctx: &mut RequestContext) -> Result<(), E>;
            }
        ),
        "must come first",
    );
    let s = parse(
        quote!(),
        quote!(
            trait T {
                async fn f(&self, ctx: &dubbo_rs::core::RequestContext) -> Result<(), E>;
            }
        ),
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    assert!(s.methods[0].params.is_empty());
}

#[test]
fn generics_are_rejected() {
    assert_error(
        quote!(
            trait T {
                async fn f<X>(&self, x: X) -> Result<(), E>;
            }
        ),
        "cannot be generic",
    );
    assert_error(
        quote!(
            trait T<X> {
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "trait cannot be generic",
    );
}

#[test]
fn only_methods() {
    assert_error(
        quote!(
            trait T {
                type X;
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "can only have methods",
    );
    assert_error(
        quote!(
            trait T {
                const X: i32;
            }
        ),
        "can only have methods",
    );
}

#[test]
fn helper_attribute_options_are_checked() {
    assert_error(
        quote!(
            trait T {
                #[dubbo(nmae = "x")]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "unknown #[dubbo] option on a method",
    );
    assert_error(
        quote!(
            trait T {
                #[dubbo(name = "not valid")]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "is not a Java method name",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(&self, #[dubbo(name = "x")] a: i32) -> Result<(), E>;
            }
        ),
        "unknown #[dubbo] option on a parameter",
    );
    assert_error(
        quote!(
            trait T {
                async fn f(&self, #[dubbo(java_type = "")] a: i32) -> Result<(), E>;
            }
        ),
        "is not a Java type name",
    );
    assert_error(
        quote!(
            trait T {
                #[dubbo(java_type = "int")]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "belongs on a parameter",
    );
}

#[test]
fn service_arguments_are_checked() {
    let e = args(quote!(interfce = "a.B"))
        .err()
        .expect("an error")
        .to_string();
    assert!(e.contains("unknown argument of #[service]"), "{e}");
    let e = args(quote!(interface = "a b"))
        .err()
        .expect("an error")
        .to_string();
    assert!(e.contains("is not a Java interface name"), "{e}");
    let e = args(quote!(crate = "not a path"))
        .err()
        .expect("an error")
        .to_string();
    assert!(e.contains("`crate` must be a path"), "{e}");
    let e = args(quote!(interface = "a.B", interface = "a.C"))
        .err()
        .expect("an error")
        .to_string();
    assert!(e.contains("more than once"), "{e}");
}

#[test]
fn name_clashes() {
    assert_error(
        quote!(
            trait T {
                async fn new(&self) -> Result<(), E>;
            }
        ),
        "clashes with a method of the generated client",
    );
    assert_error(
        quote!(
            trait T {
                async fn get(&self) -> Result<(), E>;
                async fn get_full(&self) -> Result<(), E>;
            }
        ),
        "clashes with the generated client method",
    );
    assert_error(
        quote!(
            trait T {
                async fn add(&self, a: i32) -> Result<(), E>;
                #[dubbo(name = "add")]
                async fn add_again(&self, b: i32) -> Result<(), E>;
            }
        ),
        "are both the Java method `add`",
    );
    // Overloads that differ in parameter types are fine.
    parse(
        quote!(),
        quote!(
            trait T {
                async fn add(&self, a: i32) -> Result<(), E>;
                #[dubbo(name = "add")]
                async fn add_long(&self, b: i64) -> Result<(), E>;
            }
        ),
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
}

#[test]
fn every_error_is_reported() {
    let errors = errors(quote!(
        trait T {
            fn a(&self) -> Result<(), E>;
            async fn b(self) -> Result<(), E>;
            async fn c(&self) -> u32;
        }
    ));
    assert_eq!(errors.len(), 3, "{errors:#?}");
}
