//! Several threads on one df-pn call: every thread searches the call's root over the
//! shared table, and threads keep out of each other's way with virtual proof numbers.
//!
//! The driver stays single-threaded: it asks the same questions in the same order as with
//! one thread. Each of its df-pn calls is searched by the driver's own thread (the *main*
//! thread) and by `threads - 1` helpers started for the call. The call's node budget,
//! once per thread, is spent by all of them together (the main thread's monitor counts
//! the team), so a call takes about the time it takes on one thread and searches more
//! nodes. With the one-thread budget shared instead, the threads' repeated work came out
//! of it: a call one thread answers near the end of its budget missed with two and cost
//! the driver its next, doubled round. (Two threads, 38 matetrack positions, geometric
//! mean of time(2)/time(1), two runs: 0.784 and 0.749 with the budget shared, 0.704 and
//! 0.729 with it per thread; positions over 1.5x: 7 and 4 against 3 and 3.)
//!
//! All of them run the same call (root, bound, cycle rule) on the one table, so a proof
//! or disproof one thread stores is a proof or disproof every other thread reads at its
//! next probe (see `tt` for why concurrent entries are sound).
//!
//! Spreading (after Kaneko's parallel df-pn, AAAI 2010): a thread marks each node while it
//! works below it ([`Busy`]). When a thread selects a child, a child marked by other
//! threads looks harder than it is: its deciding number (pn at an OR node, dn at an AND
//! node) is multiplied by one plus the number of threads below it. Only the choice of the
//! child changes, never a value that is stored or reported, so soundness does not depend
//! on the marks (they may be stale or collide; a thread only ever picks a child whose true
//! number is under its threshold, so it never stalls).
//!
//! Marks are kept only in the first [`SPREAD_PLIES`] plies of a call: that is where
//! threads meet (they all start at the root), and below it the marks' shared counters
//! cost more than they steer. Every node entry and exit writes one, and every child
//! choice reads one per child, so threads that mark every ply keep moving the same cache
//! lines between cores.
//!
//! Unwinding: a thread that works below a node another thread has just solved works
//! for nothing, and its own numbers (taken from the node's children when it entered
//! them) cannot show it: an OR node's proven sibling still looks open to it until it
//! returns. So every thread looks at the table entries of its path's nodes within
//! [`SPREAD_PLIES`] every 1024 nodes; when one is solved, the thread unwinds to the
//! shallowest such node, which takes the stored verdict (a verdict of the table, as
//! sound as one read at a probe). Two threads, 52 matetrack positions, geometric mean
//! of time(2)/time(1) in one run: 0.590 with unwinding (slowest 1.61x), 0.604 without
//! (slowest 1.83x); a second run with unwinding 0.585 (50 positions, slowest 2.44x).
//!
//! The call ends for all threads when any of them answers it or the team's budget runs
//! out (the team's recall); the answer is the first solved verdict, main thread
//! first. Every verdict of every thread is a verdict of the same question, so any one of
//! them is as good as another. Events come from the driver only.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};

use super::dfpn::{Call, Question, Solver};
use super::mate_len::Plies;
use super::monitor::{Monitor, Team};
use super::node::Node;
use super::pndn::PnDn;
use super::search_thread;
use super::value::Verdict;
use crate::tt::Table;

/// Threads mark the nodes they work below, and steer by the marks, only this many plies
/// from a call's root. Measured with two threads (time to the first proof, 38 matetrack
/// positions, geometric mean of time(2)/time(1)): marks at every ply 0.793 and 0.761,
/// within 3 plies 0.764, 6 plies 0.703 and 0.723, 10 plies 0.747. Nodes per second of
/// two threads over one, on two positions searched 4 s each: 1.62 and 1.40 with marks at
/// every ply, 1.82 and 1.59 within 6 plies.
pub const SPREAD_PLIES: usize = 6;

/// Marks of the nodes threads are working below: a count per slot, slots chosen by the
/// high bits of the node's key (collisions only make a node look busy).
pub struct Busy {
    marks: Box<[AtomicU16]>,
}

impl Busy {
    const SLOTS_LOG2: u32 = 16;

