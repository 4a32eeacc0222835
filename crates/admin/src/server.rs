//! The router: the API under `/api/v1`, the console pages and their assets, on one port.

use std::sync::Arc;

use axum::routing::{get, post};
use axum::Router;

use crate::state::AdminState;
use crate::{api_catalog as c, api_write as w, auth, console};

/// Every route of the admin.
pub fn router(state: Arc<AdminState>) -> Router {
    Router::new()
        .route("/api/v1/auth/login", post(auth::login))
        .route("/api/v1/auth/logout", post(auth::logout))
        .route("/api/v1/auth/me", get(auth::me))
        .route("/api/v1/catalog", get(c::catalog_status))
        .route("/api/v1/service", get(c::search_services))
        .route("/api/v1/service/{key}", get(c::service_detail))
        .route("/api/v1/service/{key}/methods", get(c::service_methods))
        .route(
            "/api/v1/service/{key}/metrics/range",
            get(c::service_metrics_range),
        )
        .route("/api/v1/applications", get(c::search_applications))
        .route("/api/v1/application/{name}", get(c::application_detail))
        .route("/api/v1/instances", get(c::search_instances))
        .route("/api/v1/instance/{id}", get(c::instance_detail))
        .route("/api/v1/instance/{id}/metrics", get(c::instance_metrics))
        .route(
            "/api/v1/instance/{id}/metrics/range",
            get(c::instance_metrics_range),
        )
        .route("/api/v1/prometheus/sd", get(c::prometheus_sd))
        .route("/api/v1/invoke", post(w::invoke))
        .route(
            "/api/v1/rules/{kind}/{scope}/{target}",
            get(w::get_rule).put(w::put_rule).delete(w::delete_rule),
        )
        .route(
            "/api/v1/rules/{kind}/{scope}/{target}/rollback",
            post(w::rollback_rule),
        )
        .route("/api/v1/audit", get(w::audit))
        .route("/", get(console::home))
        .route("/login", get(console::login_page))
        .route("/service/{key}", get(console::service_page))
        .route("/rules", get(console::rules_page))
        .route("/applications", get(console::list_page))
        .route("/instances", get(console::list_page))
        .route("/application/{name}", get(console::detail_page))
        .route("/instance/{id}", get(console::detail_page))
        .route("/assets/console.js", get(console::script))
        .route("/assets/console.css", get(console::style))
        .fallback(console::not_found)
        .with_state(state)
}
