//! The route table: every mapped method of every service exported with a REST mapping, by
//! verb and path template, and every export's methods reached by the default form
//! `/{interface}/{method}`, by Java name. Everything a call carries that does not depend on
//! the request (its `MethodSignature`, an overload's `~` suffix) is made here, once.

use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::rest::{RestCors, RestMethod, RestService};
use dubbo_core::{MethodSignature, ServiceKey};

use crate::cors::{route_policy, CorsPolicy, CorsSettings};

use super::template::PathTemplate;

/// One mapped method.
#[derive(Debug)]
pub(crate) struct Route {
    /// The export it belongs to.
    pub(crate) key: ServiceKey,
    pub(crate) method: &'static RestMethod,
    pub(crate) template: PathTemplate,
    /// The signature its calls carry, made once: building it per call cost 1,600 instructions
    /// of a `GET /users/7` (with the header names read by `HeaderName`, −8.9 %).
    pub(crate) signature: Arc<MethodSignature>,
    /// The CORS policy of the route: the server's, or made at registration from the method's
    /// `#[cross_origin]` over it; `None`: CORS off.
    pub(crate) cors: Option<Arc<CorsPolicy>>,
}

/// Path variables by name, percent-decoded.
pub(crate) type PathVars = Vec<(String, String)>;

/// What a request's verb and path find.
pub(crate) enum Lookup {
    /// Routes whose template and verb match (most specific first), with the path variables
    /// of each.
    Found(Vec<(Arc<Route>, PathVars)>),
    /// The path matches, the verb does not: the verbs that would.
    WrongVerb(Vec<&'static str>),
    /// No template matches.
    None,
}

/// A method's `#[cross_origin]` as settings.
fn settings(c: &RestCors) -> CorsSettings {
    let list = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
    CorsSettings {
        allowed_origins: list(c.origins),
        allowed_methods: list(c.methods),
        allowed_headers: list(c.allowed_headers),
        exposed_headers: list(c.exposed_headers),
        allow_credentials: c.allow_credentials,
        max_age: c.max_age,
    }
}

/// One method reached by the default form `/{interface}/{method}`.
#[derive(Debug)]
pub(crate) struct DefaultRoute {
    pub(crate) method: &'static RestMethod,
    /// Its `~` suffix of parameter types (`ll` for `add(long, long)`); `None` without
    /// parameters.
    pub(crate) suffix: Option<String>,
    /// Whether another default-mapped method of the export shares its Java name.
    pub(crate) overloaded: bool,
    /// The signature its calls carry, made once (1,600 instructions per call otherwise): an
    /// overload's Java parameter types, so that the service's dispatch takes the overload
    /// chosen; else `java.lang.Object` for each parameter (resolved by name and arity).
    pub(crate) signature: Arc<MethodSignature>,
}

impl DefaultRoute {
    /// The entry of `method`; `overloaded` when its Java name has other default-mapped
    /// methods in the export.
    pub(crate) fn new(method: &'static RestMethod, overloaded: bool) -> Self {
        let signature = if overloaded {
            let types: Vec<_> = method.params.iter().map(|p| (p.java_type)()).collect();
            Arc::new(MethodSignature::new(
                method.java_name,
                &types,
                "java.lang.Object",
            ))
        } else {
            super::object_signature(method.java_name, method.params.len())
        };
        DefaultRoute {
            method,
            suffix: super::overload::signature(method),
            overloaded,
            signature,
        }
    }

