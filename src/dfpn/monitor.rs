//! Node counting and the limits that end a search: node limit, deadline, stop flag, and
//! per-call node budgets used by the driver and the line builder.
//!
//! With several search threads, each thread has its own monitor; they share the
//! [`Control`] (stop and deadline reach every thread at its next poll) and a [`Team`]:
//! the helpers' node count, and the recall that ends one df-pn call on every thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::chess::movecode::MoveCode;

/// How often (in nodes) the clock and the stop flag are read.
const POLL_INTERVAL: u64 = 256;

/// Shared between the engine and the search: the stop flag and a deadline that may be
/// set or moved while the search runs (ponderhit), which the engine writes; and the
/// search's progress (nodes, current bound, deepest ply), which the search publishes for
/// live output at its polls, so that printing never slows the search.
#[derive(Debug)]
pub struct Control {
    stop: Arc<AtomicBool>,
    start: Instant,
    /// Milliseconds since `start`; `u64::MAX` = none.
    deadline_ms: AtomicU64,
    /// Nodes searched so far (all threads), as last published.
    nodes: AtomicU64,
    /// The bound (plies) of the question being searched.
    depth: AtomicU32,
    /// The deepest ply reached.
    seldepth: AtomicU32,
    /// The root move being searched: its move code (low 16 bits) and its number in the
    /// root's move order (high 16 bits, from 1); 0 = none yet.
    root_move: AtomicU32,
}

/// What a search has published about its progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Nodes searched.
    pub nodes: u64,
    /// The bound (plies) being searched.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// The root move being searched, and its number (from 1) in the root's move order.
    pub root_move: Option<(MoveCode, u32)>,
}

impl Control {
    /// A control with no deadline, started now.
    pub fn new() -> Arc<Control> {
        Arc::new(Control {
            stop: Arc::new(AtomicBool::new(false)),
            start: Instant::now(),
            deadline_ms: AtomicU64::new(u64::MAX),
            nodes: AtomicU64::new(0),
            depth: AtomicU32::new(0),
            seldepth: AtomicU32::new(0),
            root_move: AtomicU32::new(0),
        })
    }

    /// Publishes the node count.
    pub fn publish_nodes(&self, nodes: u64) {
        self.nodes.store(nodes, Ordering::Relaxed);
    }

    /// Publishes the bound being searched and the deepest ply reached so far.
    pub fn publish_depth(&self, depth: u32, seldepth: u32) {
        self.depth.store(depth, Ordering::Relaxed);
        self.seldepth.fetch_max(seldepth, Ordering::Relaxed);
    }

    /// Publishes the root move being searched, `number` counted from 1.
    pub fn publish_root_move(&self, code: MoveCode, number: usize) {
        let number = number.min(usize::from(u16::MAX)) as u32;
        self.root_move.store(u32::from(code.0) | (number << 16), Ordering::Relaxed);
    }

    /// The progress last published.
    pub fn progress(&self) -> Progress {
        let root_move = self.root_move.load(Ordering::Relaxed);
        Progress {
            nodes: self.nodes.load(Ordering::Relaxed),
            depth: self.depth.load(Ordering::Relaxed),
            seldepth: self.seldepth.load(Ordering::Relaxed),
            root_move: (root_move != 0).then_some((MoveCode(root_move as u16), root_move >> 16)),
        }
    }

    /// Asks the search to end as soon as it can.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The stop flag, for what must notice a stop outside the search's polls (a wait for
    /// an exact table).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
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

    /// The time left before the deadline (None: no deadline).
    pub fn time_left(&self) -> Option<Duration> {
        let d = self.deadline_ms.load(Ordering::Relaxed);
        (d != u64::MAX).then(|| Duration::from_millis(d).saturating_sub(self.start.elapsed()))
    }

    /// Whether the deadline has passed.
    pub fn past_deadline(&self) -> bool {
        let d = self.deadline_ms.load(Ordering::Relaxed);
        d != u64::MAX && self.start.elapsed().as_millis() as u64 >= d
    }
}

