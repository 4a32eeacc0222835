//! What a service implementation can see of the call it is handling, and send back with it.

use std::net::SocketAddr;
use std::time::Instant;

use crate::attachments::Attachments;
use crate::service_key::ServiceKey;

/// The provider-side view of one call, handed to service methods that ask for it.
///
/// A method declared with a first parameter `ctx: &mut RequestContext` reads the request's
/// attachments here and puts response attachments for the consumer.
#[derive(Debug, Default)]
pub struct RequestContext {
    /// The called service.
    pub service: Option<ServiceKey>,
    /// The attachments the consumer sent.
    pub attachments: Attachments,
    /// Attachments to send back with the result.
    pub response_attachments: Attachments,
    /// The consumer's address.
    pub remote_addr: Option<SocketAddr>,
    /// When the consumer stops waiting, if it said.
    pub deadline: Option<Instant>,
}

impl RequestContext {
    /// A request attachment as a string.
    pub fn attachment(&self, key: &str) -> Option<&str> {
        self.attachments.get_str(key)
    }

    /// Sets a response attachment.
    pub fn set_response_attachment(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.response_attachments.insert(key, value);
    }
}
