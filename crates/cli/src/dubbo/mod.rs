//! `dubbo`: the operator's command-line tool, grpcurl-class and registry-aware.
//!
//! ```text
//! dubbo ls        [services|apps|instances] --registry URL            [-o table|json]
//! dubbo ls        --url tri://HOST:PORT                   (gRPC reflection)
//! dubbo ls        --url dubbo://HOST:PORT --app APP       (its MetadataService)
//! dubbo describe  SERVICE --registry URL [--version V] [--group G] [--app A]
//! dubbo describe  SERVICE --url tri://HOST:PORT           (gRPC reflection)
//! dubbo call      TARGET SERVICE.METHOD ['JSON args'] [--types T,...] [--attachment K=V]...
//!                 (an IDL method of a tri:// target: protobuf JSON through reflection)
//!                 [--version V] [--group G] [--timeout MS] [--protocol dubbo|tri]
//! dubbo rules     get|set|delete|watch --registry URL [--group G] KEY  (or --app/--service with --kind)
//! dubbo completions bash|zsh|fish|elvish|powershell
//! ```
//!
//! `ls`, `describe` and `call` take `--tls-ca FILE [--tls-cert FILE --tls-key FILE]`.
//!
//! Errors print as `dubbo: error [CODE]: message` and exit 1; usage mistakes exit 2.

pub mod app_level;
pub mod call;
pub mod cli;
pub mod connect;
pub mod describe;
pub mod error;
pub mod exported;
pub mod idl;
pub mod instance_metadata;
pub mod ls;
pub mod output;
pub mod reflection;
pub mod rules;
pub mod schema;
pub mod tls;

pub use error::CliError;
