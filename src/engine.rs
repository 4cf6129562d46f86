//! The engine: owns the root position, the transposition table and the search thread.
//!
//! `go` returns at once; the search runs on its own thread and reports through typed
//! [`EngineEvent`]s; `stop`, `ponderhit` and `wait` control it. Every search ends with
//! exactly one [`EngineEvent::BestMove`]. The engine never prints.

use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use shakmaty::{Chess, Move, Position};

use crate::error::{SetupError, UciError};
use crate::fallback::choose_move;
use crate::limits::Limits;
use crate::options::{OPTIONS, find as find_option};
use crate::position::{parse_fen, play_moves};
use crate::search::Outcome;
use crate::search::monitor::{Control, Monitor};
use crate::search::{Event, Params, Search, search_thread};
use crate::tt::Table;

/// Time the fallback move search gets once the prover stopped without a mate and no
/// clock time is left to spend (after `stop`, a node limit, or a proven "no mate").
const FALLBACK_AFTER_STOP: Duration = Duration::from_millis(15);

/// What the engine reports while and after searching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineEvent {
    /// A proven mate or no-mate from the prover.
    Search(Event),
    /// The root has no legal move: checkmated (true) or stalemated (false).
    RootTerminal {
        /// True when the side to move is checkmated.
        checkmated: bool,
    },
    /// A note for the user (UCI `info string`).
    Note(String),
    /// The search is over. `best` is None only when the root has no legal move.
    BestMove {
        /// The move to play.
        best: Option<Move>,
        /// The expected reply, when a line is known.
        ponder: Option<Move>,
    },
}

/// Engine settings, as the options in `crate::options` set them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Settings {
    /// Requested search threads (the prover uses one).
    threads: usize,
    /// Time kept in reserve per move for communication.
    move_overhead: Duration,
}

/// A search thread ended by panicking instead of returning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchPanicked;

struct Running {
    /// `go infinite` or `go ponder`: ends only on `stop` (or `ponderhit`).
    open_ended: bool,
    control: Arc<Control>,
    ponder: Arc<Mutex<Option<Option<Duration>>>>,
    handle: JoinHandle<()>,
}

/// Receives engine events; called from the search thread.
pub type Sink = Arc<dyn Fn(EngineEvent) + Send + Sync>;

/// The engine. See the module documentation.
pub struct Engine {
    pos: Chess,
    history: Vec<u64>,
    tt: Arc<Mutex<Table>>,
    settings: Settings,
    running: Option<Running>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

fn lock(tt: &Mutex<Table>) -> MutexGuard<'_, Table> {
    tt.lock().unwrap_or_else(|e| e.into_inner())
}

impl Engine {
    /// An engine at the starting position with every option at its default.
    pub fn new() -> Engine {
        let mut engine = Engine {
            pos: Chess::default(),
            history: Vec::new(),
            tt: Arc::new(Mutex::new(Table::new(1))),
            settings: Settings { threads: 1, move_overhead: Duration::ZERO },
            running: None,
        };
        for option in OPTIONS {
            if let Some(default) = option.default_setting() {
                // Defaults are in range by construction; a table that cannot be allocated
                // at its default size keeps the small one.
                let _ = option.apply(&mut engine, default);
            }
        }
        engine
    }

