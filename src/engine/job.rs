//! One search as it runs on its thread: the prover first, then the move to play, with
//! progress reports beside it and exactly one bestmove however it ends.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Move};

use super::events::{EngineEvent, MAX_CP, Sink};
use super::root::Root;
use crate::dfpn::expand::Expand;
use crate::dfpn::monitor::{Control, Monitor, Progress};
use crate::error::SetupError;
use crate::fallback::{self, AlphaBeta, choose_move};
use crate::knowledge::exact;
use crate::knowledge::oracle::ChessOracle;
use crate::knowledge::tablebase::SyzygyTables;
use crate::limits::GoLimits;
use crate::search::multipv::{MoveResult, Ranking, rank_moves};
use crate::search::{Event, Outcome, Params, Search, Stats};
use crate::tt::TranspositionTable;

/// Time the fallback move search gets once the prover stopped without a mate and no
/// clock time is left to spend (after a node limit, a proven "no mate", or a `stop`, in
/// which case it ends after its first pass).
const FALLBACK_AFTER_STOP: Duration = Duration::from_millis(15);

/// The prover's share of a clock game's move time, in every game; the fallback gets the
/// rest when no mate is proven. The prover runs first every move, so a mate it proves in
/// its share is played; in a won ending without a near mate (K+Q v K+R) the fallback's
/// depth decides whether the game is won before the 50-move rule (docs/design.md).
const CLOCK_PROVER_SHARE: f64 = 0.4;

/// How often a running search reports its progress (nodes, bound, time).
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// When a search first says what the exact tables' builder is doing, if anything: soon
/// enough for a GUI user to see why a small ending is not yet proven.
const TABLES_FIRST_SAID: Duration = Duration::from_millis(50);

/// Where a search stands with pondering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ponder {
    /// Not pondering: the move's time runs from `go`.
    Off,
    /// Pondering: no time runs until `ponderhit`, which gives the prover this much (None:
    /// no limit).
    On { prover_time: Option<Duration> },
    /// The pondered move was played: the move's time runs from then.
    Hit { at: Instant },
}

/// The pondering state of a search, shared by the engine (`ponderhit`) and its job.
pub(super) type PonderState = Arc<Mutex<Ponder>>;

/// The prover's part of a search's time budget: under a fixed time, where a mate is the
/// question, all of it but the [`FALLBACK_AFTER_STOP`] a move needs when no mate is
/// proven (at least half of it); in clock play a share, since the game goes on with the
/// fallback's move when no mate is proven; under `go depth` alone half, since the
/// fallback's depth is asked for as well. Decided once at `go`, pondering or not.
pub(super) fn prover_time(limits: &GoLimits, budget: Duration) -> Duration {
    let clock_game = limits.clock.is_some() && limits.movetime.is_none();
    let depth_only = limits.depth.is_some() && limits.clock.is_none() && limits.movetime.is_none();
    if clock_game {
        budget.mul_f64(CLOCK_PROVER_SHARE)
    } else if depth_only {
        budget / 2
    } else {
        budget.saturating_sub(FALLBACK_AFTER_STOP).max(budget / 2)
    }
}

/// One search, as run on the search thread.
pub(super) struct Job {
    pub(super) root: Result<Root, SetupError>,
    pub(super) history: Vec<u64>,
    pub(super) repeated: Vec<Chess>,
    pub(super) tt: Arc<TranspositionTable>,
    pub(super) fallback_tt: Arc<Mutex<fallback::ScoreTable>>,
    pub(super) control: Arc<Control>,
    pub(super) ponder: PonderState,
    /// The move's time (None: no time limit).
    pub(super) budget: Option<Duration>,
    /// The prover's part of `budget` ([`prover_time`]), decided at `go`.
    pub(super) prover_time: Option<Duration>,
    pub(super) limits: GoLimits,
    pub(super) threads: usize,
    pub(super) multipv: usize,
    pub(super) tables: Option<Arc<SyzygyTables>>,
    /// The tables' probe count when the job was made.
    pub(super) tbhits_before: u64,
    pub(super) sink: Sink,
    /// The last event with a score the sink was given (see [`Job::wait_if_required`]).
    pub(super) last_score: Arc<Mutex<Option<EngineEvent>>>,
    /// The exact tables' notes said so far (see [`Job::say_tables`]).
    pub(super) tables_said: Arc<Mutex<usize>>,
}

