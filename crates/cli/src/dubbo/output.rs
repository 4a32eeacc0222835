//! How results are printed: aligned tables for people (`-o table`, the default), JSON for
//! programs (`-o json`).

use std::io::Write;

use crate::dubbo::CliError;

/// The output format chosen with `-o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns with a header line.
    Table,
    /// One JSON document.
    Json,
}

impl Format {
    /// `table` or `json`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "table" => Some(Format::Table),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// Rows under a header, printed with every column as wide as its widest cell.
#[derive(Debug, Clone, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column names.
    pub fn new(header: &[&str]) -> Self {
        Self {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (missing cells print empty).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as text, one line per row, columns separated by two spaces.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().take(columns).enumerate() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut out = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                if i + 1 == columns {
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    out.push_str(&" ".repeat(width - cell.chars().count() + 2));
                }
            }
            out.trim_end().to_owned()
        };
        let mut text = line(&self.header);
        text.push('\n');
        for row in &self.rows {
            text.push_str(&line(row));
            text.push('\n');
        }
        text
    }
}

/// Writes `text` to standard output.
pub fn print(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| CliError::io("standard output", &e))
}

/// Writes `value` as pretty JSON and a newline to standard output.
pub fn print_json(value: &serde_json::Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::io("JSON output", &e))?;
    print(&format!("{text}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up() {
        let mut t = Table::new(&["APP", "ADDRESS"]);
        t.row(vec!["a".into(), "127.0.0.1:1".into()]);
        t.row(vec!["longer-app".into(), "x".into()]);
        assert_eq!(
            t.render(),
            "APP         ADDRESS\na           127.0.0.1:1\nlonger-app  x\n"
        );
        assert_eq!(Format::parse("json"), Some(Format::Json));
        assert_eq!(Format::parse("yaml"), None);
    }
}
