//! YAML bodies of the REST forms (`application/yaml`, as Java Dubbo 3.3's YAML codec reads and
//! writes them): a YAML request body is read as the JSON document it stands for, and an answer
//! asked for in YAML is the JSON result written as YAML (serde_yaml_ng, which the OpenAPI
//! document's YAML form uses too).

use bytes::Bytes;

/// The media type YAML answers are labelled with.
pub const YAML: &str = "application/yaml";

/// Whether `media` (lower case, without parameters) is YAML: `application/yaml`,
/// `application/x-yaml`, `text/yaml`, `text/x-yaml` or a `+yaml` type.
pub fn is_yaml(media: &str) -> bool {
    matches!(
        media,
        "application/yaml" | "application/x-yaml" | "text/yaml" | "text/x-yaml"
    ) || media.ends_with("+yaml")
}

// Both ways go through serde_yaml_ng's `Value`, whose mappings keep their order, so fields
// come out in the order they went in.

/// The JSON text of a YAML document (one document; mapping keys must be text, as in JSON).
pub fn to_json(yaml: &[u8]) -> Result<Bytes, String> {
    let tree: serde_yaml_ng::Value = serde_yaml_ng::from_slice(yaml).map_err(|e| e.to_string())?;
    serde_json::to_vec(&tree)
        .map(Bytes::from)
        .map_err(|e| e.to_string())
}

/// The YAML text of a JSON document.
pub fn from_json(json: &[u8]) -> Result<Bytes, String> {
    let tree: serde_yaml_ng::Value = serde_json::from_slice(json).map_err(|e| e.to_string())?;
    serde_yaml_ng::to_string(&tree)
        .map(Bytes::from)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways() {
        let yaml = b"id: 42\nname: new\ntags: [a]\nattrs: {x: y}\nboss: null\n";
        assert_eq!(
            to_json(yaml).unwrap(),
            r#"{"id":42,"name":"new","tags":["a"],"attrs":{"x":"y"},"boss":null}"#
        );
        assert_eq!(
            from_json(br#"{"name":"user-7","id":7,"tags":["t7"]}"#).unwrap(),
            "name: user-7\nid: 7\ntags:\n- t7\n"
        );
        assert!(to_json(b"id: [1\n").is_err());
        // JSON keys are text.
        assert!(to_json(b"? [1, 2]\n: x\n").is_err());
        assert!(is_yaml("application/x-yaml") && is_yaml("application/vnd.a+yaml"));
        assert!(!is_yaml("application/json") && !is_yaml("text/plain"));
    }
}
