//! The serializations dubbo:// bodies are written in, and which one a call uses: Java's
//! `UrlUtils.serializationId` for a consumer, `PermittedSerializationKeeper` for a provider.
//!
//! - A consumer sends the first serialization it speaks of the URL's `prefer.serialization`
//!   (a comma-separated list), then `serialization`, then `hessian2`. The URL is the provider's
//!   merged with the reference's own keys, so a consumer's `prefer.serialization` wins over
//!   what the provider advertises.
//! - A provider permits, per service, the serializations its URL names in
//!   `prefer.serialization` and `serialization`, plus `hessian2`; a request in any other one is
//!   refused before its arguments are read.
//! - A provider answers in the serialization the request came in.

use dubbo_url::Url;

use crate::header::{FASTJSON2, HESSIAN2};

/// A serialization dubbo:// bodies can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Serialization {
    /// Hessian 2 (id 2), the default.
    #[default]
    Hessian2,
    /// fastjson2's JSONB (id 23), the default of Java 3.2 applications with fastjson2.
    Fastjson2,
}

impl Serialization {
    /// The serialization with Dubbo id `id`, if dubbo-rs speaks it.
    pub fn from_id(id: u8) -> Option<Self> {
        match id {
            HESSIAN2 => Some(Serialization::Hessian2),
            FASTJSON2 => Some(Serialization::Fastjson2),
            _ => None,
        }
    }

    /// The serialization Java names `name` (`hessian2`, `fastjson2`), if dubbo-rs speaks it.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim() {
            "hessian2" => Some(Serialization::Hessian2),
            "fastjson2" => Some(Serialization::Fastjson2),
            _ => None,
        }
    }

    /// The Dubbo id in the header's flag byte.
    pub fn id(self) -> u8 {
        match self {
            Serialization::Hessian2 => HESSIAN2,
            Serialization::Fastjson2 => FASTJSON2,
        }
    }

    /// Java's name of it.
    pub fn name(self) -> &'static str {
        match self {
            Serialization::Hessian2 => "hessian2",
            Serialization::Fastjson2 => "fastjson2",
        }
    }

    /// What a consumer sends to the provider of `url`: the first serialization dubbo-rs speaks
    /// of `prefer.serialization`, then `serialization`, else Hessian 2.
    pub fn for_consumer(url: &Url) -> Self {
        Self::for_channel(url)
    }

    /// What a connection made for `url` (a reference's, or the first service exported on a
    /// port) writes its own messages in: heartbeats and events (readonly). Java's
    /// `CodecSupport.getSerialization(channel URL)`: the first of `prefer.serialization`, then
    /// `serialization`, else Hessian 2 (the first dubbo-rs speaks). Answers to heartbeats stay
    /// in the heartbeat's own serialization, as Java answers them.
    pub fn for_channel(url: &Url) -> Self {
        names(url).find_map(Self::from_name).unwrap_or_default()
    }

    /// Whether the service exported as `url` permits a request in serialization `id`: one its
    /// `prefer.serialization` or `serialization` names, or Hessian 2.
    pub fn permitted(url: &Url, id: u8) -> bool {
        id == HESSIAN2 || names(url).any(|n| Self::from_name(n).is_some_and(|s| s.id() == id))
    }
}

/// The names of `prefer.serialization` then `serialization`, in order, blanks left out.
fn names(url: &Url) -> impl Iterator<Item = &str> {
    let prefer = url.parameter("prefer.serialization").unwrap_or_default();
    let plain = url.parameter("serialization").unwrap_or_default();
    prefer
        .split(',')
        .chain(std::iter::once(plain))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(q: &str) -> Url {
        Url::parse(&format!("dubbo://127.0.0.1:20880/a.B?{q}")).unwrap()
    }

    #[test]
    fn consumer_takes_the_first_known_preference_then_serialization_then_hessian2() {
        let pick = |q| Serialization::for_consumer(&url(q));
        assert_eq!(
            pick("prefer.serialization=fastjson2,hessian2"),
            Serialization::Fastjson2
        );
        assert_eq!(
            pick("prefer.serialization=hessian2,fastjson2"),
            Serialization::Hessian2
        );
        assert_eq!(
            pick("prefer.serialization=kryo, fastjson2"),
            Serialization::Fastjson2
        );
        assert_eq!(pick("serialization=fastjson2"), Serialization::Fastjson2);
        assert_eq!(
            pick("prefer.serialization=hessian2&serialization=fastjson2"),
            Serialization::Hessian2
        );
        assert_eq!(pick("x=1"), Serialization::Hessian2);
        assert_eq!(pick("prefer.serialization=kryo"), Serialization::Hessian2);
    }

    #[test]
    fn provider_permits_what_it_names_and_hessian2() {
        let u = url("prefer.serialization=fastjson2,hessian2");
        assert!(Serialization::permitted(&u, FASTJSON2));
        assert!(Serialization::permitted(&u, HESSIAN2));
        assert!(!Serialization::permitted(&u, 8));
        let u = url("serialization=hessian2");
        assert!(!Serialization::permitted(&u, FASTJSON2));
        assert!(Serialization::permitted(
            &url("serialization=fastjson2"),
            FASTJSON2
        ));
        assert!(!Serialization::permitted(&url(""), FASTJSON2));
    }

    #[test]
    fn ids_and_names_round_trip() {
        for s in [Serialization::Hessian2, Serialization::Fastjson2] {
            assert_eq!(Serialization::from_id(s.id()), Some(s));
            assert_eq!(Serialization::from_name(s.name()), Some(s));
        }
        assert_eq!(Serialization::from_id(8), None);
    }
}