/// Probes of the Syzygy tables that found a value since they were loaded (0 without).
pub(super) fn tbhits(tables: &Option<Arc<SyzygyTables>>) -> u64 {
    tables.as_ref().map_or(0, |t| t.hits())
}

/// A flag one thread sets once and another waits for, with a timeout.
#[derive(Default)]
struct Finished {
    flag: Mutex<bool>,
    wake: std::sync::Condvar,
}

impl Finished {
    /// Waits up to `timeout`; true once the flag is set.
    fn wait(&self, timeout: Duration) -> bool {
        let guard = self.flag.lock().unwrap_or_else(|e| e.into_inner());
        if *guard {
            return true;
        }
        *self.wake.wait_timeout(guard, timeout).unwrap_or_else(|e| e.into_inner()).0
    }

    fn set(&self) {
        *self.flag.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_all();
    }

    /// A guard that sets the flag when dropped, also while unwinding.
    fn on_drop(&self) -> impl Drop + '_ {
        struct SetOnDrop<'a>(&'a Finished);
        impl Drop for SetOnDrop<'_> {
            fn drop(&mut self) {
                self.0.set();
            }
        }
        SetOnDrop(self)
    }
}

/// The message of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

impl Job {
    fn pondering(&self) -> bool {
        matches!(*self.ponder.lock().unwrap_or_else(|e| e.into_inner()), Ponder::On { .. })
    }

    /// When the move's time started to run: at `go`, or at `ponderhit` after pondering.
    fn clock_started(&self, go: Instant) -> Instant {
        match *self.ponder.lock().unwrap_or_else(|e| e.into_inner()) {
            Ponder::Hit { at } => at,
            Ponder::Off | Ponder::On { .. } => go,
        }
    }

    /// Runs the search and always ends with exactly one bestmove, even when the search
    /// panics: then a note says so and the first legal move is played.
    pub(super) fn run(self) {
        self.run_with(Job::search);
    }

    /// [`Job::run`] with the search given (so tests can make it fail).
    fn run_with(self, search: impl FnOnce(&Job) -> (Option<Move>, Option<Move>)) {
        let (best, ponder) = guarded(|| search(&self)).unwrap_or_else(|message| {
            (self.sink)(EngineEvent::Note(format!("error: the search failed ({message}); playing a legal move")));
            self.wait_if_required();
            (self.root.as_ref().ok().and_then(Root::first_legal), None)
        });
        // Only a move that can follow: never a ponder move after the game's end.
        let ponder = match (&self.root, best, ponder) {
            (Ok(root), Some(b), Some(p)) => root.ponder_after(b, p),
            _ => None,
        };
        (self.sink)(EngineEvent::BestMove { best, ponder });
    }

    /// The search with its progress reports: a second thread reports what the search
    /// publishes, at least once a second, until the search has answered.
    fn search(&self) -> (Option<Move>, Option<Move>) {
        let done = Finished::default();
        std::thread::scope(|scope| {
            let ticker = std::thread::Builder::new().name("pnmate-info".into()).spawn_scoped(scope, || {
                let mut last_move = None;
                // Soon after the start, what the exact tables' builder does (once a second after).
                if !done.wait(TABLES_FIRST_SAID) {
                    self.say_tables(true);
                }
                while !done.wait(PROGRESS_EVERY) {
                    self.say_tables(true);
                    let published = self.control.progress();
                    let stats = self.stats_of(published);
                    let root_move = published.root_move;
                    if root_move != last_move
                        && let (Some((code, number)), Ok(root)) = (root_move, &self.root)
                        && let Some(mv) = root.decode(code)
                    {
                        (self.sink)(EngineEvent::CurrMove { depth: stats.depth, mv, number });
                    }
                    last_move = root_move;
                    (self.sink)(EngineEvent::Progress(stats));
                }
            });
            // Ends the ticker however the search ends, a panic included (the scope
            // would otherwise wait for the ticker forever).
            let _finish = done.on_drop();
            let answer = self.prove_and_choose();
            drop(_finish);
            self.say_tables(false);
            if let Ok(t) = ticker {
                let _ = t.join();
            }
            answer
        })
    }

