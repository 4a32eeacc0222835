//! The HTTP (REST) mapping of a service: the `#[get("/users/{id}")]`-style attributes on its
//! methods and `#[path]`/`#[query]`/... on their parameters, checked here and written out as
//! one `static` `RestService` that the generated `ServiceHandler::rest` returns.
//!
//! The attributes are taken off the trait before the rest of the macro reads it (they are
//! not attributes Rust knows), then checked against the parsed methods.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, ItemTrait, LitInt, LitStr, Pat, TraitItem, Type};

use crate::model::{Errors, Method, Param, Service};
use crate::names::lower_camel_case;
use crate::rest_cors::{self, CorsAttr};

/// The verbs a method attribute may name (`#[get(...)]` is `GET`).
const VERBS: &[(&str, &str)] = &[
    ("get", "GET"),
    ("post", "POST"),
    ("put", "PUT"),
    ("delete", "DELETE"),
    ("patch", "PATCH"),
    ("head", "HEAD"),
    ("options", "OPTIONS"),
];

/// The places a parameter attribute may name.
const PLACES: &[&str] = &["path", "query", "header", "cookie", "form", "body"];

/// Rust types read from one text value (a path variable, a query parameter...) when a
/// parameter of a mapped method says nothing: the others are the body.
const SIMPLE: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64", "bool", "char", "String",
];

/// The REST attributes of every method, taken off the trait, by method name, and the trait's
/// own `#[cross_origin]`.
#[derive(Default)]
pub struct RestAttrs {
    methods: HashMap<String, MethodAttrs>,
    service_cors: Option<CorsAttr>,
}

#[derive(Default)]
struct MethodAttrs {
    /// The verb and the attribute it came from.
    verb: Option<(&'static str, Span)>,
    path: Option<LitStr>,
    consumes: Vec<String>,
    produces: Vec<String>,
    status: Option<u16>,
    headers: Vec<(String, String)>,
    /// `#[cross_origin(...)]`.
    cors: Option<CorsAttr>,
    /// Parameter attributes, by parameter name.
    params: HashMap<String, ParamAttrs>,
}

struct ParamAttrs {
    place: &'static str,
    span: Span,
    name: Option<LitStr>,
    default: Option<LitStr>,
}

/// Removes the REST attributes from `item`'s methods and parameters, parsing them. Every
/// attribute is removed even when some are malformed, so the trait can still be emitted.
pub fn take_attrs(item: &mut ItemTrait) -> (RestAttrs, Errors) {
    let mut out = RestAttrs::default();
    let mut errors = Errors::default();
    for attr in take(&mut item.attrs, |n| n == rest_cors::NAME) {
        if out.service_cors.is_some() {
            errors.spanned(
                &attr,
                "a trait has one #[cross_origin]: put every setting in it",
            );
            continue;
        }
        match rest_cors::parse(&attr) {
            Ok(c) => out.service_cors = Some(c),
            Err(e) => errors.push(e),
        }
    }
    for it in &mut item.items {
        let TraitItem::Fn(f) = it else { continue };
        let mut m = MethodAttrs::default();
        for attr in take(&mut f.attrs, |n| VERBS.iter().any(|(v, _)| *v == n)) {
            if let Err(e) = parse_verb(&attr, &mut m) {
                errors.push(e);
            }
        }
        for attr in take(&mut f.attrs, |n| n == rest_cors::NAME) {
            if m.cors.is_some() {
                errors.spanned(
                    &attr,
                    "a method has one #[cross_origin]: put every setting in it",
                );
                continue;
            }
            match rest_cors::parse(&attr) {
                Ok(c) => m.cors = Some(c),
                Err(e) => errors.push(e),
            }
        }
        for arg in &mut f.sig.inputs {
            let FnArg::Typed(pt) = arg else { continue };
            let attrs = take(&mut pt.attrs, |n| PLACES.contains(&n));
            let name = match &*pt.pat {
                Pat::Ident(pi) => pi.ident.unraw().to_string(),
                _ => continue,
            };
            for attr in attrs {
                match parse_place(&attr) {
                    Ok(p) => {
                        if m.params.insert(name.clone(), p).is_some() {
                            errors.spanned(&attr, "a parameter comes from one place only");
                        }
                    }
                    Err(e) => errors.push(e),
                }
            }
        }
        if m.verb.is_some() || !m.params.is_empty() || m.cors.is_some() {
            out.methods.insert(f.sig.ident.unraw().to_string(), m);
        }
    }
    (out, errors)
}

fn take(attrs: &mut Vec<Attribute>, is: impl Fn(&str) -> bool) -> Vec<Attribute> {
    let (ours, rest) = std::mem::take(attrs)
        .into_iter()
        .partition(|a: &Attribute| {
            a.path()
                .get_ident()
                .is_some_and(|i| is(&i.unraw().to_string()))
        });
    *attrs = rest;
    ours
}

fn parse_verb(attr: &Attribute, m: &mut MethodAttrs) -> syn::Result<()> {
    let name = attr
        .path()
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    let verb = VERBS
        .iter()
        .find(|(v, _)| *v == name)
        .map(|(_, up)| *up)
        .unwrap_or("GET");
    if m.verb.is_some() {
        return Err(syn::Error::new_spanned(
            attr,
            "a method has one verb and path; serve another path with another method",
        ));
    }
    m.verb = Some((verb, attr.span()));
    let syn::Meta::List(_) = &attr.meta else {
        return Err(syn::Error::new_spanned(
            attr,
            format!("give the path: #[{name}(\"/users/{{id}}\")]"),
        ));
    };
    attr.parse_args_with(|input: ParseStream| {
        let path: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("the path comes first: #[{name}(\"/users/{{id}}\", ...)]"),
            )
        })?;
        m.path = Some(path);
        while !input.is_empty() {
            input.parse::<syn::Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<syn::Token![=]>()?;
            match key.to_string().as_str() {
                "consumes" | "produces" => {
                    let lit: LitStr = input.parse()?;
                    let types = media_types(&lit)?;
                    if key == "consumes" {
                        m.consumes.extend(types);
                    } else {
                        m.produces.extend(types);
                    }
                }
                "status" => {
                    let lit: LitInt = input.parse()?;
                    let code: u16 = lit.base10_parse()?;
                    if !(100..=599).contains(&code) {
                        return Err(syn::Error::new(
                            lit.span(),
                            "an HTTP status is between 100 and 599",
                        ));
                    }
                    m.status = Some(code);
                }
                "header" => {
                    let lit: LitStr = input.parse()?;
                    let value = lit.value();
                    let Some((n, v)) = value.split_once(':') else {
                        return Err(syn::Error::new(
                            lit.span(),
                            "write the header as \"Name: value\", e.g. header = \"Cache-Control: no-cache\"",
                        ));
                    };
                    let n = n.trim();
                    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b)) {
                        return Err(syn::Error::new(lit.span(), format!("`{n}` is not a header name")));
                    }
                    m.headers.push((n.to_owned(), v.trim().to_owned()));
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown option `{other}` of #[{name}]: expected `consumes = \"...\"`, `produces = \"...\"`, `status = 201` or `header = \"Name: value\"`"),
                    ))
                }
            }
        }
        Ok(())
    })
}

