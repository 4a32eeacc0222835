//! Appending large byte runs.
//!
//! From about 2 KiB on, glibc's `memcpy` switches to `rep movsb`, which on some AMD processors
//! (this project's benchmark machine among them) is more than ten times slower when the
//! source and the destination sit at different offsets within a page — say a
//! page-aligned 64 KiB `byte[]` from mimalloc copied to just after a 3-byte chunk header.
//! Below that size `memcpy` uses vector loads and stores, which do not care. Copying long
//! runs in pieces under the threshold keeps every copy on the fast path whatever the
//! allocator and the alignment (docs/performance-hessian.md has the measurements).

/// Pieces of this many bytes stay under glibc's `rep movsb` threshold (2112 bytes on
/// processors with fast short `rep movsb`, 4 KiB otherwise with AVX2).
const PIECE: usize = 2048;

/// Appends `src` to `dst`.
#[inline]
pub(crate) fn extend(dst: &mut Vec<u8>, src: &[u8]) {
    if src.len() <= PIECE {
        dst.extend_from_slice(src);
    } else {
        extend_in_pieces(dst, src);
    }
}

#[inline(never)]
fn extend_in_pieces(dst: &mut Vec<u8>, src: &[u8]) {
    dst.reserve(src.len());
    for piece in src.chunks(PIECE) {
        dst.extend_from_slice(piece);
    }
}

/// `src` as a new `Vec`.
#[inline]
pub(crate) fn to_vec(src: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(src.len());
    extend(&mut v, src);
    v
}

/// `bytes` as text when they are all ASCII: the common case of strings on the wire,
/// checked a word at a time where `str::from_utf8` walks short strings byte by byte.
#[allow(unsafe_code)]
#[inline]
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        None
    }
}

/// Appends ASCII bytes to `dst`; `Err` if they are not UTF-8 after all.
pub(crate) fn push_ascii(dst: &mut String, src: &[u8]) -> Result<(), std::str::Utf8Error> {
    dst.reserve(src.len());
    // Every byte boundary of ASCII is a char boundary.
    for piece in src.chunks(PIECE) {
        dst.push_str(std::str::from_utf8(piece)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_append_every_byte_in_order() {
        let src: Vec<u8> = (0..3 * PIECE + 7).map(|i| (i % 127) as u8).collect();
        for len in [0, 1, PIECE - 1, PIECE, PIECE + 1, 2 * PIECE, src.len()] {
            let mut dst = b"head".to_vec();
            extend(&mut dst, &src[..len]);
            assert_eq!(&dst[..4], b"head");
            assert_eq!(&dst[4..], &src[..len]);
            assert_eq!(to_vec(&src[..len]), &src[..len]);
            let mut s = String::from("head");
            push_ascii(&mut s, &src[..len]).unwrap();
            assert_eq!(&s.as_bytes()[4..], &src[..len]);
        }
        assert!(push_ascii(&mut String::new(), &[0xff; 3000]).is_err());
        for len in [0, 1, 7, 8, 9, 31, 64] {
            let text = &src[..len];
            assert_eq!(ascii_str(text).map(str::as_bytes), Some(text));
            let mut high = text.to_vec();
            high.push(0xc3);
            assert_eq!(ascii_str(&high), None);
        }
    }
}
