//! serde's `rename_all` rules, applied as serde applies them: to a field's snake_case name or
//! to a variant's PascalCase name.

/// One `rename_all` rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    /// The rule serde names `text`.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// A field name (snake_case in Rust) under the rule.
    pub fn field(self, name: &str) -> String {
        match self {
            Self::Lower | Self::Snake => name.to_owned(),
            Self::Upper | Self::ScreamingSnake => name.to_ascii_uppercase(),
            Self::Pascal => pascal(name),
            Self::Camel => lower_first(&pascal(name)),
            Self::Kebab => name.replace('_', "-"),
            Self::ScreamingKebab => name.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// A variant name (PascalCase in Rust) under the rule.
    pub fn variant(self, name: &str) -> String {
        match self {
            Self::Pascal => name.to_owned(),
            Self::Lower => name.to_ascii_lowercase(),
            Self::Upper => name.to_ascii_uppercase(),
            Self::Camel => lower_first(name),
            Self::Snake => snake(name),
            Self::ScreamingSnake => snake(name).to_ascii_uppercase(),
            Self::Kebab => snake(name).replace('_', "-"),
            Self::ScreamingKebab => snake(name).to_ascii_uppercase().replace('_', "-"),
        }
    }
}

fn pascal(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = true;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn snake(pascal: &str) -> String {
    let mut out = String::with_capacity(pascal.len() + 4);
    for (i, c) in pascal.char_indices() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RenameRule::{self, *};

    #[test]
    fn serde_rules() {
        let f = |r: RenameRule| r.field("user_id_2");
        assert_eq!(f(Lower), "user_id_2");
        assert_eq!(f(Upper), "USER_ID_2");
        assert_eq!(f(Pascal), "UserId2");
        assert_eq!(f(Camel), "userId2");
        assert_eq!(f(ScreamingKebab), "USER-ID-2");
        assert_eq!(f(Kebab), "user-id-2");
        let v = |r: RenameRule| r.variant("VeryTall");
        assert_eq!(v(Lower), "verytall");
        assert_eq!(v(Camel), "veryTall");
        assert_eq!(v(Snake), "very_tall");
        assert_eq!(v(ScreamingSnake), "VERY_TALL");
        assert_eq!(v(Kebab), "very-tall");
        assert_eq!(
            RenameRule::parse("SCREAMING-KEBAB-CASE"),
            Some(ScreamingKebab)
        );
        assert_eq!(RenameRule::parse("Camel"), None);
    }
}
