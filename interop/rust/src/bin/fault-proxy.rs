//! A TCP proxy for fault injection: forwards connections from `--listen` to `--target` (both on
//! the loopback) and changes how it forwards on one-line commands sent to `--control`:
//!
//! - `pass`: forward normally;
//! - `cut`: close every connection and refuse new ones (the listening socket is closed);
//! - `blackhole`: keep every connection open but drop all bytes both ways; new connections are
//!   accepted and their bytes dropped too;
//! - `delay MS`: forward every chunk MS milliseconds late;
//! - `half-open`: stop forwarding and never close: the peers see silence on live connections;
//! - `reset`: close every connection with a TCP reset (SO_LINGER 0), then forward new ones.
//!
//! Each command is answered `ok` (or `error: ...`). Prints `READY` once both ports listen, and
//! exits by itself after `--max-seconds` (default 600).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use dubbo_interop::args::Args;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

const USAGE: &str = "usage: fault-proxy --listen 127.0.0.1:P --target 127.0.0.1:Q --control 127.0.0.1:C [--max-seconds S]

  commands on the control port, one per line, each answered `ok`:
  pass | cut | blackhole | delay MS | half-open | reset";

/// How connections are forwarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Pass,
    Cut,
    Blackhole,
    Delay(Duration),
    HalfOpen,
}

/// How the connections open at a `cut` or `reset` are closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    Fin,
    Reset,
}

/// The proxy's state, watched by every connection.
#[derive(Debug, Clone, Copy)]
struct State {
    mode: Mode,
    /// Bumped by `cut` and `reset`: connections opened before must close, as `close` says.
    epoch: u64,
    close: Close,
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1), &[]) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(unknown) = args.unknown(&["listen", "target", "control", "max-seconds"]) {
        eprintln!("unknown flag --{unknown}\n{USAGE}");
        return ExitCode::from(2);
    }
    let parsed = (|| -> Result<_, String> {
        let addr = |name: &str| -> Result<SocketAddr, String> {
            let v = args
                .get(name)
                .ok_or_else(|| format!("--{name} is required"))?;
            let a: SocketAddr = v
                .parse()
                .map_err(|_| format!("--{name} {v}: expected IP:PORT"))?;
            if !a.ip().is_loopback() {
                return Err(format!("--{name} {v}: only loopback addresses are allowed"));
            }
            Ok(a)
        };
        let max = match args.get("max-seconds") {
            Some(s) => s
                .parse::<u64>()
                .map_err(|_| format!("--max-seconds {s}: not a number"))?,
            None => 600,
        };
        Ok((
            addr("listen")?,
            addr("target")?,
            addr("control")?,
            Duration::from_secs(max),
        ))
    })();
    let (listen, target, control, max) = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fault-proxy: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        tokio::select! {
            r = run(listen, target, control) => r,
            _ = tokio::time::sleep(max) => {
                eprintln!("fault-proxy: --max-seconds reached, exiting");
                Ok(())
            }
        }
    });
    // Connection tasks still running end with the runtime.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fault-proxy: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(listen: SocketAddr, target: SocketAddr, control: SocketAddr) -> Result<(), String> {
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let control_listener = TcpListener::bind(control)
        .await
        .map_err(|e| format!("cannot listen on {control}: {e}"))?;
    let (tx, rx) = watch::channel(State {
        mode: Mode::Pass,
        epoch: 0,
        close: Close::Fin,
    });
    println!("READY");
    tokio::spawn(accept_loop(listener, listen, target, rx));
    loop {
        let Ok((stream, _)) = control_listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        tokio::spawn(control_connection(stream, tx.clone()));
    }
}

/// Reads commands, one per line, and answers each.
async fn control_connection(stream: TcpStream, tx: watch::Sender<State>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read.take(64 * 1024));
    let mut line = String::new();
    loop {
        line.clear();
        match lines.read_line(&mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let reply = match apply(line.trim(), &tx) {
            Ok(()) => {
                println!("mode {}", line.trim());
                "ok\n".to_owned()
            }
            Err(e) => format!("error: {e}\n"),
        };
        if write.write_all(reply.as_bytes()).await.is_err() {
            return;
        }
    }
}

