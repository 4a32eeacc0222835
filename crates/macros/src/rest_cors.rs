//! `#[cross_origin(...)]` on a mapped method (Spring's `@CrossOrigin`): the method's own CORS
//! settings, each replacing the server's `triple.rest.cors` setting of the same name for its
//! route. Checked here, so a value no request could match does not compile, and written out
//! as a `RestCors`.
//!
//! ```text
//! #[get("/users/{id}")]
//! #[cross_origin(origins = "https://app.example, http://localhost:[*]", methods = "GET, PUT",
//!     allowed_headers = "X-Token", exposed_headers = "Location", allow_credentials = true,
//!     max_age = 600)]
//! ```
//!
//! A bare `#[cross_origin]` turns CORS on for the route with the server's settings (or Java's
//! defaults: any origin, the route's verb, any header, 1800 s).
//!
//! On the trait (Spring's class-level `@CrossOrigin`) it gives every mapped method those
//! settings; a method's own attribute replaces them setting by setting ([`CorsAttr::over`]).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Lit, LitStr};

/// The attribute's name.
pub const NAME: &str = "cross_origin";

/// The HTTP methods `methods` may name (besides `*`).
const METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
];

const OPTIONS: &str = "expected `origins = \"https://app.example\"`, `methods = \"GET, POST\"`, \
`allowed_headers = \"X-Token\"`, `exposed_headers = \"Location\"`, `allow_credentials = true` or \
`max_age = 600`";

/// One method's (or the trait's) `#[cross_origin(...)]`, checked.
#[derive(Clone)]
pub struct CorsAttr {
    /// The attribute, for messages about the method it sits on.
    pub span: Span,
    origins: Vec<String>,
    methods: Vec<String>,
    allowed_headers: Vec<String>,
    exposed_headers: Vec<String>,
    allow_credentials: Option<bool>,
    max_age: Option<u64>,
}

/// Parses and checks `#[cross_origin]` or `#[cross_origin(key = value, ...)]`.
pub fn parse(attr: &Attribute) -> syn::Result<CorsAttr> {
    let mut c = CorsAttr {
        span: attr.span(),
        origins: Vec::new(),
        methods: Vec::new(),
        allowed_headers: Vec::new(),
        exposed_headers: Vec::new(),
        allow_credentials: None,
        max_age: None,
    };
    let syn::Meta::List(_) = &attr.meta else {
        if let syn::Meta::NameValue(_) = &attr.meta {
            return Err(syn::Error::new_spanned(
                attr,
                format!("write #[cross_origin] or #[cross_origin(key = value, ...)]: {OPTIONS}"),
            ));
        }
        return Ok(c);
    };
    let mut credentials_span = None;
    let mut seen: Vec<String> = Vec::new();
    attr.parse_args_with(|input: ParseStream| {
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            let name = key.to_string();
            input.parse::<syn::Token![=]>().map_err(|e| {
                syn::Error::new(e.span(), format!("write `{name} = ...`: {OPTIONS}"))
            })?;
            let lit: Lit = input.parse()?;
            if seen.contains(&name) {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{name}` is given twice: give it once (lists are comma-separated, \"a, b\")"),
                ));
            }
            seen.push(name.clone());
            match name.as_str() {
                "origins" => c.origins = origins(&text(&lit, &name, "\"https://app.example\"")?)?,
                "methods" => c.methods = methods(&text(&lit, &name, "\"GET, POST\"")?)?,
                "allowed_headers" => {
                    c.allowed_headers = headers(&text(&lit, &name, "\"X-Token, Content-Type\"")?)?
                }
                "exposed_headers" => {
                    c.exposed_headers = headers(&text(&lit, &name, "\"Location\"")?)?;
                    if c.exposed_headers.iter().any(|h| h == "*") {
                        return Err(syn::Error::new(
                            lit.span(),
                            "exposed_headers names the headers shown to the page: list them (\"Location, X-Total\"), `*` is not one",
                        ));
                    }
                }
                "allow_credentials" => {
                    let Lit::Bool(b) = &lit else {
                        return Err(syn::Error::new(
                            lit.span(),
                            "write `allow_credentials = true` (or `false`), without quotes",
                        ));
                    };
                    c.allow_credentials = Some(b.value);
                    credentials_span = Some(lit.span());
                }
                "max_age" => {
                    let Lit::Int(n) = &lit else {
                        return Err(syn::Error::new(
                            lit.span(),
                            "write `max_age = 600` (seconds, a number without quotes)",
                        ));
                    };
                    c.max_age = Some(n.base10_parse().map_err(|_| {
                        syn::Error::new(n.span(), "max_age is a number of seconds, 0 or more: `max_age = 600`")
                    })?);
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown option `{other}` of #[cross_origin]: {OPTIONS}"),
                    ))
                }
            }
            if !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
            }
        }
        Ok(())
    })?;
    if let (Some(true), Some(span)) = (c.allow_credentials, credentials_span) {
        if c.origins.iter().any(|o| o == "*") {
            return Err(syn::Error::new(
                span,
                "browsers refuse credentials from any origin (`*`): list the origins, e.g. origins = \"https://app.example\"",
            ));
        }
    }
    Ok(c)
}

impl CorsAttr {
    /// This (a method's) attribute over the trait's: each setting this one gives replaces the
    /// trait's, the others are the trait's. Refused when the result would offer credentials to
    /// any origin, which browsers refuse.
    pub fn over(&self, service: &CorsAttr) -> syn::Result<CorsAttr> {
        let pick = |own: &Vec<String>, theirs: &Vec<String>| {
            if own.is_empty() {
                theirs.clone()
            } else {
                own.clone()
            }
        };
        let merged = CorsAttr {
            span: self.span,
            origins: pick(&self.origins, &service.origins),
            methods: pick(&self.methods, &service.methods),
            allowed_headers: pick(&self.allowed_headers, &service.allowed_headers),
            exposed_headers: pick(&self.exposed_headers, &service.exposed_headers),
            allow_credentials: self.allow_credentials.or(service.allow_credentials),
            max_age: self.max_age.or(service.max_age),
        };
        if merged.allow_credentials == Some(true) && merged.origins.iter().any(|o| o == "*") {
            let (credentials, origins) = if self.allow_credentials == Some(true) {
                ("here", "the trait's")
            } else {
                ("the trait's", "here")
            };
            return Err(syn::Error::new(
                self.span,
                format!("browsers refuse credentials from any origin: `allow_credentials = true` ({credentials}) with `origins = \"*\"` ({origins}); list the origins on this method, e.g. origins = \"https://app.example\""),
            ));
        }
        Ok(merged)
    }
}