    /// Says what the exact tables' builder has done since it was last said (tables built,
    /// stored, or read back unusable) and, with `status`, the build under way.
    fn say_tables(&self, status: bool) {
        let store = exact::store();
        let notes = store.notes_since(&mut self.tables_said.lock().unwrap_or_else(|e| e.into_inner()));
        for note in notes {
            (self.sink)(EngineEvent::Note(note));
        }
        if status && let Some(building) = store.status() {
            (self.sink)(EngineEvent::Note(building));
        }
    }

    /// What the search has published, as statistics.
    fn progress(&self) -> Stats {
        self.stats_of(self.control.progress())
    }

    /// Published progress `p` as statistics, with the time and the table's fill now.
    fn stats_of(&self, p: Progress) -> Stats {
        Stats {
            nodes: p.nodes,
            time: self.control.elapsed(),
            hashfull: self.tt.hashfull(),
            depth: p.depth,
            seldepth: p.seldepth.max(p.depth),
            tbhits: tbhits(&self.tables) - self.tbhits_before,
        }
    }

    /// The search proper: the prover, then the move to play.
    fn prove_and_choose(&self) -> (Option<Move>, Option<Move>) {
        match &self.root {
            Ok(Root::Chess(pos)) => {
                let oracle = ChessOracle { syzygy: self.tables.clone(), repeated: self.repeated.clone().into() };
                self.prove_then(pos, oracle, |allowed, started| self.chess_fallback(pos, allowed, started))
            }
            Ok(Root::Variant(pos)) => {
                if self.tables.is_some() {
                    (self.sink)(EngineEvent::Note(format!(
                        "SyzygyPath: the tables are not used in {} (chess only)",
                        pos.variant().uci()
                    )));
                }
                self.prove_then(pos, (), |allowed, started| self.fallback(pos, allowed, started))
            }
            Err(e) => {
                (self.sink)(EngineEvent::Note(format!("error: no valid position to search ({e})")));
                self.wait_if_required();
                (None, None)
            }
        }
    }

    /// The prover on `pos`, in any game, with the game's `oracle`: one result, or
    /// MultiPV's ranked moves; the game's `fallback` (given the allowed root moves and the
    /// start) when nothing is proven.
    fn prove_then<G: AlphaBeta + Expand>(
        &self,
        pos: &G,
        oracle: G::Oracle,
        fallback: impl FnOnce(&[Move], Instant) -> (Option<Move>, Option<Move>),
    ) -> (Option<Move>, Option<Move>) {
        let started = Instant::now();
        let moves = pos.legal_moves();
        if let Some(end) = pos.end_for_mover(&moves) {
            let checkmated = end < 0;
            (self.sink)(EngineEvent::RootTerminal { checkmated });
            self.wait_if_required();
            return (None, None);
        }
        let mut allowed = Vec::new();
        for text in &self.limits.searchmoves {
            match text.parse::<shakmaty::uci::UciMove>().ok().and_then(|u| u.to_move(pos).ok()) {
                Some(m) => allowed.push(m),
                None => {
                    (self.sink)(EngineEvent::Note(format!("error: searchmoves: '{text}' is not legal here; ignored")))
                }
            }
        }
        if !self.limits.ponder {
            self.control.set_deadline(self.prover_time);
        }
        let params = Params {
            mate: self.limits.mate_bound(),
            root_moves: (!allowed.is_empty()).then(|| allowed.clone()),
            history: self.history.clone(),
            threads: self.threads,
            oracle,
        };
        if self.multipv > 1 {
            return self.rank_and_choose(pos, &allowed, &params);
        }
        let mut unshown = None;
        let outcome = {
            self.tt.new_search();
            let mut monitor = Monitor::new(Arc::clone(&self.control), self.limits.nodes);
            let mut on_event = |e: Event| {
                if let Event::MateUnshown { first, .. } = &e {
                    unshown = *first;
                }
                (self.sink)(EngineEvent::Search(e));
            };
            Search::new(pos, params, &self.tt, &mut monitor, &mut on_event).run()
        };
        self.wait_if_required();
        match &outcome {
            Outcome::Mate { pv, .. } | Outcome::Mated { pv, .. } if !pv.is_empty() => (Some(pv[0]), pv.get(1).copied()),
            _ if unshown.is_some() => (unshown, None),
            _ => fallback(&allowed, started),
        }
    }

