//! A consumer that finds `greeter_provider` through the registry and calls it.
//!
//!     cargo run --release -p dubbo-rs --example greeter_consumer
//!
//! `DUBBO_REGISTRY` picks the registry, as for the provider.

#[path = "common/greeter.rs"]
mod greeter;

use std::time::Duration;

use dubbo_rs::prelude::*;
use greeter::GreeterServiceClient;

#[tokio::main]
async fn main() -> Result<(), DubboError> {
    let registry = greeter::registry();
    let app = Application::builder("greeter-consumer")
        .registry(&registry)
        .build()?;
    // No address: the registry supplies the providers, and keeps the list current.
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new("org.apache.dubbo.demo.GreeterService")
                .version("1.0.0")
                .timeout(Duration::from_secs(3)),
        )
        .await?;
    let client = GreeterServiceClient::new(reference.invoker());
    for i in 1..=3 {
        let reply = client.say_hello(format!("call {i}")).await?;
        println!("consumer: {reply}");
    }
    app.shutdown().await;
    Ok(())
}
