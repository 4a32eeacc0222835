//! What `#[derive(RestSchema)]` refuses, and the message saying what to do instead.

use proc_macro2::TokenStream;
use quote::quote;

fn error(item: TokenStream) -> String {
    let input: syn::DeriveInput = syn::parse2(item).expect("an item");
    match crate::rest_schema::derive(&input) {
        Ok(out) => panic!("no error: {out}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn misuse_is_refused_with_the_fix() {
    let cases = [
        (
            quote!(
                struct A {
                    #[serde(flatten)]
                    b: B,
                }
            ),
            "does not describe #[serde(flatten)] fields",
        ),
        (
            quote!(
                enum E {
                    A,
                    B(i32),
                }
            ),
            "enums of unit variants only",
        ),
        (
            quote!(
                #[serde(tag = "t")]
                enum E {
                    A,
                }
            ),
            "externally tagged form only",
        ),
        (
            quote!(
                struct G<T> {
                    t: T,
                }
            ),
            "cannot be derived for a generic type",
        ),
        (
            quote!(
                struct P(i32, i32);
            ),
            "implement RestSchema by hand",
        ),
        (
            quote!(
                #[serde(rename_all = "Title Case")]
                struct A {
                    a: i32,
                }
            ),
            "no rename_all rule `Title Case`",
        ),
        (
            quote!(
                #[rest_schema(title = "x")]
                struct A {
                    a: i32,
                }
            ),
            "unknown #[rest_schema] option",
        ),
        (
            quote!(
                #[serde(transparent)]
                struct T {
                    a: i32,
                    b: i32,
                }
            ),
            "exactly one field",
        ),
    ];
    for (item, needle) in cases {
        let e = error(item.clone());
        assert!(e.contains(needle), "{item}: {e:?} lacks {needle:?}");
    }
}

#[test]
fn serde_options_of_others_are_passed_over() {
    let input: syn::DeriveInput = syn::parse2(quote! {
        #[serde(rename = "org.example.User", rename_all(serialize = "camelCase", deserialize = "snake_case"))]
        struct User {
            #[serde(alias = "uid", rename(serialize = "ID"), default = "zero")]
            user_id: i64,
            #[serde(skip_deserializing, borrow)]
            last_seen: Option<i64>,
        }
    })
    .expect("an item");
    let out = crate::rest_schema::derive(&input)
        .expect("derived")
        .to_string()
        .replace(' ', "");
    // Serialized names; neither field required.
    assert!(out.contains(r#"from("ID")"#), "{out}");
    assert!(out.contains(r#"from("lastSeen")"#), "{out}");
    assert!(out.contains("letrequired:&[&str]=&[];"), "{out}");
}