fn media_types(lit: &LitStr) -> syn::Result<Vec<String>> {
    let types: Vec<String> = lit
        .value()
        .split(',')
        .map(|t| t.trim().to_ascii_lowercase())
        .collect();
    for t in &types {
        let ok = t.split_once('/').is_some_and(|(a, b)| {
            !a.is_empty() && !b.is_empty() && !t.contains(char::is_whitespace)
        });
        if !ok {
            return Err(syn::Error::new(
                lit.span(),
                format!("`{t}` is not a media type such as `application/json` (several: \"text/plain, application/json\")"),
            ));
        }
    }
    Ok(types)
}

fn parse_place(attr: &Attribute) -> syn::Result<ParamAttrs> {
    let place = attr
        .path()
        .get_ident()
        .and_then(|i| PLACES.iter().find(|p| i == *p))
        .copied()
        .unwrap_or("query");
    let mut p = ParamAttrs {
        place,
        span: attr.span(),
        name: None,
        default: None,
    };
    if let syn::Meta::List(_) = &attr.meta {
        attr.parse_args_with(|input: ParseStream| {
            if input.peek(LitStr) {
                p.name = Some(input.parse()?);
                if !input.is_empty() {
                    input.parse::<syn::Token![,]>()?;
                }
            }
            while !input.is_empty() {
                let key: Ident = input.parse()?;
                input.parse::<syn::Token![=]>()?;
                let lit: LitStr = input.parse()?;
                match key.to_string().as_str() {
                    "name" if p.name.is_none() => p.name = Some(lit),
                    "default" => p.default = Some(lit),
                    other => {
                        return Err(syn::Error::new(
                            key.span(),
                            format!("unknown option `{other}` of #[{place}]: expected #[{place}(\"name\")] or #[{place}(\"name\", default = \"...\")]"),
                        ))
                    }
                }
                if !input.is_empty() {
                    input.parse::<syn::Token![,]>()?;
                }
            }
            Ok(())
        })?;
    }
    if place == "body" && (p.name.is_some() || p.default.is_some()) {
        return Err(syn::Error::new_spanned(
            attr,
            "#[body] takes the whole request body: it has no name or default",
        ));
    }
    if place == "path" && p.default.is_some() {
        return Err(syn::Error::new_spanned(
            attr,
            "a path variable is always there: it has no default",
        ));
    }
    Ok(p)
}

