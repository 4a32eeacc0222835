//! The outermost scope: extension tables shared by the applications created from it.

use std::sync::Arc;

use dubbo_core::{Extensions, Protocol};

/// Creates a protocol instance for an application.
pub trait ProtocolFactory: Send + Sync + 'static {
    /// A new, independent instance: its servers and connections belong to one application.
    fn create(&self) -> Arc<dyn Protocol>;
}

impl<F> ProtocolFactory for F
where
    F: Fn() -> Arc<dyn Protocol> + Send + Sync + 'static,
{
    fn create(&self) -> Arc<dyn Protocol> {
        self()
    }
}

/// The framework scope (Dubbo's `FrameworkModel`): the extension tables from which applications
/// pick protocols, filters and, later, load balancers and registries by name.
///
/// There is no process-wide instance: create one with [`Framework::new`] and build applications
/// from it, or let [`Application::builder`](crate::Application::builder) create a private one.
#[derive(Debug)]
pub struct Framework {
    extensions: Extensions,
}

impl Framework {
    /// A framework with the built-in protocols `dubbo` and `tri` (alias `triple`), as far as
    /// their cargo features are enabled.
    pub fn new() -> Arc<Self> {
        let extensions = Extensions::new();
        #[cfg(feature = "dubbo")]
        {
            let dubbo: Arc<dyn ProtocolFactory> = Arc::new(|| -> Arc<dyn Protocol> {
                Arc::new(dubbo_protocol_dubbo::DubboProtocol::new())
            });
            extensions.register::<dyn ProtocolFactory>("dubbo", dubbo);
        }
        #[cfg(feature = "triple")]
        {
            let tri: Arc<dyn ProtocolFactory> = Arc::new(|| -> Arc<dyn Protocol> {
                Arc::new(dubbo_protocol_triple::TripleProtocol::new(
                    dubbo_protocol_triple::TripleConfig::default(),
                ))
            });
            extensions.register::<dyn ProtocolFactory>("tri", tri.clone());
            extensions.register::<dyn ProtocolFactory>("triple", tri);
        }
        Arc::new(Self { extensions })
    }

    /// The extension tables; register your own protocols, filters, ... here.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// A new protocol instance by name, if a factory is registered.
    pub fn create_protocol(&self, name: &str) -> Option<Arc<dyn Protocol>> {
        self.extensions
            .get::<dyn ProtocolFactory>(name)
            .map(|f| f.create())
    }
}
