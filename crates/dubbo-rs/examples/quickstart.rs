//! A provider and a consumer in one process, talking over dubbo:// and over Triple on
//! 127.0.0.1, with no registry or other server.
//!
//!     cargo run --release -p dubbo-rs --example quickstart

use std::time::Instant;

use dubbo_rs::prelude::*;

/// The service, mapped to a Java interface so Java Dubbo consumers can call it too.
#[dubbo_rs::service(interface = "org.apache.dubbo.demo.GreeterService")]
pub trait GreeterService {
    /// Says hello.
    async fn say_hello(&self, name: String) -> Result<String, RpcError>;
    /// Adds two numbers.
    async fn add(&self, a: i32, b: i32) -> Result<i32, RpcError>;
}

struct Greeter;

impl GreeterService for Greeter {
    async fn say_hello(&self, name: String) -> Result<String, RpcError> {
        Ok(format!("Hello {name}"))
    }

    async fn add(&self, a: i32, b: i32) -> Result<i32, RpcError> {
        Ok(a.wrapping_add(b))
    }
}

#[tokio::main]
async fn main() -> Result<(), DubboError> {
    let dubbo_port: u16 = std::env::var("QUICKSTART_DUBBO_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(20880);
    let tri_port: u16 = std::env::var("QUICKSTART_TRI_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(50051);

    let provider = Application::builder("quickstart-provider")
        .protocol("dubbo", dubbo_port)
        .protocol("tri", tri_port)
        .host("127.0.0.1")
        .build()?;
    let urls = provider
        .default_module()
        .export(
            GreeterServiceServer::new(Greeter),
            ServiceOptions::new().version("1.0.0"),
        )
        .await?;
    for url in &urls {
        println!("provider: exported {url}");
    }

    let consumer = Application::builder("quickstart-consumer").build()?;
    for address in [
        format!("dubbo://127.0.0.1:{dubbo_port}"),
        format!("tri://127.0.0.1:{tri_port}"),
    ] {
        let reference = consumer
            .default_module()
            .refer(
                ReferenceOptions::new("org.apache.dubbo.demo.GreeterService")
                    .url(&address)
                    .version("1.0.0"),
            )
            .await?;
        let client = GreeterServiceClient::new(reference.invoker());
        let reply = client.say_hello("dubbo-rs".to_owned()).await?;
        println!("consumer: {address} sayHello -> {reply:?}");
        let started = Instant::now();
        let calls = 2_000;
        for i in 0..calls {
            let sum = client.add(i, 1).await?;
            assert_eq!(sum, i + 1);
        }
        let per_call = started.elapsed() / calls as u32;
        println!("consumer: {address} {calls} sequential add calls, {per_call:?} per call");
    }

    consumer.shutdown().await;
    let started = Instant::now();
    provider.shutdown().await;
    println!("provider: graceful shutdown took {:?}", started.elapsed());
    Ok(())
}
