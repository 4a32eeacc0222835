//! A single-pass scanner for Curator instance JSON that reads only what the consumer keeps.
//!
//! A large application's listing is thousands of ~750-byte documents of which the consumer
//! keeps the application name, the address, the ports, the registration time and the
//! metadata (mostly text shared by every instance of a revision). A general JSON parser
//! validates and unescapes every string, the escaped MetadataService parameters included;
//! this scanner checks the document's structure (so partial or foreign data is still refused)
//! but only finds the ends of the strings it skips. What it keeps is checked as strictly as
//! serde_json would: kept strings with escapes or control characters are decoded by
//! serde_json, and a metadata map is built by serde_json the first time its text is seen.

mod scanner;
#[cfg(test)]
mod tests;
mod token;

pub(crate) use scanner::Pattern;
use scanner::Scanner;
use token::Field;
pub(crate) use token::{RawStr, ScanError};

/// How the metadata was read.
#[derive(Debug, Default)]
pub(super) enum Metadata<'a> {
    /// No payload or no metadata.
    #[default]
    Absent,
    /// Its text matched `known[index]`; `key` was left alone.
    Known(usize),
    /// Read pair by pair: the text of its pairs is in `key`.
    Read {
        /// The object's text, braces included.
        text: &'a [u8],
        /// The last timestamp value token's offsets in `text`.
        timestamp: Option<std::ops::Range<usize>>,
    },
}

/// What the consumer reads of one document.
#[derive(Debug, Default)]
pub(super) struct Scanned<'a> {
    pub(super) name: Option<RawStr<'a>>,
    pub(super) address: Option<RawStr<'a>>,
    pub(super) port: Option<u16>,
    pub(super) ssl_port: Option<u16>,
    pub(super) metadata: Metadata<'a>,
    /// The last `timestamp` value of the metadata.
    pub(super) timestamp: Option<RawStr<'a>>,
    pub(super) registration_time: u64,
}

/// Scans a Curator `OldServiceInstance` document. Its metadata is first compared with the
/// `known` texts; if none matches, the text of every metadata pair but `timestamp` is
/// appended to `key` (each pair's raw text from its key's opening quote to its value's
/// closing quote, then a zero byte, which a valid JSON string cannot hold raw: equal keys
/// mean equal pair texts).
///
/// The offsets of the values that differ between instances of one application (see
/// [`Slot`]) are recorded in `layout`, so that the next document can be read along this
/// one's ([`scan_along`]); `layout` is left holding this document only when it is accepted.
pub(super) fn scan<'a>(
    data: &'a [u8],
    key: &mut Vec<u8>,
    known: &[Pattern],
    layout: &mut Layout,
) -> Result<Scanned<'a>, ScanError> {
    layout.clear();
    let slots = &mut layout.slots;
    let mut s = Scanner { data, pos: 0 };
    let mut out = Scanned::default();
    let mut seen = [false; 6];
    s.ws();
    s.object(|s, name| {
        let Some(field) = name.field()? else {
            // The instance id (`host:port`) differs between instances; other fields the
            // consumer does not read are usually the same and stay in the constant text.
            let start = s.pos;
            let id = name.quoted == b"\"id\"" && s.peek() == Some(b'"');
            s.skip_value()?;
            if id {
                slots.push((Slot::Skipped, start..s.pos));
            }
            return Ok(());
        };
        if std::mem::replace(&mut seen[field as usize], true) {
            return Err(s.err("a field appears twice"));
        }
        let start = s.pos;
        let slot = match field {
            Field::Name => {
                out.name = Some(s.string_value()?);
                Slot::Name
            }
            Field::Address => {
                out.address = Some(s.string_value()?);
                Slot::Address
            }
            Field::Port => {
                out.port = s.optional_u16()?;
                Slot::Port
            }
            Field::SslPort => {
                out.ssl_port = s.optional_u16()?;
                Slot::SslPort
            }
            Field::Payload => {
                if !s.null()? {
                    let mut metadata_seen = false;
                    s.object(|s, name| {
                        let start = s.pos;
                        if !name.is("metadata")? {
                            let id = name.quoted == b"\"id\"" && s.peek() == Some(b'"');
                            s.skip_value()?;
                            if id {
                                slots.push((Slot::Skipped, start..s.pos));
                            }
                            return Ok(());
                        }
                        if std::mem::replace(&mut metadata_seen, true) {
                            return Err(s.err("a field appears twice"));
                        }
                        if let Some((index, timestamp)) = s.known_metadata(known)? {
                            out.metadata = Metadata::Known(index);
                            out.timestamp = timestamp;
                        } else {
                            out.timestamp = s.metadata(key)?;
                            out.metadata = Metadata::Read {
                                text: &s.data[start..s.pos],
                                timestamp: out
                                    .timestamp
                                    .map(|t| t.at - start..t.at - start + t.quoted.len()),
                            };
                        }
                        slots.push((Slot::Metadata, start..s.pos));
                        Ok(())
                    })?;
                }
                return Ok(());
            }
            Field::RegistrationTime => {
                out.registration_time = s.u64()?;
                Slot::RegistrationTime
            }
        };
        slots.push((slot, start..s.pos));
        Ok(())
    })?;
    s.ws();
    if s.pos != data.len() {
        return Err(s.err("trailing characters"));
    }
    layout.doc.extend_from_slice(data);
    Ok(out)
}

