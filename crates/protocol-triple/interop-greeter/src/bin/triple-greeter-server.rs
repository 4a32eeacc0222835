//! Serves the contract's Greeter over Triple: `triple-greeter-server [--port P]`.
//! Prints `READY` once the port accepts connections; exits gracefully on SIGINT/SIGTERM.

use std::time::Duration;

use dubbo_protocol_triple::{TripleConfig, TripleServer};
use dubbo_triple_greeter::{ContractGreeter, GreeterServer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut port: u16 = 50051;
    let mut host = "127.0.0.1".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => port = args.next().ok_or("--port needs a value")?.parse()?,
            "--host" => host = args.next().ok_or("--host needs a value")?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let server =
        TripleServer::bind(format!("{host}:{port}").parse()?, TripleConfig::default()).await?;
    server.add_idl_service(GreeterServer::new(ContractGreeter));
    dubbo_triple_greeter::add_interop_service(&server);
    println!("listening on {}", server.local_addr());
    println!("READY");
    wait_for_signal().await;
    server.shutdown(Duration::from_secs(10)).await;
    Ok(())
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
