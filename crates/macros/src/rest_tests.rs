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

#[test]
fn cross_origin_expands_to_the_methods_cors() {
    let out = expand(quote! {
        pub trait Users {
            #[get("/users/{id}")]
            #[cross_origin(origins = "https://a.example, http://localhost:[*]", methods = "get, PUT", allowed_headers = "X-Token", exposed_headers = "Location", allow_credentials = true, max_age = 60)]
            async fn get_user(&self, id: i64) -> Result<User, RpcError>;
            #[delete("/users/{id}")]
            #[cross_origin]
            async fn delete_user(&self, id: i64) -> Result<(), RpcError>;
            #[get("/users")]
            async fn list(&self) -> Result<Vec<User>, RpcError>;
        }
    });
    assert!(!out.contains("compile_error"), "{out}");
    assert!(!out.contains("# [cross_origin"), "{out}");
    let compact = out.replace(' ', "");
    assert!(
        compact.contains(r#"cors:::std::option::Option::Some(&::dubbo_rs::core::rest::RestCors{origins:&["https://a.example","http://localhost:[*]"],methods:&["GET","PUT"],allowed_headers:&["X-Token"],exposed_headers:&["Location"],allow_credentials:::std::option::Option::Some(true),max_age:::std::option::Option::Some(60u64),})"#),
        "{compact}"
    );
    // A bare attribute: CORS on, nothing of its own.
    assert!(
        compact.contains(r#"cors:::std::option::Option::Some(&::dubbo_rs::core::rest::RestCors{origins:&[],methods:&[],allowed_headers:&[],exposed_headers:&[],allow_credentials:::std::option::Option::None,max_age:::std::option::Option::None,})"#),
        "{compact}"
    );
    assert!(
        compact.contains("cors:::std::option::Option::None"),
        "{compact}"
    );
}

#[test]
fn cross_origin_misuse_says_how_to_fix_it() {
    let bad = |attr: TokenStream, needle: &str| {
        assert_error(
            quote! {
                pub trait Users {
                    #[get("/users")]
                    #attr
                    async fn list(&self) -> Result<Vec<User>, RpcError>;
                }
            },
            needle,
        )
    };
    bad(
        quote!(#[cross_origin(origin = "https://a.example")]),
        "unknown option `origin` of #[cross_origin]: expected `origins = ",
    );
    bad(
        quote!(#[cross_origin(origins = "a.example")]),
        "`a.example` is not an origin: write",
    );
    bad(
        quote!(#[cross_origin(origins = "http://localhost:[80,x]")]),
        "is not an origin",
    );
    bad(
        quote!(#[cross_origin(origins = "https://a.example,")]),
        "an empty origin in the list",
    );
    bad(
        quote!(#[cross_origin(methods = "GET, FETCH")]),
        "`FETCH` is not an HTTP method: write some of GET, HEAD",
    );
    bad(
        quote!(#[cross_origin(allowed_headers = "X Token")]),
        "`X Token` is not a header name",
    );
    bad(
        quote!(#[cross_origin(exposed_headers = "*")]),
        "exposed_headers names the headers shown to the page",
    );
    bad(
        quote!(#[cross_origin(max_age = "600")]),
        "write `max_age = 600` (seconds, a number without quotes)",
    );
    bad(
        quote!(#[cross_origin(allow_credentials = "true")]),
        "write `allow_credentials = true` (or `false`), without quotes",
    );
    bad(
        quote!(#[cross_origin(origins = "*", allow_credentials = true)]),
        "browsers refuse credentials from any origin (`*`): list the origins",
    );
    bad(
        quote!(#[cross_origin(max_age = 1, max_age = 2)]),
        "`max_age` is given twice",
    );
    bad(
        quote!(#[cross_origin = "https://a.example"]),
        "write #[cross_origin] or #[cross_origin(key = value, ...)]",
    );
    bad(
        quote!(#[cross_origin] #[cross_origin]),
        "a method has one #[cross_origin]",
    );
    assert_error(
        quote! {
            pub trait Users {
                #[cross_origin]
                async fn say_hello(&self, name: String) -> Result<String, RpcError>;
            }
        },
        "#[cross_origin] needs a mapped method: put #[get(\\\"/...\\\")]",
    );
}

#[test]
fn a_traits_cross_origin_reaches_every_mapped_method_under_their_own() {
    let out = expand(quote! {
        #[cross_origin(origins = "https://a.example", allowed_headers = "X-Token", max_age = 60)]
        pub trait Users {
            #[get("/users")]
            async fn list(&self) -> Result<Vec<User>, RpcError>;
            #[put("/users/{id}")]
            #[cross_origin(origins = "https://b.example", methods = "PUT", allow_credentials = true)]
            async fn put(&self, id: i64, user: User) -> Result<(), RpcError>;
            async fn say_hello(&self, name: String) -> Result<String, RpcError>;
        }
    });
    assert!(!out.contains("compile_error"), "{out}");
    assert!(!out.contains("# [cross_origin"), "{out}");
    let compact = out.replace(' ', "");
    // The trait's settings as they are...
    assert!(
        compact.contains(r#"path:"/users",params:&[],consumes:&[],produces:&[],status:0u16,headers:&[],returns:"Vec<User>","#),
        "{compact}"
    );
    assert!(
        compact.contains(r#"cors:::std::option::Option::Some(&::dubbo_rs::core::rest::RestCors{origins:&["https://a.example"],methods:&[],allowed_headers:&["X-Token"],exposed_headers:&[],allow_credentials:::std::option::Option::None,max_age:::std::option::Option::Some(60u64),})"#),
        "{compact}"
    );
    // ... and under a method's own, setting by setting.
    assert!(
        compact.contains(r#"cors:::std::option::Option::Some(&::dubbo_rs::core::rest::RestCors{origins:&["https://b.example"],methods:&["PUT"],allowed_headers:&["X-Token"],exposed_headers:&[],allow_credentials:::std::option::Option::Some(true),max_age:::std::option::Option::Some(60u64),})"#),
        "{compact}"
    );
    // The default mapping keeps the server's settings.
    assert_eq!(
        compact.matches("cors:::std::option::Option::None").count(),
        1,
        "{compact}"
    );
}

#[test]
fn a_traits_cross_origin_misuse_says_how_to_fix_it() {
    assert_error(
        quote! {
            #[cross_origin(origins = "*")]
            pub trait Users {
                #[get("/users")]
                #[cross_origin(allow_credentials = true)]
                async fn list(&self) -> Result<Vec<User>, RpcError>;
            }
        },
        "`allow_credentials = true` (here) with `origins = \\\"*\\\"` (the trait's)",
    );
    assert_error(
        quote! {
            #[cross_origin(allow_credentials = true)]
            pub trait Users {
                #[get("/users")]
                #[cross_origin(origins = "*")]
                async fn list(&self) -> Result<Vec<User>, RpcError>;
            }
        },
        "`allow_credentials = true` (the trait's) with `origins = \\\"*\\\"` (here)",
    );
    assert_error(
        quote! {
            #[cross_origin(origins = "https://a.example")]
            pub trait Users {
                async fn say_hello(&self, name: String) -> Result<String, RpcError>;
            }
        },
        "#[cross_origin] on the trait applies to its mapped methods, and this service has none",
    );
    assert_error(
        quote! {
            #[cross_origin]
            #[cross_origin(max_age = 1)]
            pub trait Users {
                #[get("/users")]
                async fn list(&self) -> Result<Vec<User>, RpcError>;
            }
        },
        "a trait has one #[cross_origin]",
    );
    assert_error(
        quote! {
            #[cross_origin(methods = "GET, FETCH")]
            pub trait Users {
                #[get("/users")]
                async fn list(&self) -> Result<Vec<User>, RpcError>;
            }
        },
        "`FETCH` is not an HTTP method",
    );
}