    /// No node marked.
    pub fn new() -> Busy {
        Busy { marks: (0..1usize << Self::SLOTS_LOG2).map(|_| AtomicU16::new(0)).collect() }
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU16 {
        &self.marks[(key >> (64 - Self::SLOTS_LOG2)) as usize]
    }

    /// A thread starts working below the node `key`.
    #[inline]
    pub fn enter(&self, key: u64) {
        self.slot(key).fetch_add(1, Ordering::Relaxed);
    }

    /// The thread is done with the node `key`.
    #[inline]
    pub fn leave(&self, key: u64) {
        self.slot(key).fetch_sub(1, Ordering::Relaxed);
    }

    /// How many threads are working below the node `key`.
    #[inline]
    pub fn count(&self, key: u64) -> u32 {
        u32::from(self.slot(key).load(Ordering::Relaxed))
    }

    /// The number a selecting thread sees for a child whose deciding number is `v` with
    /// `threads` other threads below it.
    #[inline]
    pub fn virtual_number(v: PnDn, threads: u32) -> PnDn {
        if threads == 0 || v.is_infinite() { v } else { PnDn(v.0.saturating_mul(threads + 1).min(PnDn::MAX_FINITE.0)) }
    }
}

impl Default for Busy {
    fn default() -> Self {
        Busy::new()
    }
}

/// The helpers of a search: how many, and what they share with the main thread.
pub struct Crew {
    helpers: usize,
    team: Arc<Team>,
    busy: Busy,
}

impl Crew {
    /// A crew for a search on `threads` threads in all (None for one thread).
    pub fn new(threads: usize, monitor: &mut Monitor) -> Option<Crew> {
        (threads > 1).then(|| {
            let team = Team::new();
            monitor.join_team(Arc::clone(&team));
            Crew { helpers: threads - 1, team, busy: Busy::new() }
        })
    }

    /// Runs one df-pn call on the main thread (`monitor`, the call's budget) and on every
    /// helper; returns the first solved verdict (the main thread's first) and the deepest
    /// ply any thread reached.
    pub fn solve(
        &self,
        tt: &Table,
        monitor: &mut Monitor,
        question: Question<'_>,
        root: &Node,
        bound: Plies,
        call: Call,
    ) -> (Verdict, usize) {
        let helper_verdict: Mutex<(Verdict, usize)> = Mutex::new((Verdict::Unknown, 0));
        let control = Arc::clone(monitor.control());
        self.team.rearm();
        let main = std::thread::scope(|scope| {
            let mut handles = Vec::with_capacity(self.helpers);
            for i in 0..self.helpers {
                let control = Arc::clone(&control);
                let team = Arc::clone(&self.team);
                let helper_verdict = &helper_verdict;
                let helper = move || {
                    let mut monitor = Monitor::helper(control, Arc::clone(&team));
                    let mut solver = Solver::new(tt, &mut monitor, question).spread(&self.busy);
                    let v = solver.solve(root, bound, Call { budget: None, ..call });
                    let seldepth = solver.seldepth;
                    monitor.publish();
                    let mut slot = helper_verdict.lock().unwrap_or_else(|e| e.into_inner());
                    slot.1 = slot.1.max(seldepth);
                    if v != Verdict::Unknown && slot.0 == Verdict::Unknown {
                        slot.0 = v;
                        team.recall();
                    }
                };
                // A helper that cannot be started leaves the call to the others.
                if let Ok(h) = search_thread(&format!("pnmate-helper-{}", i + 1)).spawn_scoped(scope, helper) {
                    handles.push(h);
                }
            }
            let mut solver = Solver::new(tt, monitor, question).spread(&self.busy);
            let team_budget = call.budget.map(|b| b.saturating_mul(self.helpers as u64 + 1));
            let call = Call { budget: team_budget, ..call };
            let v = solver.solve(root, bound, call);
            let seldepth = solver.seldepth;
            self.team.recall();
            for h in handles {
                if let Err(panic) = h.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            (v, seldepth)
        });
        self.team.rearm();
        let (helper, helper_depth) = helper_verdict.into_inner().unwrap_or_else(|e| e.into_inner());
        let verdict = if main.0 == Verdict::Unknown { helper } else { main.0 };
        (verdict, main.1.max(helper_depth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_count_threads_and_inflate_only_busy_children() {
        let busy = Busy::new();
        let key = 0xdead_beef_0000_0001;
        assert_eq!(busy.count(key), 0);
        busy.enter(key);
        busy.enter(key);
        assert_eq!(busy.count(key), 2);
        busy.leave(key);
        assert_eq!(busy.count(key), 1);
        busy.leave(key);
        assert_eq!(busy.count(key), 0);
        assert_eq!(Busy::virtual_number(PnDn(3), 0), PnDn(3));
        assert_eq!(Busy::virtual_number(PnDn(3), 1), PnDn(6));
        assert_eq!(Busy::virtual_number(PnDn::INFINITE, 2), PnDn::INFINITE);
        assert_eq!(Busy::virtual_number(PnDn::MAX_FINITE, 5), PnDn::MAX_FINITE);
    }
}
