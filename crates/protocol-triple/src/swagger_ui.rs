//! Swagger UI for the OpenAPI document of the REST forms, at `/dubbo/openapi/swagger-ui/` on
//! the Triple port (the path Java Dubbo 3.3 and dubbo-go serve it at).
//!
//! The page is a small HTML shell that loads Swagger UI's script and style from
//! `swagger-ui.cdn` (by default a public CDN, as Java's default) and shows the document at
//! `/dubbo/openapi/api-docs`. A host that cannot reach a CDN points
//! `swagger-ui.assets` at a directory holding the files of the `swagger-ui-dist` package
//! (`npm pack swagger-ui-dist`), which are then served under `swagger-ui/assets/` and used by
//! the page instead: the project ships no copy of Swagger UI.

use std::path::PathBuf;

/// The URL prefix of the Swagger UI page and its files.
pub const PATH: &str = "/dubbo/openapi/swagger-ui";

/// The Swagger UI build the page loads when neither `cdn` nor `assets` is set (Java Dubbo
/// 3.3's default).
pub const DEFAULT_CDN: &str = "https://unpkg.com/swagger-ui-dist@5.18.2";

/// The files of `swagger-ui-dist` served from [`SwaggerUi::assets`]; any other name is a 404,
/// so a request cannot reach outside the directory.
const ASSETS: &[(&str, &str)] = &[
    ("swagger-ui.css", "text/css; charset=utf-8"),
    ("index.css", "text/css; charset=utf-8"),
    ("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
    (
        "swagger-ui-standalone-preset.js",
        "text/javascript; charset=utf-8",
    ),
    ("oauth2-redirect.html", "text/html; charset=utf-8"),
    ("oauth2-redirect.js", "text/javascript; charset=utf-8"),
    ("favicon-16x16.png", "image/png"),
    ("favicon-32x32.png", "image/png"),
];

/// Where the Swagger UI page takes Swagger UI from, and its extra options (Java's
/// `swagger-ui.*` OpenAPI settings).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SwaggerUi {
    /// `swagger-ui.cdn`: the base URL of a `swagger-ui-dist` build. Default: `./assets` when
    /// [`Self::assets`] is set, else [`DEFAULT_CDN`].
    pub cdn: Option<String>,
    /// `swagger-ui.assets`: a directory holding the files of `swagger-ui-dist`, served under
    /// `/dubbo/openapi/swagger-ui/assets/`.
    pub assets: Option<PathBuf>,
    /// `swagger-ui.settings.NAME = VALUE`: options added to the `SwaggerUIBundle` call, each
    /// value a JavaScript literal (`true`, `"list"`, `3`), as Java writes them.
    pub settings: Vec<(String, String)>,
}

impl SwaggerUi {
    /// The base URL the page loads Swagger UI from.
    pub fn cdn(&self) -> &str {
        match (&self.cdn, &self.assets) {
            (Some(cdn), _) => cdn.trim_end_matches('/'),
            (None, Some(_)) => "./assets",
            (None, None) => DEFAULT_CDN,
        }
    }

    /// The page: Swagger UI's style and script from [`Self::cdn`], showing the document at
    /// `/dubbo/openapi/api-docs`.
    pub fn index_html(&self) -> String {
        let cdn = escape_html(self.cdn());
        let mut options = String::new();
        for (name, value) in &self.settings {
            // The name is written as a JSON string; the value is the operator's literal.
            let name = serde_json::Value::String(name.clone());
            options.push_str(&format!(",\n        {name}: {value}"));
        }
        format!(
            r##"<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Swagger UI</title>
    <link rel="stylesheet" href="{cdn}/swagger-ui.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="{cdn}/swagger-ui-bundle.js"></script>
    <script>
      window.onload = function () {{
        window.ui = SwaggerUIBundle({{
          url: "../api-docs",
          dom_id: "#swagger-ui",
          deepLinking: true{options}
        }});
      }};
    </script>
  </body>
</html>
"##
        )
    }

    /// `swagger-config` (as Java serves it, for a page of Swagger UI's own that takes its
    /// configuration from `configUrl`): the documents offered, relative to the page.
    pub fn config_json() -> String {
        serde_json::json!({
            "urls": [{"name": "default", "url": "../api-docs"}],
        })
        .to_string()
    }