    /// Chess's move when nothing is proven: the tablebases', else the fallback search's.
    fn chess_fallback(&self, pos: &Chess, allowed: &[Move], started: Instant) -> (Option<Move>, Option<Move>) {
        if let Some((best, cp)) = self.tables.as_ref().and_then(|t| t.play(pos, allowed)) {
            (self.sink)(EngineEvent::Evaluation { cp, pv: vec![best], stats: self.progress() });
            return (Some(best), None);
        }
        self.fallback(pos, allowed, started)
    }

    /// The fallback search's move among the `allowed` ones, in any game, with the game's
    /// history and its table.
    fn fallback<G: AlphaBeta>(&self, pos: &G, allowed: &[Move], started: Instant) -> (Option<Move>, Option<Move>) {
        let time = self.fallback_time(started);
        let depth = self.limits.fallback_depth();
        // The game's fallback table, unless an earlier search still holds it.
        let mut kept = match self.fallback_tt.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
        let table = kept.as_deref_mut();
        match choose_move(pos, allowed, &self.history, time, depth, Some(&self.control), table) {
            Some(c) => self.play_fallback(c.best, c.ponder, c.score, c.depth),
            None => (None, None),
        }
    }

    /// The fallback's time: what is left of the move's budget, or [`FALLBACK_AFTER_STOP`]
    /// after a stop or without a budget. After pondering, the move's time runs from
    /// `ponderhit`, not from `go` (`started`).
    fn fallback_time(&self, started: Instant) -> Duration {
        let spent = self.clock_started(started).elapsed();
        match self.budget {
            Some(b) if !self.control.stopped() => b.saturating_sub(spent).max(FALLBACK_AFTER_STOP),
            _ => FALLBACK_AFTER_STOP,
        }
    }

    /// Reports a fallback move (its score and depth, with the expected reply when known)
    /// and plays it.
    fn play_fallback(&self, best: Move, ponder: Option<Move>, score: i32, depth: u32) -> (Option<Move>, Option<Move>) {
        let mut stats = self.progress();
        stats.depth = depth;
        stats.seldepth = stats.seldepth.max(depth);
        let pv = std::iter::once(best).chain(ponder).collect();
        (self.sink)(EngineEvent::Evaluation { cp: score.clamp(-MAX_CP, MAX_CP), pv, stats });
        (Some(best), ponder)
    }

    /// MultiPV: proves what it can about every root move, reports the best `multipv` of
    /// them after every round, and plays the best.
    fn rank_and_choose<G: AlphaBeta + Expand>(
        &self,
        pos: &G,
        allowed: &[Move],
        params: &Params<G>,
    ) -> (Option<Move>, Option<Move>) {
        self.tt.new_search();
        let mut reported = false;
        let report = |results: &[MoveResult], stats: Stats| {
            let results = results.iter().take(self.multipv).cloned().collect();
            (self.sink)(EngineEvent::Ranked { results, stats });
        };
        let ranking = Ranking { moves: allowed, node_limit: self.limits.nodes, evaluate: &G::evaluate };
        let results = rank_moves(pos, params, ranking, &self.tt, &self.control, &mut |round| {
            reported = true;
            report(round.results, round.stats);
        });
        if !reported {
            report(&results, self.progress());
        }
        self.wait_if_required();
        let best = results.first();
        (best.map(|r| r.mv), best.and_then(|r| r.outcome.pv().get(1).copied()))
    }

