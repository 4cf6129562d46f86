//! The prover's driver: which questions to ask df-pn, in which order, with which budgets.
//!
//! Two questions are asked about the root: "does the side to move mate?" (the root is an
//! OR node) and "is the side to move mated?" (the root is an AND node, the opponent
//! attacks). The driver
//! 1. answers both exactly for mates in one and two moves (cheap, and common),
//! 2. alternates between the two questions, with node budgets that double each round so
//!    that neither starves the other. Each round asks each question at several bounds:
//!    - the *near* bound, the smallest rung of the game's ladder not yet disproven: its
//!      disproofs are what make a later mate exact, or end the search with "no mate";
//!    - the *far* bounds, a few rungs above it (the game's `knowledge::Reach`), so that
//!      a long forcing mate is not held up by hard disproofs of short bounds. Several, because df-pn finds a
//!      mate fastest at a bound a little above its length: a bound far above it lets the
//!      search wander into long lines (a mate in 25 proved in 0.2M nodes at bounds 32 and
//!      45, and not in 8 s at 64 or more);
//!    - the *cap*: the user's bound (`go mate N`), or the longest bound in analysis, so
//!      that the question asked is searched from the first round (and in analysis, a
//!      long mate that no rung near it finds fast, like Krabbé's mate in 38, is found).
//!
//!    The far bounds and the cap only look for mates: they cut cycles on the search path
//!    ([`Cycles::Cut`]), which spares them from chasing perpetual checks to the end of
//!    a long bound,
//! 3. once a mate of `P` plies is proven, reports it at once and asks for a mate within
//!    `P - 2` until that is disproven: the last proof is then the proven shortest. Beside
//!    the disproof (climbing the ladder up to `P - 2`), it looks for shorter mates at
//!    `P - 2` and halfway down with cycles cut, since a first proof at a long bound can be
//!    three times the shortest mate's length.
//!
//! Every proof is turned into a forced line, replayed, and only then reported as an
//! [`Event`]. A proof is recorded even when its line cannot be built yet (the line
//! builder has a node budget and obeys stop): the driver retries with larger budgets,
//! and a search that ends with such a proof reports it without a line
//! ([`Event::MateUnshown`]). The search never prints.
//!
//! The calls are handed out one at a time by the schedule (`schedule`), which
//! learns each verdict as it comes back; with several threads each takes the next call
//! while others still search theirs (see `parallel`), and only the driver's thread
//! records verdicts and reports.

pub mod multipv;
pub(crate) mod parallel;
pub(crate) mod report;
pub(crate) mod schedule;

use std::sync::{Arc, Mutex};

use shakmaty::{Chess, Move, MoveList};

use crate::chess::game::Standing;
use crate::chess::mate_len::{MateBound, Plies};
use crate::chess::node::Node;
use crate::chess::rules::Repetitions;
use crate::dfpn::expand::Expand;
use crate::dfpn::monitor::Monitor;
use crate::dfpn::value::Verdict;
use crate::dfpn::{Call, Cycles, RootMoves, Solver};
use crate::jobs::{lock, search_thread};
use crate::knowledge::oracle::Oracle;
use crate::limits::Budget;
use crate::proof::line::{Gap, LineBuilder};
use crate::proof::verify::verify_line;
use crate::tt::TranspositionTable;
use parallel::{Crew, Ground};
pub use report::{Event, Outcome, Stats};
use schedule::{Ask, End, FIRST_ROUND_BUDGET, Role, Schedule, Side, Step};

/// Nodes the line builder may first spend on one line; doubled on each retry.
const LINE_BUDGET: u64 = 500_000;

