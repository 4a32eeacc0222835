//! What a provider spends to take a request's arguments into the declared Rust types: the body
//! read into `Value` trees that are then converted ([`body::decode_request`]), against list, map
//! and object arguments left encoded and decoded straight into their types
//! ([`body::decode_request_shared`], what the dubbo:// server does). The request is
//! `echoUsers(List<User>)` with `n` five-field users, as Java writes it.
//!
//! ```sh
//! cargo run --release -p dubbo-protocol-dubbo --example decode_args -- [n] [rounds]
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use dubbo_core::{Invocation, MethodSignature, Payload, ServiceKey};
use dubbo_protocol_dubbo::body::{self, SignatureCache};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename = "org.apache.dubbo.interop.User")]
struct User {
    id: i64,
    name: String,
    age: i32,
    tags: Vec<String>,
    attrs: HashMap<String, String>,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let users: Vec<User> = (0..n as i64)
        .map(|i| User {
            id: i,
            name: format!("user-{i}"),
            age: 20 + i as i32 % 50,
            tags: vec![format!("t{i}"), "common".to_owned()],
            attrs: HashMap::from([("k".to_owned(), format!("v{i}"))]),
        })
        .collect();
    let sig = Arc::new(MethodSignature::new(
        "echoUsers",
        &["java.util.List"],
        "java.util.List",
    ));
    let inv = Invocation::with_payloads(
        ServiceKey::new(
            "org.apache.dubbo.interop.InteropService",
            None,
            Some("1.0.0"),
        ),
        sig,
        vec![Payload::typed(users)],
    );
    let frame = body::encode_request(1, &inv, Some(3000), true).unwrap();
    let body_bytes = frame.slice(16..);
    let cache = SignatureCache::new();
    let decode = |shared: bool| -> usize {
        let req = if shared {
            body::decode_request_shared(&body_bytes, &cache).unwrap()
        } else {
            body::decode_request(&body_bytes, &cache).unwrap()
        };
        let [arg] = <[Payload; 1]>::try_from(req.args).unwrap();
        arg.decode::<Vec<User>>().unwrap().len()
    };
    println!("body {} bytes, {n} users", body_bytes.len());
    // Alternating, so that whatever else the machine does falls on both alike.
    let mut best = [f64::MAX; 2];
    for _ in 0..5 {
        for (slot, shared) in [(0, false), (1, true)] {
            let t = Instant::now();
            let mut total = 0;
            for _ in 0..rounds {
                total += decode(shared);
            }
            assert_eq!(total, rounds * n);
            best[slot] = best[slot].min(t.elapsed().as_secs_f64() * 1e6 / rounds as f64);
        }
    }
    println!(
        "through Value trees: {:.2} µs per request (best of 5)",
        best[0]
    );
    println!(
        "left encoded:        {:.2} µs per request (best of 5)",
        best[1]
    );
    println!("ratio:               {:.2}x", best[1] / best[0]);
}