    /// In `go infinite` and while pondering, bestmove must wait for `stop` (or, when
    /// pondering, `ponderhit`).
    ///
    /// A search that ends its pondering by `ponderhit` says its last score again: a
    /// client such as python-chess drops what was sent while pondering, and would
    /// otherwise record no score for the move.
    fn wait_if_required(&self) {
        let pondered = self.pondering();
        while (self.limits.infinite || self.pondering()) && !self.control.stopped() {
            std::thread::sleep(Duration::from_millis(1));
        }
        if pondered && !self.control.stopped() {
            let last = self.last_score.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if let Some(e) = last {
                (self.sink)(e);
            }
        }
    }
}

/// A search that panicked, with the panic's message.
#[derive(Debug)]
struct Panicked(String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Runs `f`, turning a panic into its message.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, Panicked> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| Panicked(panic_message(payload.as_ref())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    fn job(events: &Arc<Mutex<Vec<EngineEvent>>>) -> Job {
        let events = Arc::clone(events);
        Job {
            root: Ok(Root::Chess(Chess::default())),
            history: Vec::new(),
            repeated: Vec::new(),
            tt: Arc::new(TranspositionTable::new(1)),
            fallback_tt: Arc::new(Mutex::new(fallback::ScoreTable::new())),
            control: Control::new(),
            ponder: Arc::new(Mutex::new(Ponder::Off)),
            budget: None,
            prover_time: None,
            limits: GoLimits::default(),
            threads: 1,
            multipv: 1,
            tables: None,
            tbhits_before: 0,
            sink: Arc::new(move |e| events.lock().unwrap().push(e)),
            last_score: Arc::new(Mutex::new(None)),
            tables_said: Arc::new(Mutex::new(usize::MAX)),
        }
    }

    #[test]
    fn under_a_fixed_time_the_prover_leaves_the_fallback_only_its_minimum() {
        let ms = Duration::from_millis;
        let fixed = GoLimits { movetime: Some(ms(1000)), ..GoLimits::default() };
        let budget = fixed.time_budget(shakmaty::Color::White, ms(30)).unwrap();
        assert_eq!(budget, ms(970));
        assert_eq!(prover_time(&fixed, budget), ms(970) - FALLBACK_AFTER_STOP);
        // A short budget keeps half for the fallback's move.
        assert_eq!(prover_time(&fixed, ms(20)), ms(10));
        let mate = GoLimits {
            mate: crate::chess::mate_len::MateBound::new(5),
            movetime: Some(ms(1000)),
            ..GoLimits::default()
        };
        assert_eq!(prover_time(&mate, budget), ms(970) - FALLBACK_AFTER_STOP);
        let clock = crate::limits::Clock { wtime: Some(ms(60_000)), ..Default::default() };
        let game = GoLimits { clock: Some(clock), ..GoLimits::default() };
        assert_eq!(prover_time(&game, ms(1000)), ms(400));
        let depth = GoLimits { depth: Some(12), ..GoLimits::default() };
        assert_eq!(prover_time(&depth, ms(1000)), ms(500));
    }

    #[test]
    fn a_panicking_search_still_ends_in_one_legal_bestmove() {
        let events = Arc::new(Mutex::new(Vec::new()));
        job(&events).run_with(|_| panic!("boom {}", 1));
        let events = events.lock().unwrap();
        assert_eq!(events.len(), 2, "{events:?}");
        let EngineEvent::Note(note) = &events[0] else { panic!("{events:?}") };
        assert!(note.starts_with("error: the search failed (boom 1)"), "{note}");
        let EngineEvent::BestMove { best: Some(m), ponder: None } = events[1] else { panic!("{events:?}") };
        assert!(Chess::default().legal_moves().contains(&m));
    }

    #[test]
    fn a_job_without_a_valid_position_answers_0000() {
        let events = Arc::new(Mutex::new(Vec::new()));
        let mut j = job(&events);
        j.root = Err(SetupError::Fen { fen: "x".into(), reason: "invalid FEN".into() });
        j.run();
        let events = events.lock().unwrap();
        assert!(matches!(&events[0], EngineEvent::Note(n) if n.contains("invalid FEN")), "{events:?}");
        assert_eq!(events[1], EngineEvent::BestMove { best: None, ponder: None });
    }
}
