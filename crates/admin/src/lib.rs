//! `dubbo-admin`: the admin console and HTTP API of dubbo-rs, for Rust and Java providers
//! alike. It reads any registry the project supports (ZooKeeper, etcd, the embedded file
//! registry) in both discovery models, shows services, applications and instances with their
//! published definitions, calls methods generically over dubbo:// or tri://, edits governance
//! rules (validated, the previous version kept for rollback), lists every instance's QoS
//! metrics address for Prometheus, and serves a console in the browser on the same port.
//!
//! Every request needs a session from `POST /api/v1/auth/login` except the login itself, the
//! login page, the assets and `/api/v1/prometheus/sd`; calls and rule writes need the admin
//! role and are written to the audit log.

pub mod api_catalog;
pub mod api_write;
pub mod audit;
pub mod auth;
pub mod catalog;
pub mod catalog_index;
pub mod catalog_live;
pub mod catalog_read;
pub mod console;
pub mod consumers;
pub mod data_dir;
pub mod error;
pub mod html;
pub mod interner;
pub mod page;
pub mod ports;
pub mod prometheus_range;
pub mod provider_urls;
pub mod qos_metrics;
pub mod rules;
pub mod sd;
pub mod server;
pub mod session;
pub mod settings;
pub mod sources;
pub mod state;
pub mod users;

pub use error::AdminError;
pub use settings::Settings;
pub use state::AdminState;
