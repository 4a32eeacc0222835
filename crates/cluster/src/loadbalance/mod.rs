//! Load balancers: which provider of the routed list takes one call.
