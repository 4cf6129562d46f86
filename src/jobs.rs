//! Work shared out over threads: the stack a search thread needs, and one runner of
//! independent jobs that every pool of the crate uses (a suite's positions, a problem's
//! first moves, a suite of problems).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Stack size for any thread that runs a search: the recursion is as deep as the mate
/// bound (up to 2000 plies, e.g. along a perpetual check, which the bounded search does
/// not score) and each level holds a position and its move list. Only touched pages
/// become resident.
pub const SEARCH_STACK: usize = 512 << 20;

/// A thread builder for a thread that runs a search: named, with [`SEARCH_STACK`].
pub fn search_thread(name: &str) -> std::thread::Builder {
    std::thread::Builder::new().name(name.to_string()).stack_size(SEARCH_STACK)
}

/// A lock that a thread's panic does not poison for the others (the panic itself is
/// passed on when the thread is joined).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs jobs `0..count` on up to `threads` search threads named `name`: each thread makes
/// its state with `init`, then takes the next job until none is left, `work(state, job)`;
/// `done` sees each result as it comes (from the worker, one at a time). Returns the
/// results in job order. Where no thread can be started, the jobs run on the caller's
/// thread; a panic in a job is raised again here once every thread has stopped.
pub fn run_jobs<S, T: Send>(
    count: usize,
    threads: usize,
    name: &str,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> T + Sync,
    done: impl Fn(usize, &T) + Sync,
) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    let seen = Mutex::new(());
    let job = || {
        let mut state = init();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= count {
                break;
            }
            let r = work(&mut state, i);
            {
                let _one_at_a_time = lock(&seen);
                done(i, &r);
            }
            lock(&results)[i] = Some(r);
        }
    };
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for i in 0..threads.clamp(1, count.max(1)) {
            if let Ok(h) = search_thread(&format!("{name}-{i}")).spawn_scoped(scope, job) {
                handles.push(h);
            }
        }
        if handles.is_empty() {
            job();
        }
        for h in handles {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().map(|r| r.expect("every job ran")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_runs_once_and_its_result_keeps_its_place() {
        let seen = AtomicUsize::new(0);
        let results = run_jobs(
            100,
            3,
            "test",
            || 0u64,
            |ran: &mut u64, i| {
                *ran += 1;
                i * i
            },
            |_, _| {
                seen.fetch_add(1, Ordering::Relaxed);
            },
        );
        assert_eq!(results, (0..100).map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(seen.into_inner(), 100);
        assert!(run_jobs(0, 2, "test", || (), |_, i| i, |_, _| {}).is_empty());
    }
}
