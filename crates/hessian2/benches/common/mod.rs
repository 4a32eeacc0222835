//! The benchmark cases, shared by the criterion bench (`benches/codec.rs`), the
//! Java comparison harness (`benches/compare.rs`) and the size check
//! (`tests/bench_cases.rs`). They are the cases of Java's
//! `interop/java/hessian-golden/.../hessian/Bench.java`, value for value:
//!
//! - `pojo_1k`: [`BenchPojo::of`]`(1)`, i.e. Java's `BenchPojo.of(1)` (690 bytes);
//! - `pojos_100`: an `ArrayList` of `BenchPojo(0)` .. `BenchPojo(99)`;
//! - `users_100`: an `ArrayList` of [`User::of`]`(0)` .. `User(99)` (the interop
//!   contract's `User`);
//! - `string_64k`: a 65536-char string, `"abcdefghij"` repeated;
//! - `binary_64k`: a 65536-byte `byte[]`, byte i = i % 251.
//!
//! [`JAVA_BYTES`] holds the sizes hessian-lite 4.0.4 encodes them to; Rust's encodings
//! have the same sizes (the bytes differ only in `HashMap` iteration order).

#![allow(dead_code)]

use std::collections::HashMap;

use dubbo_hessian2::{java, CowStr, Hessian2Reader, Hessian2Writer};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Encoded sizes in Java (hessian-lite 4.0.4, one fresh `Hessian2Output` per value),
/// as printed in the `bytes` column of `Bench`.
pub const JAVA_BYTES: [(&str, usize); 5] = [
    ("pojo_1k", 690),
    ("pojos_100", 61207),
    ("users_100", 2556),
    ("string_64k", 65542),
    ("binary_64k", 65562),
];

/// Java's `org.apache.dubbo.interop.BenchPojo`, fields in Java declaration order
/// (hessian-lite's class definition lists them reversed: `attrs, tags, created,
/// description, active, score, age, email, name, id`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "org.apache.dubbo.interop.BenchPojo")]
pub struct BenchPojo {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub age: i32,
    pub score: f64,
    pub active: bool,
    pub description: String,
    pub created: java::Date,
    pub tags: Vec<String>,
    pub attrs: HashMap<String, String>,
}

impl BenchPojo {
    /// Java's `BenchPojo.of(i)`.
    pub fn of(i: i64) -> BenchPojo {
        BenchPojo {
            id: i,
            name: format!("user-{i}"),
            email: format!("user-{i}@example.org"),
            age: 20 + (i % 50) as i32,
            score: 12.25 + i as f64,
            active: i % 2 == 0,
            description: "abcdefghij".repeat(30),
            created: java::Date(1_700_000_000_000 + i * 1000),
            tags: (0..10).map(|t| format!("tag-{i}-{t}")).collect(),
            attrs: (0..10)
                .map(|k| (format!("key-{k}"), format!("value-{i}-{k}")))
                .collect(),
        }
    }
}

/// [`BenchPojo`] decoded without copying its text: every string borrows from the input
/// (see [`CowStr`]).
#[derive(Debug, Deserialize)]
#[serde(rename = "org.apache.dubbo.interop.BenchPojo")]
pub struct BenchPojoRef<'a> {
    pub id: i64,
    #[serde(borrow)]
    pub name: CowStr<'a>,
    #[serde(borrow)]
    pub email: CowStr<'a>,
    pub age: i32,
    pub score: f64,
    pub active: bool,
    #[serde(borrow)]
    pub description: CowStr<'a>,
    pub created: java::Date,
    #[serde(borrow)]
    pub tags: Vec<CowStr<'a>>,
    #[serde(borrow)]
    pub attrs: HashMap<CowStr<'a>, CowStr<'a>>,
}

impl BenchPojoRef<'_> {
    pub fn to_owned(&self) -> BenchPojo {
        BenchPojo {
            id: self.id,
            name: self.name.to_string(),
            email: self.email.to_string(),
            age: self.age,
            score: self.score,
            active: self.active,
            description: self.description.to_string(),
            created: self.created,
            tags: owned_list(&self.tags),
            attrs: owned_map(&self.attrs),
        }
    }
}

