//! Rust ↔ Java naming.

/// The Java method name Dubbo conventions give a Rust method: lowerCamelCase of the snake_case
/// name (`say_hello` → `sayHello`, `get_user_by_id` → `getUserById`, `add_2_ints` → `add2Ints`).
///
/// Leading, trailing and repeated underscores carry no word boundary of their own and are
/// dropped; letters keep their case except the first of every word after the first, which is
/// upper-cased (so `get_HTTP_status` → `getHTTPStatus`).
pub fn lower_camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    for (i, word) in snake.split('_').filter(|w| !w.is_empty()).enumerate() {
        let mut chars = word.chars();
        if i == 0 {
            out.push_str(word);
        } else if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

/// Whether `name` can name a Java method: a Java identifier, or one of Dubbo's `$`-prefixed
/// built-ins (which are Java identifiers too).
pub fn is_java_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' || c == '$' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case() {
        assert_eq!(lower_camel_case("say_hello"), "sayHello");
        assert_eq!(lower_camel_case("add_int"), "addInt");
        assert_eq!(lower_camel_case("get_user_by_id"), "getUserById");
        assert_eq!(lower_camel_case("echo"), "echo");
        assert_eq!(lower_camel_case("add_2_ints"), "add2Ints");
        assert_eq!(lower_camel_case("_private__thing_"), "privateThing");
        assert_eq!(lower_camel_case("get_HTTP_status"), "getHTTPStatus");
    }

    #[test]
    fn java_identifiers() {
        assert!(is_java_identifier("sayHello"));
        assert!(is_java_identifier("$echo"));
        assert!(is_java_identifier("_x1"));
        assert!(!is_java_identifier(""));
        assert!(!is_java_identifier("1abc"));
        assert!(!is_java_identifier("say hello"));
        assert!(!is_java_identifier("a.b"));
    }
}