/// What the threads of one search share besides the [`Control`].
#[derive(Debug, Default)]
pub struct Team {
    /// Nodes counted by helper threads, published at each of their polls.
    helper_nodes: AtomicU64,
    /// The recall epoch: every call belongs to the epoch it was taken in, and ends when
    /// the epoch moves on (a proof made the calls in flight stale, or the search ended).
    epoch: AtomicU32,
}

impl Team {
    /// A team with nothing counted.
    pub fn new() -> Arc<Team> {
        Arc::new(Team::default())
    }

    /// Ends every call in flight on every thread.
    pub fn recall(&self) {
        self.epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// The current recall epoch.
    pub fn epoch(&self) -> u32 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// Nodes the helpers have published.
    pub fn helper_nodes(&self) -> u64 {
        self.helper_nodes.load(Ordering::Relaxed)
    }
}

/// Counts nodes and decides when the current search call must return.
pub struct Monitor {
    control: Arc<Control>,
    /// The team of a multi-threaded search, and whether this monitor is a helper's.
    team: Option<(Arc<Team>, bool)>,
    /// Nodes of this thread already added to the team's count (helpers).
    published: u64,
    /// Nodes counted before this monitor's search, by earlier searches of the same
    /// `go` (MultiPV): added to what is published for progress reports.
    base: u64,
    nodes: u64,
    node_limit: u64,
    /// Where the current call's budget ends, in this thread's [`Monitor::nodes`]: every
    /// call is searched by one thread.
    budget_end: u64,
    /// In a team, the recall epoch the current call belongs to (None: not recalled).
    epoch: Option<u32>,
    next_poll: u64,
    hard_stop: bool,
    aborted: bool,
}

impl Monitor {
    /// A monitor for one search with an optional total node limit.
    pub fn new(control: Arc<Control>, node_limit: Option<u64>) -> Monitor {
        Monitor {
            control,
            team: None,
            published: 0,
            base: 0,
            nodes: 0,
            node_limit: node_limit.unwrap_or(u64::MAX),
            budget_end: u64::MAX,
            epoch: None,
            next_poll: POLL_INTERVAL,
            hard_stop: false,
            aborted: false,
        }
    }

    /// This monitor, publishing its progress on top of `base` nodes counted earlier.
    pub fn counting_from(mut self, base: u64) -> Monitor {
        self.base = base;
        self
    }

    /// The monitor of the search's main thread in a team: the node limit counts the
    /// helpers' nodes too.
    pub fn join_team(&mut self, team: Arc<Team>) {
        self.team = Some((team, false));
    }

    /// A helper thread's monitor: no node limit of its own (the main thread's counts the
    /// team), the shared control, its calls ended by the team's recall.
    pub fn helper(control: Arc<Control>, team: Arc<Team>) -> Monitor {
        let mut m = Monitor::new(control, None);
        m.team = Some((team, true));
        m
    }

    /// Whether this is a helper thread's monitor.
    pub fn is_helper(&self) -> bool {
        matches!(self.team, Some((_, true)))
    }

    /// The search's node limit, if it has one.
    pub fn node_limit(&self) -> Option<u64> {
        (self.node_limit != u64::MAX).then_some(self.node_limit)
    }

    /// Nodes counted by this thread and, for a team's main thread, by its helpers.
    pub fn total_nodes(&self) -> u64 {
        match &self.team {
            Some((team, false)) => self.nodes + team.helper_nodes(),
            _ => self.nodes,
        }
    }

    /// Adds a helper's unpublished nodes to the team's count.
    pub fn publish(&mut self) {
        if let Some((team, true)) = &self.team {
            team.helper_nodes.fetch_add(self.nodes - self.published, Ordering::Relaxed);
            self.published = self.nodes;
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
    /// must unwind. (This thread's count never exceeds the team's, so the checks here
    /// never fire early; the team's count is read at the polls.)
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
            self.poll();
        }
    }

