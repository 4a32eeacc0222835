//! A provider that registers in a registry and serves until SIGTERM / Ctrl-C. Run it, then
//! `greeter_consumer` from another terminal: they find each other through the registry.
//!
//!     cargo run --release -p dubbo-rs --example greeter_provider
//!
//! `DUBBO_REGISTRY` picks the registry (default: the embedded file registry, no server needed;
//! `zookeeper://127.0.0.1:2181` for ZooKeeper).

#[path = "common/greeter.rs"]
mod greeter;

use dubbo_rs::prelude::*;
use greeter::{GreeterService, GreeterServiceServer};

struct Greeter {
    name: String,
}

impl GreeterService for Greeter {
    async fn say_hello(&self, name: String) -> Result<String, RpcError> {
        Ok(format!("Hello {name}, from {}", self.name))
    }
}

#[tokio::main]
async fn main() -> Result<(), DubboError> {
    let registry = greeter::registry();
    // Port 0: a free port, so several providers can run side by side; the registry tells
    // consumers where each one is.
    let app = Application::builder("greeter-provider")
        .protocol("dubbo", 0)
        .host("127.0.0.1")
        .registry(&registry)
        .build()?;
    let urls = app
        .default_module()
        .export(
            GreeterServiceServer::new(Greeter {
                name: format!("provider {}", std::process::id()),
            }),
            ServiceOptions::new().version("1.0.0"),
        )
        .await?;
    app.ready().await;
    for url in &urls {
        println!(
            "provider: serving {}:{} and registered in {registry}",
            url.host().unwrap_or("?"),
            url.port()
        );
    }
    println!("provider: ready (Ctrl-C or SIGTERM to stop)");
    app.run_until_signal().await;
    println!("provider: unregistered, drained and stopped");
    Ok(())
}
