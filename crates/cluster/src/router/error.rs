//! What can go wrong when setting rules or routing a call.

/// A routing or override rule that was refused; the rules in force before it stay in force.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    /// The text is not YAML, or its fields do not have the expected types.
    #[error("{kind} rule is not valid YAML: {source}")]
    Yaml {
        /// `condition`, `tag` or `override`.
        kind: &'static str,
        /// The YAML parser's complaint.
        #[source]
        source: serde_yaml_ng::Error,
    },
    /// `configVersion` is newer than the versions supported (`v3.0`, `v3.1`).
    #[error("unsupported condition rule configVersion `{0}`: only v3.1 and below are supported")]
    UnsupportedVersion(String),
    /// The rule lists no conditions (condition rule) or no tags (tag rule).
    #[error("{0} rule has no {1}")]
    Empty(&'static str, &'static str),
    /// The rule is empty or blank.
    #[error("condition rule is blank")]
    BlankCondition,
    /// A condition expression does not parse.
    #[error(
        "illegal condition `{rule}`: unexpected `{separator}` at index {index} before `{content}`"
    )]
    Condition {
        /// The expression (one side of `=>`).
        rule: String,
        /// The separator found where it may not be.
        separator: String,
        /// Its byte offset in `rule`.
        index: usize,
        /// The token that follows it.
        content: String,
    },
    /// A field has a value of the wrong kind (`priority: high`, `weight: lots`).
    #[error("field `{field}` has an invalid value `{value}`: {expected}")]
    Field {
        /// The field's name.
        field: &'static str,
        /// The value found.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A tag's `match` entry has no key, or a value matcher with no condition.
    #[error("tag `{tag}`: {reason}")]
    TagMatch {
        /// The tag's name.
        tag: String,
        /// What is wrong.
        reason: String,
    },
    /// A tag `regex` matcher is not a valid regular expression.
    #[error("tag `{tag}`: invalid regex `{regex}`: {source}")]
    Regex {
        /// The tag's name.
        tag: String,
        /// The expression.
        regex: String,
        /// The regex compiler's complaint.
        #[source]
        source: regex::Error,
    },
    /// An override (configurator) rule field is missing or has a value that cannot be used;
    /// `field` is its path in the rule (`configs[1].parameters`).
    #[error("override rule field `{field}`: {reason}")]
    Override {
        /// Where in the rule.
        field: String,
        /// What is wrong.
        reason: String,
    },
}

impl RuleError {
    /// A stable code for logs and metrics, one per variant.
    pub fn code(&self) -> &'static str {
        match self {
            RuleError::Yaml { .. } => "rule.yaml",
            RuleError::UnsupportedVersion(_) => "rule.unsupported_version",
            RuleError::Empty(..) => "rule.empty",
            RuleError::BlankCondition => "rule.blank_condition",
            RuleError::Condition { .. } => "rule.condition",
            RuleError::Field { .. } => "rule.field",
            RuleError::TagMatch { .. } => "rule.tag_match",
            RuleError::Regex { .. } => "rule.regex",
            RuleError::Override { .. } => "rule.override",
        }
    }
}

/// A call that routing left without a provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    /// A router's rules removed every provider of the list it was given.
    #[error(
        "no provider of {service} left: router `{router}` filtered out all {before} providers{}",
        reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()
    )]
    Emptied {
        /// The service (`group/interface:version`).
        service: String,
        /// The router that emptied the list ([`Router::name`](dubbo_core::Router::name)).
        router: String,
        /// How many providers it was given.
        before: usize,
        /// What of the call made the router keep none, when the router says
        /// ([`Router::explain_empty`](dubbo_core::Router::explain_empty)): the tag a call
        /// forced and no provider carries, for one.
        reason: Option<String>,
    },
}
