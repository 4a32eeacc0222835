//! The `dubbo` command line, parsed with clap into a [`Command`].

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Command as ClapCommand};
use clap_complete::Shell;

use crate::args::Source;
use crate::dubbo::call::CallRequest;
use crate::dubbo::describe::Wanted;
use crate::dubbo::ls::What;
use crate::dubbo::output::Format;
use crate::dubbo::rules::{parse_kind, RuleAction, RuleKey};
use crate::dubbo::tls::TlsFlags;

/// One parsed `dubbo` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `dubbo ls`.
    Ls {
        /// Where to look.
        source: Where,
        /// What to list.
        what: What,
        /// `--app`: the provider's application, for `--url dubbo://…`.
        app: Option<String>,
    },
    /// `dubbo describe`.
    Describe {
        /// Where to look.
        source: Where,
        /// Which service.
        wanted: Wanted,
    },
    /// `dubbo call`.
    Call(CallRequest),
    /// `dubbo rules`.
    Rules {
        /// The config centre (or registry) URL.
        center: String,
        /// The rule's key.
        key: RuleKey,
        /// `--group`, when given.
        group: Option<String>,
        /// What to do.
        action: RuleAction,
    },
    /// `dubbo completions SHELL`.
    Completions(Shell),
}

/// Where `ls` and `describe` look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Where {
    /// `--registry URL`: the registry and its metadata report.
    Registry(String),
    /// `--url tri://HOST:PORT`: the server's gRPC reflection; `--url dubbo://HOST:PORT` (`ls`
    /// only): the provider's MetadataService.
    Url(String),
}

/// The command with its output format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// What to do.
    pub command: Command,
    /// `-o table|json`.
    pub format: Format,
    /// `--tls-ca`, `--tls-cert`, `--tls-key` of `ls`, `describe` and `call`: how providers are
    /// dialled.
    pub tls: TlsFlags,
}

/// `--tls-ca FILE [--tls-cert FILE --tls-key FILE]`, as the interop programs take them.
fn tls_args() -> Vec<Arg> {
    vec![
        Arg::new("tls-ca")
            .long("tls-ca")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help("Dial providers with TLS, trusting the CA certificates of FILE (PEM)"),
        Arg::new("tls-cert")
            .long("tls-cert")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .requires_all(["tls-ca", "tls-key"])
            .help("With --tls-ca and --tls-key: present this certificate (mutual TLS)"),
        Arg::new("tls-key")
            .long("tls-key")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .requires("tls-cert")
            .help("The private key of --tls-cert (PEM)"),
    ]
}

fn tls_flags(m: &ArgMatches) -> TlsFlags {
    let path = |id: &str| m.get_one::<PathBuf>(id).cloned();
    TlsFlags {
        ca: path("tls-ca"),
        cert: path("tls-cert"),
        key: path("tls-key"),
    }
}

fn registry_arg() -> Arg {
    Arg::new("registry")
        .long("registry")
        .short('r')
        .value_name("URL")
        .required_unless_present("url")
        .conflicts_with("url")
        .help("Registry URL: zookeeper://host:port, etcd3://host:port, file://PATH")
}

fn url_arg() -> Arg {
    Arg::new("url")
        .long("url")
        .value_name("tri://HOST:PORT")
        .help(
        "A Triple server, read through its gRPC reflection (ls: also dubbo://HOST:PORT with --app)",
    )
}

fn source(m: &ArgMatches) -> Where {
    match text(m, "url") {
        Some(url) => Where::Url(url),
        None => Where::Registry(text(m, "registry").unwrap_or_default()),
    }
}

