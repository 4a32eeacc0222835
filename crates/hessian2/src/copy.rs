//! Appending large byte runs.
//!
//! From about 2 KiB on, glibc's `memcpy` switches to `rep movsb`, which on some AMD processors
//! (this project's benchmark machine among them) is more than ten times slower when the
//! source and the destination sit at different offsets within a page — say a
//! page-aligned 64 KiB `byte[]` from mimalloc copied to just after a 3-byte chunk header.
//! Below that size `memcpy` uses vector loads and stores, which do not care. Copying long
//! runs in pieces under the threshold keeps every copy on the fast path whatever the
//! allocator and the alignment (docs/performance-hessian.md has the measurements).
//!
//! Kept (issue 29) for what plain `extend_from_slice` / `to_owned` cost instead, 2026-12-05 on
//! this project's AMD EPYC, `cargo bench --profile release -p dubbo-hessian2 --bench
//! compare_mimalloc -- --warmup-ms 300 --measure-ms 1000 --only string_64k,binary_64k` (and
//! `--bench compare`, glibc's allocator), two alternating runs: encoding `string_64k` 19.6 µs
//! instead of 2.1, `binary_64k` 12.6 µs instead of 1.4 (mimalloc); decoding `string_64k`
//! 11.7-12.8 µs instead of 2.8 (glibc). The RPC benchmark (bench/) has no payload above 2 KiB,
//! where these copies are plain ones, so it shows neither the gain nor a cost.

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

/// Appends `src` to `dst`, in pieces of at most [`PIECE`] bytes cut at char boundaries.
pub(crate) fn push_str(dst: &mut String, mut src: &str) {
    dst.reserve(src.len());
    while src.len() > PIECE {
        // A char is at most 4 bytes: a boundary is never more than 3 bytes back.
        let mut cut = PIECE;
        while !src.is_char_boundary(cut) {
            cut -= 1;
        }
        let (piece, rest) = src.split_at(cut);
        dst.push_str(piece);
        src = rest;
    }
    dst.push_str(src);
}

/// `src` as a new `String` (long text copied in pieces, see [`push_str`]).
#[inline]
pub(crate) fn to_string(src: &str) -> String {
    if src.len() <= PIECE {
        src.to_owned()
    } else {
        let mut s = String::with_capacity(src.len());
        push_str(&mut s, src);
        s
    }
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
            let text = ascii_str(&src[..len]).unwrap();
            let mut s = String::from("head");
            push_str(&mut s, text);
            assert_eq!(&s.as_bytes()[4..], &src[..len]);
            assert_eq!(to_string(text), text);
        }
        // Multi-byte chars across every piece boundary stay whole.
        for prefix in 0..4 {
            let text = "x".repeat(prefix) + &"é€😀".repeat(3 * PIECE / 9);
            let mut s = String::new();
            push_str(&mut s, &text);
            assert_eq!(s, text);
            assert_eq!(to_string(&text), text);
        }
        for len in [0, 1, 7, 8, 9, 31, 64] {
            let text = &src[..len];
            assert_eq!(ascii_str(text).map(str::as_bytes), Some(text));
            let mut high = text.to_vec();
            high.push(0xc3);
            assert_eq!(ascii_str(&high), None);
        }
    }
}
