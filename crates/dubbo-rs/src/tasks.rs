//! The owner of an application's background tasks: registry watchers, retry timers, pushers.

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::sync::lock;

/// Background tasks that belong to one application and stop with it.
///
/// A task is given a [`CancellationToken`] and is expected to return soon after it is
/// cancelled; [`stop_all`](Self::stop_all) cancels the tasks newest first (a watcher started
/// after the registry client it uses stops before it) and waits for each, aborting one that
/// does not end within the grace it is given.
#[derive(Debug, Default)]
pub struct BackgroundTasks {
    tasks: Mutex<Vec<Task>>,
    stopped: CancellationToken,
}

#[derive(Debug)]
struct Task {
    name: String,
    cancel: CancellationToken,
    handle: JoinHandle<()>,
}

impl BackgroundTasks {
    /// Starts `task` (built from its cancellation token) on the current Tokio runtime. After
    /// [`stop_all`](Self::stop_all) a new task is cancelled at once.
    pub fn spawn<F, Fut>(&self, name: impl Into<String>, task: F)
    where
        F: FnOnce(CancellationToken) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        // Not a child of `stopped`: cancelling that must not stop every task at once.
        let cancel = CancellationToken::new();
        if self.stopped.is_cancelled() {
            cancel.cancel();
        }
        let handle = tokio::spawn(task(cancel.clone()));
        let mut tasks = lock(&self.tasks);
        tasks.retain(|t| !t.handle.is_finished());
        tasks.push(Task {
            name: name.into(),
            cancel,
            handle,
        });
    }

    /// Names of the tasks still running.
    pub fn running(&self) -> Vec<String> {
        lock(&self.tasks)
            .iter()
            .filter(|t| !t.handle.is_finished())
            .map(|t| t.name.clone())
            .collect()
    }

    /// Cancels every task, newest first, waiting up to `grace` for each before aborting it.
    pub async fn stop_all(&self, grace: Duration) {
        self.stopped.cancel();
        loop {
            let task = lock(&self.tasks).pop();
            let Some(mut task) = task else { break };
            task.cancel.cancel();
            if tokio::time::timeout(grace, &mut task.handle).await.is_err() {
                tracing::warn!(task = %task.name, "background task did not stop in time; aborted");
                task.handle.abort();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[tokio::test]
    async fn stops_newest_first_and_aborts_stragglers() {
        let tasks = BackgroundTasks::default();
        let order = Arc::new(Mutex::new(Vec::new()));
        for name in ["registry", "watcher"] {
            let order = order.clone();
            tasks.spawn(name, move |cancel| async move {
                cancel.cancelled().await;
                order.lock().unwrap().push(name);
            });
        }
        tasks.spawn("stubborn", |_cancel| async move {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        });
        assert_eq!(tasks.running().len(), 3);
        tasks.stop_all(Duration::from_millis(50)).await;
        assert_eq!(*order.lock().unwrap(), vec!["watcher", "registry"]);
        assert!(tasks.running().is_empty());
        let late = Arc::new(Mutex::new(false));
        let flag = late.clone();
        tasks.spawn("late", move |cancel| async move {
            cancel.cancelled().await;
            *flag.lock().unwrap() = true;
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            *late.lock().unwrap(),
            "a task spawned after stop is cancelled at once"
        );
    }
}