    /// The file `name` of [`Self::assets`] and its content type; `Err` says why not.
    pub async fn asset(&self, name: &str) -> Result<(Vec<u8>, &'static str), String> {
        let Some(&(file, media)) = ASSETS.iter().find(|(n, _)| *n == name) else {
            return Err(format!("no Swagger UI file {name:?}"));
        };
        let Some(dir) = &self.assets else {
            return Err(format!(
                "Swagger UI files are not served here: the page loads them from {}; set \
                 swagger-ui.assets to a directory of swagger-ui-dist to serve them",
                self.cdn()
            ));
        };
        let path = dir.join(file);
        match tokio::fs::read(&path).await {
            Ok(bytes) => Ok((bytes, media)),
            Err(e) => Err(format!(
                "Swagger UI file {} cannot be read: {e}",
                path.display()
            )),
        }
    }
}

/// What a path under [`PATH`] asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Page<'a> {
    /// The bare prefix: redirected to the page.
    Root,
    /// `index.html`.
    Index,
    /// `swagger-config`.
    Config,
    /// `assets/NAME`.
    Asset(&'a str),
    /// Anything else under the prefix.
    Unknown,
}

/// The page `path` asks for, `None` when it is not under [`PATH`].
pub(crate) fn page(path: &str) -> Option<Page<'_>> {
    let rest = path.strip_prefix(PATH)?;
    let name = match rest.strip_prefix('/') {
        Some(name) => name,
        None if rest.is_empty() => "",
        None => return None,
    };
    Some(match name {
        "" => Page::Root,
        "index.html" | "index" => Page::Index,
        "swagger-config" | "swagger-config.json" => Page::Config,
        _ => match name.strip_prefix("assets/") {
            Some(file) => Page::Asset(file),
            None => Page::Unknown,
        },
    })
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn pages_under_the_prefix() {
        assert_eq!(page("/dubbo/openapi/swagger-ui"), Some(Page::Root));
        assert_eq!(page("/dubbo/openapi/swagger-ui/"), Some(Page::Root));
        assert_eq!(
            page("/dubbo/openapi/swagger-ui/index.html"),
            Some(Page::Index)
        );
        assert_eq!(
            page("/dubbo/openapi/swagger-ui/swagger-config"),
            Some(Page::Config)
        );
        assert_eq!(
            page("/dubbo/openapi/swagger-ui/assets/swagger-ui.css"),
            Some(Page::Asset("swagger-ui.css"))
        );
        assert_eq!(page("/dubbo/openapi/swagger-ui/x"), Some(Page::Unknown));
        assert_eq!(page("/dubbo/openapi/swagger-uix"), None);
        assert_eq!(page("/users/7"), None);
    }

    #[test]
    fn the_cdn_follows_the_settings() {
        let mut ui = SwaggerUi::default();
        assert_eq!(ui.cdn(), DEFAULT_CDN);
        ui.assets = Some("/srv/swagger".into());
        assert_eq!(ui.cdn(), "./assets");
        ui.cdn = Some("https://cdn.example/swagger-ui-dist@5/".into());
        assert_eq!(ui.cdn(), "https://cdn.example/swagger-ui-dist@5");
        let page = ui.index_html();
        assert!(page.contains(r#"href="https://cdn.example/swagger-ui-dist@5/swagger-ui.css""#));
        assert!(
            page.contains(r#"src="https://cdn.example/swagger-ui-dist@5/swagger-ui-bundle.js""#)
        );
    }

    #[test]
    fn the_page_escapes_the_cdn_and_adds_settings() {
        let ui = SwaggerUi {
            cdn: Some(r#"x"><script>alert(1)</script>"#.into()),
            assets: None,
            settings: vec![("filter".into(), "true".into())],
        };
        let page = ui.index_html();
        assert!(!page.contains("<script>alert"));
        assert!(page.contains("&quot;&gt;&lt;script&gt;"));
        assert!(page.contains("\"filter\": true"));
    }

    #[tokio::test]
    async fn assets_only_by_name_and_only_from_the_directory() {
        let dir = std::env::temp_dir().join(format!("swagger-ui-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("swagger-ui.css"), b"body{}").unwrap();
        let ui = SwaggerUi {
            assets: Some(dir.clone()),
            ..SwaggerUi::default()
        };
        let (bytes, media) = ui.asset("swagger-ui.css").await.unwrap();
        assert_eq!(bytes, b"body{}");
        assert!(media.starts_with("text/css"));
        assert!(ui.asset("../etc/passwd").await.is_err());
        assert!(ui
            .asset("swagger-ui-bundle.js")
            .await
            .unwrap_err()
            .contains("cannot be read"));
        let bare = SwaggerUi::default();
        assert!(bare
            .asset("swagger-ui.css")
            .await
            .unwrap_err()
            .contains("swagger-ui.assets"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
