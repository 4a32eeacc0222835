//! Calls the contract's Greeter over Triple: `triple-greeter-client HOST:PORT`.
//! Prints one `PASS`/`FAIL` line per call kind and `N passed, N failed`; exits non-zero on
//! any failure.

use dubbo_triple_greeter::{run_client_cases, GreeterClient};

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:50051".to_owned());
    let addr = addr.strip_prefix("tri://").unwrap_or(&addr).to_owned();
    let (passed, failed) = match GreeterClient::connect(addr.clone()).await {
        Ok(client) => run_client_cases(&client).await,
        Err(e) => {
            println!("FAIL greeter.connect: {addr}: {e}");
            (0, 1)
        }
    };
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