    /// The signature of a call with `arity` arguments: the one made at registration, unless
    /// the request gave a count the method does not take (then its dispatch says so).
    pub(crate) fn signature_for(&self, arity: usize) -> Arc<MethodSignature> {
        if self.overloaded || self.signature.parameter_types().len() == arity {
            self.signature.clone()
        } else {
            super::object_signature(self.method.java_name, arity)
        }
    }
}

/// One export with a mapping.
#[derive(Debug)]
pub(crate) struct RestExport {
    pub(crate) key: ServiceKey,
    pub(crate) service: &'static RestService,
    /// The default-mapped methods by Java name, overloads in declaration order.
    defaults: HashMap<&'static str, Vec<DefaultRoute>>,
}

impl RestExport {
    fn new(key: &ServiceKey, service: &'static RestService) -> Self {
        let mut defaults: HashMap<&'static str, Vec<&'static RestMethod>> = HashMap::new();
        for m in service.methods.iter().filter(|m| !m.is_mapped()) {
            defaults.entry(m.java_name).or_default().push(m);
        }
        let defaults = defaults
            .into_iter()
            .map(|(name, ms)| {
                let overloaded = ms.len() > 1;
                let routes = ms
                    .into_iter()
                    .map(|m| DefaultRoute::new(m, overloaded))
                    .collect();
                (name, routes)
            })
            .collect();
        RestExport {
            key: key.clone(),
            service,
            defaults,
        }
    }

    /// The default-mapped methods named `java_name` (several: overloads); empty when none.
    pub(crate) fn defaults(&self, java_name: &str) -> &[DefaultRoute] {
        self.defaults.get(java_name).map_or(&[], Vec::as_slice)
    }
}

/// Every export with a mapping, as read for one request.
pub(crate) type Exports = arc_swap::Guard<Arc<Vec<Arc<RestExport>>>>;

/// The routes of one server, replaced as a whole on every change (reads take no lock).
#[derive(Default, Clone)]
pub(crate) struct RestRoutes {
    routes: Arc<ArcSwap<Vec<Arc<Route>>>>,
    /// Each export with a mapping, for the default `/{interface}/{method}` form and the API
    /// document.
    exports: Arc<ArcSwap<Vec<Arc<RestExport>>>>,
}

impl RestRoutes {
    /// Adds (or replaces) the routes of the export `key`; `cors` is the server's CORS
    /// policy. The error names a template that does not compile, or a method whose
    /// `#[cross_origin]` settings cannot be applied over the server's.
    pub(crate) fn register(
        &self,
        key: &ServiceKey,
        service: &'static RestService,
        cors: Option<&Arc<CorsPolicy>>,
    ) -> Result<(), String> {
        let mut new = Vec::new();
        for method in service.methods.iter().filter(|m| m.is_mapped()) {
            let template = PathTemplate::compile(method.path)
                .map_err(|e| format!("{}.{}: {e}", service.interface, method.java_name))?;
            let cors = match method.cors {
                Some(own) => Some(
                    route_policy(cors.map(|p| &**p), &settings(own), method.client_verb())
                        .map_err(|e| {
                            format!(
                                "{}.{}: #[cross_origin] over the server's triple.rest.cors: {e}",
                                service.interface, method.java_name
                            )
                        })?,
                ),
                None => cors.cloned(),
            };
            new.push(Arc::new(Route {
                key: key.clone(),
                method,
                template,
                signature: super::object_signature(method.java_name, method.params.len()),
                cors,
            }));
        }
        self.routes.rcu(|old| {
            let mut all: Vec<Arc<Route>> = old.iter().filter(|r| r.key != *key).cloned().collect();
            all.extend(new.iter().cloned());
            all.sort_by_key(|r| r.template.specificity);
            all
        });
        let export = Arc::new(RestExport::new(key, service));
        self.exports.rcu(|old| {
            let mut all: Vec<_> = old.iter().filter(|e| e.key != *key).cloned().collect();
            all.push(export.clone());
            all
        });
        Ok(())
    }

    /// Every export with a mapping, borrowed (nothing is copied).
    pub(crate) fn exports(&self) -> Exports {
        self.exports.load()
    }