fn apply(command: &str, tx: &watch::Sender<State>) -> Result<(), String> {
    let mut words = command.split_whitespace();
    let (mode, close) = match (words.next(), words.next(), words.next()) {
        (Some("pass"), None, _) => (Mode::Pass, None),
        (Some("cut"), None, _) => (Mode::Cut, Some(Close::Fin)),
        (Some("blackhole"), None, _) => (Mode::Blackhole, None),
        (Some("half-open"), None, _) => (Mode::HalfOpen, None),
        (Some("reset"), None, _) => (Mode::Pass, Some(Close::Reset)),
        (Some("delay"), Some(ms), None) => {
            let ms: u64 = ms
                .parse()
                .map_err(|_| format!("delay {ms}: not a number of milliseconds"))?;
            (Mode::Delay(Duration::from_millis(ms)), None)
        }
        _ => {
            return Err(format!(
                "unknown command {command:?} (pass, cut, blackhole, delay MS, half-open, reset)"
            ))
        }
    };
    tx.send_modify(|s| {
        s.mode = mode;
        if let Some(close) = close {
            s.epoch += 1;
            s.close = close;
        }
    });
    Ok(())
}

/// Accepts connections while the mode is not `cut`; under `cut` the listening socket is closed
/// (new connections are refused) and bound again when the mode changes.
async fn accept_loop(
    listener: TcpListener,
    listen: SocketAddr,
    target: SocketAddr,
    mut rx: watch::Receiver<State>,
) {
    let mut listener = Some(listener);
    loop {
        let mode = rx.borrow_and_update().mode;
        if mode == Mode::Cut {
            listener = None;
            if rx.changed().await.is_err() {
                return;
            }
            continue;
        }
        let l = match &listener {
            Some(l) => l,
            None => match TcpListener::bind(listen).await {
                Ok(l) => listener.insert(l),
                Err(e) => {
                    eprintln!("fault-proxy: cannot listen on {listen} again: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        tokio::select! {
            accepted = l.accept() => match accepted {
                Ok((client, _)) => {
                    tokio::spawn(connection(client, target, rx.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            changed = rx.changed() => if changed.is_err() { return },
        }
    }
}

/// One proxied connection, until either side closes or a `cut` / `reset` closes it.
async fn connection(client: TcpStream, target: SocketAddr, mut rx: watch::Receiver<State>) {
    let epoch = rx.borrow().epoch;
    let upstream =
        match tokio::time::timeout(Duration::from_secs(3), TcpStream::connect(target)).await {
            Ok(Ok(s)) => s,
            // The target is down: the client sees its connection closed.
            _ => return,
        };
    let _ = client.set_nodelay(true);
    let _ = upstream.set_nodelay(true);
    let (mut client_read, mut client_write) = client.into_split();
    let (mut up_read, mut up_write) = upstream.into_split();
    let (rx_in, rx_out) = (rx.clone(), rx.clone());
    let close = {
        let forward = async {
            tokio::join!(
                pump(&mut client_read, &mut up_write, rx_in),
                pump(&mut up_read, &mut client_write, rx_out)
            )
        };
        tokio::select! {
            _ = forward => return,
            state = rx.wait_for(|s| s.epoch != epoch) => match state {
                Ok(s) => s.close,
                Err(_) => Close::Fin,
            },
        }
    };
    if close == Close::Reset {
        let _ = client_write.as_ref().set_zero_linger();
        let _ = up_write.as_ref().set_zero_linger();
    }
    // Dropping both halves of each socket closes it (with a reset under SO_LINGER 0).
}

/// Forwards `from` to `to` as the mode says, until `from` ends or a write fails.
async fn pump(from: &mut OwnedReadHalf, to: &mut OwnedWriteHalf, mut rx: watch::Receiver<State>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        // Half-open: read nothing, so the sender's data waits in the socket buffers.
        if wait_while_half_open(&mut rx).await.is_err() {
            return;
        }
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => {
                // The sender closed: pass that on only once bytes flow again.
                if wait_until_flowing(&mut rx).await.is_ok() {
                    let _ = to.shutdown().await;
                }
                return;
            }
            Ok(n) => n,
        };
        if wait_while_half_open(&mut rx).await.is_err() {
            return;
        }
        let mode = rx.borrow().mode;
        match mode {
            Mode::Blackhole | Mode::Cut | Mode::HalfOpen => continue,
            Mode::Delay(d) => tokio::time::sleep(d).await,
            Mode::Pass => {}
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

async fn wait_while_half_open(rx: &mut watch::Receiver<State>) -> Result<(), ()> {
    rx.wait_for(|s| s.mode != Mode::HalfOpen)
        .await
        .map(|_| ())
        .map_err(|_| ())
}

async fn wait_until_flowing(rx: &mut watch::Receiver<State>) -> Result<(), ()> {
    rx.wait_for(|s| matches!(s.mode, Mode::Pass | Mode::Delay(_)))
        .await
        .map(|_| ())
        .map_err(|_| ())
}
