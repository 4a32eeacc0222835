//! The `backup` addresses of a [`Url`] (a registry or config centre cluster).

use super::Url;
use crate::error::{snippet, UrlError};
use crate::keys;
use crate::parser::parse_java_int;

impl Url {
    /// The address followed by the `backup` addresses, comma-separated, each given
    /// `default_port` when it has none or port 0 (Java `getBackupAddress(defaultPort)`).
    ///
    /// ```
    /// let url = dubbo_url::Url::parse("zookeeper://10.0.0.1:2181?backup=10.0.0.2:2181,10.0.0.3").unwrap();
    /// assert_eq!(url.backup_address(2181).unwrap(), "10.0.0.1:2181,10.0.0.2:2181,10.0.0.3:2181");
    /// ```
    pub fn backup_address(&self, default_port: u16) -> Result<String, UrlError> {
        let mut out = append_default_port(&self.address(), default_port)?;
        for backup in self.parameter_list(keys::BACKUP) {
            out.push(',');
            out.push_str(&append_default_port(backup, default_port)?);
        }
        Ok(out)
    }

    /// This Url followed by one copy per `backup` address (Java `getBackupUrls`).
    pub fn backup_urls(&self) -> Result<Vec<Url>, UrlError> {
        let mut urls = vec![self.clone()];
        for backup in self.parameter_list(keys::BACKUP) {
            urls.push(self.with_address(backup)?);
        }
        Ok(urls)
    }
}

/// Java `URL.appendDefaultPort`.
pub(super) fn append_default_port(address: &str, default_port: u16) -> Result<String, UrlError> {
    if address.is_empty() || default_port == 0 {
        return Ok(address.to_owned());
    }
    match address.find(':') {
        None => Ok(format!("{address}:{default_port}")),
        Some(i) => {
            let text = &address[i + 1..];
            match parse_java_int(text) {
                Some(0) => Ok(format!("{}{default_port}", &address[..=i])),
                Some(_) => Ok(address.to_owned()),
                None => Err(UrlError::InvalidPort {
                    text: snippet(text),
                    input: snippet(address),
                }),
            }
        }
    }
}
