use super::*;
use dubbo_hessian2::{List, Map};

fn list(type_name: Option<&str>, items: Vec<Value>) -> Value {
    Value::List(List {
        type_name: type_name.map(str::to_owned),
        items,
    })
}

fn s(x: &str) -> Value {
    Value::String(x.to_owned())
}

fn merger(name: &str) -> Arc<dyn Merger> {
    let ext = Extensions::new();
    register_mergers(&ext);
    ext.get::<dyn Merger>(name).unwrap()
}

#[test]
fn lists_are_concatenated_into_an_array_list() {
    let merged = merger("list")
        .merge(vec![
            list(None, vec![s("a"), s("b")]),
            list(Some("java.util.LinkedList"), vec![s("b")]),
        ])
        .unwrap();
    assert_eq!(merged, list(None, vec![s("a"), s("b"), s("b")]));
}

#[test]
fn sets_are_unioned() {
    let merged = merger("set")
        .merge(vec![
            list(Some("java.util.HashSet"), vec![s("a"), s("b")]),
            list(Some("java.util.HashSet"), vec![s("b"), s("c")]),
        ])
        .unwrap();
    assert_eq!(
        merged,
        list(Some("java.util.HashSet"), vec![s("a"), s("b"), s("c")])
    );
}

#[test]
fn maps_are_merged_with_the_last_value_winning() {
    let map = |entries: Vec<(Value, Value)>| {
        Value::Map(Map {
            type_name: None,
            entries,
        })
    };
    let merged = merger("map")
        .merge(vec![
            map(vec![(s("k"), Value::Int(1)), (s("a"), Value::Int(2))]),
            map(vec![(s("k"), Value::Int(3))]),
        ])
        .unwrap();
    assert_eq!(
        merged,
        map(vec![(s("k"), Value::Int(3)), (s("a"), Value::Int(2))])
    );
}

#[test]
fn primitive_arrays_are_concatenated_in_their_wire_forms() {
    let ints = merger("int")
        .merge(vec![
            list(Some("[int"), vec![Value::Int(1)]),
            list(Some("[int"), vec![Value::Int(2), Value::Int(3)]),
        ])
        .unwrap();
    assert_eq!(
        ints,
        list(
            Some("[int"),
            vec![Value::Int(1), Value::Int(2), Value::Int(3)]
        )
    );
    let flags = merger("boolean")
        .merge(vec![
            list(Some("[boolean"), vec![Value::Bool(true)]),
            list(Some("[boolean"), vec![Value::Bool(false)]),
        ])
        .unwrap();
    assert_eq!(
        flags,
        list(
            Some("[boolean"),
            vec![Value::Bool(true), Value::Bool(false)]
        )
    );
    let bytes = merger("byte")
        .merge(vec![Value::Binary(vec![1, 2]), Value::Binary(vec![3])])
        .unwrap();
    assert_eq!(bytes, Value::Binary(vec![1, 2, 3]));
    let chars = merger("char").merge(vec![s("ab"), s("c")]).unwrap();
    assert_eq!(chars, s("abc"));
}

#[test]
fn object_arrays_keep_the_first_element_type() {
    let merged = merger("array")
        .merge(vec![
            list(Some("[string"), vec![s("a")]),
            list(Some("[string"), vec![s("b")]),
        ])
        .unwrap();
    assert_eq!(merged, list(Some("[string"), vec![s("a"), s("b")]));
}

#[test]
fn a_result_of_the_wrong_kind_is_an_internal_error() {
    let e = merger("list")
        .merge(vec![list(None, vec![]), Value::Int(1)])
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Internal));
    assert!(e.message().contains("merger list"), "{e}");
}

#[test]
fn the_return_type_picks_the_merger() {
    assert_eq!(merger_name_for("java.util.List"), Some("list"));
    assert_eq!(merger_name_for("java.util.Set"), Some("set"));
    assert_eq!(merger_name_for("java.util.Map"), Some("map"));
    assert_eq!(merger_name_for("[I"), Some("int"));
    assert_eq!(merger_name_for("[Z"), Some("boolean"));
    assert_eq!(merger_name_for("[Ljava.lang.String;"), Some("array"));
    assert_eq!(merger_name_for("[[I"), Some("array"));
    // Java's factory matches the declared type exactly: an `ArrayList` return has no merger.
    assert_eq!(merger_name_for("java.util.ArrayList"), None);
    assert_eq!(merger_name_for("java.lang.String"), None);
}
