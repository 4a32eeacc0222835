//! How the framework's protocols are made for an application: a [`ProtocolFactory`] per
//! protocol name, given the application's TLS for that protocol ([`ProtocolTls`]).

use std::sync::Arc;

use dubbo_core::Protocol;

/// The TLS an application gives a protocol it creates (from `dubbo.ssl`): what its servers
/// serve and what its clients dial. Both `None` without `dubbo.ssl`.
#[derive(Debug, Clone, Default)]
pub struct ProtocolTls {
    /// The servers' TLS (certificate, trust collection for mutual TLS, port unification).
    pub server: Option<dubbo_tls::ServerTls>,
    /// The clients' TLS (trust collection, client certificate).
    pub client: Option<dubbo_tls::ClientTls>,
}

impl ProtocolTls {
    /// Whether either side has TLS.
    pub fn is_some(&self) -> bool {
        self.server.is_some() || self.client.is_some()
    }
}

/// Creates a protocol instance for an application.
pub trait ProtocolFactory: Send + Sync + 'static {
    /// A new, independent instance: its servers and connections belong to one application,
    /// and they use `tls` (the application's `dubbo.ssl` for this protocol).
    fn create(&self, tls: &ProtocolTls) -> Arc<dyn Protocol>;
}

/// A closure makes a protocol that knows nothing of TLS: an application with `dubbo.ssl`
/// serves and dials it in plaintext (and logs a warning when it creates it).
impl<F> ProtocolFactory for F
where
    F: Fn() -> Arc<dyn Protocol> + Send + Sync + 'static,
{
    fn create(&self, tls: &ProtocolTls) -> Arc<dyn Protocol> {
        if tls.is_some() {
            tracing::warn!("dubbo.ssl is configured but this protocol's factory takes no TLS; its servers and clients use plaintext");
        }
        self()
    }
}

/// The built-in dubbo:// factory.
#[cfg(feature = "dubbo")]
pub(crate) struct DubboFactory;

#[cfg(feature = "dubbo")]
impl ProtocolFactory for DubboFactory {
    fn create(&self, tls: &ProtocolTls) -> Arc<dyn Protocol> {
        Arc::new(dubbo_protocol_dubbo::DubboProtocol::with_tls(
            tls.server.clone(),
            tls.client.clone(),
        ))
    }
}

/// The built-in tri:// factory.
#[cfg(feature = "triple")]
pub(crate) struct TripleFactory;

/// A Triple protocol with `tls`, the CORS policy `rest_cors` of its REST forms and the
/// settings of its Swagger UI page. The
/// application keeps its Triple protocol concrete (IDL services are added to its servers
/// directly), so it makes it here too, as the factory does.
#[cfg(feature = "triple")]
pub(crate) fn new_triple(
    tls: &ProtocolTls,
    rest_cors: Option<Arc<dubbo_protocol_triple::CorsPolicy>>,
    swagger_ui: Arc<dubbo_protocol_triple::SwaggerUi>,
) -> dubbo_protocol_triple::TripleProtocol {
    dubbo_protocol_triple::TripleProtocol::new(dubbo_protocol_triple::TripleConfig {
        server_tls: tls.server.clone(),
        client_tls: tls.client.clone(),
        rest_cors,
        swagger_ui,
        ..Default::default()
    })
}

#[cfg(feature = "triple")]
impl ProtocolFactory for TripleFactory {
    fn create(&self, tls: &ProtocolTls) -> Arc<dyn Protocol> {
        Arc::new(new_triple(tls, None, Default::default()))
    }
}

/// The built-in rest:// factory: the consumer of plain HTTP services, dialing `https` base
/// URLs with the application's client TLS.
#[cfg(feature = "triple")]
pub(crate) struct RestFactory;

#[cfg(feature = "triple")]
impl ProtocolFactory for RestFactory {
    fn create(&self, tls: &ProtocolTls) -> Arc<dyn Protocol> {
        Arc::new(dubbo_protocol_triple::RestProtocol::with_tls(
            tls.client.clone(),
        ))
    }
}
