//! Fault-tolerance strategies: how one call uses the providers when some fail.