/// A string value's text, or an error showing `example`.
fn text(lit: &Lit, key: &str, example: &str) -> syn::Result<LitStr> {
    match lit {
        Lit::Str(s) => Ok(s.clone()),
        _ => Err(syn::Error::new(
            lit.span(),
            format!("`{key}` is a string of comma-separated values: `{key} = {example}`"),
        )),
    }
}

/// The comma-separated values of `lit`, trimmed; an empty one is an error.
fn list(lit: &LitStr, what: &str, example: &str) -> syn::Result<Vec<String>> {
    let values: Vec<String> = lit
        .value()
        .split(',')
        .map(|v| v.trim().to_owned())
        .collect();
    if values.iter().any(String::is_empty) {
        return Err(syn::Error::new(
            lit.span(),
            format!("an empty {what} in the list: write {example} (comma-separated)"),
        ));
    }
    Ok(values)
}

fn origins(lit: &LitStr) -> syn::Result<Vec<String>> {
    let values = list(lit, "origin", "\"https://a.example, https://b.example\"")?;
    for o in values.iter().filter(|o| *o != "*") {
        let ports_ok = match o.strip_suffix(']').and_then(|o| o.rsplit_once(":[")) {
            Some((_, "*")) | None => true,
            Some((_, ports)) => ports
                .split(',')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())),
        };
        let scheme_ok = o
            .split_once("://")
            .is_some_and(|(s, rest)| !s.is_empty() && !rest.is_empty());
        if !scheme_ok || !ports_ok || o.chars().any(char::is_whitespace) {
            return Err(syn::Error::new(
                lit.span(),
                format!("`{o}` is not an origin: write \"*\", an origin (\"https://app.example\") or a pattern (\"https://*.example.org\", \"http://localhost:[8080,8081]\", \"http://localhost:[*]\")"),
            ));
        }
    }
    Ok(values
        .into_iter()
        .map(|o| o.trim_end_matches('/').to_owned())
        .collect())
}

fn methods(lit: &LitStr) -> syn::Result<Vec<String>> {
    let values: Vec<String> = list(lit, "method", "\"GET, POST\"")?
        .into_iter()
        .map(|m| m.to_ascii_uppercase())
        .collect();
    if let Some(m) = values
        .iter()
        .find(|m| *m != "*" && !METHODS.contains(&m.as_str()))
    {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`{m}` is not an HTTP method: write some of {} (\"GET, POST\"), or \"*\"",
                METHODS.join(", ")
            ),
        ));
    }
    Ok(values)
}

fn headers(lit: &LitStr) -> syn::Result<Vec<String>> {
    let values = list(lit, "header", "\"X-Token, Content-Type\"")?;
    let token = |h: &str| {
        h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    if let Some(h) = values.iter().find(|h| *h != "*" && !token(h)) {
        return Err(syn::Error::new(
            lit.span(),
            format!("`{h}` is not a header name: write names such as \"X-Token, Content-Type\", or \"*\""),
        ));
    }
    Ok(values)
}

/// The `cors` field of a `RestMethod`: `None`, or the settings as a `RestCors`.
pub fn tokens(c: Option<&CorsAttr>, core: &TokenStream) -> TokenStream {
    let Some(c) = c else {
        return quote!(::std::option::Option::None);
    };
    let (origins, methods, allowed, exposed) = (
        &c.origins,
        &c.methods,
        &c.allowed_headers,
        &c.exposed_headers,
    );
    let credentials = match c.allow_credentials {
        Some(b) => quote!(::std::option::Option::Some(#b)),
        None => quote!(::std::option::Option::None),
    };
    let max_age = match c.max_age {
        Some(n) => quote!(::std::option::Option::Some(#n)),
        None => quote!(::std::option::Option::None),
    };
    quote!(::std::option::Option::Some(&#core::rest::RestCors {
        origins: &[#(#origins),*],
        methods: &[#(#methods),*],
        allowed_headers: &[#(#allowed),*],
        exposed_headers: &[#(#exposed),*],
        allow_credentials: #credentials,
        max_age: #max_age,
    }))
}
