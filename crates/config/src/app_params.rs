//! The informational application settings that Java puts into every URL of the application.

use super::ApplicationConfig;

impl ApplicationConfig {
    /// The URL parameters of the application besides its name, as Java's `ApplicationConfig`
    /// contributes them to provider and consumer URLs: `application.version`, `owner`,
    /// `organization` and `environment`, each when set and not empty.
    pub fn url_parameters(&self) -> Vec<(String, String)> {
        [
            ("application.version", &self.version),
            ("owner", &self.owner),
            ("organization", &self.organization),
            ("environment", &self.environment),
        ]
        .into_iter()
        .filter_map(|(key, value)| {
            value
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(|v| (key.to_owned(), v.to_owned()))
        })
        .collect()
    }
}
