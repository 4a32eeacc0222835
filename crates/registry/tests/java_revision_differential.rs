//! Differential test of the metadata revision against Java Dubbo 3.3 itself.
//!
//! Opt-in: set `INTEROP_JAVA_DUBBO_JAR` to the interop jar built by `interop/java/build.sh`
//! (its manifest puts Dubbo 3.3.6 on the classpath), or `DUBBO_JAVA_CLASSPATH` to
//! `interop/java/dubbo-interop/target/lib/*` (the jar is then found next to `lib/`); `java`
//! must be on the PATH. Generated applications go to
//! `org.apache.dubbo.interop.RegistryTools revision`, which builds Dubbo's own
//! `MetadataInfo.ServiceInfo`s, stores them under their match keys in a `MetadataInfo` and prints
//! `calAndGetRevision()`; [`MetadataInfo::calculate_revision`] must give the same for every one.
//!
//! Without either variable the test prints a note and passes, unless
//! `DUBBO_RS_REQUIRE_PEERS=1` (set by `scripts/test.sh`, which builds the jar first) makes that
//! a failure.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use dubbo_registry::{MetadataInfo, ServiceInfo};

fn peer_missing(reason: &str) {
    if std::env::var_os("DUBBO_RS_REQUIRE_PEERS").is_some_and(|v| v == "1") {
        panic!("{reason}, and DUBBO_RS_REQUIRE_PEERS=1 requires it");
    }
    eprintln!("skipped: {reason}");
}

/// The interop jar holding RegistryTools, from the environment.
fn interop_jar() -> Option<PathBuf> {
    if let Some(jar) = std::env::var_os("INTEROP_JAVA_DUBBO_JAR") {
        return Some(PathBuf::from(jar));
    }
    let cp = std::env::var("DUBBO_JAVA_CLASSPATH").ok()?;
    let lib = cp.strip_suffix("/*").unwrap_or(&cp);
    let target = PathBuf::from(lib).parent()?.to_path_buf();
    Some(target.join("dubbo-interop.jar"))
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Pieces of generated strings: ordinary names, separators Java's `toDescString` and
/// `TreeMap.toString` use themselves, percent signs, and text whose UTF-8 byte order and UTF-16
/// order differ (U+E000..U+FFFF against supplementary characters).
const PIECES: &[&str] = &[
    "org.apache.dubbo.demo.DemoService",
    "a",
    "Z",
    "side",
    "provider",
    "1.0.0",
    "g",
    " ",
    "=",
    ", ",
    ",",
    ";",
    "{",
    "}",
    ":",
    "/",
    "&",
    "%20",
    "null",
    "\u{4e2d}\u{6587}",
    "\u{e9}",
    "\u{1F600}",
    "\u{FF21}",
    "\u{E000}",
    "\u{10000}",
    "\t",
    "\n",
];

fn text(rng: &mut XorShift, max: usize) -> String {
    let n = rng.below(max + 1);
    (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect()
}

fn optional(rng: &mut XorShift) -> Option<String> {
    match rng.below(4) {
        0 => None,
        1 => Some(String::new()),
        2 => Some("1.0.0".to_owned()),
        _ => Some(text(rng, 3)),
    }
}

fn service(rng: &mut XorShift) -> ServiceInfo {
    let name = if rng.below(3) == 0 {
        text(rng, 4)
    } else {
        "org.apache.dubbo.interop.InteropService".to_owned()
    };
    let protocol = ["dubbo", "tri", "", "rest", "x:y"][rng.below(5)].to_owned();
    let mut params = BTreeMap::new();
    let max = if rng.below(4) == 0 { 40 } else { 8 };
    for _ in 0..rng.below(max) {
        params.insert(text(rng, 3), text(rng, 4));
    }
    ServiceInfo {
        path: if rng.below(3) == 0 {
            text(rng, 3)
        } else {
            name.clone()
        },
        name,
        group: optional(rng),
        version: optional(rng),
        protocol,
        port: [0, 1, 20880, 50051, 65535][rng.below(5)],
        params,
    }
}

fn hex(s: &str) -> String {
    s.bytes().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

fn unhex(h: &str) -> String {
    let bytes: Vec<u8> = (0..h.len() / 2)
        .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One line of `RegistryTools revision` input.
fn line(app: &str, services: &[ServiceInfo]) -> String {
    let mut out = hex(app);
    for s in services {
        let opt = |v: &Option<String>| v.as_deref().map_or("-".to_owned(), hex);
        let params = if s.params.is_empty() {
            "-".to_owned()
        } else {
            s.params
                .iter()
                .map(|(k, v)| format!("{}={}", hex(k), hex(v)))
                .collect::<Vec<_>>()
                .join(";")
        };
        let _ = write!(
            out,
            "\t{},{},{},{},{},{},{}",
            hex(&s.name),
            opt(&s.group),
            opt(&s.version),
            hex(&s.protocol),
            s.port,
            hex(&s.path),
            params
        );
    }
    out
}

#[test]
fn revisions_agree_with_java_dubbo() {
    let Some(jar) = interop_jar() else {
        peer_missing(
            "neither INTEROP_JAVA_DUBBO_JAR nor DUBBO_JAVA_CLASSPATH is set, so there is no Java \
             Dubbo to compare with (scripts/test.sh sets both after interop/java/build.sh)",
        );
        return;
    };
    if !jar.is_file() {
        peer_missing(&format!("{} does not exist", jar.display()));
        return;
    }

    let mut rng = XorShift(0xD0BB0);
    let mut cases: Vec<(String, Vec<ServiceInfo>)> = Vec::new();
    for i in 0..1500 {
        let app = if i % 5 == 0 {
            text(&mut rng, 3)
        } else {
            "interop-provider-java".to_owned()
        };
        let n = rng.below(6);
        let services = (0..n).map(|_| service(&mut rng)).collect();
        cases.push((app, services));
    }
    let input: String = cases.iter().map(|(a, s)| line(a, s) + "\n").collect();

    let mut child = Command::new("java")
        .arg("-cp")
        .arg(&jar)
        .arg("org.apache.dubbo.interop.RegistryTools")
        .arg("revision")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run java");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success(), "RegistryTools revision failed");
    let java: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(java.len(), cases.len());

    let mut mismatches = Vec::new();
    for ((app, services), java_line) in cases.iter().zip(&java) {
        let (java_revision, java_text) = java_line.split_once('\t').unwrap();
        let mut info = MetadataInfo::new(app.clone());
        for s in services {
            info.add_service(s.clone());
        }
        if info.calculate_revision() != java_revision {
            mismatches.push(format!(
                "app {app:?}, {} services: Rust {} Java {java_revision}; Java hashed {:?}",
                services.len(),
                info.calculate_revision(),
                unhex(java_text)
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} revisions differ, e.g.:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches[..mismatches.len().min(5)].join("\n")
    );
    eprintln!("{} revisions agree with Java Dubbo", cases.len());
}
