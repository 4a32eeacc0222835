//! The provider side of the contract.

use std::time::Duration;

use dubbo_rs::core::{RequestContext, RpcError};
use dubbo_rs::hessian2::java::{BigDecimal, Date};
use serde_bytes::ByteBuf;
use std::collections::HashMap;

use crate::service::{InteropService, User};

/// `InteropService` exactly as the contract describes it. `greeting` is `"Hello "` for version
/// 1.0.0; version 2.0.0 (used to test version selection) says `"Hello v2 "`.
#[derive(Debug, Clone)]
pub struct InteropProvider {
    greeting: &'static str,
    delay: Duration,
}

impl InteropProvider {
    /// The 1.0.0 provider.
    pub fn v1() -> Self {
        Self {
            greeting: "Hello ",
            delay: Duration::ZERO,
        }
    }

    /// The 2.0.0 provider.
    pub fn v2() -> Self {
        Self {
            greeting: "Hello v2 ",
            delay: Duration::ZERO,
        }
    }

    /// The same provider with `sayHello` waiting `delay` before it answers (a slow provider,
    /// for load-balancing checks).
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

impl InteropService for InteropProvider {
    async fn say_hello(&self, name: Option<String>) -> Result<Option<String>, RpcError> {
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        // Java's string concatenation prints a null name as "null".
        Ok(Some(format!(
            "{}{}",
            self.greeting,
            name.as_deref().unwrap_or("null")
        )))
    }

    async fn add_int(&self, a: i32, b: i32) -> Result<i32, RpcError> {
        Ok(a.wrapping_add(b))
    }

    async fn echo_long(&self, v: i64) -> Result<i64, RpcError> {
        Ok(v)
    }

    async fn echo_double(&self, v: f64) -> Result<f64, RpcError> {
        Ok(v)
    }

    async fn echo_bool(&self, v: bool) -> Result<bool, RpcError> {
        Ok(v)
    }

    async fn echo_string(&self, v: Option<String>) -> Result<Option<String>, RpcError> {
        Ok(v)
    }

    async fn echo_bytes(&self, v: Option<ByteBuf>) -> Result<Option<ByteBuf>, RpcError> {
        Ok(v)
    }

    async fn echo_list(
        &self,
        v: Option<Vec<Option<String>>>,
    ) -> Result<Option<Vec<Option<String>>>, RpcError> {
        Ok(v)
    }

    async fn echo_map(
        &self,
        v: Option<HashMap<String, Option<i32>>>,
    ) -> Result<Option<HashMap<String, Option<i32>>>, RpcError> {
        Ok(v)
    }

    async fn echo_user(&self, u: Option<User>) -> Result<Option<User>, RpcError> {
        Ok(u)
    }

    async fn list_users(&self, n: i32) -> Result<Vec<User>, RpcError> {
        Ok((0..n.max(0)).map(User::numbered).collect())
    }

    async fn echo_decimal(&self, v: Option<BigDecimal>) -> Result<Option<BigDecimal>, RpcError> {
        Ok(v)
    }

    async fn echo_date(&self, v: Option<Date>) -> Result<Option<Date>, RpcError> {
        Ok(v)
    }

    async fn fail(&self, message: Option<String>) -> Result<(), RpcError> {
        Err(RpcError::business(
            "java.lang.IllegalStateException",
            message.unwrap_or_default(),
        ))
    }

    async fn get_attachment(
        &self,
        ctx: &mut RequestContext,
        key: Option<String>,
    ) -> Result<Option<String>, RpcError> {
        let Some(key) = key else { return Ok(None) };
        let value = ctx.attachment(&key).map(str::to_owned);
        if let Some(v) = &value {
            ctx.set_response_attachment(format!("echo.{key}"), v.clone());
        }
        Ok(value)
    }

    async fn sleep(&self, millis: i32) -> Result<String, RpcError> {
        tokio::time::sleep(Duration::from_millis(millis.max(0) as u64)).await;
        Ok(format!("slept {millis}"))
    }
}