fn rule_args() -> Vec<Arg> {
    vec![
        Arg::new("registry")
            .long("registry")
            .short('r')
            .visible_alias("center")
            .value_name("URL")
            .required(true)
            .help("Config centre URL (the registry's by default): zookeeper://host:port, ..."),
        Arg::new("group").long("group").value_name("G").help(
            "Config group (default dubbo; migration rules: DUBBO_SERVICEDISCOVERY_MIGRATION)",
        ),
        Arg::new("app")
            .long("app")
            .value_name("APP")
            .conflicts_with_all(["service", "key"])
            .requires("kind")
            .help("The rule of this application (with --kind)"),
        Arg::new("service")
            .long("service")
            .value_name("IFACE[:VERSION[:GROUP]]")
            .conflicts_with("key")
            .requires("kind")
            .help("The rule of this service (with --kind override|condition)"),
        Arg::new("kind")
            .long("kind")
            .value_name("KIND")
            .value_parser(["override", "condition", "tag", "script", "migration"])
            .help("Rule kind, for --app or --service"),
        Arg::new("key")
            .value_name("KEY")
            .required_unless_present_any(["app", "service"])
            .help("The key as stored, e.g. demo-app.configurators"),
    ]
}

/// The clap command of `dubbo` (also what completions are generated from).
pub fn command() -> ClapCommand {
    ClapCommand::new("dubbo")
        .about("Operator's tool for Dubbo services: list, describe, call, govern")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg(
            Arg::new("output")
                .long("output")
                .short('o')
                .global(true)
                .value_name("FORMAT")
                .value_parser(["table", "json"])
                .default_value("table")
                .help("Output format"),
        )
        .subcommand(
            ClapCommand::new("ls")
                .about("List the services, applications or instances of a registry, or a tri:// server's services")
                .arg(registry_arg())
                .arg(url_arg())
                .args(tls_args())
                .arg(
                    Arg::new("app")
                        .long("app")
                        .value_name("APP")
                        .requires("url")
                        .help("With --url dubbo://…: the provider's application (its MetadataService's group)"),
                )
                .arg(
                    Arg::new("what")
                        .value_name("WHAT")
                        .value_parser(["services", "apps", "instances"])
                        .default_value("services")
                        .help("services (interface-level), apps or instances (instance-level)"),
                ),
        )
        .subcommand(
            ClapCommand::new("describe")
                .about("Show a service's methods and types: its published definition, or gRPC reflection")
                .arg(registry_arg())
                .arg(url_arg())
                .args(tls_args())
                .arg(Arg::new("service").value_name("SERVICE").required(true))
                .arg(Arg::new("version").long("version").value_name("V"))
                .arg(Arg::new("group").long("group").value_name("G"))
                .arg(
                    Arg::new("app")
                        .long("app")
                        .value_name("APP")
                        .help("Only the definition this application published"),
                ),
        )
        .subcommand(
            ClapCommand::new("call")
                .about("Call a method with JSON arguments (generic invocation, or protobuf JSON through reflection)")
                .args(tls_args())
                .arg(
                    Arg::new("target")
                        .value_name("TARGET")
                        .required(true)
                        .help("dubbo://HOST:PORT, tri://HOST:PORT, or a registry URL"),
                )
                .arg(
                    Arg::new("method")
                        .value_name("SERVICE.METHOD")
                        .required(true)
                        .help("e.g. org.apache.dubbo.interop.InteropService.sayHello"),
                )
                .arg(
                    Arg::new("args")
                        .value_name("JSON")
                        .default_value("[]")
                        .help("Arguments: a JSON array, or one JSON value"),
                )
                .arg(
                    Arg::new("types")
                        .long("types")
                        .value_name("T1,T2")
                        .help("Java parameter types (default: from the service definition, else from the JSON)"),
                )
                .arg(
                    Arg::new("attachment")
                        .long("attachment")
                        .short('a')
                        .value_name("K=V")
                        .action(ArgAction::Append)
                        .help("An attachment to send (repeatable)"),
                )
                .arg(Arg::new("version").long("version").value_name("V"))
                .arg(Arg::new("group").long("group").value_name("G"))
                .arg(
                    Arg::new("timeout")
                        .long("timeout")
                        .value_name("MS")
                        .value_parser(clap::value_parser!(u64).range(1..))
                        .default_value("5000"),
                )
                .arg(
                    Arg::new("protocol")
                        .long("protocol")
                        .value_name("P")
                        .value_parser(["dubbo", "tri"])
                        .help("Through a registry: the providers' protocol to call (default dubbo)"),
                ),
        )
        .subcommand(
            ClapCommand::new("rules")
                .about("Read, write and watch governance rules in the config centre")
                .subcommand_required(true)
                .subcommand(ClapCommand::new("get").about("Print a rule").args(rule_args()))
                .subcommand(
                    ClapCommand::new("set")
                        .about("Write a rule from --file, or from standard input")
                        .args(rule_args())
                        .arg(
                            Arg::new("file")
                                .long("file")
                                .short('f')
                                .value_name("F")
                                .value_parser(clap::value_parser!(PathBuf)),
                        ),
                )
                .subcommand(ClapCommand::new("delete").about("Remove a rule").args(rule_args()))
                .subcommand(
                    ClapCommand::new("watch")
                        .about("Print a line per change of a rule until Ctrl-C")
                        .args(rule_args())
                        .arg(
                            Arg::new("count")
                                .long("count")
                                .value_name("N")
                                .value_parser(clap::value_parser!(u64).range(1..)),
                        ),
                ),
        )
        .subcommand(
            ClapCommand::new("completions")
                .about("Print a shell completion script")
                .arg(
                    Arg::new("shell")
                        .value_name("SHELL")
                        .required(true)
                        .value_parser(clap::value_parser!(Shell)),
                ),
        )
}

