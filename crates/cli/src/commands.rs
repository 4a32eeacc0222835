//! What each command does against an open config centre. Notes on standard error start with
//! the program's name (`prog`): `dubbo-cli` or `dubbo`.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::SystemTime;

use dubbo_config_center::{
    ConfigCenterError, ConfigChangedEvent, ConfigListener, DynamicConfiguration,
};
use tokio::sync::mpsc;

use crate::args::{Source, Target};
use crate::event_line::{event_line, first_line};

/// How a command ended, when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done (exit 0).
    Done,
    /// `get` found no value (exit 1, with a note rather than an error).
    Missing,
}

/// Prints the value exactly as stored, without adding a newline.
pub async fn get(
    prog: &str,
    config: &dyn DynamicConfiguration,
    target: &Target,
) -> Result<Outcome, ConfigCenterError> {
    match config.get_config(&target.key, &target.group).await? {
        Some(content) => {
            let mut out = std::io::stdout().lock();
            out.write_all(content.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| ConfigCenterError::io("standard output".as_ref(), &e))?;
            Ok(Outcome::Done)
        }
        None => {
            eprintln!(
                "{prog}: no value for {} in group {}",
                target.key, target.group
            );
            Ok(Outcome::Missing)
        }
    }
}

/// Reads the value to put: the whole file or standard input, which must be UTF-8.
pub fn read_value(source: &Source) -> Result<String, ConfigCenterError> {
    let (path, bytes) = match source {
        Source::File(path) => (
            path.clone(),
            std::fs::read(path).map_err(|e| ConfigCenterError::io(path, &e))?,
        ),
        Source::Stdin => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| ConfigCenterError::io("standard input".as_ref(), &e))?;
            ("standard input".into(), bytes)
        }
    };
    String::from_utf8(bytes).map_err(|_| ConfigCenterError::Io {
        path: path.display().to_string(),
        reason: "the value is not UTF-8 text".to_owned(),
    })
}

/// Sets the value.
pub async fn put(
    prog: &str,
    config: &dyn DynamicConfiguration,
    target: &Target,
    value: &str,
) -> Result<Outcome, ConfigCenterError> {
    config
        .publish_config(&target.key, &target.group, value)
        .await?;
    eprintln!("{prog}: {} in group {} set", target.key, target.group);
    Ok(Outcome::Done)
}

/// Removes the value; one that was not there is only a note.
pub async fn delete(
    prog: &str,
    config: &dyn DynamicConfiguration,
    target: &Target,
) -> Result<Outcome, ConfigCenterError> {
    let existed = config.remove_config(&target.key, &target.group).await?;
    let what = if existed { "deleted" } else { "did not exist" };
    eprintln!("{prog}: {} in group {} {what}", target.key, target.group);
    Ok(Outcome::Done)
}

/// Prints a line per change until Ctrl-C or `count` changes. The value when the watch
/// starts goes to standard error, so that standard output holds only changes.
pub async fn watch(
    prog: &str,
    config: &dyn DynamicConfiguration,
    target: &Target,
    count: Option<u64>,
) -> Result<Outcome, ConfigCenterError> {
    let (tx, mut rx) = mpsc::unbounded_channel::<(SystemTime, ConfigChangedEvent)>();
    // The listener runs on the config centre's task: it only hands the event over.
    let listener: Arc<dyn ConfigListener> = Arc::new(move |event: &ConfigChangedEvent| {
        let _ = tx.send((SystemTime::now(), event.clone()));
    });
    let current = config
        .add_listener(&target.key, &target.group, listener.clone())
        .await?;
    let now = match &current {
        Some(content) => format!("current value: {}", first_line(content)),
        None => "no value yet".to_owned(),
    };
    eprintln!(
        "{prog}: watching {} in group {}; {now}",
        target.key, target.group
    );
    let mut seen = 0u64;
    while count.is_none_or(|n| seen < n) {
        let next = tokio::select! {
            next = rx.recv() => next,
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some((at, event)) = next else { break };
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", event_line(at, &event))
            .and_then(|()| out.flush())
            .map_err(|e| ConfigCenterError::io("standard output".as_ref(), &e))?;
        seen += 1;
    }
    config
        .remove_listener(&target.key, &target.group, &listener)
        .await?;
    Ok(Outcome::Done)
}
