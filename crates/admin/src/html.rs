//! HTML building blocks of the console: escaping and the page frame.

/// `text` with `&`, `<`, `>`, `"` and `'` escaped, for element content and attribute values.
pub fn escape(text: &str) -> String {
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

/// `text` for a path segment of a console link (the service keys' `/` and `:` included).
pub fn path_segment(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A whole page: title, the navigation bar (with the user, when logged in) and `body`.
pub fn page(title: &str, user: Option<(&str, &str)>, body: &str) -> String {
    let who = match user {
        Some((name, role)) => format!(
            "<span id=\"who\">{} ({})</span> <button id=\"logout\" type=\"button\">Log out</button>",
            escape(name),
            escape(role)
        ),
        None => String::new(),
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} · dubbo-admin</title>\
<link rel=\"stylesheet\" href=\"/assets/console.css\"></head><body>\
<nav><a href=\"/\">dubbo-admin</a> <a href=\"/applications\">Applications</a> <a href=\"/instances\">Instances</a> <a href=\"/rules\">Rules</a> <span class=\"right\">{who}</span></nav>\
<main>{body}</main><script src=\"/assets/console.js\"></script></body></html>\n",
        escape(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(path_segment("g/org.A:1.0"), "g%2Forg.A%3A1.0");
    }
}
