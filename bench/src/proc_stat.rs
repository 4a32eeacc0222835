//! CPU time and memory of a process, from `/proc/<pid>/stat` and `/proc/<pid>/status` (Linux).

/// User + system CPU time of `pid` (all its threads), in microseconds.
pub fn cpu_time_us(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_cpu_ticks(&stat).map(|ticks| ticks * 1_000_000 / clock_ticks_per_sec())
}

/// `utime + stime` (fields 14 and 15) of a `/proc/<pid>/stat` line, in clock ticks.
pub fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    // The command name (field 2) is in parentheses and may contain spaces: start after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // rest starts at field 3 (state); utime is field 14, i.e. the 12th from here.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

fn clock_ticks_per_sec() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as u64
    } else {
        100
    }
}

/// CPU time all processes spent busy (user, nice, system, steal) on every core, from the first
/// line of `/proc/stat`, in microseconds. Interrupt and softirq time is left out: on loopback it
/// is mostly the benchmark's own network traffic, not a neighbour's.
pub fn machine_busy_us() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    parse_machine_busy_ticks(stat.lines().next()?).map(|t| t * 1_000_000 / clock_ticks_per_sec())
}

/// Busy ticks of a `cpu  user nice system idle iowait irq softirq steal ...` line.
pub fn parse_machine_busy_ticks(line: &str) -> Option<u64> {
    let v: Vec<u64> = line
        .strip_prefix("cpu ")?
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    if v.len() < 8 {
        return None;
    }
    Some(v[0] + v[1] + v[2] + v[7])
}

/// Resident set size of `pid` (`VmRSS`), in KiB.
pub fn rss_kib(pid: u32) -> Option<u64> {
    status_field(pid, "VmRSS:")
}

/// Peak resident set size of `pid` (`VmHWM`), in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    status_field(pid, "VmHWM:")
}

fn status_field(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_spaces_in_name() {
        let line = "42 (my (odd) name) S 1 42 42 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 4 0 1 2 3";
        assert_eq!(parse_cpu_ticks(line), Some(325));
    }

    #[test]
    fn parses_machine_line() {
        let line = "cpu  100 5 50 9000 3 1 2 4 0 0";
        assert_eq!(parse_machine_busy_ticks(line), Some(159));
        assert!(machine_busy_us().is_some());
    }

    #[test]
    fn reads_self() {
        let me = std::process::id();
        assert!(cpu_time_us(me).is_some());
        assert!(rss_kib(me).unwrap() > 0);
    }
}
