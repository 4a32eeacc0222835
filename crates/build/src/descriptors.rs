//! The protobuf descriptors each generated server carries, for gRPC server reflection.

use std::collections::{HashMap, HashSet};

use prost::Message;
use prost_types::{FileDescriptorProto, FileDescriptorSet};

/// For every service in `set`, by its full name (`package.Service`), the encoded
/// `FileDescriptorSet` of the file that defines it and every file that file imports, imports
/// first: what a reflection client needs to describe the service and its messages.
pub(crate) fn per_service(set: &FileDescriptorSet) -> HashMap<String, Vec<u8>> {
    let by_name: HashMap<&str, &FileDescriptorProto> =
        set.file.iter().map(|f| (f.name(), f)).collect();
    let mut out = HashMap::new();
    for file in &set.file {
        if file.service.is_empty() {
            continue;
        }
        let mut ordered = Vec::new();
        let mut seen = HashSet::new();
        with_imports_first(file, &by_name, &mut seen, &mut ordered);
        let encoded = FileDescriptorSet {
            file: ordered.into_iter().cloned().collect(),
        }
        .encode_to_vec();
        for service in &file.service {
            let full = match file.package() {
                "" => service.name().to_owned(),
                package => format!("{package}.{}", service.name()),
            };
            out.insert(full, encoded.clone());
        }
    }
    out
}

fn with_imports_first<'a>(
    file: &'a FileDescriptorProto,
    by_name: &HashMap<&str, &'a FileDescriptorProto>,
    seen: &mut HashSet<&'a str>,
    ordered: &mut Vec<&'a FileDescriptorProto>,
) {
    if !seen.insert(file.name()) {
        return;
    }
    for import in &file.dependency {
        // protox puts every imported file in the set; one missing would only make the
        // reflection answer incomplete, never the build fail.
        if let Some(dep) = by_name.get(import.as_str()) {
            with_imports_first(dep, by_name, seen, ordered);
        }
    }
    ordered.push(file);
}

/// `bytes` as a Rust byte-string literal.
pub(crate) fn byte_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 + 3);
    out.push_str("b\"");
    for b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(*b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_carries_its_file_and_imports_first() {
        let dep = FileDescriptorProto {
            name: Some("common.proto".into()),
            package: Some("p".into()),
            ..Default::default()
        };
        let main = FileDescriptorProto {
            name: Some("svc.proto".into()),
            package: Some("p".into()),
            dependency: vec!["common.proto".into()],
            service: vec![prost_types::ServiceDescriptorProto {
                name: Some("Svc".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        let set = FileDescriptorSet {
            file: vec![main, dep],
        };
        let map = per_service(&set);
        let decoded = FileDescriptorSet::decode(map["p.Svc"].as_slice()).unwrap();
        let names: Vec<&str> = decoded.file.iter().map(|f| f.name()).collect();
        assert_eq!(names, ["common.proto", "svc.proto"]);
    }

    #[test]
    fn byte_strings_round_trip_through_escapes() {
        assert_eq!(byte_string(b"a\"\\\n\xff"), "b\"a\\\"\\\\\\x0a\\xff\"");
    }
}
