//! The `ps` command: the ports the application's protocol servers listen on, one a line
//! (`ps`), or with their protocol and advertised address (`ps -l`: `dubbo://10.0.0.5:20880`);
//! `ps PORT` lists the consumers connected to that port (`ps -l PORT`: `consumer -> local`
//! address). Lines are separated by `\r\n`, as Java's are.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use crate::view::ExportedService;

/// The connections of the server on a port, as (consumer, local) addresses, if the
/// protocol serving it keeps track.
pub(crate) type Connections<'a> = &'a dyn Fn(u16) -> Option<Vec<(SocketAddr, SocketAddr)>>;

/// Answers `ps` with `args` for the services `served`.
pub(crate) fn run(
    served: &[ExportedService],
    connections: Connections<'_>,
    args: &[String],
) -> String {
    let mut detail = false;
    let mut port = None;
    for arg in args {
        if arg == "-l" {
            detail = true;
        } else if let Ok(p) = arg.parse::<u16>() {
            port = Some(p);
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
        if !servers.iter().any(|(p, _, _)| *p == port) {
            return format!("No such port {port}");
        }
        let Some(conns) = connections(port) else {
            return format!("The protocol on port {port} does not list its connections");
        };
        let lines: Vec<String> = conns
            .into_iter()
            .map(|(consumer, local)| {
                if detail {
                    format!("{consumer} -> {local}")
                } else {
                    consumer.to_string()
                }
            })
            .collect();
        return lines.join("\r\n");
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
        let none = |_: u16| None;
        assert_eq!(run(&s, &none, &[]), "20880\r\n50051");
        assert_eq!(
            run(&s, &none, &args(&["-l"])),
            "dubbo://10.0.0.5:20880\r\ntri://10.0.0.5:50051"
        );
        assert_eq!(
            run(&s, &none, &args(&["x"])),
            "Illegal port x, must be integer."
        );
        assert_eq!(run(&s, &none, &args(&["-l", "1"])), "No such port 1");
        assert_eq!(run(&[], &none, &[]), "");
    }

    #[test]
    fn lists_the_connections_of_a_port() {
        let s = [
            served("dubbo://10.0.0.5:20880/a.B"),
            served("tri://10.0.0.5:50051/a.B"),
        ];
        let conns = |port: u16| {
            (port == 20880).then(|| {
                vec![
                    (
                        "10.0.0.9:40000".parse().unwrap(),
                        "10.0.0.5:20880".parse().unwrap(),
                    ),
                    (
                        "10.0.0.8:40001".parse().unwrap(),
                        "10.0.0.5:20880".parse().unwrap(),
                    ),
                ]
            })
        };
        assert_eq!(
            run(&s, &conns, &args(&["20880"])),
            "10.0.0.9:40000\r\n10.0.0.8:40001"
        );
        assert_eq!(
            run(&s, &conns, &args(&["-l", "20880"])),
            "10.0.0.9:40000 -> 10.0.0.5:20880\r\n10.0.0.8:40001 -> 10.0.0.5:20880"
        );
        assert!(run(&s, &conns, &args(&["50051"])).contains("does not list"));
    }
}
