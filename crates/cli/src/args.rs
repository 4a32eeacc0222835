//! The command line: `dubbo-cli config get|put|delete|watch`, parsed into a [`Request`].

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Command};
use dubbo_config_center::DEFAULT_GROUP;

/// Which value a command is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The config centre URL (`zookeeper://127.0.0.1:2181`, `etcd3://127.0.0.1:2379`, ...).
    pub center: String,
    /// The group, `dubbo` unless `--group` says otherwise.
    pub group: String,
    /// The key.
    pub key: String,
}

/// Where `put` takes the value from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-`, or nothing given).
    Stdin,
    /// A file (`--file F`).
    File(PathBuf),
}

/// One parsed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Print the value.
    Get(Target),
    /// Set the value.
    Put(Target, Source),
    /// Remove the value.
    Delete(Target),
    /// Print changes until Ctrl-C, or until `count` events when given.
    Watch(Target, Option<u64>),
}

fn command() -> Command {
    let target = [
        Arg::new("center")
            .long("center")
            .value_name("URL")
            .required(true)
            .help("Config centre URL: zookeeper://host:port, etcd3://host:port, ..."),
        Arg::new("group")
            .long("group")
            .value_name("G")
            .default_value(DEFAULT_GROUP)
            .help("Group of the key"),
        Arg::new("key")
            .value_name("KEY")
            .required(true)
            .help("Key, e.g. demo-app.configurators"),
    ];
    Command::new("dubbo-cli")
        .about("Operator's tool for the dubbo-rs config centre")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .subcommand(
            Command::new("config")
                .about("Read, write and watch config centre values")
                .subcommand_required(true)
                .subcommand(
                    Command::new("get")
                        .about("Print the value of KEY (exit 1 when there is none)")
                        .args(target.clone()),
                )
                .subcommand(
                    Command::new("put")
                        .about("Set KEY to the content of --file, or of standard input")
                        .args(target.clone())
                        .arg(
                            Arg::new("file")
                                .long("file")
                                .value_name("F")
                                .value_parser(clap::value_parser!(PathBuf))
                                .conflicts_with("stdin")
                                .help("Read the value from this file"),
                        )
                        .arg(
                            Arg::new("stdin")
                                .value_name("-")
                                .value_parser(["-"])
                                .help("Read the value from standard input (the default)"),
                        ),
                )
                .subcommand(
                    Command::new("delete")
                        .about("Remove KEY")
                        .args(target.clone()),
                )
                .subcommand(
                    Command::new("watch")
                        .about("Print a line per change of KEY until Ctrl-C")
                        .args(target)
                        .arg(
                            Arg::new("count")
                                .long("count")
                                .value_name("N")
                                .value_parser(clap::value_parser!(u64).range(1..))
                                .action(ArgAction::Set)
                                .help("Stop after N changes"),
                        ),
                ),
        )
}

/// Parses `args` (the program name first). Help, the version and usage mistakes come back
/// as clap's error, which knows how to print itself.
pub fn parse<I, T>(args: I) -> Result<Request, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = command().try_get_matches_from(args)?;
    let mut cmd = command();
    let Some(("config", config)) = matches.subcommand() else {
        return Err(cmd.error(
            clap::error::ErrorKind::MissingSubcommand,
            "expected `config`",
        ));
    };
    let request = match config.subcommand() {
        Some(("get", m)) => Request::Get(target(m)),
        Some(("put", m)) => {
            let source = match m.get_one::<PathBuf>("file") {
                Some(path) => Source::File(path.clone()),
                None => Source::Stdin,
            };
            Request::Put(target(m), source)
        }
        Some(("delete", m)) => Request::Delete(target(m)),
        Some(("watch", m)) => Request::Watch(target(m), m.get_one::<u64>("count").copied()),
        _ => {
            return Err(cmd.error(
                clap::error::ErrorKind::MissingSubcommand,
                "expected get, put, delete or watch",
            ))
        }
    };
    Ok(request)
}

/// The target arguments; clap has checked the required ones are there.
fn target(m: &ArgMatches) -> Target {
    let text = |id: &str| m.get_one::<String>(id).cloned().unwrap_or_default();
    Target {
        center: text("center"),
        group: text("group"),
        key: text("key"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &str) -> Result<Request, clap::Error> {
        parse(line.split_whitespace())
    }

    #[test]
    fn commands_and_defaults() {
        let t = |group: &str| Target {
            center: "zookeeper://127.0.0.1:2181".to_owned(),
            group: group.to_owned(),
            key: "app.configurators".to_owned(),
        };
        assert_eq!(
            parsed("dubbo-cli config get --center zookeeper://127.0.0.1:2181 app.configurators")
                .unwrap(),
            Request::Get(t("dubbo"))
        );
        assert_eq!(
            parsed("dubbo-cli config put --center zookeeper://127.0.0.1:2181 --group g app.configurators --file /tmp/x")
                .unwrap(),
            Request::Put(t("g"), Source::File("/tmp/x".into()))
        );
        assert_eq!(
            parsed("dubbo-cli config put --center zookeeper://127.0.0.1:2181 app.configurators -")
                .unwrap(),
            Request::Put(t("dubbo"), Source::Stdin)
        );
        assert_eq!(
            parsed("dubbo-cli config watch --center zookeeper://127.0.0.1:2181 app.configurators --count 3")
                .unwrap(),
            Request::Watch(t("dubbo"), Some(3))
        );
        assert_eq!(
            parsed("dubbo-cli config delete --center zookeeper://127.0.0.1:2181 app.configurators")
                .unwrap(),
            Request::Delete(t("dubbo"))
        );
    }

    #[test]
    fn mistakes_are_refused() {
        assert!(parsed("dubbo-cli config get app.configurators").is_err());
        assert!(parsed("dubbo-cli config watch --center z://h:1 k --count 0").is_err());
        assert!(parsed("dubbo-cli config put --center z://h:1 k - --file f").is_err());
        assert!(parsed("dubbo-cli config list --center z://h:1 k").is_err());
    }
}