    /// Sets the root for the next search from a FEN (None: the start position) and a move
    /// list. On error the previous position stays. A running search is not disturbed: it
    /// searches its own copy.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), SetupError> {
        let start = match fen {
            Some(f) => parse_fen(f)?,
            None => Chess::default(),
        };
        let (pos, history) = play_moves(start, moves.iter().copied())?;
        self.pos = pos;
        self.history = history;
        Ok(())
    }

    /// Starts a new game: forgets the table.
    pub fn new_game(&mut self) {
        self.clear_hash();
    }

    /// Sets an option by its UCI name (case-insensitive). Returns a remark for the user
    /// when the value is accepted with one.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<Option<String>, UciError> {
        let bad = |reason: String| UciError::BadArguments { command: "setoption".into(), reason };
        let option = find_option(name).ok_or_else(|| bad(format!("unknown option '{}'", name.trim())))?;
        let setting = option.parse(value).map_err(bad)?;
        option.apply(self, setting).map_err(bad)
    }

    /// Resizes the table to `mb` megabytes (the Hash option); waits for a running search.
    pub(crate) fn set_hash_mb(&mut self, mb: usize) -> Result<Option<String>, String> {
        self.stop();
        let _ = self.wait();
        lock(&self.tt).resize(mb);
        Ok(None)
    }

    /// Sets the number of search threads (the Threads option).
    pub(crate) fn set_threads(&mut self, n: usize) -> Option<String> {
        self.settings.threads = n;
        (n > 1).then(|| format!("Threads {n} accepted; the prover searches on 1 thread"))
    }

    /// Forgets the table (the Clear Hash option); waits for a running search.
    pub(crate) fn clear_hash(&mut self) -> Option<String> {
        self.stop();
        let _ = self.wait();
        lock(&self.tt).clear();
        None
    }

    /// Sets the time kept in reserve per move (the Move Overhead option).
    pub(crate) fn set_move_overhead_ms(&mut self, ms: u64) -> Option<String> {
        self.settings.move_overhead = Duration::from_millis(ms);
        None
    }

    /// Starts a search; returns at once. A running search is first allowed to finish
    /// (an open-ended one, `infinite` or `ponder`, is stopped); it ends with its own
    /// bestmove.
    pub fn go(&mut self, limits: Limits, sink: Sink) {
        let _ = self.finish();
        let control = Control::new();
        let ponder = Arc::new(Mutex::new(None));
        let budget = limits.time_budget(self.pos.turn(), self.settings.move_overhead);
        let job = Job {
            pos: self.pos.clone(),
            history: self.history.clone(),
            tt: Arc::clone(&self.tt),
            control: Arc::clone(&control),
            ponder: Arc::clone(&ponder),
            budget,
            limits,
            sink,
        };
        if job.limits.ponder {
            *ponder.lock().unwrap_or_else(|e| e.into_inner()) = Some(budget);
        }
        let sink = Arc::clone(&job.sink);
        let limits_open_ended = job.limits.infinite || job.limits.ponder;
        let handle = search_thread("pnmate-search").spawn(move || job.run());
        match handle {
            Ok(handle) => {
                let open_ended = limits_open_ended;
                self.running = Some(Running { open_ended, control, ponder, handle })
            }
            Err(e) => {
                // No thread to search on: answer at once so the GUI is not left waiting.
                sink(EngineEvent::Note(format!("error: cannot start the search thread: {e}")));
                let best = choose_move(&self.pos, &[], Duration::from_millis(5), 2);
                sink(EngineEvent::BestMove { best, ponder: None });
            }
        }
    }

    /// Asks a running search to stop; its bestmove follows shortly.
    pub fn stop(&mut self) {
        if let Some(r) = &self.running {
            r.control.stop();
        }
    }

    /// The opponent played the pondered move: the clock now applies.
    pub fn ponderhit(&mut self) {
        if let Some(r) = &self.running {
            let mut p = r.ponder.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(budget) = p.take() {
                r.control.set_deadline(budget.map(|b| b.mul_f64(0.7)));
            }
        }
    }

    /// Lets a running search end by itself, stopping it only if it is open-ended.
    pub fn finish(&mut self) -> Result<(), SearchPanicked> {
        if self.running.as_ref().is_some_and(|r| r.open_ended) {
            self.stop();
        }
        self.wait()
    }

    /// Waits for a running search to finish (after its bestmove); says whether its thread
    /// panicked.
    pub fn wait(&mut self) -> Result<(), SearchPanicked> {
        match self.running.take() {
            Some(r) => r.handle.join().map_err(|_| SearchPanicked),
            None => Ok(()),
        }
    }
}

/// One search, as run on the search thread.
struct Job {
    pos: Chess,
    history: Vec<u64>,
    tt: Arc<Mutex<Table>>,
    control: Arc<Control>,
    ponder: Arc<Mutex<Option<Option<Duration>>>>,
    budget: Option<Duration>,
    limits: Limits,
    sink: Sink,
}

impl Job {
    fn pondering(&self) -> bool {
        self.ponder.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    fn run(self) {
        let started = Instant::now();
        let root_moves = self.pos.legal_moves();
        if root_moves.is_empty() {
            (self.sink)(EngineEvent::RootTerminal { checkmated: self.pos.is_check() });
            self.wait_if_required();
            (self.sink)(EngineEvent::BestMove { best: None, ponder: None });
            return;
        }
        let mut allowed = Vec::new();
        for text in &self.limits.searchmoves {
            match text.parse::<shakmaty::uci::UciMove>().ok().and_then(|u| u.to_move(&self.pos).ok()) {
                Some(m) => allowed.push(m),
                None => {
                    (self.sink)(EngineEvent::Note(format!("error: searchmoves: '{text}' is not legal here; ignored")))
                }
            }
        }
        // The prover's share of the time: most of it; the fallback needs a little.
        let clock_game = self.limits.clock.is_some() && self.limits.movetime.is_none();
        let prover_time = self.budget.map(|b| if clock_game { b.mul_f64(0.7) } else { b.saturating_sub(b / 20) });
        if !self.limits.ponder {
            self.control.set_deadline(prover_time);
        }
        let params = Params {
            mate: self.limits.mate_bound(),
            root_moves: (!allowed.is_empty()).then(|| allowed.clone()),
            history: self.history.clone(),
        };
        let outcome = {
            let mut tt = lock(&self.tt);
            tt.new_search();
            let mut monitor = Monitor::new(Arc::clone(&self.control), self.limits.nodes);
            let sink = Arc::clone(&self.sink);
            let mut on_event = move |e: Event| sink(EngineEvent::Search(e));
            Search::new(&self.pos, params, &mut tt, &mut monitor, &mut on_event).run()
        };
        self.wait_if_required();
        let (best, ponder) = match &outcome {
            Outcome::Mate { pv, .. } | Outcome::Mated { pv, .. } if !pv.is_empty() => (Some(pv[0]), pv.get(1).copied()),
            _ => {
                let spent = started.elapsed();
                let time = match self.budget {
                    Some(b) if !self.control.stopped() => b.saturating_sub(spent).max(FALLBACK_AFTER_STOP),
                    _ => FALLBACK_AFTER_STOP,
                };
                (choose_move(&self.pos, &allowed, time, 64), None)
            }
        };
        (self.sink)(EngineEvent::BestMove { best, ponder });
    }

    /// In `go infinite` and while pondering, bestmove must wait for `stop` (or, when
    /// pondering, `ponderhit`).
    fn wait_if_required(&self) {
        while (self.limits.infinite || self.pondering()) && !self.control.stopped() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