fn text(m: &ArgMatches, id: &str) -> Option<String> {
    m.get_one::<String>(id).cloned()
}

/// Parses `args` (the program name first). Help, the version and usage mistakes come back as
/// clap's error, which knows how to print itself.
pub fn parse<I, T>(args: I) -> Result<Parsed, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = command().try_get_matches_from(args)?;
    let format = text(&matches, "output")
        .and_then(|f| Format::parse(&f))
        .unwrap_or(Format::Table);
    let tls = matches
        .subcommand()
        .filter(|(name, _)| matches!(*name, "ls" | "describe" | "call"))
        .map(|(_, m)| tls_flags(m))
        .unwrap_or_default();
    let mut cmd = command();
    let usage = |cmd: &mut ClapCommand, message: String| {
        cmd.error(clap::error::ErrorKind::InvalidValue, message)
    };
    let command = match matches.subcommand() {
        Some(("ls", m)) => Command::Ls {
            source: source(m),
            what: text(m, "what")
                .and_then(|w| What::parse(&w))
                .unwrap_or(What::Services),
            app: text(m, "app"),
        },
        Some(("describe", m)) => Command::Describe {
            source: source(m),
            wanted: Wanted {
                service: text(m, "service").unwrap_or_default(),
                version: text(m, "version"),
                group: text(m, "group"),
                app: text(m, "app"),
            },
        },
        Some(("call", m)) => {
            let method = text(m, "method").unwrap_or_default();
            let Some((service, method)) = method.rsplit_once('.') else {
                return Err(usage(&mut cmd, format!("{method:?} is not SERVICE.METHOD")));
            };
            let mut attachments = Vec::new();
            for a in m.get_many::<String>("attachment").into_iter().flatten() {
                let Some((k, v)) = a.split_once('=') else {
                    return Err(usage(&mut cmd, format!("--attachment {a:?} is not K=V")));
                };
                attachments.push((k.to_owned(), v.to_owned()));
            }
            Command::Call(CallRequest {
                target: text(m, "target").unwrap_or_default(),
                service: service.to_owned(),
                method: method.to_owned(),
                args: text(m, "args").unwrap_or_default(),
                types: text(m, "types").map(|t| {
                    t.split(',')
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty())
                        .collect()
                }),
                attachments,
                version: text(m, "version"),
                group: text(m, "group"),
                timeout_ms: m.get_one::<u64>("timeout").copied().unwrap_or(5000),
                protocol: text(m, "protocol"),
            })
        }
        Some(("rules", rules)) => {
            let Some((action, m)) = rules.subcommand() else {
                return Err(usage(&mut cmd, "expected get, set, delete or watch".into()));
            };
            let kind = text(m, "kind").and_then(|k| parse_kind(&k));
            let key = match (text(m, "app"), text(m, "service"), kind, text(m, "key")) {
                (Some(app), _, Some(kind), _) => RuleKey::App(app, kind),
                (_, Some(service), Some(kind), _) => RuleKey::Service(service, kind),
                (_, _, _, Some(key)) => RuleKey::Key(key),
                _ => {
                    return Err(usage(
                        &mut cmd,
                        "give KEY, or --app/--service with --kind".into(),
                    ))
                }
            };
            let action = match action {
                "get" => RuleAction::Get,
                "set" => RuleAction::Set(match m.get_one::<PathBuf>("file") {
                    Some(path) => Source::File(path.clone()),
                    None => Source::Stdin,
                }),
                "delete" => RuleAction::Delete,
                _ => RuleAction::Watch(m.get_one::<u64>("count").copied()),
            };
            Command::Rules {
                center: text(m, "registry").unwrap_or_default(),
                key,
                group: text(m, "group"),
                action,
            }
        }
        Some(("completions", m)) => match m.get_one::<Shell>("shell") {
            Some(shell) => Command::Completions(*shell),
            None => return Err(usage(&mut cmd, "expected a shell".into())),
        },
        _ => return Err(usage(&mut cmd, "expected a command".into())),
    };
    Ok(Parsed {
        command,
        format,
        tls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &str) -> Result<Parsed, clap::Error> {
        parse(line.split_whitespace())
    }

    #[test]
    fn commands_parse() {
        let p = parsed("dubbo ls -r zookeeper://127.0.0.1:2181 apps -o json").unwrap();
        assert_eq!(p.format, Format::Json);
        assert!(matches!(
            p.command,
            Command::Ls {
                what: What::Apps,
                ..
            }
        ));
        let p = parsed(
            "dubbo call tri://127.0.0.1:1 org.foo.Svc.sayHello [\"x\"] -a k=v --version 1.0.0",
        )
        .unwrap();
        let Command::Call(c) = p.command else {
            panic!("not a call")
        };
        assert_eq!(
            (c.service.as_str(), c.method.as_str()),
            ("org.foo.Svc", "sayHello")
        );
        assert_eq!(c.attachments, [("k".to_owned(), "v".to_owned())]);
        assert_eq!(c.version.as_deref(), Some("1.0.0"));
        assert_eq!(p.tls, TlsFlags::default());
        let p = parsed(
            "dubbo describe S --url tri://h:1 --tls-ca ca.pem --tls-cert c.pem --tls-key k.pem",
        )
        .unwrap();
        assert_eq!(p.tls.ca.as_deref(), Some(std::path::Path::new("ca.pem")));
        assert_eq!(p.tls.cert.as_deref(), Some(std::path::Path::new("c.pem")));
        assert_eq!(p.tls.key.as_deref(), Some(std::path::Path::new("k.pem")));
        let p = parsed("dubbo rules set --registry z://h:1 --app demo --kind override -f /tmp/r")
            .unwrap();
        assert_eq!(
            p.command,
            Command::Rules {
                center: "z://h:1".into(),
                key: RuleKey::App("demo".into(), dubbo_config_center::RuleKind::Configurators),
                group: None,
                action: RuleAction::Set(Source::File("/tmp/r".into())),
            }
        );
        assert!(matches!(
            parsed("dubbo completions bash").unwrap().command,
            Command::Completions(Shell::Bash)
        ));
    }

    #[test]
    fn mistakes_are_refused() {
        assert!(parsed("dubbo ls").is_err());
        assert!(parsed("dubbo ls -r z://h:1 --url tri://h:2").is_err());
        assert!(matches!(
            parsed("dubbo ls --url tri://h:2").unwrap().command,
            Command::Ls {
                source: Where::Url(_),
                ..
            }
        ));
        assert!(parsed("dubbo call tri://h:1 nomethod").is_err());
        assert!(parsed("dubbo call tri://h:1 a.b -a novalue").is_err());
        assert!(parsed("dubbo rules get --registry z://h:1").is_err());
        assert!(parsed("dubbo rules get --registry z://h:1 --app a").is_err());
        assert!(parsed("dubbo ls -r z://h:1 -o yaml").is_err());
        assert!(parsed("dubbo call tri://h:1 a.b --tls-cert c.pem --tls-key k.pem").is_err());
        assert!(parsed("dubbo call tri://h:1 a.b --tls-ca ca.pem --tls-cert c.pem").is_err());
        assert!(parsed("dubbo call tri://h:1 a.b --tls-ca ca.pem --tls-key k.pem").is_err());
        command().debug_assert();
    }
}
