//! Command line of `dubbo-bench`.

use std::fmt;
use std::time::Duration;

/// Usage text.
pub const USAGE: &str = "\
usage: dubbo-bench --target dubbo|tri-idl|tri-iface|grpc --addr HOST:PORT
                   --scenario empty|echo128|echo1k|list100|stream
                   [--concurrency 32] [--connections 1] [--duration 10s] [--warmup 3s]
                   [--rate CALLS_PER_S]   (open loop; default closed loop)
                   [--csv FILE] [--label NAME] [--server-pid PID] [--threads 1]
                   [--timeout 10s] [--quiet]

targets:  dubbo      dubbo-rs consumer, interface mode (EchoService, hessian2) over dubbo://
          tri-iface  dubbo-rs consumer, interface mode (EchoService, wrapper) over tri://
          tri-idl    dubbo-rs Triple IDL client (BenchService, protobuf)
          grpc       tonic client (BenchService, protobuf), for tonic or any gRPC/Triple server
scenarios: empty (ping), echo128 / echo1k (bytes echo), list100 (listUsers(100)),
           stream (StreamEcho: 100 messages of 128 B per call; IDL targets only)
addresses: dubbo and tri-iface also take a list, HOST:PORT;HOST:PORT;..., as one reference
           over every provider (the cluster layer: routers, load balancer, failover)
environment: DUBBO_BENCH_FILTER  the references' `filter` list (dubbo, tri-iface), e.g. -metrics
             DUBBO_BENCH_TLS_CA  CA certificates (PEM): dubbo and tri-iface connect over TLS";

/// Which client drives the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// dubbo-rs interface mode over dubbo://.
    Dubbo,
    /// dubbo-rs interface mode over tri://.
    TriIface,
    /// dubbo-rs Triple IDL client.
    TriIdl,
    /// tonic client.
    Grpc,
}

impl TargetKind {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Dubbo => "dubbo",
            TargetKind::TriIface => "tri-iface",
            TargetKind::TriIdl => "tri-idl",
            TargetKind::Grpc => "grpc",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "dubbo" => TargetKind::Dubbo,
            "tri-iface" => TargetKind::TriIface,
            "tri-idl" => TargetKind::TriIdl,
            "grpc" => TargetKind::Grpc,
            _ => return None,
        })
    }
}

/// What each call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// No arguments, no result.
    Empty,
    /// 128 bytes echoed.
    Echo128,
    /// 1 KiB echoed.
    Echo1k,
    /// `listUsers(100)`.
    List100,
    /// Server streaming of [`crate::STREAM_COUNT`] messages.
    Stream,
}

impl Scenario {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Empty => "empty",
            Scenario::Echo128 => "echo128",
            Scenario::Echo1k => "echo1k",
            Scenario::List100 => "list100",
            Scenario::Stream => "stream",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "empty" => Scenario::Empty,
            "echo128" => Scenario::Echo128,
            "echo1k" => Scenario::Echo1k,
            "list100" => Scenario::List100,
            "stream" => Scenario::Stream,
            _ => return None,
        })
    }

    /// The echo payload size, if this is an echo.
    pub fn payload_size(self) -> Option<usize> {
        match self {
            Scenario::Echo128 => Some(crate::ECHO_SMALL),
            Scenario::Echo1k => Some(crate::ECHO_LARGE),
            _ => None,
        }
    }
}

/// Parsed options.
#[derive(Debug, Clone)]
pub struct Options {
    /// The client.
    pub target: TargetKind,
    /// `host:port`.
    pub addr: String,
    /// The scenario.
    pub scenario: Scenario,
    /// Calls in flight (closed loop), or most calls in flight (open loop).
    pub concurrency: usize,
    /// Connections, each with its own client.
    pub connections: usize,
    /// Measured time.
    pub duration: Duration,
    /// Load before the measured time, not recorded.
    pub warmup: Duration,
    /// Open loop: calls started per second, on schedule.
    pub rate: Option<f64>,
    /// Append a CSV row here.
    pub csv: Option<String>,
    /// Name of the row (the server under test).
    pub label: String,
    /// The server's pid, for CPU time and RSS.
    pub server_pid: Option<u32>,
    /// Client runtime worker threads (1: current-thread runtime).
    pub threads: usize,
    /// Per-call timeout.
    pub timeout: Duration,
    /// No progress line.
    pub quiet: bool,
}

/// A command-line error.
#[derive(Debug)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// Parses `10s`, `500ms`, `2m` or a plain number of seconds.
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" => v * 60.0,
        _ => return None,
    };
    Some(Duration::from_secs_f64(secs))
}

