//! The tokens the scanner hands over: JSON strings as they are in the document, the fields
//! the consumer reads, and why a document is refused.

use std::borrow::Cow;

/// Why a document is not instance JSON; `at` is the byte offset.
#[derive(Debug)]
pub(crate) struct ScanError {
    pub(crate) what: Cow<'static, str>,
    pub(crate) at: usize,
}

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

/// A JSON string token as it is in the document.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawStr<'a> {
    /// The token with its quotes.
    pub(crate) quoted: &'a [u8],
    /// Where it starts in its document.
    pub(crate) at: usize,
}

impl<'a> RawStr<'a> {
    /// The text between the quotes.
    fn inner(&self) -> &'a [u8] {
        &self.quoted[1..self.quoted.len() - 1]
    }

    /// The string it stands for: borrowed when it has no escapes (or control characters,
    /// which JSON forbids and serde_json refuses), else decoded by serde_json.
    pub(crate) fn text(&self) -> Result<Cow<'a, str>, ScanError> {
        let inner = self.inner();
        if !inner.iter().any(|&b| b == b'\\' || b < 0x20) {
            // Not plain ASCII: UTF-8 still to be checked.
            return std::str::from_utf8(inner)
                .map(Cow::Borrowed)
                .map_err(|e| ScanError {
                    what: format!("a string is not UTF-8: {e}").into(),
                    at: self.at,
                });
        }
        serde_json::from_slice::<String>(self.quoted)
            .map(Cow::Owned)
            .map_err(|e| ScanError {
                what: format!("bad string: {e}").into(),
                at: self.at,
            })
    }

    /// Whether it stands for `text`; checks it is a valid string either way.
    pub(crate) fn is(&self, text: &str) -> Result<bool, ScanError> {
        let inner = self.inner();
        if inner == text.as_bytes() {
            return Ok(true);
        }
        if plain(inner) {
            return Ok(false);
        }
        Ok(self.text()? == text)
    }

    /// The document field a field name stands for, if the consumer reads it; checks it is a
    /// valid string either way.
    pub(super) fn field(&self) -> Result<Option<Field>, ScanError> {
        let inner = self.inner();
        if let Some(field) = Field::of(inner) {
            return Ok(Some(field));
        }
        if plain(inner) {
            return Ok(None);
        }
        Ok(Field::of(self.text()?.as_bytes()))
    }
}

/// Whether a string's text is printable ASCII without escapes: then it is valid and stands
/// for itself.
fn plain(inner: &[u8]) -> bool {
    inner
        .iter()
        .all(|&b| (0x20..0x80).contains(&b) && b != b'\\')
}

/// The fields of the document the consumer reads.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Field {
    Name,
    Address,
    Port,
    SslPort,
    Payload,
    RegistrationTime,
}

impl Field {
    fn of(name: &[u8]) -> Option<Self> {
        Some(match name {
            b"name" => Self::Name,
            b"address" => Self::Address,
            b"port" => Self::Port,
            b"sslPort" => Self::SslPort,
            b"payload" => Self::Payload,
            b"registrationTimeUTC" => Self::RegistrationTime,
            _ => return None,
        })
    }
}
