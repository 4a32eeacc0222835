//! The operator's command-line tools of dubbo-rs: `dubbo` (`ls`, `describe`, `call`, `rules`,
//! `completions`) and `dubbo-cli` (`config get|put|delete|watch`, the same as `dubbo rules`).

pub mod args;
pub mod centre;
pub mod commands;
pub mod dubbo;
pub mod event_line;
