//! `#[derive(RestSchema)]`: the OpenAPI schema of a struct's or a simple enum's JSON form, as
//! serde writes it (its `rename`, `rename_all`, `skip`, `default`, `transparent` and
//! `deny_unknown_fields` honoured), for the REST document.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, LitStr, Path, Type};

use crate::rest_case::RenameRule;

/// What serde's container attributes say.
#[derive(Default)]
struct Container {
    rename_all: Option<RenameRule>,
    transparent: bool,
    deny_unknown_fields: bool,
    default: bool,
}

/// What serde's field (or variant) attributes say.
#[derive(Default)]
struct Member {
    rename: Option<String>,
    /// Not written (`skip`, `skip_serializing`).
    skipped: bool,
    /// May be absent (`default`, `skip_serializing_if`, `skip_deserializing`).
    optional: bool,
    /// Written by other code (`with`, `serialize_with`): any JSON value.
    custom: bool,
    flatten: bool,
}

/// Our own attribute: `#[rest_schema(crate = "path", name = "Name")]`.
fn own_args(input: &DeriveInput) -> syn::Result<(Path, String)> {
    let mut krate: Path = syn::parse_quote!(::dubbo_rs);
    let mut name = input.ident.unraw().to_string();
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("rest_schema"))
    {
        attr.parse_nested_meta(|meta| {
            let lit: LitStr = meta.value()?.parse()?;
            if meta.path.is_ident("crate") {
                krate = lit.parse()?;
            } else if meta.path.is_ident("name") {
                name = lit.value();
            } else {
                return Err(meta.error(
                    "unknown #[rest_schema] option: expected `crate = \"...\"` or `name = \"...\"`",
                ));
            }
            Ok(())
        })?;
    }
    Ok((krate, name))
}

/// Walks the `#[serde(...)]` attributes, handing each option to `f`; an option `f` does not
/// take is skipped (with its value).
fn serde_options(
    attrs: &[Attribute],
    mut f: impl FnMut(&str, &syn::meta::ParseNestedMeta) -> syn::Result<bool>,
) -> syn::Result<()> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            if f(&key, &meta)? {
                return Ok(());
            }
            if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        let _: syn::Expr = inner.value()?.parse()?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// `rename = "x"` or `rename(serialize = "x", ...)`: the name serde writes.
fn written_name(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        let lit: LitStr = meta.value()?.parse()?;
        return Ok(Some(lit.value()));
    }
    let mut out = None;
    meta.parse_nested_meta(|inner| {
        let lit: LitStr = inner.value()?.parse()?;
        if inner.path.is_ident("serialize") {
            out = Some(lit.value());
        }
        Ok(())
    })?;
    Ok(out)
}

