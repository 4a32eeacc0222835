//! Dubbo's unified Url for dubbo-rs, parsed and formatted exactly as Java Dubbo 3.3 does.
//!
//! In Dubbo every service, reference, registry and rule is described by a Url, and
//! configuration travels as Url parameters. A Rust peer that reads a ZooKeeper registry written
//! by Java providers, or writes one Java consumers read, has to agree with Java on every byte;
//! this crate is that agreement.
//!
//! ```
//! use dubbo_url::{ConfigLayers, Interner, Url};
//!
//! // A provider node name as Java writes it under /dubbo/org.Foo/providers/.
//! let node = "dubbo%3A%2F%2F10.0.0.7%3A20880%2Forg.Foo%3Fapplication%3Ddemo%26interface%3Dorg.Foo\
//!             %26methods%3DsayHello%2Cbye%26sayHello.timeout%3D2000%26side%3Dprovider%26timeout%3D1000";
//! let interner = Interner::new(); // owned by the registry, shared by all Urls it parses
//! let provider = Url::parse_encoded_with(node, &interner).unwrap();
//! assert_eq!(provider.address(), "10.0.0.7:20880");
//! assert_eq!(provider.service_key().as_deref(), Some("org.Foo"));
//! assert_eq!(provider.to_encoded_full_string(), node); // byte-for-byte round trip
//!
//! // The consumer's view of that provider: method > interface > global, consumer > provider.
//! let consumer = Url::parse("consumer://10.0.0.9/org.Foo?interface=org.Foo&timeout=3000").unwrap();
//! let layers = ConfigLayers::new(consumer, provider);
//! assert_eq!(layers.method_get("sayHello", "timeout"), Some("2000"));
//! assert_eq!(layers.method_get("bye", "timeout"), Some("3000"));
//! ```
//!
//! # Shape
//!
//! * [`Url`] = [`UrlAddress`] (protocol, user, password, host, port, path) + [`UrlParams`],
//!   kept apart as in Dubbo 3 so registries can share either half between Urls. Both are
//!   immutable behind `Arc`s; `with_*` methods return new Urls.
//! * Repeated strings are shared through an explicit [`Interner`] that the caller owns and
//!   passes to [`Url::parse_with`] / [`Url::parse_encoded_with`]. There is no hidden global:
//!   [`Url::parse`] allocates fresh strings, which suits configuration and tests; registries
//!   that parse thousands of provider Urls should keep one `Interner` per framework instance.
//! * [`ConfigLayers`] resolves a setting across the consumer, provider and override Urls with
//!   Dubbo's priority rule; [`merge_url`] is Java's flattening `ClusterUtils.mergeUrl`.
//! * [`encode`] / [`decode`] are Java's `URLEncoder` / `URLDecoder` (UTF-8).
//! * [`parse_address`] / [`parse_addresses`] read configured registry addresses with backups
//!   (`UrlUtils.parseURL`).
//! * Every failure is a [`UrlError`] with a stable [`code`](UrlError::code); no input panics.
//!
//! # Forms accepted (Java `URLStrParser.parseDecodedStr`)
//!
//! | Input                                        | protocol | host          | port  | path                   |
//! |----------------------------------------------|----------|---------------|-------|------------------------|
//! | `dubbo://u:p@10.0.0.1:20880/org.Foo?k=v`      | dubbo    | 10.0.0.1      | 20880 | org.Foo                |
//! | `192.168.1.3:20880`                          | –        | 192.168.1.3   | 20880 | –                      |
//! | `file:///home/user1/router.js?type=script`   | file     | –             | 0     | home/user1/router.js   |
//! | `file://home/user1/router.js?type=script`    | file     | home          | 0     | user1/router.js        |
//! | `file:///D:/1/router.js` and `file:/D:/1/router.js` | file | –          | 0     | D:/1/router.js         |
//! | `/home/user1/router.js?type=script`          | –        | –             | 0     | home/user1/router.js   |
//! | `home/user1/router.js?type=script`           | –        | home          | 0     | user1/router.js        |
//! | `dubbo://[::1]:20880`                        | dubbo    | `[::1]`       | 20880 | –                      |
//! | `dubbo://fe80::1%en0/p` (zone id, no port)   | dubbo    | `fe80::1%en0` | 0     | p                      |
//! | `zookeeper://a:2181,b:2181`                  | zookeeper| `a:2181,b`    | 2181  | –                      |
//!
//! Details that follow Java on purpose:
//!
//! * The body ends at the first `?`; everything after `#` in the body is ignored, but a `#`
//!   inside the parameters is part of a value (`?x=a#b` gives `x = "a#b"`).
//! * Parameters split on `&` and `;`; a key without `=` has the value `""`; `default.<key>`
//!   also sets `<key>` unless present (applied twice, as Java's parser and `URLParam` each
//!   apply it once). Values are not percent-decoded in the decoded form.
//! * In the encoded form (`parse_encoded`) Java's index arithmetic is kept, including its
//!   quirks on malformed input (see [`UrlParams::parse_encoded`]).
//! * User info runs to the last `@`; the password starts after the first `:` in it. A
//!   password without user name (`:secret@host`) is accepted by the parser, as in Java 3.3
//!   (`URLTest.testGetAuthority`); building one with [`UrlAddress::new`] or [`UrlBuilder`]
//!   fails with [`UrlError::PasswordWithoutUsername`], as Java's `URL` constructor does.
//! * The port is the text after the last `:` of the authority, parsed like
//!   `Integer.parseInt` (sign allowed, negative becomes 0); IPv6 hosts must therefore carry a
//!   port when bracketed (`[::1]` alone is an invalid port, as in Java).
//! * `zookeeper://a:1,b:2` is not split into a `backup` parameter by the parser (Java does not
//!   either); [`Url::backup_address`] gives the `a:1,b:2` connect string, and
//!   [`parse_address`] turns `a:1,b:2` (without `://`) into `backup=b:2`.
//!
//! Deliberate differences from Java, all on input Java would also mishandle:
//! ports above 65535 are an error ([`UrlError::PortOutOfRange`]) instead of being kept; only
//! ASCII digits count in numbers (Java also accepts other Unicode digits); text that cannot be
//! a Rust string (lone UTF-16 surrogates produced by cutting malformed input) becomes U+FFFD;
//! [`Url::to_service_string`] does not resolve the host to an IP; `==` compares every
//! parameter while Java's `equals` ignores the `timestamp` value ([`Url::equivalent`] does
//! that).
//!
//! `tests/java_differential.rs` checks all of this against Java Dubbo itself (parsing,
//! formatting, encoding, [`ConfigLayers`] and [`merge_url`]) when `DUBBO_JAVA_CLASSPATH` points
//! at the Dubbo 3.3 jars.

#![warn(missing_docs)]

mod address;
mod address_list;
mod codec;
mod error;
mod intern;
pub mod keys;
mod layers;
mod own_layer;
mod params;
mod parser;
mod protocol_name;
mod split;
mod text;
mod url;

pub use address::UrlAddress;
pub use address_list::{parse_address, parse_addresses};
pub use codec::{decode, encode};
pub use error::UrlError;
pub use intern::Interner;
pub use layers::{merge_url, ConfigLayers, Source};
pub use params::UrlParams;
pub use protocol_name::{canonical_protocol, is_triple};
pub use url::{Url, UrlBuilder};