/// What the caller asks, in game `G` (chess unless named).
pub struct Params<G: Expand = Chess> {
    /// Mate bound in moves for both questions; None keeps growing it (analysis).
    pub mate: Option<MateBound>,
    /// Root moves to consider (UCI searchmoves); None or empty: all.
    pub root_moves: Option<Vec<Move>>,
    /// Hashes of the game's positions before the root since its last pawn move or capture,
    /// oldest first: the repetitions the defender may claim.
    pub history: Vec<u64>,
    /// Search threads (0 and 1: one; see `parallel`).
    pub threads: usize,
    /// What the game's tables know (chess: its Syzygy tables, and the positions of the
    /// history a defender may claim, under which the exact tables decide less).
    pub oracle: G::Oracle,
}

impl<G: Expand> Default for Params<G> {
    fn default() -> Self {
        Params { mate: None, root_moves: None, history: Vec::new(), threads: 0, oracle: G::Oracle::default() }
    }
}

impl<G: Expand> Clone for Params<G> {
    fn clone(&self) -> Self {
        Params {
            mate: self.mate,
            root_moves: self.root_moves.clone(),
            history: self.history.clone(),
            threads: self.threads,
            oracle: self.oracle.clone(),
        }
    }
}

/// The search of a position of game `G` (chess unless named): owns nothing, borrows the
/// table and the monitor.
pub struct Search<'a, G: Expand = Chess> {
    root: Node<G>,
    params: Params<G>,
    repetitions: Option<Repetitions>,
    tt: &'a TranspositionTable,
    monitor: &'a mut Monitor,
    events: &'a mut dyn FnMut(Event),
    seldepth: u32,
    /// The tables' probe count when the search started.
    tbhits_before: u64,
}