    /// The periodic look at what other threads decided.
    #[cold]
    fn poll(&mut self) {
        self.next_poll = self.nodes + POLL_INTERVAL;
        if self.control.stopped() || self.control.past_deadline() {
            self.hard_stop = true;
            self.aborted = true;
        }
        if !self.is_helper() {
            self.control.publish_nodes(self.base + self.total_nodes());
        }
        self.publish();
        if self.recalled() {
            self.aborted = true;
        }
        if self.team.is_some() && self.total_nodes() >= self.node_limit {
            self.hard_stop = true;
            self.aborted = true;
        }
    }

    /// Whether the current call was cut off (budget or hard limit).
    #[inline]
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// The search's limits as the knowledge weighs them (which tables a call may ask for,
    /// and whether it waits for them).
    pub fn limits(&self) -> crate::knowledge::SearchLimits {
        crate::knowledge::SearchLimits {
            time_left: self.control.time_left(),
            nodes: self.node_limit(),
            stop: Some(self.control.stop_flag()),
        }
    }

    /// Whether a hard limit (node limit, deadline, stop) has been reached: the search as a
    /// whole must end.
    pub fn hard_stopped(&self) -> bool {
        self.hard_stop || self.control.stopped() || self.control.past_deadline()
    }

    /// Starts a call with a budget of `budget` nodes of this thread (None: unbounded);
    /// the hard limits apply as well, and in a team the recall of the call's epoch.
    pub fn begin(&mut self, budget: Option<u64>) {
        self.budget_end = budget.map_or(u64::MAX, |b| self.nodes.saturating_add(b));
        self.aborted = self.hard_stopped() || self.recalled();
    }

    /// Whether the team has moved past the epoch of this thread's current call.
    fn recalled(&self) -> bool {
        self.team.as_ref().is_some_and(|(team, _)| self.epoch.is_some_and(|e| e != team.epoch()))
    }

    /// In a team: the calls this thread starts from now on belong to recall `epoch` (None:
    /// they are not recalled, as the driver's line building is not).
    pub fn follow(&mut self, epoch: Option<u32>) {
        self.epoch = epoch;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_budget_is_one_threads_and_a_recall_ends_the_calls_of_its_epoch() {
        let control = Control::new();
        let team = Team::new();
        let mut main = Monitor::new(Arc::clone(&control), Some(10_000));
        main.join_team(Arc::clone(&team));
        let mut helper = Monitor::helper(Arc::clone(&control), Arc::clone(&team));
        main.follow(Some(team.epoch()));
        helper.follow(Some(team.epoch()));
        main.begin(Some(1000));
        helper.begin(Some(1000));
        helper.count(900);
        helper.publish();
        main.count(900);
        assert!(!main.aborted() && !helper.aborted(), "each thread spent 900 of its own 1000");
        assert_eq!(main.total_nodes(), 1800, "the team's count, for the node limit and reports");
        main.count(100);
        assert!(main.aborted() && !helper.aborted(), "the budget is the thread's own");
        // A recall ends the calls in flight at their next poll, and any call still to
        // begin in that epoch.
        team.recall();
        helper.count(POLL_INTERVAL);
        assert!(helper.aborted(), "recalled");
        main.begin(Some(1000));
        assert!(main.aborted(), "a call of the old epoch");
        main.follow(Some(team.epoch()));
        main.begin(Some(1000));
        assert!(!main.aborted(), "a call of the new epoch");
        // Calls that follow no epoch (the line builder's) are never recalled.
        main.follow(None);
        team.recall();
        main.begin(Some(1000));
        main.count(POLL_INTERVAL);
        assert!(!main.aborted() && !main.hard_stopped());
        // The node limit counts the team.
        helper.count(10_000);
        helper.publish();
        main.count(POLL_INTERVAL);
        assert!(main.hard_stopped(), "{} nodes against a limit of 10000", main.total_nodes());
    }
}
