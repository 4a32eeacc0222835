//! Helpers shared by integration tests.

pub mod interop_service;
