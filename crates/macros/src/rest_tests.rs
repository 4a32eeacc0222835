//! Unit tests of the REST mapping attributes: what they expand to and how misuse is reported.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::ServiceArgs;

fn expand(item: TokenStream) -> String {
    let mut args = ServiceArgs::default();
    let parser = syn::meta::parser(|meta| args.parse_item(meta));
    syn::parse::Parser::parse2(parser, quote!(interface = "a.Users")).expect("arguments");
    let item: syn::ItemTrait = syn::parse2(item).expect("a trait");
    crate::expand_service(args, item).to_string()
}

fn assert_error(item: TokenStream, needle: &str) {
    let out = expand(item);
    assert!(out.contains("compile_error"), "no error in {out}");
    assert!(
        out.contains(needle),
        "no error containing {needle:?} in {out}"
    );
}

#[test]
fn a_mapped_service_expands_to_its_routes() {
    let out = expand(quote! {
        pub trait Users {
            #[get("/users/{id}", produces = "application/json")]
            async fn get_user(&self, id: i64) -> Result<User, RpcError>;
            #[get("/users")]
            async fn list(&self, #[query(default = "10")] limit: i32, prefix: Option<String>) -> Result<Vec<User>, RpcError>;
            #[post("/users", status = 201, header = "Cache-Control: no-cache")]
            async fn create(&self, user: User) -> Result<User, RpcError>;
            #[get("/users/{id}/greeting")]
            async fn greet(&self, #[path("id")] user_id: i64, #[header("Accept-Language")] lang: Option<String>) -> Result<String, RpcError>;
            async fn say_hello(&self, user_name: String) -> Result<String, RpcError>;
        }
    });
    assert!(!out.contains("compile_error"), "{out}");
    // The attributes are gone from the trait and the mapping is there.
    assert!(!out.contains("# [get"), "{out}");
    assert!(!out.contains("# [query"), "{out}");
    assert!(out.contains("static __DUBBO_REST_USERS"), "{out}");
    let compact = out.replace(' ', "");
    assert!(
        compact.contains(
            r#"java_name:"getUser",verb:::std::option::Option::Some("GET"),path:"/users/{id}""#
        ),
        "{compact}"
    );
    assert!(
        compact.contains(r#"name:"id",source:::dubbo_rs::core::rest::ParamSource::Path"#),
        "{compact}"
    );
    assert!(compact.contains(r#"name:"limit",source:::dubbo_rs::core::rest::ParamSource::Query,default:::std::option::Option::Some("10"),required:false"#), "{compact}");
    assert!(compact.contains(r#"name:"prefix",source:::dubbo_rs::core::rest::ParamSource::Query,default:::std::option::Option::None,required:false"#), "{compact}");
    // A struct with no place is the body.
    assert!(
        compact.contains(r#"name:"user",source:::dubbo_rs::core::rest::ParamSource::Body"#),
        "{compact}"
    );
    assert!(compact.contains("status:201u16"), "{compact}");
    assert!(
        compact.contains(r#"headers:&[("Cache-Control","no-cache")]"#),
        "{compact}"
    );
    assert!(
        compact.contains(
            r#"name:"Accept-Language",source:::dubbo_rs::core::rest::ParamSource::Header"#
        ),
        "{compact}"
    );
    // The default mapping names parameters as Java does.
    assert!(compact.contains(r#"java_name:"sayHello",verb:::std::option::Option::None,path:"",params:&[::dubbo_rs::core::rest::RestParam{name:"userName""#), "{compact}");
    assert!(compact.contains("fnrest(&self)"), "{compact}");
}

#[test]
fn misuse_is_reported_with_the_fix() {
    assert_error(
        quote!(
            trait S {
                #[get("/users/{id}")]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "the path variable `{id}` has no parameter: add `#[path] id: String`",
    );
    assert_error(
        quote!(
            trait S {
                #[get("/users")]
                async fn f(&self, #[path] id: i64) -> Result<(), E>;
            }
        ),
        "`id` is not a variable of the path \\\"/users\\\"",
    );
    assert_error(
        quote!(
            trait S {
                async fn f(&self, #[query] id: i64) -> Result<(), E>;
            }
        ),
        "#[query] needs a mapped method: put #[get(\\\"/...\\\")]",
    );
    assert_error(
        quote!(
            trait S {
                #[get("users")]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "a path starts with `/`: write \\\"/users\\\"",
    );
    assert_error(
        quote!(
            trait S {
                #[get]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "give the path",
    );
    assert_error(
        quote!(
            trait S {
                #[post("/a", status = 99)]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "between 100 and 599",
    );
    assert_error(
        quote!(
            trait S {
                #[post("/a", produces = "json")]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "`json` is not a media type",
    );
    assert_error(
        quote!(
            trait S {
                #[post("/a", colour = "red")]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "unknown option `colour`",
    );
    assert_error(
        quote!(
            trait S {
                #[post("/a")]
                async fn f(&self, a: User, b: User) -> Result<(), E>;
            }
        ),
        "more than one body parameter",
    );
    assert_error(
        quote!(
            trait S {
                #[post("/a")]
                async fn f(&self, a: User, #[form] b: String) -> Result<(), E>;
            }
        ),
        "a form is the body",
    );
    assert_error(
        quote!(
            trait S {
                #[get("/a/{x}/{x}")]
                async fn f(&self, x: i32) -> Result<(), E>;
            }
        ),
        "appears twice",
    );
    assert_error(
        quote!(
            trait S {
                #[get("/a/{*rest}/b")]
                async fn f(&self, rest: String) -> Result<(), E>;
            }
        ),
        "takes the rest of the path",
    );
    assert_error(
        quote!(
            trait S {
                #[get("/a")]
                #[post("/b")]
                async fn f(&self) -> Result<(), E>;
            }
        ),
        "a method has one verb and path",
    );
    assert_error(
        quote!(
            trait S {
                #[get("/a/{id}")]
                async fn f(&self, #[path(default = "1")] id: i32) -> Result<(), E>;
            }
        ),
        "a path variable is always there",
    );
}