    /// The routes `verb` and `path` reach; `HEAD` reaches `GET` routes too.
    pub(crate) fn find(&self, verb: &str, path: &str) -> Lookup {
        let routes = self.routes.load();
        let mut found = Vec::new();
        let mut other_verbs = Vec::new();
        for r in routes.iter() {
            let Some(vars) = r.template.matches(path) else {
                continue;
            };
            let route_verb = r.method.verb.unwrap_or("");
            if route_verb == verb || (verb == "HEAD" && route_verb == "GET") {
                found.push((r.clone(), vars));
            } else if !other_verbs.contains(&route_verb) {
                other_verbs.push(route_verb);
            }
        }
        if !found.is_empty() {
            Lookup::Found(found)
        } else if !other_verbs.is_empty() {
            Lookup::WrongVerb(other_verbs)
        } else {
            Lookup::None
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use dubbo_core::rest::{ParamSource, RestParam};

    fn types(s: &MethodSignature) -> Vec<&str> {
        s.parameter_types().iter().map(|t| &**t).collect()
    }
    use std::borrow::Cow;

    fn long() -> Cow<'static, str> {
        "long".into()
    }
    fn string() -> Cow<'static, str> {
        "java.lang.String".into()
    }

    const fn param(name: &'static str, java_type: fn() -> Cow<'static, str>) -> RestParam {
        RestParam {
            name,
            source: ParamSource::Query,
            default: None,
            required: true,
            rust_type: "",
            schema: None,
            java_type,
        }
    }

    const fn method(
        java_name: &'static str,
        verb: Option<&'static str>,
        path: &'static str,
        params: &'static [RestParam],
    ) -> RestMethod {
        RestMethod {
            java_name,
            verb,
            path,
            params,
            consumes: &[],
            produces: &[],
            status: 0,
            headers: &[],
            returns: "",
            returns_schema: None,
            cors: None,
            overloaded: false,
        }
    }

    static CALC: RestService = RestService {
        interface: "demo.Calc",
        methods: &[
            method("add", None, "", &[param("a", long), param("b", long)]),
            method("add", None, "", &[param("a", string), param("b", string)]),
            method("twice", None, "", &[param("s", string)]),
            method("get", Some("GET"), "/calc/{n}", &[param("n", long)]),
        ],
    };

    #[test]
    fn default_routes_are_made_once_at_registration() {
        let routes = RestRoutes::default();
        let key = ServiceKey::new("demo.Calc", None, Some("1.0"));
        routes.register(&key, &CALC, None).unwrap();
        let exports = routes.exports();
        let [export] = exports.as_slice() else {
            panic!("one export, not {}", exports.len());
        };
        assert_eq!(export.key, key);
        // Overloads: each with its suffix and its Java parameter types.
        let add = export.defaults("add");
        assert_eq!(add.len(), 2);
        assert_eq!(add[0].suffix.as_deref(), Some("ll"));
        assert_eq!(add[1].suffix.as_deref(), Some("SS"));
        assert_eq!(types(&add[0].signature), ["long", "long"]);
        assert_eq!(
            types(&add[1].signature),
            ["java.lang.String", "java.lang.String"]
        );
        // A name of its own: Object-typed, found by name and arity.
        let twice = export.defaults("twice");
        assert_eq!(twice.len(), 1);
        assert!(!twice[0].overloaded);
        assert_eq!(types(&twice[0].signature), ["java.lang.Object"]);
        // Mapped methods and unknown names have no default entry.
        assert!(export.defaults("get").is_empty());
        assert!(export.defaults("nope").is_empty());
        // A call takes the registered signature itself, not a copy made for it; a request
        // with another argument count gets one of its own.
        let a = twice[0].signature_for(1);
        let b = routes.exports()[0].defaults("twice")[0].signature_for(1);
        assert!(Arc::ptr_eq(&a, &b) && Arc::ptr_eq(&a, &twice[0].signature));
        assert_eq!(twice[0].signature_for(2).parameter_types().len(), 2);
        // An overload keeps its types whatever the request's count.
        assert!(Arc::ptr_eq(&add[0].signature_for(3), &add[0].signature));
    }

    #[test]
    fn registering_again_replaces_the_export() {
        let routes = RestRoutes::default();
        let key = ServiceKey::new("demo.Calc", None, None);
        for _ in 0..2 {
            routes.register(&key, &CALC, None).unwrap();
        }
        assert_eq!(routes.exports().len(), 1);
        let other = ServiceKey::new("demo.Calc", Some("g"), None);
        routes.register(&other, &CALC, None).unwrap();
        assert_eq!(routes.exports().len(), 2);
    }
}