impl<'a, G: Expand> Search<'a, G> {
    /// Prepares a search of `root`. `events` receives every proven mate and disproof.
    pub fn new(
        root: &G,
        mut params: Params<G>,
        tt: &'a TranspositionTable,
        monitor: &'a mut Monitor,
        events: &'a mut dyn FnMut(Event),
    ) -> Search<'a, G> {
        if params.root_moves.as_ref().is_some_and(|m| m.is_empty()) {
            params.root_moves = None;
        }
        params.oracle.begin_search(root, &monitor.limits());
        let root = Node::new(root.clone());
        let repetitions = Repetitions::new(root.hash, &params.history).map(|r| {
            let floor = params.oracle.exact_floor(&r);
            r.with_exact_floor(floor)
        });
        let tbhits_before = params.oracle.hits();
        Search { root, params, repetitions, tt, monitor, events, seldepth: 0, tbhits_before }
    }

    fn stats(&self, depth: Plies) -> Stats {
        let tbhits = self.params.oracle.hits() - self.tbhits_before;
        Stats::now(self.monitor, self.tt, u32::from(depth.get()), self.seldepth, tbhits)
    }

    /// Runs one df-pn call of the schedule on this thread (`epoch`: its recall epoch in a
    /// team).
    fn solve(&mut self, ask: &Ask, epoch: Option<u32>) -> Verdict {
        // Progress reports show the bound of the question that can end the search (the
        // near bound, and the tightening), not the long bounds searched beside it.
        let shown = if ask.cycles == Cycles::Search {
            u32::from(ask.bound.get())
        } else {
            self.monitor.control().progress().depth
        };
        self.monitor.control().publish_depth(shown, self.seldepth);
        let question = ground(&self.root, &self.params, &self.repetitions).question(ask.side);
        let call = Call { budget: Some(ask.budget), root: RootMoves::Restricted, game_root: true, cycles: ask.cycles };
        self.monitor.follow(epoch);
        let mut solver = Solver::new(self.tt, self.monitor, &self.root.pos, question);
        let v = solver.solve(&self.root, ask.bound, call);
        let seldepth = solver.seldepth;
        drop(solver);
        self.monitor.follow(None);
        self.seldepth = self.seldepth.max(seldepth as u32);
        self.monitor.control().publish_depth(shown, self.seldepth);
        v
    }

    /// Records the verdict of `ask` (searched by any thread) and reports what it changed:
    /// a climb of the near bound, a proof (with its line, built now if it can be) and the
    /// start of its tightening.
    fn record(&mut self, schedule: &Mutex<Schedule>, crew: Option<&Crew>, ask: &Ask, verdict: Verdict) {
        let (recorded, status) = {
            let mut schedule = lock(schedule);
            let recorded = schedule.record(ask, verdict);
            if recorded.proof
                && let Some(crew) = crew
            {
                // The calls in flight were asked for a longer mate (or for the proof itself).
                crew.recall();
            }
            let stm = self.root.pos.turn();
            let status = recorded.climbed.then(|| schedule.sides[ask.side].disproven_status(stm, schedule.cap));
            (recorded, status)
        };
        if let Some(status) = status {
            (self.events)(Event::Status(status));
        }
        if matches!(verdict, Verdict::Proven(_)) {
            // A line not built now is built by the tightening (see `drive`).
            let _ = self.build_line(schedule, ask.side, ask.bound);
        }
        if recorded.tightening {
            let at_most = usize::from(lock(schedule).sides[ask.side].at_most.get());
            if !lock(schedule).sides[ask.side].is_exact(at_most) {
                let mate = lock(schedule).sides[ask.side].mate_len(at_most);
                (self.events)(Event::Status(format!("mate {mate} found, proving it shortest")));
            }
        }
    }

    /// Builds, replays and reports the line of question `index`'s shortest proof, when it
    /// lacks one. A line that cannot be built within the budget (or before a stop) is left
    /// for a later attempt with twice the budget; one whose proof the table has lost in
    /// part is left for the search to prove again ([`Gap::Lost`]).
    fn build_line(&mut self, schedule: &Mutex<Schedule>, index: usize, bound: Plies) -> Result<(), Gap> {
        // Only this thread writes what is known of a question, so a copy is safe to work on.
        let mut side = lock(schedule).sides[index].clone();
        let built = self.build_side_line(&mut side, index, bound);
        lock(schedule).sides[index] = side;
        built
    }

    fn build_side_line(&mut self, side: &mut Side, index: usize, bound: Plies) -> Result<(), Gap> {
        if !side.needs_line() {
            return Ok(());
        }
        let question = ground(&self.root, &self.params, &self.repetitions).question(index);
        let mut solver = Solver::new(self.tt, self.monitor, &self.root.pos, question);
        let mut line = Vec::new();
        let built = LineBuilder::new(&mut solver, side.line_budget).line(
            &self.root,
            side.at_most,
            RootMoves::Restricted,
            &mut line,
        );
        drop(solver);
        if built == Err(Gap::Limit) {
            side.line_budget = side.line_budget.saturating_mul(2);
        }
        built?;
        let mate = side.mate_len(line.len());
        if let Err(e) = verify_line(&self.root.pos, &line, mate, &self.params.history) {
            // Cannot happen for a sound proof; if it does, nothing of it is shown.
            debug_assert!(false, "line failed replay: {e}");
            side.at_most = Plies::INFINITE;
            return Ok(());
        }
        side.at_most = side.at_most.min(Plies::new(line.len() as u16));
        if side.line.as_ref().is_some_and(|b| b.len() <= line.len()) {
            return Ok(());
        }
        let exact = side.is_exact(line.len());
        let stats = self.stats(bound);
        (self.events)(Event::Mate { mate, exact, pv: line.clone(), stats });
        side.line = Some(line);
        Ok(())
    }

    /// Runs the search to a verdict or a limit.
    pub fn run(&mut self) -> Outcome {
        let stm = self.root.pos.turn();
        let mut moves = MoveList::new();
        self.root.pos.moves_into(&mut moves);
        // A game over at the root: lost (checkmated), won (a variant's win on the loser's
        // move) or drawn.
        match self.root.pos.standing(&moves, !stm) {
            Standing::Won => return Outcome::Mated { moves: 0, exact: true, pv: Vec::new() },
            Standing::Over if moves.is_empty() || self.root.pos.standing(&moves, stm) == Standing::Won => {
                return Outcome::NoMate { moves: self.params.mate.unwrap_or(MateBound::LONGEST).moves() };
            }
            _ => {}
        }
        let oracle = &self.params.oracle;
        let won = [stm, !stm].map(|attacker| oracle.wins(&self.root, attacker));
        let schedule = Mutex::new(Schedule::new(&self.root.pos, self.params.mate, oracle).with_won(won));
        if self.repetitions.as_ref().is_some_and(Repetitions::root_is_drawn) {
            // Fivefold repetition: the game is over, drawn.
            return Outcome::NoMate { moves: lock(&schedule).cap };
        }
        if self.params.threads <= 1 {
            return self.drive(&schedule, None);
        }
        let crew = Crew::new(self.monitor);
        let (tt, root, control) = (self.tt, self.root.clone(), Arc::clone(self.monitor.control()));
        let (params, repetitions) = (self.params.clone(), self.repetitions.clone());
        let ground = ground(&root, &params, &repetitions);
        std::thread::scope(|scope| {
            let mut helpers = Vec::new();
            for i in 1..self.params.threads {
                let (crew, schedule, root, control) = (&crew, &schedule, &root, Arc::clone(&control));
                let work = move || crew.work(tt, root, ground, schedule, control);
                // A helper that cannot be started leaves the schedule to the others.
                if let Ok(h) = search_thread(&format!("pnmate-helper-{i}")).spawn_scoped(scope, work) {
                    helpers.push(h);
                }
            }
            // Whatever way the driver leaves (a panic too), the helpers stop, so that the
            // scope can join them.
            let _ending = crew.ending();
            let outcome = self.drive(&schedule, Some(&crew));
            for h in helpers {
                if let Err(panic) = h.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            outcome
        })
    }

    /// Asks the schedule's calls on this thread, with `crew`'s helpers asking theirs
    /// beside it, until the schedule ends; records every verdict and reports.
    fn drive(&mut self, schedule: &Mutex<Schedule>, crew: Option<&Crew>) -> Outcome {
        loop {
            if let Some(crew) = crew {
                for (ask, verdict, seldepth) in crew.collect() {
                    self.seldepth = self.seldepth.max(seldepth as u32);
                    self.record(schedule, Some(crew), &ask, verdict);
                }
            }
            let lacking = {
                let schedule = lock(schedule);
                let index = schedule.tightening().filter(|&i| schedule.sides[i].needs_line());
                index.map(|i| (i, schedule.sides[i].at_most))
            };
            if let Some((index, at_most)) = lacking {
                // After a stop the builder still walks what the table holds, so a proof
                // found just before the deadline is shown with its line.
                let stopped = self.monitor.hard_stopped();
                if self.build_line(schedule, index, at_most) == Err(Gap::Lost) && !stopped {
                    // The table lost part of the proof: prove the mate again (the lost
                    // proofs were dropped, so this searches), then build its line.
                    let budget = lock(schedule).tightening_budget().unwrap_or(FIRST_ROUND_BUDGET);
                    let ask = Ask { side: index, bound: at_most, budget, cycles: Cycles::Cut, role: Role::Tighten };
                    let epoch = crew.map(Crew::epoch);
                    let verdict = self.solve(&ask, epoch);
                    self.record(schedule, crew, &ask, verdict);
                }
                if stopped {
                    return self.finish(schedule, crew, End::Mate(index));
                }
                continue;
            }
            let stopped = self.monitor.hard_stopped();
            let (step, epoch) = match crew {
                Some(crew) => {
                    let (step, epoch) = crew.next(schedule, stopped);
                    (step, Some(epoch))
                }
                None => (lock(schedule).next(stopped), None),
            };
            match step {
                Step::Ask(ask) => {
                    let verdict = self.solve(&ask, epoch);
                    self.record(schedule, crew, &ask, verdict);
                }
                Step::Done(end) => return self.finish(schedule, crew, end),
            }
        }
    }

    /// The outcome of a schedule that ended with `end`, reported; `crew`'s helpers are
    /// done.
    fn finish(&mut self, schedule: &Mutex<Schedule>, crew: Option<&Crew>, end: End) -> Outcome {
        if let Some(crew) = crew {
            crew.end();
        }
        let (cap, side) = {
            let schedule = lock(schedule);
            let index = if let End::Mate(i) = end { i } else { 0 };
            (schedule.cap, schedule.sides[index].clone())
        };
        match end {
            End::NoMate => {
                let stats = self.stats(side.plies_for(cap));
                (self.events)(Event::NoMate { moves: cap, stats });
                Outcome::NoMate { moves: cap }
            }
            End::Stopped => Outcome::Unknown,
            End::Mate(index) => match side.line.clone() {
                Some(pv) if !side.needs_line() => {
                    let exact = side.is_exact(pv.len());
                    Outcome::from_mate(side.mate_len(pv.len()), exact, pv)
                }
                line => {
                    // The shortest proof has no line yet: report it without one, and a longer
                    // line when there is one.
                    let first = self.first_move(&side, index);
                    let stats = self.stats(side.at_most);
                    let mate = side.mate_len(usize::from(side.at_most.get()));
                    (self.events)(Event::MateUnshown { mate, first, stats });
                    match line {
                        Some(pv) => Outcome::from_mate(side.mate_len(pv.len()), false, pv),
                        None => Outcome::Unknown,
                    }
                }
            },
        }
    }

    /// The first move of `side`'s shortest proof, as the table records it at the root.
    /// Where the attacker moves first, only a move the table proves (the position after it
    /// holds a proof one ply shorter) is taken: the root entry's move first, else any
    /// such move. The root entry's move alone can be a later call's working move rather
    /// than the proof's (an entry keeps the proven range of every bound but the move of
    /// the last store, and the tightening stores its own), and the engine plays this
    /// move unreplayed. A K+Q v K+R clock game against a perfect defence once left the
    /// queen en prise (Qg7 in `8/R7/4k3/8/5K2/8/8/6q1 b`, where Qxa7 mates in 8), and
    /// this is the one way found for a mate search to play such a move.
    fn first_move(&mut self, side: &Side, index: usize) -> Option<Move> {
        let question = ground(&self.root, &self.params, &self.repetitions).question(index);
        let solver = Solver::new(self.tt, self.monitor, &self.root.pos, question);
        let allowed = |m: &Move| self.params.root_moves.as_ref().is_none_or(|allowed| allowed.contains(m));
        let stored = solver.best_move(&self.root, side.at_most).filter(allowed);
        if !side.root_or {
            return stored;
        }
        let proven = |m: &Move| solver.proves_after(&self.root, *m, side.at_most);
        stored.filter(proven).or_else(|| self.root.pos.legal_moves().into_iter().filter(allowed).find(proven))
    }
}

