//! The comparison harness shared by `compare` (the system allocator) and
//! `compare_mimalloc` (mimalloc); see `compare.rs` for what it does.

use crate::common;

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Instant;

const USAGE: &str = "usage: compare [--warmup-ms 3000] [--measure-ms 5000] [--csv FILE] [--only CASE,...] [--ops encode,decode,decode-borrowed,copy] [--list yes] [--java-bytes DIR] [--iters N]";

/// Target duration of one measured sample.
const SAMPLE_NS: u64 = 50_000_000;

struct Result {
    name: &'static str,
    op: &'static str,
    ns_per_op: f64,
    bytes: usize,
    samples: usize,
    spread_pct: f64,
    cpu_ns_per_op: f64,
    cpu_p10: f64,
}

/// CPU time of this thread in nanoseconds, or `None` when the kernel does not say.
fn cpu_now() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(f64::NAN)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let pos = p / 100.0 * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn time(
    name: &'static str,
    op_name: &'static str,
    op: &mut dyn FnMut(u64),
    bytes: usize,
    warmup_ms: u64,
    measure_ms: u64,
) -> Result {
    let warmup_end = Instant::now() + std::time::Duration::from_millis(warmup_ms);
    let mut batch: u64 = 1;
    let mut ns_per_op;
    loop {
        let t0 = Instant::now();
        op(batch);
        let dt = t0.elapsed().as_nanos() as u64;
        ns_per_op = dt as f64 / batch as f64;
        if dt < SAMPLE_NS / 8 && batch < (1 << 30) {
            batch *= 2;
        }
        if Instant::now() >= warmup_end {
            break;
        }
    }
    let batch = ((SAMPLE_NS as f64 / ns_per_op.max(1.0)) as u64).clamp(1, i32::MAX as u64);

    let mut samples = Vec::new();
    let mut cpu_samples = Vec::new();
    let measure_end = Instant::now() + std::time::Duration::from_millis(measure_ms);
    loop {
        let c0 = cpu_now();
        let t0 = Instant::now();
        op(batch);
        let dt = t0.elapsed().as_nanos() as f64;
        let c1 = cpu_now();
        samples.push(dt / batch as f64);
        if let (Some(a), Some(b)) = (c0, c1) {
            cpu_samples.push(b.saturating_sub(a) as f64 / batch as f64);
        }
        if Instant::now() >= measure_end && samples.len() >= 3 {
            break;
        }
    }
    samples.sort_by(f64::total_cmp);
    cpu_samples.sort_by(f64::total_cmp);
    let median = percentile(&samples, 50.0);
    let spread = if median > 0.0 {
        (percentile(&samples, 90.0) - percentile(&samples, 10.0)) / median * 100.0
    } else {
        0.0
    };
    let (cpu, cpu_p10) = if cpu_samples.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        (
            percentile(&cpu_samples, 50.0),
            percentile(&cpu_samples, 10.0),
        )
    };
    Result {
        name,
        op: op_name,
        ns_per_op: median,
        bytes,
        samples: samples.len(),
        spread_pct: spread,
        cpu_ns_per_op: cpu,
        cpu_p10,
    }
}

fn die(msg: &str) -> ! {
    eprintln!("{msg}");
    eprintln!("{USAGE}");
    std::process::exit(2);
}

fn parse_ms(key: &str, v: &str) -> u64 {
    v.parse().unwrap_or_else(|_| {
        die(&format!(
            "{key} needs a non-negative number of milliseconds, got {v}"
        ))
    })
}

