//! Several threads on the driver's schedule: each thread takes the schedule's next df-pn
//! call, searches it whole on the shared table and hands its verdict to the driver, so
//! the calls of the schedule run side by side.
//!
//! On one thread the driver's calls run one after the other: a round asks each question
//! at its near bound, its far bounds, the cap and, in an endgame, the long bound, and a
//! first mate is nearly always proven by one of the calls that come after the near bound
//! (the far bounds, the cap or the long bound), after every call before it. With N
//! threads, the free thread takes the next call of the same sequence ([`Schedule`]), with
//! the one-thread budget: the driver's own thread (the *main* thread) and N - 1 helpers
//! alike. A call that one thread reaches after the calls before it has finished is thus
//! started while they still run, and every call keeps the budget, and so the search, it
//! has on one thread. What a call finds in the table differs from one thread's run, since
//! the calls before it are still running, so the mate may be proven in another call or
//! another round, sooner or later.
//!
//! What the threads share, and why a claim stays sound:
//! - the table (see `tt` for why concurrent entries are sound): whatever one thread
//!   stores, every other reads at its next probe, as a later call would on one thread;
//! - the schedule, behind a lock: threads take calls from it, and only the main thread
//!   records verdicts. A helper puts its verdict in the crew's inbox; the main thread
//!   collects them before each of its calls, and at once when one is a proof (see recall).
//!   Every verdict is a fact about the root (a proof, or a disproof of every mate up to a
//!   length, as on one thread), whoever found it and whatever the schedule knew when the
//!   call was taken; events come from the main thread only, and lines are built and
//!   replayed there as on one thread;
//! - the recall epoch ([`Team`]): a call ends when the epoch moves on. A proof moves it
//!   (the calls in flight look for longer mates, or the proof's own thread is done), so
//!   the main thread stops its call, collects the proof, reports it with its line and
//!   starts the tightening; the helpers take the tightening's questions. The end of the
//!   search moves it too.
//!
//! With Threads 1 there is no crew: the main thread takes every call, the same calls in
//! the same order as before threads existed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use shakmaty::{Color, Move};

use crate::chess::node::Node;
use crate::chess::rules::Repetitions;
use crate::dfpn::expand::Expand;
use crate::dfpn::monitor::{Control, Monitor, Team};
use crate::dfpn::value::Verdict;
use crate::dfpn::{Call, Question, RootMoves, Solver};
use crate::jobs::lock;
use crate::search::schedule::{Ask, Schedule, Step};
use crate::tt::TranspositionTable;

/// What the threads of a search share besides the table and the schedule: the team's
/// count and recall, and the helpers' verdicts on their way to the driver.
pub(super) struct Crew {
    team: Arc<Team>,
    /// Verdicts of helpers' calls the driver has not recorded yet, with the deepest ply
    /// each call reached.
    inbox: Mutex<Vec<(Ask, Verdict, usize)>>,
    /// Set when the search is over: helpers take no more calls.
    over: AtomicBool,
}

impl Crew {
    /// The crew of a search whose driver counts in `monitor`.
    pub fn new(monitor: &mut Monitor) -> Crew {
        let team = Team::new();
        monitor.join_team(Arc::clone(&team));
        Crew { team, inbox: Mutex::new(Vec::new()), over: AtomicBool::new(false) }
    }

    /// The schedule's next call for a thread of the team (`stopped`: a hard limit has
    /// struck), and the recall epoch it belongs to.
    pub fn next(&self, schedule: &Mutex<Schedule>, stopped: bool) -> (Step, u32) {
        let mut schedule = lock(schedule);
        (schedule.next(stopped), self.team.epoch())
    }

    /// The current recall epoch: a call the driver starts now belongs to it.
    pub fn epoch(&self) -> u32 {
        self.team.epoch()
    }

    /// Recalls every call in flight (under the schedule's lock, so that a call taken
    /// after what made them stale is not recalled).
    pub fn recall(&self) {
        self.team.recall();
    }

    /// The helpers' verdicts since the last look.
    pub fn collect(&self) -> Vec<(Ask, Verdict, usize)> {
        std::mem::take(&mut *lock(&self.inbox))
    }

    /// Ends the search for the helpers: they take no more calls, and their calls in
    /// flight end at their next poll.
    pub fn end(&self) {
        self.over.store(true, Ordering::Relaxed);
        self.team.recall();
    }

    /// A guard that ends the search for the helpers when dropped.
    pub fn ending(&self) -> impl Drop + '_ {
        struct Ending<'c>(&'c Crew);
        impl Drop for Ending<'_> {
            fn drop(&mut self) {
                self.0.end();
            }
        }
        Ending(self)
    }

    /// A helper's life: takes the schedule's next call, searches it from `root` with
    /// `ground`'s question, hands the verdict to the driver; until the schedule or the
    /// search ends.
    pub fn work<G: Expand>(
        &self,
        tt: &TranspositionTable,
        root: &Node<G>,
        ground: Ground<'_, G>,
        schedule: &Mutex<Schedule>,
        control: Arc<Control>,
    ) {
        let mut monitor = Monitor::helper(control, Arc::clone(&self.team));
        while !self.over.load(Ordering::Relaxed) {
            let (Step::Ask(ask), epoch) = self.next(schedule, monitor.hard_stopped()) else { break };
            monitor.follow(Some(epoch));
            let mut solver = Solver::new(tt, &mut monitor, &root.pos, ground.question(ask.side));
            let call =
                Call { budget: Some(ask.budget), root: RootMoves::Restricted, game_root: true, cycles: ask.cycles };
            let verdict = solver.solve(root, ask.bound, call);
            let seldepth = solver.seldepth;
            drop(solver);
            monitor.publish();
            lock(&self.inbox).push((ask, verdict, seldepth));
            // The driver learns of a proof at once: every call in flight is recalled (the
            // driver's own first, which then finds the proof in the inbox).
            if matches!(verdict, Verdict::Proven(_)) {
                self.team.recall();
            }
        }
    }
}

/// What every thread's calls ask besides their bound: the attacker of each question, the
/// root's restricted moves and the game's repetitions.
pub(super) struct Ground<'q, G: Expand> {
    pub attackers: [Color; 2],
    pub root_moves: Option<&'q [Move]>,
    pub repetitions: Option<&'q Repetitions>,
    pub oracle: &'q G::Oracle,
}

impl<G: Expand> Clone for Ground<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Expand> Copy for Ground<'_, G> {}

impl<'q, G: Expand> Ground<'q, G> {
    /// The question of side `side` of the schedule.
    pub fn question(&self, side: usize) -> Question<'q, G> {
        Question {
            attacker: self.attackers[side],
            root_moves: self.root_moves,
            repetitions: self.repetitions,
            oracle: self.oracle,
        }
    }
}
