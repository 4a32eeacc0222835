//! Poison-tolerant locking. A panic while a lock is held (in a user's hook, say) must not turn
//! every later use of the application's state into a second panic: the state guarded here is
//! always left consistent between statements, so the guard is taken back as it is.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, taking the guard back from a poisoned lock.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
