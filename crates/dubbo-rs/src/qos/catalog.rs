//! The QoS commands this port knows: names, what `help` says of them, and the permission
//! level each needs (Java Dubbo 3.3's levels: the probes and `quit` are `PUBLIC`,
//! `gracefulShutdown`, `getConfig` and `shutdown` are `PRIVATE`, everything else `PROTECTED`).

use super::permission::PermissionLevel;

/// One command as `help` and the permission check see it.
#[derive(Debug)]
pub(crate) struct CommandSpec {
    pub(crate) name: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) examples: &'static [&'static str],
    pub(crate) level: PermissionLevel,
}

const fn spec(
    name: &'static str,
    summary: &'static str,
    examples: &'static [&'static str],
    level: PermissionLevel,
) -> CommandSpec {
    CommandSpec {
        name,
        summary,
        examples,
        level,
    }
}

use PermissionLevel::{Private, Protected, Public};

/// Every command, in the order `help` lists them.
pub(crate) const COMMANDS: &[CommandSpec] = &[
    spec(
        "help",
        "Lists the commands, or shows how to use one.",
        &["help", "help online"],
        Protected,
    ),
    spec(
        "ls",
        "Lists the services served and called.",
        &["ls"],
        Protected,
    ),
    spec(
        "ps",
        "Lists the ports the protocol servers listen on.",
        &["ps", "ps -l"],
        Protected,
    ),
    spec(
        "version",
        "Shows the dubbo-rs version.",
        &["version"],
        Protected,
    ),
    spec(
        "invoke",
        "Calls a method of a served service with JSON arguments.",
        &[
            "invoke org.example.Greeter.sayHello(\"world\")",
            "invoke Greeter.add(1, 2)",
            "invoke Greeter.save({\"name\": \"x\"})",
        ],
        Protected,
    ),
    spec(
        "select",
        "Chooses one of the overloads an invoke listed, and calls it.",
        &["select 1"],
        Protected,
    ),
    spec(
        "cd",
        "Chooses the service invoke calls when it names none (telnet); cd / cancels.",
        &["cd org.example.Greeter", "cd /"],
        Protected,
    ),
    spec(
        "pwd",
        "Shows the service cd chose, or /.",
        &["pwd"],
        Protected,
    ),
    spec(
        "metrics",
        "Shows the call metrics (Prometheus text).",
        &["metrics"],
        Protected,
    ),
    spec(
        "live",
        "Says whether the application is alive.",
        &["live"],
        Public,
    ),
    spec(
        "ready",
        "Says whether the application is ready for calls.",
        &["ready"],
        Public,
    ),
    spec(
        "startup",
        "Says whether the application has started.",
        &["startup"],
        Public,
    ),
    spec(
        "offline",
        "Takes services out of the registries (both levels).",
        &["offline", "offline org.example.*"],
        Protected,
    ),
    spec(
        "offlineApp",
        "Takes services out of the application-level registration.",
        &["offlineApp", "offlineApp org.example.*"],
        Protected,
    ),
    spec(
        "offlineInterface",
        "Takes services out of the interface-level registration.",
        &["offlineInterface", "offlineInterface org.example.*"],
        Protected,
    ),
    spec(
        "online",
        "Puts services back into the registries (both levels).",
        &["online", "online org.example.*"],
        Protected,
    ),
    spec(
        "onlineApp",
        "Puts services back into the application-level registration.",
        &["onlineApp", "onlineApp org.example.*"],
        Protected,
    ),
    spec(
        "onlineInterface",
        "Puts services back into the interface-level registration.",
        &["onlineInterface", "onlineInterface org.example.*"],
        Protected,
    ),
    spec(
        "gracefulShutdown",
        "Sends consumers the readonly event and takes every service offline.",
        &["gracefulShutdown"],
        Private,
    ),
    spec(
        "getConfig",
        "Shows the configuration in force, or one type of it, or one entry.",
        &[
            "getConfig",
            "getConfig ApplicationConfig",
            "getConfig ServiceConfig org.example.Greeter",
        ],
        Private,
    ),
    spec(
        "publishMetadata",
        "Publishes the application's instance and metadata again, now or after a delay.",
        &["publishMetadata", "publishMetadata 5"],
        Protected,
    ),
    spec(
        "shutdown",
        "Shuts the application down (gracefully), optionally after a delay in ms.",
        &["shutdown", "shutdown -t 1000"],
        Private,
    ),
    spec("quit", "Closes the telnet session.", &["quit"], Public),
];

/// The command called `name` (exact case, as Java looks commands up).
pub(crate) fn find(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// `help` (a table of every command) or `help CMD` (its name and examples).
pub(crate) fn help(args: &[String]) -> String {
    match args.first() {
        None => table(
            COMMANDS
                .iter()
                .map(|c| (c.name.to_owned(), c.summary.to_owned())),
        ),
        Some(name) => match find(name) {
            None => format!("no such command: {name}"),
            Some(c) => table([
                ("COMMAND NAME".to_owned(), c.name.to_owned()),
                ("EXAMPLE".to_owned(), c.examples.join("\n")),
            ]),
        },
    }
}

/// Two columns in a box, the first right-aligned; a cell may hold several lines.
fn table(rows: impl IntoIterator<Item = (String, String)>) -> String {
    let rows: Vec<(String, String)> = rows.into_iter().collect();
    let width = |cell: &String| cell.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let left = rows.iter().map(|(l, _)| width(l)).max().unwrap_or(0);
    let right = rows.iter().map(|(_, r)| width(r)).max().unwrap_or(0);
    let border = format!("+{}+{}+\n", "-".repeat(left + 2), "-".repeat(right + 2));
    let mut out = border.clone();
    for (l, r) in &rows {
        let (l_lines, r_lines): (Vec<&str>, Vec<&str>) = (l.lines().collect(), r.lines().collect());
        for i in 0..l_lines.len().max(r_lines.len()).max(1) {
            let (a, b) = (
                l_lines.get(i).copied().unwrap_or(""),
                r_lines.get(i).copied().unwrap_or(""),
            );
            out.push_str(&format!("| {a:>left$} | {b:<right$} |\n"));
        }
        out.push_str(&border);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javas_levels() {
        for public in ["live", "ready", "startup", "quit"] {
            assert_eq!(find(public).unwrap().level, Public, "{public}");
        }
        assert_eq!(find("gracefulShutdown").unwrap().level, Private);
        assert_eq!(find("getConfig").unwrap().level, Private);
        assert_eq!(find("shutdown").unwrap().level, Private);
        for protected in [
            "help",
            "ls",
            "ps",
            "invoke",
            "metrics",
            "offline",
            "onlineApp",
        ] {
            assert_eq!(find(protected).unwrap().level, Protected, "{protected}");
        }
        assert!(find("Help").is_none());
        assert!(find("").is_none());
    }

    #[test]
    fn help_lists_every_command_or_explains_one() {
        let all = help(&[]);
        for c in COMMANDS {
            assert!(
                all.contains(&format!(" {} | {}", c.name, c.summary)),
                "{all}"
            );
        }
        let ps = help(&["ps".to_owned()]);
        assert!(ps.contains("| COMMAND NAME | ps "), "{ps}");
        assert!(ps.contains("|              | ps -l "), "{ps}");
        assert_eq!(help(&["nope".to_owned()]), "no such command: nope");
    }
}
