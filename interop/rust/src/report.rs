//! One line per case and a closing `N passed, N failed`.

use std::fmt::Debug;

/// Collects case results and prints them as they come.
#[derive(Debug, Default)]
pub struct Report {
    passed: usize,
    failed: usize,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a case that passes when `ok` holds; `detail` explains a failure.
    pub fn check(&mut self, name: &str, ok: bool, detail: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
            println!("PASS {name}");
        } else {
            self.failed += 1;
            println!("FAIL {name}: {}", shorten(&detail()));
        }
    }

    /// Records a case whose result must equal `expected`.
    pub fn equal<T: PartialEq + Debug, E: Debug>(
        &mut self,
        name: &str,
        got: Result<T, E>,
        expected: T,
    ) {
        match got {
            Ok(v) if v == expected => self.check(name, true, String::new),
            Ok(v) => self.check(name, false, || format!("expected {expected:?}, got {v:?}")),
            Err(e) => self.check(name, false, || {
                format!("expected {expected:?}, got error {e:?}")
            }),
        }
    }

    /// Counts cases that were run and printed elsewhere.
    pub fn add_counts(&mut self, passed: usize, failed: usize) {
        self.passed += passed;
        self.failed += failed;
    }

    /// Number of failed cases.
    pub fn failed(&self) -> usize {
        self.failed
    }

    /// Prints the closing line.
    pub fn finish(&self) {
        println!("{} passed, {} failed", self.passed, self.failed);
    }
}

/// Keeps failure lines readable when a value is a 40 KiB string.
fn shorten(text: &str) -> String {
    const MAX: usize = 400;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut cut = MAX;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..cut], text.len())
}