impl Options {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, ArgError> {
        let mut target = None;
        let mut addr = None;
        let mut scenario = None;
        let mut o = Options {
            target: TargetKind::Dubbo,
            addr: String::new(),
            scenario: Scenario::Empty,
            concurrency: 32,
            connections: 1,
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(3),
            rate: None,
            csv: None,
            label: String::new(),
            server_pid: None,
            threads: 1,
            timeout: Duration::from_secs(10),
            quiet: false,
        };
        let mut it = args.into_iter();
        while let Some(flag) = it.next() {
            let name = flag
                .strip_prefix("--")
                .ok_or_else(|| ArgError(format!("unexpected argument {flag:?}")))?;
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n.to_owned(), Some(v.to_owned())),
                None => (name.to_owned(), None),
            };
            if name == "quiet" {
                o.quiet = true;
                continue;
            }
            if name == "help" {
                return Err(ArgError(String::new()));
            }
            let value = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .ok_or_else(|| ArgError(format!("--{name} needs a value")))?,
            };
            let bad = || ArgError(format!("bad value for --{name}: {value:?}"));
            match name.as_str() {
                "target" => target = Some(TargetKind::parse(&value).ok_or_else(bad)?),
                "addr" => addr = Some(value.clone()),
                "scenario" => scenario = Some(Scenario::parse(&value).ok_or_else(bad)?),
                "concurrency" | "c" => {
                    o.concurrency = value.parse().ok().filter(|n| *n > 0).ok_or_else(bad)?
                }
                "connections" => {
                    o.connections = value.parse().ok().filter(|n| *n > 0).ok_or_else(bad)?
                }
                "duration" => o.duration = parse_duration(&value).ok_or_else(bad)?,
                "warmup" => o.warmup = parse_duration(&value).ok_or_else(bad)?,
                "timeout" => o.timeout = parse_duration(&value).ok_or_else(bad)?,
                "rate" => {
                    o.rate = Some(
                        value
                            .parse::<f64>()
                            .ok()
                            .filter(|r| r.is_finite() && *r > 0.0)
                            .ok_or_else(bad)?,
                    )
                }
                "csv" => o.csv = Some(value.clone()),
                "label" => o.label = value.clone(),
                "server-pid" => o.server_pid = Some(value.parse().map_err(|_| bad())?),
                "threads" => o.threads = value.parse().ok().filter(|n| *n > 0).ok_or_else(bad)?,
                _ => return Err(ArgError(format!("unknown flag --{name}"))),
            }
        }
        o.target = target.ok_or_else(|| ArgError("--target is required".into()))?;
        o.addr = addr.ok_or_else(|| ArgError("--addr is required".into()))?;
        o.scenario = scenario.ok_or_else(|| ArgError("--scenario is required".into()))?;
        if o.duration.is_zero() {
            return Err(ArgError("--duration must be positive".into()));
        }
        if o.scenario == Scenario::Stream
            && matches!(o.target, TargetKind::Dubbo | TargetKind::TriIface)
        {
            return Err(ArgError(
                "the stream scenario needs an IDL target (tri-idl or grpc)".into(),
            ));
        }
        if o.label.is_empty() {
            o.label = o.target.name().to_owned();
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Options, ArgError> {
        Options::parse(s.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Some(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration("3h"), None);
    }

    #[test]
    fn full_command_line() {
        let o = parse(
            "--target tri-idl --addr 127.0.0.1:1 --scenario echo1k --concurrency 100 \
             --connections 4 --duration 5s --warmup=1s --rate 1000 --label x --server-pid 7",
        )
        .unwrap();
        assert_eq!(o.target, TargetKind::TriIdl);
        assert_eq!(o.scenario, Scenario::Echo1k);
        assert_eq!((o.concurrency, o.connections), (100, 4));
        assert_eq!(o.duration, Duration::from_secs(5));
        assert_eq!(o.warmup, Duration::from_secs(1));
        assert_eq!(o.rate, Some(1000.0));
        assert_eq!(o.server_pid, Some(7));
        assert_eq!(o.label, "x");
    }

    #[test]
    fn rejects() {
        assert!(parse("--addr a:1 --scenario empty").is_err());
        assert!(parse("--target dubbo --addr a:1 --scenario stream").is_err());
        assert!(parse("--target dubbo --addr a:1 --scenario empty --concurrency 0").is_err());
        assert!(parse("--target dubbo --addr a:1 --scenario empty --bogus 1").is_err());
        let o = parse("--target grpc --addr a:1 --scenario stream").unwrap();
        assert_eq!(o.label, "grpc");
    }
}