/// What every call of a search of `root` asks besides its bound.
fn ground<'q, G: Expand>(root: &Node<G>, params: &'q Params<G>, repetitions: &'q Option<Repetitions>) -> Ground<'q, G> {
    let stm = root.pos.turn();
    Ground {
        attackers: [stm, !stm],
        root_moves: params.root_moves.as_deref(),
        repetitions: repetitions.as_ref(),
        oracle: &params.oracle,
    }
}

/// Solves `root` in the calling thread: a convenience for the CLI, the suite runner and
/// tests. Returns the outcome and the final statistics.
pub fn solve<G: Expand>(
    root: &G,
    params: Params<G>,
    limits: Budget,
    tt: &TranspositionTable,
    events: &mut dyn FnMut(Event),
) -> (Outcome, Stats) {
    let control = crate::dfpn::monitor::Control::new();
    control.set_deadline(limits.time);
    let mut monitor = Monitor::new(control, limits.nodes);
    tt.new_search();
    let mut search = Search::new(root, params, tt, &mut monitor, events);
    let outcome = search.run();
    let stats = search.stats(Plies::ZERO);
    (outcome, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::mate_len::{MateLen, MateRange};
    use crate::chess::movecode::MoveCode;
    use crate::chess::position::parse_fen;
    use crate::chess::position::uci;
    use crate::dfpn::monitor::Control;
    use crate::tt;
    use shakmaty::Color;
    use shakmaty::Position;

    #[test]
    fn a_mate_proven_as_a_limit_strikes_comes_with_its_line() {
        // 1. Qf3 Kd6 2. Qd5#. Whatever node limit stops the search, a mate it proved is
        // shown with its line: when the limit strikes with the last node of the proof, the
        // line is still built from the table. (Before, 14 of these limits ended in "mate
        // 2 proven; its line was not built".)
        let pos = parse_fen("8/1R6/8/4k3/1K4B1/2N4Q/8/8 w - - 0 1").unwrap();
        let mut mates = 0;
        for limit in 1..=200 {
            let tt = TranspositionTable::new(1);
            let mut monitor = Monitor::new(Control::new(), Some(limit));
            let mut unshown = false;
            let mut events = |e: Event| unshown |= matches!(e, Event::MateUnshown { .. });
            let outcome = Search::new(&pos, Params::default(), &tt, &mut monitor, &mut events).run();
            assert!(!unshown, "limit {limit}: a mate reported without its line");
            match outcome {
                Outcome::Unknown => {}
                Outcome::Mate { moves: 2, pv, .. } => {
                    verify_line(&pos, &pv, MateLen::mate_in(2), &[]).unwrap();
                    mates += 1;
                }
                other => panic!("limit {limit}: {other:?}"),
            }
        }
        assert!(mates > 100, "the mate takes about 100 nodes to prove");
    }

    #[test]
    fn a_mate_shown_without_its_line_is_played_only_by_a_proven_move() {
        // Qxa7 mates in 8 (15 plies; the pawn keeps the position out of the exact tables). The root entry keeps that proven range whatever a
        // later, shorter bound stores there, and such a store leaves its own working move:
        // here Qg7, which gives the queen away. The move played without a line must be
        // one the table proves.
        let pos = parse_fen("8/R7/4k2p/8/5K2/8/8/6q1 b - - 55 28").unwrap();
        let tt = TranspositionTable::new(4);
        let mut monitor = Monitor::new(Control::new(), None);
        let mut events = |_| {};
        let mut search =
            Search::new(&pos, Params { mate: MateBound::new(8), ..Params::default() }, &tt, &mut monitor, &mut events);
        let outcome = search.run();
        let Outcome::Mate { moves: 8, pv, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(uci(pv[0]), "g1a7");
        let mut side = Side::new(Color::Black, true, false, crate::knowledge::CHESS_REACH);
        side.at_most = Plies::new(15);
        let root = Node::new(pos.clone());
        let keys = crate::dfpn::query::Keys::new(Color::Black, 0);
        let qg7 = pos.legal_moves().into_iter().find(|m| uci(*m) == "g1g7").unwrap();
        let working = tt::Record {
            bound: Plies::new(13),
            pn: 3,
            dn: 5,
            mate: MateRange::UNKNOWN,
            work: 1,
            best: MoveCode::of(qg7),
        };
        tt.store(keys.of(&root, Plies::new(13)), &working);
        let entry = tt.probe(keys.of(&root, Plies::new(15))).unwrap();
        assert!(entry.mate.proves(Plies::new(15)) && entry.best == MoveCode::of(qg7), "the setting of the test");
        assert_eq!(search.first_move(&side, 0).map(uci).as_deref(), Some("g1a7"));
    }
}
