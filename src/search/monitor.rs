//! Node counting and the limits that end a search: node limit, deadline, stop flag, and
//! per-call node budgets used by the driver and the line builder.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often (in nodes) the clock and the stop flag are read.
const POLL_INTERVAL: u64 = 256;

/// Shared between the engine (writer) and the search (reader): the stop flag and a
/// deadline that may be set or moved while the search runs (ponderhit).
#[derive(Debug)]
pub struct Control {
    stop: AtomicBool,
    start: Instant,
    /// Milliseconds since `start`; `u64::MAX` = none.
    deadline_ms: AtomicU64,
}

impl Control {
    /// A control with no deadline, started now.
    pub fn new() -> Arc<Control> {
        Arc::new(Control { stop: AtomicBool::new(false), start: Instant::now(), deadline_ms: AtomicU64::new(u64::MAX) })
    }

    /// Asks the search to end as soon as it can.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Sets the deadline to `after` from now (None: no deadline).
    pub fn set_deadline(&self, after: Option<Duration>) {
        let ms = match after {
            Some(d) => (self.start.elapsed() + d).as_millis().min(u128::from(u64::MAX - 1)) as u64,
            None => u64::MAX,
        };
        self.deadline_ms.store(ms, Ordering::Relaxed);
    }

    /// Time since the control was made (the search's start).
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the deadline has passed.
    pub fn past_deadline(&self) -> bool {
        let d = self.deadline_ms.load(Ordering::Relaxed);
        d != u64::MAX && self.start.elapsed().as_millis() as u64 >= d
    }
}

/// Counts nodes and decides when the current search call must return.
pub struct Monitor {
    control: Arc<Control>,
    nodes: u64,
    node_limit: u64,
    budget_end: u64,
    next_poll: u64,
    hard_stop: bool,
    aborted: bool,
}

impl Monitor {
    /// A monitor for one search with an optional total node limit.
    pub fn new(control: Arc<Control>, node_limit: Option<u64>) -> Monitor {
        Monitor {
            control,
            nodes: 0,
            node_limit: node_limit.unwrap_or(u64::MAX),
            budget_end: u64::MAX,
            next_poll: POLL_INTERVAL,
            hard_stop: false,
            aborted: false,
        }
    }

    /// The shared control.
    pub fn control(&self) -> &Arc<Control> {
        &self.control
    }

    /// Nodes counted so far.
    #[inline]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Counts `n` nodes; afterwards [`Monitor::aborted`] says whether the current call
    /// must unwind.
    #[inline]
    pub fn count(&mut self, n: u64) {
        self.nodes += n;
        if self.nodes >= self.budget_end {
            self.aborted = true;
        }
        if self.nodes >= self.node_limit {
            self.hard_stop = true;
            self.aborted = true;
        }
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_INTERVAL;
            if self.control.stopped() || self.control.past_deadline() {
                self.hard_stop = true;
                self.aborted = true;
            }
        }
    }

    /// Whether the current call was cut off (budget or hard limit).
    #[inline]
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Whether a hard limit (node limit, deadline, stop) has been reached: the search as a
    /// whole must end.
    pub fn hard_stopped(&self) -> bool {
        self.hard_stop || self.control.stopped() || self.control.past_deadline()
    }

    /// Starts a call with a budget of `budget` nodes (None: unbounded); the hard limits
    /// apply as well.
    pub fn begin(&mut self, budget: Option<u64>) {
        self.budget_end = budget.map_or(u64::MAX, |b| self.nodes.saturating_add(b));
        self.aborted = false;
        if self.hard_stopped() {
            self.aborted = true;
        }
    }
}