fn owned_list(list: &[CowStr<'_>]) -> Vec<String> {
    list.iter().map(|t| t.to_string()).collect()
}

fn owned_map(map: &HashMap<CowStr<'_>, CowStr<'_>>) -> HashMap<String, String> {
    map.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// [`User`] decoded without copying its text.
#[derive(Debug, Deserialize)]
#[serde(rename = "org.apache.dubbo.interop.User")]
pub struct UserRef<'a> {
    pub id: i64,
    #[serde(borrow)]
    pub name: CowStr<'a>,
    pub age: i32,
    #[serde(borrow)]
    pub tags: Vec<CowStr<'a>>,
    #[serde(borrow)]
    pub attrs: HashMap<CowStr<'a>, CowStr<'a>>,
}

impl UserRef<'_> {
    pub fn to_owned(&self) -> User {
        User {
            id: self.id,
            name: self.name.to_string(),
            age: self.age,
            tags: owned_list(&self.tags),
            attrs: owned_map(&self.attrs),
        }
    }
}

/// The interop contract's `org.apache.dubbo.interop.User`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "org.apache.dubbo.interop.User")]
pub struct User {
    pub id: i64,
    pub name: String,
    pub age: i32,
    pub tags: Vec<String>,
    pub attrs: HashMap<String, String>,
}

impl User {
    /// Java's `User.of(i)`: id i, name "user-"+i, age 20+i%50, tags ["t"+i], attrs {"k": "v"+i}.
    pub fn of(i: i64) -> User {
        User {
            id: i,
            name: format!("user-{i}"),
            age: 20 + (i % 50) as i32,
            tags: vec![format!("t{i}")],
            attrs: HashMap::from([("k".to_owned(), format!("v{i}"))]),
        }
    }
}

pub fn pojos_100() -> Vec<BenchPojo> {
    (0..100).map(BenchPojo::of).collect()
}

pub fn users_100() -> Vec<User> {
    (0..100).map(User::of).collect()
}

pub fn string_64k() -> String {
    "abcdefghij".chars().cycle().take(65536).collect()
}

pub fn binary_64k() -> java::ByteBuf {
    java::ByteBuf::from((0..65536).map(|i| (i % 251) as u8).collect::<Vec<u8>>())
}

/// Encodes `v` as Java's `Bench.encode` does: one fresh stream (new writer, so fresh
/// tables) into a reused output buffer (Java reuses one `ByteArrayOutputStream`).
#[inline]
pub fn encode_into<T: Serialize + ?Sized>(v: &T, buf: &mut Vec<u8>) -> usize {
    buf.clear();
    let mut w = Hessian2Writer::with_buffer(std::mem::take(buf));
    w.serialize(v).expect("encode");
    *buf = w.into_bytes();
    buf.len()
}

/// Encodes `v` into a new vector.
pub fn encode<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    let mut buf = Vec::new();
    encode_into(v, &mut buf);
    buf
}

/// Decodes one `T` (Java's `Bench.decode`: a new reader, `readObject`).
#[inline]
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> T {
    Hessian2Reader::new(bytes)
        .deserialize::<T>()
        .expect("decode")
}

pub type EncodeFn = Box<dyn Fn(&mut Vec<u8>) -> usize>;
pub type DecodeFn = Box<dyn Fn(&[u8])>;
pub type CheckFn = Box<dyn Fn(&[u8]) -> Result<(), String>>;

/// One case, type-erased: what the comparison harness and the size test need.
pub struct Case {
    pub name: &'static str,
    /// Encodes the case's value into the buffer (cleared first); returns the size.
    pub encode: EncodeFn,
    /// Decodes bytes into the case's Rust type (and drops the value).
    pub decode: DecodeFn,
    /// Decodes bytes (e.g. Java's) and compares them with the case's value.
    pub check: CheckFn,
    /// For cases with text: decodes into the borrowing variant of the type
    /// ([`BenchPojoRef`], [`UserRef`]; dropped), and checks that against the value.
    pub borrowed: Option<(DecodeFn, CheckFn)>,
    /// For `binary_64k`: the bytes, for the `copy` reference op (Java's
    /// `System.arraycopy`): what one copy of them costs on this machine.
    pub copy: Option<Vec<u8>>,
}

