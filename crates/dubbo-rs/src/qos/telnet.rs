//! A QoS connection that speaks telnet: a line-based session with the prompt `dubbo>`, the
//! same commands and answers as over HTTP, as Java Dubbo 3.3's QoS serves it.
//!
//! - A line is a command and its arguments separated by spaces (`\ ` keeps a space inside an
//!   argument); `invoke` takes the whole rest of the line as its one argument.
//! - Answers end with `\r\n` and the prompt; an unknown command is answered
//!   `LINE :no such command`, a refused one `LINE :permission deny`; `quit` says `BYE!` and
//!   closes.
//! - Ctrl-C (telnet's interrupt, `FF F4 FF FD 06`) drops the line being typed and gives a new
//!   prompt; a session silent for five minutes is closed.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::commands::{Outcome, QosContext};
use super::invoke::Selection;
use super::request::Command;

/// The prompt after every answer.
pub(crate) const PROMPT: &str = "dubbo>";
/// Lines longer than this are refused (Java's limit).
const MAX_LINE: usize = 2048;
/// A session with no input for this long is closed.
pub(crate) const IDLE: Duration = Duration::from_secs(5 * 60);
/// What a telnet client sends for Ctrl-C: interrupt process, then "do timing mark".
const CTRL_C: &[u8] = &[0xff, 0xf4, 0xff, 0xfd, 0x06];
/// The answer to it: "won't timing mark", so the client keeps displaying output.
const CTRL_C_ANSWER: &[u8] = &[0xff, 0xfc, 0x06];

/// The greeting a telnet session starts with.
pub(crate) fn banner() -> String {
    format!(
        "dubbo-rs {} QoS. Type `help` for the commands, `quit` to leave.\r\n",
        crate::RELEASE
    )
}

/// The command a line asks for, or `None` for a blank line (answered with a new prompt).
pub(crate) fn parse_line(line: &str) -> Option<Command> {
    let line = line.trim();
    let words = split_words(line);
    let (name, rest) = words.split_first()?;
    let args = if name == "invoke" && !rest.is_empty() {
        // A JSON argument may hold spaces: the whole rest of the line is the call.
        let call = line.split_once(' ').map_or("", |(_, call)| call.trim());
        vec![call.to_owned()]
    } else {
        rest.to_vec()
    };
    Some(Command {
        name: name.clone(),
        args,
    })
}

/// The words of a line: split at spaces not escaped by a backslash (the backslash is kept, as
/// Java keeps it); runs of spaces make no empty words.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous = None;
    for c in line.chars() {
        if c == ' ' && previous != Some('\\') {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else {
            word.push(c);
        }
        previous = Some(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Serves a telnet session on `stream` until `quit`, the client leaves or it is idle too
/// long. `greeted` says whether the banner and prompt were already sent.
pub(crate) async fn serve(
    mut stream: TcpStream,
    peer: SocketAddr,
    ctx: Arc<QosContext>,
    greeted: bool,
) -> std::io::Result<()> {
    if !greeted {
        stream
            .write_all(format!("{}{PROMPT}", banner()).as_bytes())
            .await?;
    }
    let mut selection = Selection::default();
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let read = match tokio::time::timeout(IDLE, stream.read(&mut chunk)).await {
            Err(_) => {
                tracing::debug!(%peer, "QoS telnet session idle: closed");
                return Ok(());
            }
            Ok(read) => read?,
        };
        if read == 0 {
            return Ok(());
        }
        pending.extend_from_slice(&chunk[..read]);
        if contains(&pending, CTRL_C) {
            pending.clear();
            stream.write_all(CTRL_C_ANSWER).await?;
            stream.write_all(format!("\r\n{PROMPT}").as_bytes()).await?;
            continue;
        }
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let raw: Vec<u8> = pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&raw);
            let line = line.trim_end_matches(['\r', '\n']);
            match answer(&ctx, peer, line, &mut selection).await {
                Some(text) => stream.write_all(text.as_bytes()).await?,
                None => {
                    stream.write_all(b"BYE!\n").await?;
                    return Ok(());
                }
            }
        }
        if pending.len() > MAX_LINE {
            pending.clear();
            stream
                .write_all(format!("line longer than {MAX_LINE} bytes\r\n{PROMPT}").as_bytes())
                .await?;
        }
    }
}

/// What to write back for `line`, prompt included; `None` when the session ends.
async fn answer(
    ctx: &QosContext,
    peer: SocketAddr,
    line: &str,
    selection: &mut Selection,
) -> Option<String> {
    let Some(command) = parse_line(line) else {
        return Some(PROMPT.to_owned());
    };
    let text = match ctx.execute(peer.ip(), &command, selection).await {
        Outcome::Done(answer) => answer.body,
        Outcome::NoSuchCommand => format!("{line} :no such command"),
        Outcome::Denied => format!("{line} :permission deny"),
        Outcome::Close => return None,
    };
    Some(format!("{text}\r\n{PROMPT}"))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(name: &str, args: &[&str]) -> Option<Command> {
        Some(Command {
            name: name.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
        })
    }

    #[test]
    fn a_line_is_a_command_and_its_words() {
        assert_eq!(parse_line("ls"), command("ls", &[]));
        assert_eq!(
            parse_line("  ps   -l  20880 \r"),
            command("ps", &["-l", "20880"])
        );
        assert_eq!(
            parse_line("offline org\\ example"),
            command("offline", &["org\\ example"])
        );
        assert_eq!(parse_line("help online"), command("help", &["online"]));
        assert_eq!(parse_line(""), None);
        assert_eq!(parse_line("   \t "), None);
    }

    #[test]
    fn invoke_takes_the_rest_of_the_line() {
        assert_eq!(
            parse_line("invoke a.B.say(\"x y\", {\"k\": 1})"),
            command("invoke", &["a.B.say(\"x y\", {\"k\": 1})"])
        );
        assert_eq!(
            parse_line("invoke   a.B.say()  "),
            command("invoke", &["a.B.say()"])
        );
        assert_eq!(parse_line("invoke"), command("invoke", &[]));
    }

    #[test]
    fn finds_ctrl_c_anywhere() {
        assert!(contains(b"ls\xff\xf4\xff\xfd\x06", CTRL_C));
        assert!(!contains(b"ls\xff\xf4", CTRL_C));
    }
}
