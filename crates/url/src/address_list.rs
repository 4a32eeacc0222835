//! Registry and direct-connect address strings (Java `UrlUtils.parseURL` / `parseURLs`).

use crate::error::{snippet, UrlError};
use crate::keys;
use crate::params::UrlParams;
use crate::split::java_split;
use crate::url::non_empty;
use crate::{Url, UrlAddress};

/// Port given to an address that has none and no default (Java's hard-coded 9090).
const FALLBACK_PORT: u16 = 9090;

/// Parses one configured address the way Java's `UrlUtils.parseURL(address, defaults)` does.
///
/// * An address without `://` and without `?` may list several hosts separated by commas:
///   the first becomes the Url's host and the rest go into the `backup` parameter
///   (`10.0.0.1:2181,10.0.0.2:2181` gives host `10.0.0.1`, `backup=10.0.0.2:2181`).
/// * An address with `://` (or `?`) is parsed as it is. Note that this means
///   `zookeeper://a:2181,b:2181` is *not* split: as in Java, its host is `a:2181,b` and its
///   port `2181`, and [`Url::backup_address`] still yields `a:2181,b:2181`, which is the
///   connect string ZooKeeper clients expect.
/// * Missing parts come from `defaults`: the keys `protocol` (else `dubbo`), `username`,
///   `password`, `port` (else 9090) and `path`; every other non-empty default fills a
///   parameter that is absent or empty. `host` is never defaulted.
///
/// ```
/// use dubbo_url::{parse_address, UrlParams};
/// let defaults: UrlParams = [("protocol", "zookeeper"), ("port", "2181"), ("timeout", "5000")].into_iter().collect();
/// let url = parse_address("10.0.0.1,10.0.0.2:2182", &defaults).unwrap();
/// assert_eq!(url.to_string(), "zookeeper://10.0.0.1:2181?backup=10.0.0.2:2182&timeout=5000");
/// ```
pub fn parse_address(address: &str, defaults: &UrlParams) -> Result<Url, UrlError> {
    if address.is_empty() {
        return Err(UrlError::EmptyAddress);
    }
    let text = if address.contains("://") || address.contains('?') {
        address.to_owned()
    } else {
        let parts = java_split(address, &[',']);
        let (first, backups) = parts.split_first().ok_or(UrlError::EmptyAddress)?;
        if backups.is_empty() {
            (*first).to_owned()
        } else {
            format!("{first}?{}={}", keys::BACKUP, backups.join(","))
        }
    };

    let default_protocol = non_empty(defaults.get(keys::PROTOCOL)).unwrap_or("dubbo");
    let default_username = non_empty(defaults.get(keys::USERNAME));
    let default_password = non_empty(defaults.get(keys::PASSWORD));
    let default_port = parse_default_port(defaults.get(keys::PORT))?;
    let default_path = non_empty(defaults.get(keys::PATH));

    let url = Url::parse(&text)?;
    let mut changed = false;
    let protocol = match non_empty(url.protocol()) {
        Some(p) => p,
        None => {
            changed = true;
            default_protocol
        }
    };
    let mut username = url.username();
    if non_empty(username).is_none() && default_username.is_some() {
        changed = true;
        username = default_username;
    }
    let mut password = url.password();
    if non_empty(password).is_none() && default_password.is_some() {
        changed = true;
        password = default_password;
    }
    let port = match url.port() {
        0 => {
            changed = true;
            if default_port > 0 {
                default_port
            } else {
                FALLBACK_PORT
            }
        }
        p => p,
    };
    let mut path = url.path();
    if non_empty(path).is_none() && default_path.is_some() {
        changed = true;
        path = default_path;
    }

    let mut params = url.params().clone();
    for (key, value) in defaults.iter() {
        let reserved = matches!(
            key,
            keys::PROTOCOL | keys::USERNAME | keys::PASSWORD | keys::HOST | keys::PORT | keys::PATH
        );
        if !reserved && !value.is_empty() && non_empty(params.get(key)).is_none() {
            changed = true;
            params = params.with(key, value);
        }
    }
    if !changed {
        return Ok(url);
    }
    // Java rebuilds the Url through `URLParam.parse(Map)`, which applies the `default.` rule
    // once more.
    let bare: Vec<(String, String)> = params
        .iter()
        .filter_map(|(k, v)| {
            let bare = k.strip_prefix(keys::DEFAULT_KEY_PREFIX)?;
            Some((bare.to_owned(), v.to_owned()))
        })
        .collect();
    for (k, v) in &bare {
        params = params.with_if_absent(k, v);
    }

    let address = UrlAddress {
        protocol: Some(protocol.into()),
        credentials: crate::address::credentials(
            username.map(Into::into),
            password.map(Into::into),
        ),
        host: url.host().map(crate::text::Text::new),
        port,
        path: path.map(|p| crate::address::trim_leading_slashes(p).into()),
    };
    Ok(Url::from_parts(address, params))
}