/// The name of the `static` holding `trait_ident`'s mapping.
pub fn static_ident(trait_ident: &Ident) -> Ident {
    format_ident!(
        "__DUBBO_REST_{}",
        trait_ident.unraw().to_string().to_uppercase()
    )
}

/// One variable of a path template: its name and where it is written.
fn template_vars(path: &LitStr) -> syn::Result<Vec<String>> {
    let text = path.value();
    let err = |m: String| syn::Error::new(path.span(), m);
    if !text.starts_with('/') {
        return Err(err(format!(
            "a path starts with `/`: write \"/{}\"",
            text.trim_start_matches('/')
        )));
    }
    let mut vars = Vec::new();
    let segments: Vec<&str> = text.split('/').skip(1).collect();
    for (i, seg) in segments.iter().enumerate() {
        let mut rest = *seg;
        while let Some(open) = rest.find('{') {
            // A regex may hold braces of its own (`{n:\d{2}}`): find the matching close.
            let mut depth = 0usize;
            let mut close = None;
            for (j, c) in rest[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(open + j);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(close) = close else {
                return Err(err(format!(
                    "`{{` without `}}` in the path segment `{seg}`"
                )));
            };
            let inner = &rest[open + 1..close];
            let (name, regex) = match inner.split_once(':') {
                Some((n, r)) => (n, Some(r)),
                None => (inner, None),
            };
            let (name, rest_capture) = match name.strip_prefix('*') {
                Some(n) => (n, true),
                None => (name, false),
            };
            if rest_capture
                && (i + 1 != segments.len()
                    || regex.is_some()
                    || *seg != rest[open..=close].to_string())
            {
                return Err(err(format!(
                    "`{{*{name}}}` takes the rest of the path: it is the whole last segment"
                )));
            }
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
            {
                return Err(err(format!(
                    "`{{{inner}}}`: a path variable is `{{name}}` or `{{name:regex}}`"
                )));
            }
            if regex.is_some_and(str::is_empty) {
                return Err(err(format!("`{{{inner}}}` has an empty regex")));
            }
            if vars.iter().any(|v| v == name) {
                return Err(err(format!("the path variable `{name}` appears twice")));
            }
            vars.push(name.to_owned());
            rest = &rest[close + 1..];
        }
        if rest.contains('}') {
            return Err(err(format!(
                "`}}` without `{{` in the path segment `{seg}`"
            )));
        }
    }
    Ok(vars)
}

fn last_ident(ty: &Type) -> Option<(String, &syn::PathArguments)> {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| (s.ident.unraw().to_string(), &s.arguments)),
        Type::Group(g) => last_ident(&g.elem),
        Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

/// `Some(T)` when `ty` is `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let (name, args) = last_ident(ty)?;
    if name != "Option" {
        return None;
    }
    match args {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

fn is_simple(ty: &Type) -> bool {
    let ty = option_inner(ty).unwrap_or(ty);
    last_ident(ty).is_some_and(|(n, _)| SIMPLE.contains(&n.as_str()))
}

fn type_text(ty: &Type) -> String {
    ty.to_token_stream().to_string().replace(' ', "")
}

/// Checks the attributes against the parsed methods and writes the `static` mapping.
pub fn expand(service: &Service, attrs: RestAttrs) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let krate = &service.krate;
    let core = quote!(#krate::core);
    let hessian = quote!(#krate::hessian2);
    let mut attrs = attrs;
    // Java names shared by several methods of the default mapping (overloads), which it
    // tells apart by a `~` suffix.
    let unmapped: Vec<String> = service
        .methods
        .iter()
        .filter(|m| {
            attrs
                .methods
                .get(&m.ident.unraw().to_string())
                .is_none_or(|a| a.verb.is_none())
        })
        .map(|m| m.java_name.clone())
        .collect();
    let service_cors = attrs.service_cors.take();
    if let Some(c) = &service_cors {
        let mapped = attrs.methods.values().any(|a| a.verb.is_some());
        if !mapped {
            errors.push(syn::Error::new(
                c.span,
                "#[cross_origin] on the trait applies to its mapped methods, and this service has none: map a method with #[get(\"/...\")] (or #[post], #[put]...), or remove it (the default mapping /{interface}/{method} takes the server's triple.rest.cors settings)",
            ));
        }
    }
    let mut methods = Vec::new();
    for m in &service.methods {
        let mut a = attrs
            .methods
            .remove(&m.ident.unraw().to_string())
            .unwrap_or_default();
        if a.verb.is_some() {
            // The trait's settings, under the method's own.
            a.cors = match (a.cors.take(), &service_cors) {
                (Some(own), Some(theirs)) => match own.over(theirs) {
                    Ok(merged) => Some(merged),
                    Err(e) => {
                        errors.push(e);
                        None
                    }
                },
                (own, theirs) => own.or_else(|| theirs.clone()),
            };
        }
        let overloaded =
            a.verb.is_none() && unmapped.iter().filter(|n| **n == m.java_name).count() > 1;
        methods.push(method(m, a, overloaded, &core, &hessian, &mut errors));
    }
    for m in &service.streams {
        if let Some(a) = attrs.methods.remove(&m.ident.unraw().to_string()) {
            let spans = a.verb.map(|(_, s)| s).into_iter();
            for span in spans.chain(a.params.values().map(|p| p.span)) {
                errors.push(syn::Error::new(
                    span,
                    format!("`{}` streams: HTTP mappings are for unary methods (a stream is served over Triple's gRPC form only); remove the attribute", m.ident),
                ));
            }
        }
    }
    errors.finish()?;
    let ident = static_ident(&service.item.ident);
    let interface = &service.interface;
    Ok(quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #ident: #core::rest::RestService = #core::rest::RestService {
            interface: #interface,
            methods: &[#(#methods),*],
        };
    })
}

/// The `fn() -> Cow<'static, str>` naming a parameter's Java type, as its signature does.
fn java_type_fn(p: &Param, hessian: &TokenStream) -> TokenStream {
    match &p.java_type {
        Some(lit) => quote!({
            fn java_type() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#lit)
            }
            java_type
        }),
        None => {
            let ty = &p.ty;
            quote_spanned!(ty.span()=> <#ty as #hessian::java::JavaType>::java_type_name)
        }
    }
}

/// The `Option<SchemaFn>` of a parameter or result: its type's `RestSchema` when it has one,
/// else the schema of its written name (`SchemaProbe`'s choice).
fn schema_fn(ty: &Type, core: &TokenStream) -> TokenStream {
    let text = type_text(ty);
    quote_spanned! {ty.span()=>
        ::std::option::Option::Some({
            #[allow(clippy::needless_borrow)]
            const SCHEMA: #core::rest::SchemaFn = |schemas| {
                #[allow(unused_imports)]
                use #core::rest_schema::{BySchema as _, ByTypeName as _};
                (&#core::rest_schema::SchemaProbe::<#ty>::new()).rest_schema_of(schemas, #text)
            };
            SCHEMA
        })
    }
}

fn method(
    m: &Method,
    a: MethodAttrs,
    overloaded: bool,
    core: &TokenStream,
    hessian: &TokenStream,
    errors: &mut Errors,
) -> TokenStream {
    let java_name = &m.java_name;
    let returns = type_text(&m.ok_ty);
    let returns_schema = schema_fn(&m.ok_ty, core);
    let Some((verb, _)) = a.verb else {
        // The default mapping; parameter attributes need a verb and path.
        for p in a.params.values() {
            errors.push(syn::Error::new(
                p.span,
                format!("#[{}] needs a mapped method: put #[get(\"/...\")] (or #[post], #[put]...) on `{}`, or remove it to keep the default mapping /{{interface}}/{java_name}", p.place, m.ident),
            ));
        }
        if let Some(c) = &a.cors {
            errors.push(syn::Error::new(
                c.span,
                format!("#[cross_origin] needs a mapped method: put #[get(\"/...\")] (or #[post], #[put]...) on `{}`; the default mapping /{{interface}}/{java_name} takes the server's triple.rest.cors settings", m.ident),
            ));
        }
        let params = m.params.iter().map(|p| {
            let name = lower_camel_case(&p.ident.unraw().to_string());
            let required = option_inner(&p.ty).is_none();
            let ty = type_text(&p.ty);
            let schema = schema_fn(&p.ty, core);
            let java_type = java_type_fn(p, hessian);
            quote!(#core::rest::RestParam {
                name: #name,
                source: #core::rest::ParamSource::Query,
                default: ::std::option::Option::None,
                required: #required,
                rust_type: #ty,
                schema: #schema,
                java_type: #java_type,
            })
        });
        return quote!(#core::rest::RestMethod {
            java_name: #java_name,
            verb: ::std::option::Option::None,
            path: "",
            params: &[#(#params),*],
            consumes: &[],
            produces: &[],
            status: 0,
            headers: &[],
            returns: #returns,
            returns_schema: #returns_schema,
            cors: ::std::option::Option::None,
            overloaded: #overloaded,
        });
    };
    let path = a
        .path
        .unwrap_or_else(|| LitStr::new("/", Span::call_site()));
    let vars = match template_vars(&path) {
        Ok(v) => v,
        Err(e) => {
            errors.push(e);
            Vec::new()
        }
    };
    let mut used = Vec::new();
    let mut bodies = 0;
    let mut forms = 0;
    let mut params = Vec::new();
    for p in &m.params {
        let rust_name = p.ident.unraw().to_string();
        let given = a.params.get(&rust_name);
        let place = match given {
            Some(g) => g.place,
            None if vars.contains(&rust_name) || vars.contains(&lower_camel_case(&rust_name)) => {
                "path"
            }
            None if is_simple(&p.ty) => "query",
            None => "body",
        };
        let name = given
            .and_then(|g| g.name.as_ref().map(LitStr::value))
            .unwrap_or_else(|| {
                if place == "path" && vars.contains(&rust_name) {
                    rust_name.clone()
                } else {
                    lower_camel_case(&rust_name)
                }
            });
        let span = given.map_or(p.ident.span(), |g| g.span);
        match place {
            "path" => {
                if vars.contains(&name) {
                    used.push(name.clone());
                } else {
                    errors.push(syn::Error::new(span, format!(
                        "`{name}` is not a variable of the path {:?}: write `{{{name}}}` in the path, or take `{rust_name}` from elsewhere (#[query], #[header]...)",
                        path.value()
                    )));
                }
            }
            "body" => bodies += 1,
            "form" => forms += 1,
            _ => {}
        }
        if place == "body" && bodies == 2 {
            errors.push(syn::Error::new(span, format!(
                "`{}` has more than one body parameter: take one type for the whole body, or mark the others #[query], #[header], #[form]...",
                m.ident
            )));
        }
        let default = given.and_then(|g| g.default.as_ref());
        let required = option_inner(&p.ty).is_none() && default.is_none();
        let default = match default {
            Some(d) => quote!(::std::option::Option::Some(#d)),
            None => quote!(::std::option::Option::None),
        };
        let source = format_ident!(
            "{}",
            match place {
                "path" => "Path",
                "query" => "Query",
                "header" => "Header",
                "cookie" => "Cookie",
                "form" => "Form",
                _ => "Body",
            }
        );
        let ty = type_text(&p.ty);
        let schema = schema_fn(&p.ty, core);
        let java_type = java_type_fn(p, hessian);
        params.push(quote!(#core::rest::RestParam {
            name: #name,
            source: #core::rest::ParamSource::#source,
            default: #default,
            required: #required,
            rust_type: #ty,
            schema: #schema,
            java_type: #java_type,
        }));
    }
    if bodies > 0 && forms > 0 {
        errors.spanned(
            &m.ident,
            format!("`{}` takes both a body and form fields: a form is the body; take the fields with #[form] only", m.ident),
        );
    }
    for v in vars.iter().filter(|v| !used.contains(v)) {
        errors.push(syn::Error::new(
            path.span(),
            format!("the path variable `{{{v}}}` has no parameter: add `#[path] {v}: String` (any type parsed from text), or `#[path(\"{v}\")] other_name: ...`"),
        ));
    }
    let consumes = &a.consumes;
    let produces = &a.produces;
    let status = a.status.unwrap_or(0);
    let headers = a.headers.iter().map(|(n, v)| quote!((#n, #v)));
    let cors = rest_cors::tokens(a.cors.as_ref(), core);
    quote!(#core::rest::RestMethod {
        java_name: #java_name,
        verb: ::std::option::Option::Some(#verb),
        path: #path,
        params: &[#(#params),*],
        consumes: &[#(#consumes),*],
        produces: &[#(#produces),*],
        status: #status,
        headers: &[#(#headers),*],
        returns: #returns,
            returns_schema: #returns_schema,
        cors: #cors,
        overloaded: false,
    })
}
