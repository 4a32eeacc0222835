//! JVM descriptors (`I`, `[Z`, `Ljava/lang/String;`) and Java type names (`int`,
//! `boolean[]`, `java.lang.String`), as `dubbo://` bodies and generic calls use them.

use crate::error::Error;

fn primitive_name(c: u8) -> Option<&'static str> {
    Some(match c {
        b'Z' => "boolean",
        b'B' => "byte",
        b'C' => "char",
        b'S' => "short",
        b'I' => "int",
        b'J' => "long",
        b'F' => "float",
        b'D' => "double",
        b'V' => "void",
        _ => return None,
    })
}

fn primitive_code(name: &str) -> Option<char> {
    Some(match name {
        "boolean" => 'Z',
        "byte" => 'B',
        "char" => 'C',
        "short" => 'S',
        "int" => 'I',
        "long" => 'J',
        "float" => 'F',
        "double" => 'D',
        "void" => 'V',
        _ => return None,
    })
}

/// Length of the first descriptor in `s`, or `None` if malformed.
fn first_len(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    while s.get(i) == Some(&b'[') {
        i += 1;
    }
    match s.get(i)? {
        b'L' => {
            let end = s[i..].iter().position(|&c| c == b';')?;
            if end <= 1 {
                return None;
            }
            Some(i + end + 1)
        }
        &c if primitive_name(c).is_some() && !(c == b'V' && i > 0) => Some(i + 1),
        _ => None,
    }
}

/// Splits concatenated descriptors, as in a `dubbo://` request's parameter-types field:
/// `"I[ZLjava/lang/Object;"` → `["I", "[Z", "Ljava/lang/Object;"]`. `""` gives no items.
pub fn split_descriptors(descs: &str) -> Result<Vec<String>, Error> {
    let b = descs.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let n = first_len(&b[i..]).ok_or_else(|| Error::InvalidDescriptor(descs.to_owned()))?;
        out.push(descs[i..i + n].to_owned());
        i += n;
    }
    Ok(out)
}

/// One JVM descriptor to a Java source-style type name: `"[I"` → `"int[]"`,
/// `"Ljava/lang/String;"` → `"java.lang.String"`, `"[[Ljava/lang/Object;"` → `"java.lang.Object[][]"`.
pub fn descriptor_to_java_name(desc: &str) -> Result<String, Error> {
    let b = desc.as_bytes();
    if first_len(b) != Some(b.len()) {
        return Err(Error::InvalidDescriptor(desc.to_owned()));
    }
    let dims = b.iter().take_while(|&&c| c == b'[').count();
    let rest = &desc[dims..];
    let mut name = match rest.as_bytes().first() {
        Some(b'L') => rest[1..rest.len() - 1].replace('/', "."),
        Some(&c) => primitive_name(c)
            .ok_or_else(|| Error::InvalidDescriptor(desc.to_owned()))?
            .to_owned(),
        None => return Err(Error::InvalidDescriptor(desc.to_owned())),
    };
    for _ in 0..dims {
        name.push_str("[]");
    }
    Ok(name)
}

/// A Java type name to its JVM descriptor: `"int[]"` → `"[I"`, `"java.lang.String"` →
/// `"Ljava/lang/String;"`, `"void"` → `"V"`. Also accepts `Class.getName()` forms of
/// arrays (`"[Ljava.lang.String;"`, `"[I"`) and descriptors already in JVM form.
pub fn java_name_to_descriptor(name: &str) -> String {
    let name = name.trim();
    if name.starts_with('[') {
        // Class.getName() array form or a descriptor: only the separators differ.
        return name.replace('.', "/");
    }
    let mut base = name;
    let mut dims = 0;
    while let Some(b) = base.strip_suffix("[]") {
        base = b.trim_end();
        dims += 1;
    }
    let mut out = "[".repeat(dims);
    match primitive_code(base) {
        Some(c) => out.push(c),
        None => {
            out.push('L');
            out.push_str(&base.replace('.', "/"));
            out.push(';');
        }
    }
    out
}

/// The `Class.getName()` form of a type name: `"int[]"`/`"[I"` → `"[I"`,
/// `"java.lang.String[]"` → `"[Ljava.lang.String;"`, `"java.lang.String"` → itself,
/// `"int"` → `"int"`. Generic calls send parameter types in this form.
pub fn class_get_name(name: &str) -> String {
    let name = name.trim();
    if name.starts_with('[') {
        return name.replace('/', ".");
    }
    if name.ends_with("[]") {
        return java_name_to_descriptor(name).replace('/', ".");
    }
    if name.starts_with('L') && name.ends_with(';') && name.len() > 2 {
        return name[1..name.len() - 1].replace('/', ".");
    }
    name.to_owned()
}