/// Parses an address list separated by `|` or `;` (Java `UrlUtils.parseURLs`), each item with
/// [`parse_address`].
///
/// ```
/// let urls = dubbo_url::parse_addresses("10.0.0.1 | 10.0.0.2:2182", &Default::default()).unwrap();
/// assert_eq!(urls[0].to_string(), "dubbo://10.0.0.1:9090");
/// assert_eq!(urls[1].address(), "10.0.0.2:2182");
/// ```
pub fn parse_addresses(addresses: &str, defaults: &UrlParams) -> Result<Vec<Url>, UrlError> {
    if addresses.is_empty() {
        return Err(UrlError::EmptyAddress);
    }
    let items = java_split(addresses, &['|', ';']);
    if items.is_empty() {
        return Err(UrlError::EmptyAddress);
    }
    items
        .into_iter()
        .map(|item| parse_address(item, defaults))
        .collect()
}

/// Dubbo `StringUtils.parseInteger`: digits only, else 0.
fn parse_default_port(value: Option<&str>) -> Result<u16, UrlError> {
    let Some(text) = non_empty(value) else {
        return Ok(0);
    };
    if !text.bytes().all(|c| c.is_ascii_digit()) {
        return Ok(0);
    }
    let invalid = || UrlError::InvalidPort {
        text: snippet(text),
        input: snippet(text),
    };
    let port: i32 = text.parse().map_err(|_| invalid())?;
    u16::try_from(port).map_err(|_| UrlError::PortOutOfRange {
        port: i64::from(port),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults(pairs: &[(&str, &str)]) -> UrlParams {
        pairs.iter().copied().collect()
    }

    #[test]
    fn java_url_utils_examples() {
        // UrlUtilsTest.testParseUrl
        let url = parse_address(
            "remote://root:alibaba@127.0.0.1:9090/dubbo.test.api",
            &UrlParams::new(),
        )
        .unwrap();
        assert_eq!(url.address(), "127.0.0.1:9090");
        assert_eq!(url.username(), Some("root"));
        assert_eq!(url.password(), Some("alibaba"));
        assert_eq!(url.path(), Some("dubbo.test.api"));
        assert_eq!(url.protocol(), Some("remote"));
        // testParseURLWithSpecial
        let address = "127.0.0.1:2181?backup=127.0.0.1:2182,127.0.0.1:2183";
        assert_eq!(
            parse_address(address, &UrlParams::new())
                .unwrap()
                .to_string(),
            format!("dubbo://{address}")
        );
        // testDefaultUrl
        let url = parse_address("127.0.0.1", &UrlParams::new()).unwrap();
        assert_eq!(url.address(), "127.0.0.1:9090");
        assert_eq!(url.protocol(), Some("dubbo"));
        assert_eq!(url.username(), None);
        assert_eq!(url.path(), None);
        // testParseFromParameter
        let d = defaults(&[
            ("username", "root"),
            ("password", "alibaba"),
            ("port", "10000"),
            ("protocol", "dubbo"),
            ("path", "dubbo.test.api"),
            ("aaa", "bbb"),
            ("ccc", "ddd"),
        ]);
        let url = parse_address("127.0.0.1", &d).unwrap();
        assert_eq!(url.address(), "127.0.0.1:10000");
        assert_eq!(url.username(), Some("root"));
        assert_eq!(url.password(), Some("alibaba"));
        assert_eq!(url.path(), Some("dubbo.test.api"));
        assert_eq!(url.parameter("aaa"), Some("bbb"));
        assert_eq!(url.parameter("ccc"), Some("ddd"));
        assert_eq!(url.parameter("port"), None);
        // testParseUrl2
        let d = defaults(&[
            ("username", "root"),
            ("password", "alibaba"),
            ("port", "10000"),
            ("protocol", "dubbo"),
        ]);
        let url = parse_address("192.168.0.1,192.168.0.2,192.168.0.3", &d).unwrap();
        assert_eq!(url.address(), "192.168.0.1:10000");
        assert_eq!(url.parameter("backup"), Some("192.168.0.2,192.168.0.3"));
        assert_eq!(
            url.backup_address(0).unwrap(),
            "192.168.0.1:10000,192.168.0.2,192.168.0.3"
        );
        // testParseUrls
        let urls = parse_addresses("192.168.0.1|192.168.0.2|192.168.0.3", &d).unwrap();
        assert_eq!(urls.len(), 3);
        assert_eq!(urls[1].address(), "192.168.0.2:10000");
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_address("", &UrlParams::new()).unwrap_err().code(),
            "url.empty_address"
        );
        assert_eq!(
            parse_address(",", &UrlParams::new()).unwrap_err().code(),
            "url.empty_address"
        );
        assert_eq!(
            parse_addresses("|", &UrlParams::new()).unwrap_err().code(),
            "url.empty_address"
        );
        assert_eq!(
            parse_addresses("", &UrlParams::new()).unwrap_err().code(),
            "url.empty_address"
        );
        assert_eq!(parse_addresses("a||", &UrlParams::new()).unwrap().len(), 1);
        let d = defaults(&[("port", "99999")]);
        assert!(parse_address("h", &d).is_err());
        let d = defaults(&[("port", "abc")]);
        assert_eq!(parse_address("h", &d).unwrap().port(), 9090);
    }

    #[test]
    fn protocol_addresses_are_not_split() {
        let url = parse_address("zookeeper://a:2181,b:2181", &UrlParams::new()).unwrap();
        assert_eq!(url.host(), Some("a:2181,b"));
        assert_eq!(url.port(), 2181);
        assert_eq!(url.backup_address(0).unwrap(), "a:2181,b:2181");
        assert_eq!(url.parameter("backup"), None);
    }
}