/// Runs the harness with the process's arguments.
pub fn main() {
    let mut warmup_ms = 3000;
    let mut measure_ms = 5000;
    let mut csv: Option<String> = None;
    let mut only: Option<Vec<String>> = None;
    let mut java_dir: Option<String> = None;
    let mut ops = vec![
        "encode".to_owned(),
        "decode".to_owned(),
        "decode-borrowed".to_owned(),
        "copy".to_owned(),
    ];
    let mut iters: Option<u64> = None;
    let all = common::cases();

    // `cargo bench` passes `--bench`; ignore it.
    let argv: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        if a == "-h" || a == "--help" {
            println!("{USAGE}");
            return;
        }
        let (key, value) = match a.split_once('=') {
            Some((k, v)) if a.starts_with("--") => (k.to_owned(), v.to_owned()),
            _ => {
                i += 1;
                match argv.get(i) {
                    Some(v) => (a.clone(), v.clone()),
                    None => die(&format!("missing value for {a}")),
                }
            }
        };
        match key.as_str() {
            "--warmup-ms" => warmup_ms = parse_ms(&key, &value),
            "--measure-ms" => measure_ms = parse_ms(&key, &value),
            "--csv" => csv = Some(value),
            "--only" => only = Some(value.split(',').map(str::to_owned).collect()),
            "--java-bytes" => java_dir = Some(value),
            "--ops" => ops = value.split(',').map(str::to_owned).collect(),
            "--iters" => iters = Some(parse_ms(&key, &value)),
            "--list" => {
                for c in &all {
                    println!("{}", c.name);
                }
                return;
            }
            _ => die(&format!("unknown option {key}")),
        }
        i += 1;
    }
    if let Some(only) = &only {
        for n in only {
            if !all.iter().any(|c| c.name == n) {
                die(&format!("unknown case {n} (use --list yes)"));
            }
        }
    }
    let selected = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|n| n == name));

    if let Some(dir) = &java_dir {
        let mut failed = false;
        for c in all.iter().filter(|c| selected(c.name)) {
            let path = std::path::Path::new(dir).join(format!("{}.bin", c.name));
            let java = std::fs::read(&path)
                .unwrap_or_else(|e| die(&format!("cannot read {}: {e}", path.display())));
            let mut buf = Vec::new();
            let rust = (c.encode)(&mut buf);
            let same = c.check_all(&java);
            if let Err(e) = &same {
                eprintln!("java-bytes: {e}");
            }
            if rust != java.len() {
                eprintln!(
                    "java-bytes: {}: Java encodes {} bytes, Rust {rust}",
                    c.name,
                    java.len()
                );
            }
            failed |= same.is_err() || rust != java.len();
            if same.is_ok() && rust == java.len() {
                eprintln!(
                    "java-bytes: {}: Java's {} bytes decode to the Rust value; Rust encodes {rust} bytes",
                    c.name,
                    java.len()
                );
            }
        }
        if failed {
            eprintln!("java-bytes: the Rust and Java cases differ");
            std::process::exit(1);
        }
    }

    if let Some(n) = iters {
        let mut buf: Vec<u8> = Vec::new();
        for c in all.iter().filter(|c| selected(c.name)) {
            (c.encode)(&mut buf);
            for (_, mut run) in case_ops(c, &buf, &ops) {
                run(n);
            }
        }
        return;
    }

    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "dubbo-hessian2 {}, Rust (release), {cpus} CPUs, load average {:.2}, warm-up {warmup_ms} ms, measure {measure_ms} ms per case and op",
        env!("CARGO_PKG_VERSION"),
        load_average()
    );
    let _ = writeln!(
        out,
        "{:<11} {:<15} {:>12} {:>14} {:>8} {:>8} {:>8} {:>12} {:>12}",
        "case", "op", "ns/op", "ops/s", "bytes", "samples", "spread", "cpu_ns/op", "cpu_p10"
    );
    let mut results = Vec::new();
    for c in all.iter().filter(|c| selected(c.name)) {
        let mut bytes = Vec::new();
        let n = (c.encode)(&mut bytes);
        if let Err(e) = c.check_all(&bytes) {
            die(&format!(
                "{}: decode(encode(v)) differs from v: {e}",
                c.name
            ));
        }
        for (op, mut run) in case_ops(c, &bytes, &ops) {
            eprintln!("# {} {op}", c.name);
            let r = time(c.name, op, &mut *run, n, warmup_ms, measure_ms);
            print_row(&mut out, &r);
            results.push(r);
        }
    }
    let _ = writeln!(out, "load average at the end {:.2}", load_average());

    if let Some(csv) = csv {
        let mut s =
            String::from("case,op,ns_per_op,ops_per_s,bytes,samples,spread_pct,cpu_ns_per_op,cpu_p10_ns_per_op\n");
        for r in &results {
            let _ = writeln!(
                s,
                "{},{},{:.1},{:.0},{},{},{:.1},{:.1},{:.1}",
                r.name,
                r.op,
                r.ns_per_op,
                1e9 / r.ns_per_op,
                r.bytes,
                r.samples,
                r.spread_pct,
                r.cpu_ns_per_op,
                r.cpu_p10
            );
        }
        std::fs::write(&csv, s).unwrap_or_else(|e| die(&format!("cannot write {csv}: {e}")));
    }
}

/// One operation of a case: runs it `k` times per call.
type Op<'a> = Box<dyn FnMut(u64) + 'a>;

/// The operations of `c` selected by `ops`, in table order, over `bytes` (its encoding).
fn case_ops<'a>(
    c: &'a common::Case,
    bytes: &'a [u8],
    ops: &[String],
) -> Vec<(&'static str, Op<'a>)> {
    let wanted = |op: &str| ops.iter().any(|o| o == op);
    let mut selected: Vec<(&'static str, Op<'a>)> = Vec::new();
    if wanted("encode") {
        // Java reuses one output buffer too.
        let mut buf: Vec<u8> = Vec::with_capacity(1 << 17);
        selected.push((
            "encode",
            Box::new(move |k| {
                let mut total = 0usize;
                for _ in 0..k {
                    total += (c.encode)(std::hint::black_box(&mut buf));
                }
                std::hint::black_box(total);
            }),
        ));
    }
    if wanted("decode") {
        selected.push((
            "decode",
            Box::new(move |k| {
                for _ in 0..k {
                    (c.decode)(std::hint::black_box(bytes));
                }
            }),
        ));
    }
    if let Some((decode, _)) = c.borrowed.as_ref().filter(|_| wanted("decode-borrowed")) {
        selected.push((
            "decode-borrowed",
            Box::new(move |k| {
                for _ in 0..k {
                    decode(std::hint::black_box(bytes));
                }
            }),
        ));
    }
    if let Some(src) = c.copy.as_ref().filter(|_| wanted("copy")) {
        let mut dst: Vec<u8> = Vec::with_capacity(src.len());
        selected.push((
            "copy",
            Box::new(move |k| {
                for _ in 0..k {
                    common::copy_into(std::hint::black_box(src), &mut dst);
                }
                std::hint::black_box(&dst);
            }),
        ));
    }
    selected
}

fn print_row(out: &mut impl std::io::Write, r: &Result) {
    let _ = writeln!(
        out,
        "{:<11} {:<15} {:>12.1} {:>14.0} {:>8} {:>8} {:>7.1}% {:>12.1} {:>12.1}",
        r.name,
        r.op,
        r.ns_per_op,
        1e9 / r.ns_per_op,
        r.bytes,
        r.samples,
        r.spread_pct,
        r.cpu_ns_per_op,
        r.cpu_p10
    );
    let _ = out.flush();
}
