//! The contract's `org.apache.dubbo.interop.InteropService`, as a Rust trait.

use std::collections::HashMap;

use dubbo_rs::core::{RequestContext, RpcError};
use dubbo_rs::hessian2::java::{BigDecimal, Date};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

/// `org.apache.dubbo.interop.User`, field for field in Java declaration order (its fields are
/// the `properties` of its type in the service definition, and of its schema in the REST
/// document).
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    dubbo_rs::JavaTypeDefinition,
    dubbo_rs::RestSchema,
)]
#[serde(rename = "org.apache.dubbo.interop.User")]
pub struct User {
    /// `long id`
    pub id: i64,
    /// `String name`
    pub name: Option<String>,
    /// `int age`
    pub age: i32,
    /// `java.util.List<String> tags`
    pub tags: Option<Vec<String>>,
    /// `java.util.Map<String,String> attrs`
    pub attrs: Option<HashMap<String, String>>,
}

dubbo_rs::hessian2::java_type!(User => "org.apache.dubbo.interop.User");

impl User {
    /// The `i`-th user of `listUsers`.
    pub fn numbered(i: i32) -> Self {
        User {
            id: i64::from(i),
            name: Some(format!("user-{i}")),
            age: 20 + i % 50,
            tags: Some(vec![format!("t{i}")]),
            attrs: Some(HashMap::from([("k".to_owned(), format!("v{i}"))])),
        }
    }
}

/// The interop service of the contract.
#[dubbo_rs::service(interface = "org.apache.dubbo.interop.InteropService")]
pub trait InteropService {
    /// `"Hello " + name`
    async fn say_hello(&self, name: Option<String>) -> Result<Option<String>, RpcError>;
    /// `a + b`, wrapping.
    async fn add_int(&self, a: i32, b: i32) -> Result<i32, RpcError>;
    /// `v`
    async fn echo_long(&self, v: i64) -> Result<i64, RpcError>;
    /// `v`
    async fn echo_double(&self, v: f64) -> Result<f64, RpcError>;
    /// `v`
    async fn echo_bool(&self, v: bool) -> Result<bool, RpcError>;
    /// `v`, null included.
    async fn echo_string(&self, v: Option<String>) -> Result<Option<String>, RpcError>;
    /// `v`
    async fn echo_bytes(&self, v: Option<ByteBuf>) -> Result<Option<ByteBuf>, RpcError>;
    /// `v`
    async fn echo_list(
        &self,
        v: Option<Vec<Option<String>>>,
    ) -> Result<Option<Vec<Option<String>>>, RpcError>;
    /// `v`
    async fn echo_map(
        &self,
        v: Option<HashMap<String, Option<i32>>>,
    ) -> Result<Option<HashMap<String, Option<i32>>>, RpcError>;
    /// `u`, null stays null.
    async fn echo_user(&self, u: Option<User>) -> Result<Option<User>, RpcError>;
    /// `n` numbered users.
    async fn list_users(&self, n: i32) -> Result<Vec<User>, RpcError>;
    /// `v`
    async fn echo_decimal(&self, v: Option<BigDecimal>) -> Result<Option<BigDecimal>, RpcError>;
    /// `v`
    async fn echo_date(&self, v: Option<Date>) -> Result<Option<Date>, RpcError>;
    /// Throws `java.lang.IllegalStateException(message)`.
    async fn fail(&self, message: Option<String>) -> Result<(), RpcError>;
    /// The request attachment `key`, or null.
    async fn get_attachment(
        &self,
        ctx: &mut RequestContext,
        key: Option<String>,
    ) -> Result<Option<String>, RpcError>;
    /// Waits `millis` ms, then `"slept " + millis`.
    async fn sleep(&self, millis: i32) -> Result<String, RpcError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition the macro generates names the contract's Java types as Java 3.3's
    /// `ServiceDefinitionBuilder` does for the same interface.
    #[test]
    fn the_definition_has_javas_types() {
        let def = InteropServiceClient::service_definition();
        assert_eq!(
            def.canonical_name,
            "org.apache.dubbo.interop.InteropService"
        );
        let method = |name: &str| def.methods.iter().find(|m| m.name == name).unwrap();
        assert_eq!(method("sayHello").parameter_types, ["java.lang.String"]);
        assert_eq!(method("addInt").parameter_types, ["int", "int"]);
        assert_eq!(method("fail").return_type, "void");
        assert_eq!(
            method("echoMap").return_type,
            "java.util.Map<java.lang.String,java.lang.Integer>"
        );
        assert_eq!(
            method("listUsers").return_type,
            "java.util.List<org.apache.dubbo.interop.User>"
        );
        // The request context is not a parameter.
        assert_eq!(
            method("getAttachment").parameter_types,
            ["java.lang.String"]
        );
        let user = def
            .types
            .iter()
            .find(|t| t.type_name == "org.apache.dubbo.interop.User")
            .unwrap();
        let props: Vec<(&str, &str)> = user
            .properties
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            props,
            [
                ("age", "int"),
                ("attrs", "java.util.Map<java.lang.String,java.lang.String>"),
                ("id", "long"),
                ("name", "java.lang.String"),
                ("tags", "java.util.List<java.lang.String>"),
            ]
        );
        let mut names: Vec<&str> = def.types.iter().map(|t| t.type_name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), def.types.len(), "one definition per type");
    }
}
