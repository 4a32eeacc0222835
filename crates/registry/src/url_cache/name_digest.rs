//! [`NameDigest`]: the keyed 122-bit digest a [`ParsedUrlCache`](super::ParsedUrlCache)
//! remembers names by.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

/// The Mersenne prime 2^61 - 1, the field the polynomials are evaluated in.
const P: u64 = (1 << 61) - 1;

/// Bytes per message block: 7, so that every block is below `P`.
const BLOCK: usize = 7;

/// The low 56 bits: one block of an 8-byte load.
const LOW56: u64 = (1 << 56) - 1;

/// Four blocks are folded in per step; the step reads one byte past them (8-byte loads).
const STEP: usize = 4 * BLOCK;

/// A digest of a name: two polynomial hashes of its bytes over GF(2^61 - 1), each at its own
/// secret random point, drawn per cache.
///
/// The name is cut into 7-byte little-endian blocks `b_1 .. b_k` (the last one zero-padded)
/// followed by one block holding its length, and each half of the digest is
/// `b_1·r^k + b_2·r^(k-1) + … + len` at the point `r` of that half. The cache trusts a digest
/// match as a name match, so the argument has to hold:
///
/// * two distinct names give distinct block lists (the length block fixes how the padding is
///   read), and the difference of their polynomials is a non-zero polynomial of degree below
///   `L`, the longer list's length, so it has fewer than `L` roots: over a uniformly random
///   point the two collide with probability below `L / 2^61` (this is the classic bound for
///   polynomial hashing, and needs nothing of the names but that they are fixed before the
///   point is drawn);
/// * the two points are independent, so both halves collide with probability below
///   `(L / 2^61)²`; for names up to 1 KiB (`L` = 148) that is below 2^-107;
/// * the points never leave the process and nothing the cache does depends on them but which
///   cached URL a name is given, so registry data is chosen without knowledge of them and
///   cannot aim at a collision; by the union bound the chance that any two of `n` distinct
///   names ever held together collide is below `n²/2 · (L / 2^61)²`: for ten million names of
///   1 KiB, about 2 × 10^-19, far below the rate of undetected memory errors.
///
/// Every byte is hashed (a digest of the ends alone would let names differing in the middle
/// collide). Evaluating two polynomials costs two multiplications per 7 bytes, a few times
/// cheaper than the two SipHash passes the cache used before, and four blocks are folded
/// in per step so the multiplications do not wait on each other.
#[derive(Debug, Clone)]
pub(super) struct NameDigest {
    /// The two points, each as its powers `[r, r², r³, r⁴]` (four blocks are folded in per
    /// step, which keeps the multiplier busy instead of waiting on one chain).
    points: [[u64; 4]; 2],
}

impl Default for NameDigest {
    fn default() -> Self {
        // std's `RandomState` is seeded from the operating system's randomness once per
        // thread and advanced per instance; its keyed hash of a constant is a fresh random
        // value per state.
        let point = || {
            let r = RandomState::new().hash_one(0x5eed_u64) & P;
            let r = if r == P { 0 } else { r };
            let r2 = mul(r, r);
            [r, r2, mul(r2, r), mul(r2, r2)]
        };
        NameDigest {
            points: [point(), point()],
        }
    }
}

impl NameDigest {
    /// The digest of `name`.
    pub(super) fn of(&self, name: &str) -> u128 {
        let bytes = name.as_bytes();
        let [rs, ss] = self.points;
        let (mut h, mut g) = (0u64, 0u64);
        let mut at = 0;
        while let Some(Ok(step)) = bytes
            .get(at..at + STEP + 1)
            .map(<&[u8; STEP + 1]>::try_from)
        {
            let blocks = [load(step, 0), load(step, 1), load(step, 2), load(step, 3)];
            h = fold4(h, &rs, &blocks);
            g = fold4(g, &ss, &blocks);
            at += STEP;
        }
        for one in bytes.get(at..).unwrap_or_default().chunks(BLOCK) {
            let a = block(one);
            h = fold1(h, rs[0], a);
            g = fold1(g, ss[0], a);
        }
        let (r, s) = (rs[0], ss[0]);
        let len = bytes.len() as u64 & ((1 << 56) - 1);
        h = fold1(h, r, len);
        g = fold1(g, s, len);
        (u128::from(h) << 64) | u128::from(g)
    }
}

/// Up to 7 bytes, little-endian.
fn block(bytes: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    buf[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(buf)
}

/// `h·r + a` in the field (`h`, `r` below `P`, `a` below 2^56).
fn fold1(h: u64, r: u64, a: u64) -> u64 {
    reduce(u128::from(h) * u128::from(r) + u128::from(a))
}

/// Block `i` of a step: bytes `7i .. 7i + 7`, read as 8 and masked.
fn load(step: &[u8; STEP + 1], i: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&step[i * BLOCK..i * BLOCK + 8]);
    u64::from_le_bytes(word) & LOW56
}

/// Four Horner steps at once, `h·r⁴ + a·r³ + b·r² + c·r + d`, with one reduction (the sum
/// of four products below 2^117 and one below 2^122 stays below 2^124).
fn fold4(h: u64, r: &[u64; 4], [a, b, c, d]: &[u64; 4]) -> u64 {
    let m = |x: u64, y: u64| u128::from(x) * u128::from(y);
    reduce(m(h, r[3]) + m(*a, r[2]) + m(*b, r[1]) + m(*c, r[0]) + u128::from(*d))
}

fn mul(a: u64, b: u64) -> u64 {
    reduce(u128::from(a) * u128::from(b))
}

/// `x mod P` for `x` below 2^124.
fn reduce(x: u128) -> u64 {
    // 2^61 ≡ 1 (mod P): fold the bits above 61 onto the low ones, twice.
    let folded = (x as u64 & P) + (x >> 61) as u64;
    let folded = (folded & P) + (folded >> 61);
    if folded >= P {
        folded - P
    } else {
        folded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The polynomial written out, one block at a time, with big-integer-free arithmetic.
    fn reference(name: &[u8], r: u64) -> u64 {
        let mut h = 0u64;
        for chunk in name.chunks(BLOCK) {
            h = ((u128::from(h) * u128::from(r) + u128::from(block(chunk))) % u128::from(P)) as u64;
        }
        ((u128::from(h) * u128::from(r) + name.len() as u128) % u128::from(P)) as u64
    }

    #[test]
    fn digest_is_the_polynomial_at_both_points() {
        let d = NameDigest::default();
        let long: String = (0..1000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        for len in 0..100 {
            let name = &long[..len];
            let got = d.of(name);
            assert_eq!(
                (got >> 64) as u64,
                reference(name.as_bytes(), d.points[0][0])
            );
            assert_eq!(got as u64, reference(name.as_bytes(), d.points[1][0]));
        }
        let got = d.of(&long);
        assert_eq!(got as u64, reference(long.as_bytes(), d.points[1][0]));
    }

    #[test]
    fn padding_and_points_tell_names_apart() {
        let d = NameDigest::default();
        assert_ne!(d.of(""), d.of("\0"));
        assert_ne!(d.of("a"), d.of("a\0"));
        assert_ne!(d.of("abcdefg"), d.of("abcdefg\0\0\0\0\0\0\0"));
        assert_ne!(d.points[0][0], d.points[1][0]);
        assert_ne!(d.of("x"), NameDigest::default().of("x"));
        assert_eq!(reduce(u128::from(P)), 0);
        assert_eq!(reduce(u128::from(P) * u128::from(P - 1) + 5), 5);
    }
}
