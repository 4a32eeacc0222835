//! Parsing of condition expressions: `method = find* & host != 10.0.0.1 => region = hz`.

use super::matcher::ConditionMatcher;
use crate::router::RuleError;

/// A parsed `when => then` condition.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    /// The terms the call must satisfy (left of `=>`); empty: every call.
    pub(crate) when: Vec<ConditionMatcher>,
    /// The terms a provider must satisfy (right of `=>`); `None` for `false` or nothing:
    /// matching calls are blocked.
    pub(crate) then: Option<Vec<ConditionMatcher>>,
}

/// One token of an expression: the separators before it (`&`, `=`, `!=`, `,`, or none) and
/// the word, as Java's pattern `([&!=,]*)\s*([^&!=,\s]+)` finds them.
struct Token<'a> {
    separator: &'a str,
    content: &'a str,
    start: usize,
}

fn is_separator(b: u8) -> bool {
    matches!(b, b'&' | b'!' | b'=' | b',')
}

fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0b
}

/// The tokens of `rule`, skipping what cannot start one (as a regex `find` loop does).
fn tokens(rule: &str) -> Vec<Token<'_>> {
    let bytes = rule.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let mut i = start;
        while i < bytes.len() && is_separator(bytes[i]) {
            i += 1;
        }
        let mut j = i;
        while j < bytes.len() && is_space(bytes[j]) {
            j += 1;
        }
        let mut k = j;
        while k < bytes.len() && !is_separator(bytes[k]) && !is_space(bytes[k]) {
            k += 1;
        }
        if k > j {
            out.push(Token {
                separator: &rule[start..i],
                content: &rule[j..k],
                start,
            });
            start = k;
        } else {
            start += 1;
        }
    }
    out
}

/// Strips Java's `consumer.`/`provider.` prefixes and splits `rule` at `=>`.
pub(crate) fn parse_condition(rule: &str) -> Result<Condition, RuleError> {
    if rule.trim().is_empty() {
        return Err(RuleError::BlankCondition);
    }
    let rule = rule.replace("consumer.", "").replace("provider.", "");
    let (when, then) = match rule.find("=>") {
        Some(i) => (rule[..i].trim(), rule[i + 2..].trim()),
        None => ("", rule.trim()),
    };
    let when = if when.is_empty() || when == "true" {
        Vec::new()
    } else {
        parse_terms(when)?
    };
    let then = if then.is_empty() || then == "false" {
        None
    } else {
        Some(parse_terms(then)?)
    };
    Ok(Condition { when, then })
}

/// Parses one side of `=>` into terms, merging repeated keys (`a=1 & a!=2` is one term).
pub(crate) fn parse_terms(rule: &str) -> Result<Vec<ConditionMatcher>, RuleError> {
    let mut terms: Vec<ConditionMatcher> = Vec::new();
    // The term being filled, and whether its last values were `=` (true) or `!=` (false).
    let mut current: Option<usize> = None;
    let mut values: Option<bool> = None;
    for token in tokens(rule) {
        let (sep, content) = (token.separator, token.content);
        let error = || RuleError::Condition {
            rule: rule.to_owned(),
            separator: sep.to_owned(),
            index: token.start,
            content: content.to_owned(),
        };
        match sep {
            "" | "&" => {
                let at = match terms.iter().position(|t| t.key == content) {
                    Some(at) if sep == "&" => at,
                    Some(at) => {
                        // Java replaces the term for a repeated leading key; it cannot recur
                        // without `&`, except as the very first token.
                        terms[at] = ConditionMatcher::new(content);
                        at
                    }
                    None => {
                        terms.push(ConditionMatcher::new(content));
                        terms.len() - 1
                    }
                };
                current = Some(at);
                values = None;
            }
            "=" | "!=" => {
                let at = current.ok_or_else(error)?;
                let positive = sep == "=";
                let term = &mut terms[at];
                push(
                    if positive {
                        &mut term.matches
                    } else {
                        &mut term.mismatches
                    },
                    content,
                );
                values = Some(positive);
            }
            "," => {
                let (Some(at), Some(positive)) = (current, values) else {
                    return Err(error());
                };
                let term = &mut terms[at];
                push(
                    if positive {
                        &mut term.matches
                    } else {
                        &mut term.mismatches
                    },
                    content,
                );
            }
            _ => return Err(error()),
        }
    }
    Ok(terms)
}

/// Adds to a value set (Java keeps them in a `HashSet`).
fn push(set: &mut Vec<String>, value: &str) {
    if !set.iter().any(|v| v == value) {
        set.push(value.to_owned());
    }
}