impl Case {
    /// Decodes `bytes` into the case's type, and into its borrowing variant if it has
    /// one, and compares both with the case's value.
    pub fn check_all(&self, bytes: &[u8]) -> Result<(), String> {
        (self.check)(bytes)?;
        match &self.borrowed {
            Some((_, check)) => check(bytes),
            None => Ok(()),
        }
    }
}

/// One copy of `src` into the reused `dst`, in 2 KiB pieces, as the writer copies
/// (glibc's `rep movsb` for larger copies is much slower at some alignments on AMD).
#[inline]
pub fn copy_into(src: &[u8], dst: &mut Vec<u8>) {
    dst.clear();
    for piece in src.chunks(2048) {
        dst.extend_from_slice(piece);
    }
}

fn check_decoded<T: PartialEq>(
    name: &str,
    bytes: &[u8],
    value: &T,
    read: impl FnOnce(&mut Hessian2Reader<'_>) -> Result<T, String>,
) -> Result<(), String> {
    let mut r = Hessian2Reader::new(bytes);
    let back = read(&mut r).map_err(|e| format!("{name}: {e}"))?;
    if r.remaining() != 0 {
        return Err(format!("{name}: {} trailing bytes", r.remaining()));
    }
    if back != *value {
        return Err(format!(
            "{name}: decoded value differs from the case's value"
        ));
    }
    Ok(())
}

fn case<T>(name: &'static str, value: T) -> Case
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug + 'static,
{
    case_rc(name, std::rc::Rc::new(value))
}

fn case_rc<T>(name: &'static str, value: std::rc::Rc<T>) -> Case
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug + 'static,
{
    let (v1, v2) = (value.clone(), value);
    Case {
        name,
        encode: Box::new(move |buf| encode_into(&*v1, buf)),
        decode: Box::new(|bytes| drop(std::hint::black_box(decode::<T>(bytes)))),
        check: Box::new(move |bytes| {
            check_decoded(name, bytes, &*v2, |r| {
                r.deserialize().map_err(|e| e.to_string())
            })
        }),
        borrowed: None,
        copy: None,
    }
}

/// A case type with a borrowing variant (its strings as [`CowStr`]s).
pub trait Borrowing: Sized {
    type Ref<'a>: Deserialize<'a>;
    fn from_ref(r: &Self::Ref<'_>) -> Self;
}

impl Borrowing for BenchPojo {
    type Ref<'a> = BenchPojoRef<'a>;
    fn from_ref(r: &BenchPojoRef<'_>) -> Self {
        r.to_owned()
    }
}

impl Borrowing for User {
    type Ref<'a> = UserRef<'a>;
    fn from_ref(r: &UserRef<'_>) -> Self {
        r.to_owned()
    }
}

impl<T: Borrowing> Borrowing for Vec<T> {
    type Ref<'a> = Vec<T::Ref<'a>>;
    fn from_ref(r: &Vec<T::Ref<'_>>) -> Self {
        r.iter().map(T::from_ref).collect()
    }
}

/// [`case`], plus decoding into the borrowing variant of `T`.
fn case_borrowing<T>(name: &'static str, value: T) -> Case
where
    T: Borrowing + Serialize + DeserializeOwned + PartialEq + std::fmt::Debug + 'static,
{
    let value = std::rc::Rc::new(value);
    let mut c = case_rc(name, value.clone());
    c.borrowed = Some((
        Box::new(|bytes| {
            let v: T::Ref<'_> = Hessian2Reader::new(bytes).deserialize().expect("decode");
            drop(std::hint::black_box(v))
        }),
        Box::new(move |bytes| {
            check_decoded(name, bytes, &*value, |r| {
                r.deserialize::<T::Ref<'_>>()
                    .map(|v| T::from_ref(&v))
                    .map_err(|e| e.to_string())
            })
        }),
    ));
    c
}

/// All cases, in Java's order.
pub fn cases() -> Vec<Case> {
    let mut binary = case("binary_64k", binary_64k());
    binary.copy = Some(binary_64k().into_vec());
    vec![
        case_borrowing("pojo_1k", BenchPojo::of(1)),
        case_borrowing("pojos_100", pojos_100()),
        case_borrowing("users_100", users_100()),
        case("string_64k", string_64k()),
        binary,
    ]
}

/// Java's size for a case.
pub fn java_bytes(name: &str) -> Option<usize> {
    JAVA_BYTES.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}