fn container(input: &DeriveInput) -> syn::Result<Container> {
    let mut c = Container::default();
    serde_options(&input.attrs, |key, meta| {
        match key {
            "rename_all" => {
                if let Some(rule) = written_name(meta)? {
                    c.rename_all = Some(RenameRule::parse(&rule).ok_or_else(|| {
                        meta.error(format!("serde has no rename_all rule `{rule}`"))
                    })?);
                }
            }
            "transparent" => c.transparent = true,
            "deny_unknown_fields" => c.deny_unknown_fields = true,
            "default" => {
                c.default = true;
                return Ok(false);
            }
            "tag" | "untagged" | "content" => {
                return Err(meta.error(
                    "RestSchema derives the externally tagged form only (an enum of unit variants written as their names): implement RestSchema by hand for a tagged or untagged enum",
                ))
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(c)
}

fn member(attrs: &[Attribute]) -> syn::Result<Member> {
    let mut m = Member::default();
    serde_options(attrs, |key, meta| {
        match key {
            "rename" => m.rename = written_name(meta)?,
            "skip" | "skip_serializing" => m.skipped = true,
            "skip_deserializing" => m.optional = true,
            "flatten" => m.flatten = true,
            "default" | "skip_serializing_if" => {
                m.optional = true;
                return Ok(false);
            }
            "with" | "serialize_with" => {
                m.custom = true;
                return Ok(false);
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(m)
}

/// The `///` text of an item, for its `description`.
fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join(" ").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Option"),
        Type::Group(g) => is_option(&g.elem),
        Type::Paren(p) => is_option(&p.elem),
        _ => false,
    }
}

/// The expression giving a field type's schema: its `RestSchema`, else its written name's.
fn field_schema(core: &TokenStream, ty: &Type, custom: bool) -> TokenStream {
    if custom {
        return quote!(#core::rest_schema::Value::Object(::std::default::Default::default()));
    }
    let text = quote!(#ty).to_string().replace(' ', "");
    quote_spanned! {ty.span()=>
        (&#core::rest_schema::SchemaProbe::<#ty>::new()).rest_schema_of(schemas, #text)
    }
}

/// `#[derive(RestSchema)]`.
pub fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let (krate, name) = own_args(input)?;
    let core = quote!(#krate::core);
    let ident = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "RestSchema cannot be derived for a generic type: a named schema has fixed field types (implement RestSchema by hand)",
        ));
    }
    let c = container(input)?;
    let body = match &input.data {
        Data::Struct(data) => struct_schema(&core, &name, &c, input, &data.fields)?,
        Data::Enum(data) => {
            let mut names = Vec::new();
            for v in &data.variants {
                if !matches!(v.fields, Fields::Unit) {
                    return Err(syn::Error::new(
                        v.span(),
                        "RestSchema derives enums of unit variants only (written as their names): implement RestSchema by hand for an enum with data",
                    ));
                }
                let m = member(&v.attrs)?;
                if m.skipped {
                    continue;
                }
                let variant = v.ident.unraw().to_string();
                names.push(m.rename.unwrap_or_else(|| match c.rename_all {
                    Some(rule) => rule.variant(&variant),
                    None => variant,
                }));
            }
            let description = describe(&core, doc_text(&input.attrs));
            quote! {
                schemas.define(#name, |_| {
                    #[allow(unused_mut)]
                    let mut s = #core::rest_schema::json!({"type": "string", "enum": [#(#names),*]});
                    #description
                    s
                })
            }
        }
        Data::Union(_) => {
            return Err(syn::Error::new(
                ident.span(),
                "RestSchema cannot be derived for a union",
            ))
        }
    };
    Ok(quote! {
        impl #core::rest_schema::RestSchema for #ident {
            #[allow(clippy::needless_borrow)]
            fn rest_schema(
                schemas: &mut #core::rest_schema::RestSchemas,
            ) -> #core::rest_schema::Value {
                #[allow(unused_imports)]
                use #core::rest_schema::{BySchema as _, ByTypeName as _};
                #body
            }
        }
    })
}

/// Inserts `"description"` into `s` (unless it is a `$ref`, which takes no siblings).
fn describe(core: &TokenStream, doc: Option<String>) -> TokenStream {
    match doc {
        Some(text) => quote! {
            if let ::std::option::Option::Some(o) = s.as_object_mut() {
                if !o.contains_key("$ref") {
                    o.insert(
                        ::std::string::String::from("description"),
                        #core::rest_schema::Value::from(#text),
                    );
                }
            }
        },
        None => quote!(),
    }
}

fn struct_schema(
    core: &TokenStream,
    name: &str,
    c: &Container,
    input: &DeriveInput,
    fields: &Fields,
) -> syn::Result<TokenStream> {
    let only = "RestSchema derives structs with named fields and newtype structs (written as their one field): implement RestSchema by hand for other tuple or unit structs";
    let named = match fields {
        Fields::Named(f) => f,
        Fields::Unnamed(f) if f.unnamed.len() == 1 => {
            // serde writes a newtype struct as its field.
            let field = &f.unnamed[0];
            let schema = field_schema(core, &field.ty, member(&field.attrs)?.custom);
            return Ok(schema);
        }
        _ => return Err(syn::Error::new(input.ident.span(), only)),
    };
    let mut props = Vec::new();
    let mut kept = Vec::new();
    for field in &named.named {
        let m = member(&field.attrs)?;
        if m.flatten {
            return Err(syn::Error::new(
                field.span(),
                "RestSchema does not describe #[serde(flatten)] fields: implement RestSchema by hand for this type",
            ));
        }
        if m.skipped {
            continue;
        }
        kept.push((field, m));
    }
    if c.transparent {
        let [(field, m)] = kept.as_slice() else {
            return Err(syn::Error::new(
                input.ident.span(),
                "#[serde(transparent)] needs exactly one field that is not skipped",
            ));
        };
        let schema = field_schema(core, &field.ty, m.custom);
        return Ok(schema);
    }
    let mut required = Vec::new();
    for (field, m) in kept {
        let Some(id) = &field.ident else { continue };
        let rust = id.unraw().to_string();
        let wire = m.rename.clone().unwrap_or_else(|| match c.rename_all {
            Some(rule) => rule.field(&rust),
            None => rust.clone(),
        });
        if !(m.optional || c.default || is_option(&field.ty)) {
            required.push(wire.clone());
        }
        let schema = field_schema(core, &field.ty, m.custom);
        let description = describe(core, doc_text(&field.attrs));
        props.push(quote! {
            #[allow(unused_mut)]
            let mut s = #schema;
            #description
            properties.insert(::std::string::String::from(#wire), s);
        });
    }
    let additional = if c.deny_unknown_fields {
        quote!(s.insert(
            ::std::string::String::from("additionalProperties"),
            #core::rest_schema::Value::Bool(false),
        );)
    } else {
        quote!()
    };
    let doc = match doc_text(&input.attrs) {
        Some(text) => quote!(s.insert(
            ::std::string::String::from("description"),
            #core::rest_schema::Value::from(#text),
        );),
        None => quote!(),
    };
    Ok(quote! {
        schemas.define(#name, |schemas| {
            let mut properties = #core::rest_schema::Map::new();
            #(#props)*
            let mut s = #core::rest_schema::Map::new();
            s.insert(::std::string::String::from("type"), #core::rest_schema::Value::from("object"));
            s.insert(
                ::std::string::String::from("properties"),
                #core::rest_schema::Value::Object(properties),
            );
            let required: &[&str] = &[#(#required),*];
            if !required.is_empty() {
                s.insert(
                    ::std::string::String::from("required"),
                    #core::rest_schema::Value::from(required.to_vec()),
                );
            }
            #additional
            #doc
            #core::rest_schema::Value::Object(s)
        })
    })
}