/// A value that differs between instances of one application, read anew in each document
/// that follows a [`Layout`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Slot {
    /// `name`, a string.
    Name,
    /// `address`, a string.
    Address,
    /// `port`, a port or `null`.
    Port,
    /// `sslPort`, a port or `null`.
    SslPort,
    /// `registrationTimeUTC`, an unsigned integer.
    RegistrationTime,
    /// `payload.metadata`, found among the known metadata texts.
    Metadata,
    /// A string the consumer does not read (`id`, `payload.id`).
    Skipped,
}

/// The last document read in full and where its [`Slot`]s are: instances of one application
/// written by one Java version have the same fields in the same order and differ only in a
/// few values, so the next document is read by comparing the text between those values and
/// reading only the values.
#[derive(Debug, Default)]
pub(super) struct Layout {
    /// The document; empty when there is none to follow.
    doc: Vec<u8>,
    /// Its slots in document order, each with its value's offsets.
    slots: Vec<(Slot, std::ops::Range<usize>)>,
}

impl Layout {
    /// Forgets the document.
    pub(super) fn clear(&mut self) {
        self.doc.clear();
        self.slots.clear();
    }
}

/// Reads `data` along `layout`: the document it would be if it has the layout's text between
/// the slots and a valid value of the slot's kind in each (the metadata one of the `known`
/// texts). `None` when it does not (or a value is not valid): then [`scan`] reads it, and
/// gives the same result as this would have, or the error.
///
/// Why the result is the full scan's: the layout's document was accepted by [`scan`], and
/// `data` is that document with some complete value tokens replaced by valid tokens of the
/// same kind (the text around each is compared byte for byte, and each value ends where the
/// text after it starts), so it has the same structure, fields and field order, and each
/// value is read by the function [`scan`] uses for that field.
pub(super) fn scan_along<'a>(
    data: &'a [u8],
    known: &[Pattern],
    layout: &Layout,
) -> Option<Scanned<'a>> {
    if layout.doc.is_empty() {
        return None;
    }
    let mut s = Scanner { data, pos: 0 };
    let mut out = Scanned::default();
    let mut from = 0;
    for (slot, value) in &layout.slots {
        let between = layout.doc.get(from..value.start)?;
        if data.get(s.pos..s.pos + between.len())? != between {
            return None;
        }
        s.pos += between.len();
        match slot {
            Slot::Name => out.name = Some(s.string_value().ok()?),
            Slot::Address => out.address = Some(s.string_value().ok()?),
            Slot::Port => out.port = s.optional_u16().ok()?,
            Slot::SslPort => out.ssl_port = s.optional_u16().ok()?,
            Slot::RegistrationTime => out.registration_time = s.u64().ok()?,
            Slot::Metadata => {
                let (index, timestamp) = s.known_metadata(known).ok()??;
                out.metadata = Metadata::Known(index);
                out.timestamp = timestamp;
            }
            Slot::Skipped => {
                s.string_value().ok()?;
            }
        }
        from = value.end;
    }
    (data.get(s.pos..)? == layout.doc.get(from..)?).then_some(out)
}

/// The pairs of a metadata object `text` in document order, every value a string token.
pub(super) fn metadata_pairs<'a>(
    text: &'a [u8],
    mut each: impl FnMut(RawStr<'a>, RawStr<'a>) -> Result<(), ScanError>,
) -> Result<(), ScanError> {
    let mut s = Scanner { data: text, pos: 0 };
    s.object(|s, k| {
        let v = s.string_value()?;
        each(k, v)
    })
}
