//! The `ps` command: the ports the application's protocol servers listen on, one a line
//! (`ps`), or with their protocol and advertised address (`ps -l`: `dubbo://10.0.0.5:20880`),
//! lines separated by `\r\n` as Java's are.

use std::collections::BTreeSet;

use crate::view::ExportedService;

/// Answers `ps` with `args` for the services `served`.
pub(crate) fn run(served: &[ExportedService], args: &[String]) -> String {
    let mut detail = false;
    let mut port = None;
    for arg in args {
        if arg == "-l" {
            detail = true;
        } else if arg.parse::<u16>().is_ok() {
            port = Some(arg);
        } else {
            return format!("Illegal port {arg}, must be integer.");
        }
    }
    // One server per protocol and port, whatever the number of services on it.
    let servers: BTreeSet<(u16, String, String)> = served
        .iter()
        .map(|s| {
            let protocol = s.url.protocol().unwrap_or("dubbo").to_owned();
            (s.url.port(), protocol, s.url.address())
        })
        .collect();
    if let Some(port) = port {
        return if servers.iter().any(|(p, _, _)| p.to_string() == *port) {
            format!("Listing the connections of port {port} is not supported")
        } else {
            format!("No such port {port}")
        };
    }
    let lines: Vec<String> = servers
        .into_iter()
        .map(|(port, protocol, address)| {
            if detail {
                format!("{protocol}://{address}")
            } else {
                port.to_string()
            }
        })
        .collect();
    lines.join("\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_core::ServiceKey;

    fn served(url: &str) -> ExportedService {
        ExportedService {
            module: "default".into(),
            key: ServiceKey::interface_only("a.B"),
            url: url.parse().unwrap(),
        }
    }

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn lists_each_server_once() {
        let s = [
            served("dubbo://10.0.0.5:20880/a.B"),
            served("dubbo://10.0.0.5:20880/a.C"),
            served("tri://10.0.0.5:50051/a.B"),
        ];
        assert_eq!(run(&s, &[]), "20880\r\n50051");
        assert_eq!(
            run(&s, &args(&["-l"])),
            "dubbo://10.0.0.5:20880\r\ntri://10.0.0.5:50051"
        );
        assert_eq!(run(&s, &args(&["x"])), "Illegal port x, must be integer.");
        assert_eq!(run(&s, &args(&["-l", "1"])), "No such port 1");
        assert_eq!(run(&[], &[]), "");
    }
}
