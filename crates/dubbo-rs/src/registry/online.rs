//! Which levels each export is offered at, and the QoS `offline` / `online` switches that
//! change them (Java's `offline`, `offlineInterface`, `offlineApp` and their `online` forms).

use dubbo_url::Url;

use super::modes::RegisterMode;

/// An export as the registration task tracks it: where it is served, and whether it is
/// offered to consumers at each level.
pub(crate) struct Export {
    pub(crate) url: Url,
    /// The URL offered to consumers: `url` as the provider-side override rules configure it.
    pub(crate) effective: Url,
    /// Registered one by one in interface-level registries.
    pub(crate) interface: bool,
    /// Carried by the application's metadata, and so by its instance.
    pub(crate) instance: bool,
}

impl Export {
    /// A new export, offered at both levels unless it asks not to be registered
    /// (`register=false`, which `online` can still override, as in Java).
    pub(crate) fn new(url: Url) -> Self {
        let register = url.parameter_bool_or("register", true);
        Self {
            effective: url.clone(),
            url,
            interface: register,
            instance: register,
        }
    }

    /// The levels the export is offered at, `None` for neither.
    pub(crate) fn levels(&self) -> Option<RegisterMode> {
        mode_of(self.interface, self.instance)
    }

    /// Offers the export at `levels` (`online`) or withdraws it from them; answers the levels
    /// that changed, `None` when none did.
    pub(crate) fn set_online(
        &mut self,
        online: bool,
        levels: RegisterMode,
    ) -> Option<RegisterMode> {
        let interface = levels.interface_level() && self.interface != online;
        let instance = levels.instance_level() && self.instance != online;
        if interface {
            self.interface = online;
        }
        if instance {
            self.instance = online;
        }
        mode_of(interface, instance)
    }

    /// Whether the application's instance has nothing left to carry because services were
    /// taken offline: some export would be in the metadata, yet none is. (An application
    /// whose services all say `register=false` still publishes its instance, as Java does.)
    pub(crate) fn all_taken_offline(exports: &[Export]) -> bool {
        exports
            .iter()
            .any(|e| e.url.parameter_bool_or("register", true))
            && !exports.iter().any(|e| e.instance)
    }
}

fn mode_of(interface: bool, instance: bool) -> Option<RegisterMode> {
    match (interface, instance) {
        (true, true) => Some(RegisterMode::All),
        (true, false) => Some(RegisterMode::Interface),
        (false, true) => Some(RegisterMode::Instance),
        (false, false) => None,
    }
}

/// One `offline` or `online` command, as the registration task runs it.
pub(crate) struct Switch {
    /// The exports it applies to (their URLs as exported).
    pub(crate) urls: Vec<Url>,
    /// `online` when true, `offline` when false.
    pub(crate) online: bool,
    /// The levels it changes: `All` for `offline`, `Interface` for `offlineInterface`,
    /// `Instance` for `offlineApp`.
    pub(crate) levels: RegisterMode,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn export(query: &str) -> Export {
        Export::new(Url::parse(&format!("dubbo://127.0.0.1:20880/a.B?{query}")).unwrap())
    }

    #[test]
    fn switches_report_only_the_levels_that_changed() {
        let mut e = export("x=1");
        assert_eq!(e.levels(), Some(RegisterMode::All));
        assert_eq!(
            e.set_online(false, RegisterMode::Instance),
            Some(RegisterMode::Instance)
        );
        assert_eq!(
            e.set_online(false, RegisterMode::All),
            Some(RegisterMode::Interface)
        );
        assert_eq!(e.levels(), None);
        assert_eq!(e.set_online(false, RegisterMode::All), None);
        assert_eq!(
            e.set_online(true, RegisterMode::All),
            Some(RegisterMode::All)
        );
    }

    #[test]
    fn online_offers_an_unregistered_export_as_java_does() {
        let mut e = export("register=false");
        assert_eq!(e.levels(), None);
        assert!(!Export::all_taken_offline(std::slice::from_ref(&e)));
        assert_eq!(
            e.set_online(true, RegisterMode::Interface),
            Some(RegisterMode::Interface)
        );
        assert_eq!(e.levels(), Some(RegisterMode::Interface));
    }

    #[test]
    fn the_instance_goes_only_when_every_published_service_was_taken_offline() {
        let mut exports = vec![export("x=1"), export("register=false")];
        assert!(!Export::all_taken_offline(&exports));
        exports[0].set_online(false, RegisterMode::Interface);
        assert!(!Export::all_taken_offline(&exports));
        exports[0].set_online(false, RegisterMode::Instance);
        assert!(Export::all_taken_offline(&exports));
    }
}
