//! The route table: every mapped method of every service exported with a REST mapping, by
//! verb and path template.

use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::rest::{RestMethod, RestService};
use dubbo_core::{MethodSignature, ServiceKey};

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

/// The routes of one server, replaced as a whole on every change (reads take no lock).
#[derive(Default, Clone)]
pub(crate) struct RestRoutes {
    routes: Arc<ArcSwap<Vec<Arc<Route>>>>,
    /// The mapping of each export, for the default `/{interface}/{method}` form (parameter
    /// names) and the API document.
    services: Arc<ArcSwap<Vec<(ServiceKey, &'static RestService)>>>,
}

impl RestRoutes {
    /// Adds (or replaces) the routes of the export `key`.
    pub(crate) fn register(
        &self,
        key: &ServiceKey,
        service: &'static RestService,
    ) -> Result<(), String> {
        let mut new = Vec::new();
        for method in service.methods.iter().filter(|m| m.is_mapped()) {
            let template = PathTemplate::compile(method.path)
                .map_err(|e| format!("{}.{}: {e}", service.interface, method.java_name))?;
            new.push(Arc::new(Route {
                key: key.clone(),
                method,
                template,
                signature: super::object_signature(method.java_name, method.params.len()),
            }));
        }
        self.routes.rcu(|old| {
            let mut all: Vec<Arc<Route>> = old.iter().filter(|r| r.key != *key).cloned().collect();
            all.extend(new.iter().cloned());
            all.sort_by_key(|r| r.template.specificity);
            all
        });
        self.services.rcu(|old| {
            let mut all: Vec<_> = old.iter().filter(|(k, _)| k != key).cloned().collect();
            all.push((key.clone(), service));
            all
        });
        Ok(())
    }

    /// Every export with a mapping.
    pub(crate) fn services(&self) -> Vec<(ServiceKey, &'static RestService)> {
        self.services.load().to_vec()
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
