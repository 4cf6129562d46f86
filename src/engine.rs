//! The engine: owns the root position, the transposition table and the search threads.
//!
//! `go` returns at once: the search runs on its own thread and reports through typed
//! [`EngineEvent`]s. A `go` while a search runs stops that search; the new one starts on
//! a thread of its own once the old one has answered, so every `go` gets exactly one
//! [`EngineEvent::BestMove`], in order, and the command reader never waits. `stop`,
//! `ponderhit` and `wait` control the latest search.
//!
//! Failures are reported, never fatal: a panic on a search thread becomes a note and a
//! legal move; a table that cannot be allocated leaves the previous one in place. The
//! engine never prints.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{Chess, Color, Move, Position};

use crate::chess::movecode::MoveCode;
use crate::chess::position::{parse_fen, play_moves, repeated_positions};
use crate::dfpn::expand::Expand;
use crate::dfpn::monitor::{Control, Monitor, Progress};
use crate::error::{OptionError, SetupError, UciError};
use crate::fallback::{self, AlphaBeta, choose_move};
use crate::jobs::search_thread;
use crate::knowledge::exact;
use crate::knowledge::oracle::ChessOracle;
use crate::knowledge::tablebase::SyzygyTables;
use crate::limits::GoLimits;
use crate::options::{OPTIONS, OptionId, Setting, find as find_option};
use crate::search::multipv::{MoveResult, Ranking, rank_moves};
use crate::search::{Event, Outcome, Params, Search, Stats};
use crate::tt::TranspositionTable;
use crate::variant::{parse_variant_fen, variant_named};

/// How long `isready` waits for a new table's pages to be faulted in. A client may send
/// `ucinewgame` and `isready` after its clock for the first move has started (python-chess
/// does, and the judge counted the wait in the move's time); faulting in 256 MB took from
/// 0.03 to 0.7 s on this machine, about 1 s with five engines starting at once. Past the
/// wait the pages are faulted in beside the search, which faults those it reaches first.
const READY_WAIT: Duration = Duration::from_millis(100);

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

/// The largest evaluation reported as `score cp`: the fallback's own mate scores are
/// unproven, so they are shown as a large edge, never as a mate.
const MAX_CP: i32 = 10_000;

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
    /// The search is alive: what it has searched so far (at least once a second).
    Progress(Stats),
    /// MultiPV: the best root moves so far, best first, each with its own result.
    Ranked {
        /// The moves reported (at most MultiPV), best first.
        results: Vec<MoveResult>,
        /// Statistics so far.
        stats: Stats,
    },
    /// The root move the prover works on changed: the move and its number (from 1) in
    /// the root's move order.
    CurrMove {
        /// The bound (plies) being searched.
        depth: u32,
        /// The root move.
        mv: Move,
        /// Its number in the root's move order.
        number: u32,
    },
    /// No mate was proven: the fallback's evaluation of its move, in centipawns from the
    /// side to move's view, and its line (the move to play first).
    Evaluation {
        /// Centipawns, within +-[`MAX_CP`].
        cp: i32,
        /// The line: the move to play, then the expected reply when known.
        pv: Vec<Move>,
        /// Statistics at the end of the search (`depth`: the fallback's completed depth).
        stats: Stats,
    },
    /// The search is over. `best` is None only when the root has no legal move (or no
    /// valid position was given).
    BestMove {
        /// The move to play.
        best: Option<Move>,
        /// The expected reply, when one is known.
        ponder: Option<Move>,
    },
}

impl EngineEvent {
    /// Whether the event carries a score a client records for the move: a proven mate,
    /// MultiPV's ranked moves, or the fallback's evaluation.
    fn has_score(&self) -> bool {
        matches!(
            self,
            EngineEvent::Search(Event::Mate { .. }) | EngineEvent::Ranked { .. } | EngineEvent::Evaluation { .. }
        )
    }
}

/// Engine settings, as the options in `crate::options` set them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Settings {
    /// Search threads of the prover (the Threads option).
    threads: usize,
    /// Time kept in reserve per move for communication.
    move_overhead: Duration,
    /// Whether scores come with win/draw/loss figures (the UCI_ShowWDL option).
    show_wdl: bool,
    /// Whether castling moves are written king takes rook (the UCI_Chess960 option).
    chess960: bool,
    /// How many root moves to report, each with its own result (the MultiPV option).
    multipv: usize,
}

/// A search thread ended by panicking instead of returning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchPanicked;

/// Receives engine events; called from the search thread.
pub type Sink = Arc<dyn Fn(EngineEvent) + Send + Sync>;

/// Where a search stands with pondering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ponder {
    /// Not pondering: the move's time runs from `go`.
    Off,
    /// Pondering: no time runs until `ponderhit`, which gives the prover this much (None:
    /// no limit).
    On { prover_time: Option<Duration> },
    /// The pondered move was played: the move's time runs from then.
    Hit { at: Instant },
}

/// The pondering state of a search, shared by the engine (`ponderhit`) and its job.
type PonderState = Arc<Mutex<Ponder>>;

/// The prover's part of a search's time budget: under a fixed time, where a mate is the
/// question, all of it but the [`FALLBACK_AFTER_STOP`] a move needs when no mate is
/// proven (at least half of it); in clock play a share, since the game goes on with the
/// fallback's move when no mate is proven; under `go depth` alone half, since the
/// fallback's depth is asked for as well. Decided once at `go`, pondering or not.
fn prover_time(limits: &GoLimits, budget: Duration) -> Duration {
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

struct Running {
    /// `go infinite` or `go ponder`: ends only on `stop` (or `ponderhit`).
    open_ended: bool,
    control: Arc<Control>,
    ponder: PonderState,
    handle: JoinHandle<()>,
}

/// The engine. See the module documentation.
pub struct Engine {
    /// The root: a chess position, or one of the variant the UCI_Variant option set.
    pos: Root,
    /// The game's rules (the UCI_Variant option).
    variant: Variant,
    history: Vec<u64>,
    /// The history's positions that occurred twice or more (chess; see `Params::repeated`).
    repeated: Vec<Chess>,
    /// Why the last `position` was rejected, until a valid one arrives.
    position_error: Option<SetupError>,
    tt: Arc<TranspositionTable>,
    /// The fallback's table, kept between the moves of a game like the prover's.
    fallback_tt: Arc<Mutex<fallback::ScoreTable>>,
    settings: Settings,
    /// The tablebases (the SyzygyPath and SyzygyProbeLimit options).
    syzygy: Syzygy,
    running: Option<Running>,
    /// The exact tables' notes said so far, across searches.
    tables_said: Arc<Mutex<usize>>,
}

/// The tablebase settings and the tables they loaded.
#[derive(Default)]
struct Syzygy {
    path: String,
    probe_limit: usize,
    tables: Option<Arc<SyzygyTables>>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine at the starting position with every option at its default.
    pub fn new() -> Engine {
        let mut engine = Engine {
            pos: Root::Chess(Chess::default()),
            variant: Variant::Chess,
            history: Vec::new(),
            repeated: Vec::new(),
            position_error: None,
            tt: Arc::new(TranspositionTable::new(1)),
            fallback_tt: Arc::new(Mutex::new(fallback::ScoreTable::new())),
            settings: Settings {
                threads: 1,
                move_overhead: Duration::ZERO,
                show_wdl: false,
                chess960: false,
                multipv: 1,
            },
            syzygy: Syzygy::default(),
            running: None,
            tables_said: Arc::new(Mutex::new(exact::store().notes_end())),
        };
        for option in OPTIONS {
            if let Some(default) = option.default_setting() {
                // Defaults are in range by construction; a table that cannot be allocated
                // at its default size keeps the small one.
                let _ = engine.apply(option.id, default);
            }
        }
        engine
    }

    /// Sets the root for the next search from a FEN (None: the start position) and a move
    /// list. On error the engine has no valid position until the next good one: a `go`
    /// then answers with the error and no move. A running search is not disturbed: it
    /// searches its own copy.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), SetupError> {
        let parsed = match self.variant {
            Variant::Chess => match fen {
                Some(f) => parse_fen(f),
                None => Ok(Chess::default()),
            }
            .and_then(|start| play_moves(start, moves.iter().copied()))
            .map(|(pos, history)| (Root::Chess(pos), history)),
            variant => match fen {
                Some(f) => parse_variant_fen(variant, f),
                None => Ok(VariantPosition::new(variant)),
            }
            .and_then(|start| play_moves(start, moves.iter().copied()))
            .map(|(pos, history)| (Root::Variant(pos), history)),
        };
        match parsed {
            Ok((pos, history)) => {
                self.repeated = match (&pos, fen) {
                    (Root::Chess(_), Some(f)) => {
                        parse_fen(f).map(|start| repeated_positions(start, moves.iter().copied())).unwrap_or_default()
                    }
                    (Root::Chess(_), None) => repeated_positions(Chess::default(), moves.iter().copied()),
                    _ => Vec::new(),
                };
                self.pos = pos;
                self.history = history;
                self.position_error = None;
                Ok(())
            }
            Err(e) => {
                self.position_error = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Gives what earlier commands set going (faulting in a new table's pages) up to
    /// [`READY_WAIT`] to finish, so that `readyok` usually means the next search starts
    /// at full speed, and always comes promptly. While a search runs, returns at once.
    pub fn ready(&mut self) {
        if self.running.as_ref().is_none_or(|r| r.handle.is_finished())
            && let Some(tt) = Arc::get_mut(&mut self.tt)
        {
            tt.finish_touching_within(READY_WAIT);
        }
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
        let setting = option.parse(value).map_err(|e| bad(e.to_string()))?;
        self.apply(option.id, setting).map_err(|e| bad(e.to_string()))
    }

    /// Applies a checked setting of option `id`; returns a remark for the user, if any.
    fn apply(&mut self, id: OptionId, setting: Setting) -> Result<Option<String>, OptionError> {
        let number = || if let Setting::Number(n) = setting { n } else { 0 };
        let flag = matches!(setting, Setting::Flag(true));
        Ok(match id {
            OptionId::Hash => return self.set_hash_mb(number() as usize),
            OptionId::Threads => self.set_threads(number() as usize),
            OptionId::ClearHash => self.clear_hash(),
            OptionId::MultiPv => self.set_multipv(number() as usize),
            OptionId::MoveOverhead => self.set_move_overhead_ms(number() as u64),
            OptionId::Ponder => None,
            OptionId::Chess960 => self.set_chess960(flag),
            OptionId::ShowWdl => self.set_show_wdl(flag),
            OptionId::SyzygyPath => {
                let Setting::Text(path) = setting else { return Ok(None) };
                self.syzygy.path = path;
                self.load_tables()
            }
            OptionId::SyzygyProbeLimit => {
                self.syzygy.probe_limit = number() as usize;
                self.load_tables()
            }
            OptionId::Variant => {
                let Setting::Text(name) = setting else { return Ok(None) };
                self.set_variant(&name)
            }
            OptionId::TablesCache => {
                let Setting::Text(dir) = setting else { return Ok(None) };
                exact::store().set_cache((!dir.is_empty()).then(|| dir.into()));
                None
            }
        })
    }

    /// Loads the tables of the SyzygyPath option for positions within the probe limit;
    /// says what it found (nothing when the path is empty).
    fn load_tables(&mut self) -> Option<String> {
        self.stop();
        let _ = self.wait();
        let (tables, loaded) = SyzygyTables::load(&self.syzygy.path, self.syzygy.probe_limit);
        self.syzygy.tables = tables;
        // The option reads `<empty>` as the empty string.
        if self.syzygy.path.trim().is_empty() {
            return None;
        }
        let summary = loaded.summary();
        let mut lines = loaded.problems;
        lines.push(summary);
        Some(lines.join("\n"))
    }

    /// The table, for exclusive use between searches (after [`Engine::stop`] and
    /// [`Engine::wait`]).
    fn table_mut(&mut self) -> &mut TranspositionTable {
        if Arc::get_mut(&mut self.tt).is_none() {
            // Only a search thread shares the table, and it has ended; should one still
            // hold it, the engine goes on with a fresh table of the same size.
            self.tt = Arc::new(TranspositionTable::new(self.tt.size_mb()));
        }
        Arc::get_mut(&mut self.tt).expect("the table is not shared")
    }

    /// Resizes the table to `mb` megabytes (the Hash option); stops a running search.
    pub(crate) fn set_hash_mb(&mut self, mb: usize) -> Result<Option<String>, OptionError> {
        self.stop();
        let _ = self.wait();
        self.table_mut().resize(mb).map(|()| None).map_err(|e| OptionError::Allocation(e.to_string()))
    }

    /// Sets the number of search threads (the Threads option).
    pub(crate) fn set_threads(&mut self, n: usize) -> Option<String> {
        self.settings.threads = n.max(1);
        None
    }

    /// Whether scores come with win/draw/loss figures (the UCI_ShowWDL option).
    pub(crate) fn set_show_wdl(&mut self, on: bool) -> Option<String> {
        self.settings.show_wdl = on;
        None
    }

    /// Sets how many root moves a search reports (the MultiPV option).
    pub(crate) fn set_multipv(&mut self, k: usize) -> Option<String> {
        self.settings.multipv = k.max(1);
        None
    }

    /// Sets Chess960 notation for castling moves (the UCI_Chess960 option). Chess960
    /// positions are recognised from their castling rights whatever the setting.
    pub(crate) fn set_chess960(&mut self, on: bool) -> Option<String> {
        self.settings.chess960 = on;
        None
    }

    /// Sets the game's rules (the UCI_Variant option): the position becomes the variant's
    /// start until the next `position`. The table's keys are salted per variant, so what
    /// it holds of another variant is never read as this one's.
    pub(crate) fn set_variant(&mut self, name: &str) -> Option<String> {
        let variant = variant_named(name)?;
        if variant != self.variant {
            self.variant = variant;
            self.pos = match variant {
                Variant::Chess => Root::Chess(Chess::default()),
                v => Root::Variant(VariantPosition::new(v)),
            };
            self.history.clear();
            self.repeated.clear();
            self.position_error = None;
        }
        None
    }

    /// The game's rules.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Whether the UCI side writes castling moves king takes rook.
    pub fn chess960(&self) -> bool {
        self.settings.chess960
    }

    /// Whether the UCI side should print `wdl` with scores.
    pub fn show_wdl(&self) -> bool {
        self.settings.show_wdl
    }

    /// Forgets the table (the Clear Hash option); stops a running search.
    pub(crate) fn clear_hash(&mut self) -> Option<String> {
        self.stop();
        let _ = self.wait();
        self.table_mut().clear();
        self.fallback_tt.lock().unwrap_or_else(|e| e.into_inner()).clear();
        None
    }

    /// Sets the time kept in reserve per move (the Move Overhead option).
    pub(crate) fn set_move_overhead_ms(&mut self, ms: u64) -> Option<String> {
        self.settings.move_overhead = Duration::from_millis(ms);
        None
    }

    /// Starts a search; returns at once. A running search is stopped first; it still ends
    /// with its own bestmove, before this one's.
    pub fn go(&mut self, limits: GoLimits, sink: Sink) {
        let previous = self.running.take().map(|r| {
            r.control.stop();
            r.handle
        });
        let control = Control::new();
        let budget = limits.time_budget(self.pos.turn(), self.settings.move_overhead);
        let prover_time = budget.map(|b| prover_time(&limits, b));
        let ponder = match limits.ponder {
            true => Ponder::On { prover_time },
            false => Ponder::Off,
        };
        let ponder: PonderState = Arc::new(Mutex::new(ponder));
        let open_ended = limits.infinite || limits.ponder;
        let last_score = Arc::new(Mutex::new(None));
        let job = Job {
            root: match &self.position_error {
                None => Ok(self.pos.clone()),
                Some(e) => Err(e.clone()),
            },
            history: self.history.clone(),
            repeated: self.repeated.clone(),
            tt: Arc::clone(&self.tt),
            fallback_tt: Arc::clone(&self.fallback_tt),
            control: Arc::clone(&control),
            ponder: Arc::clone(&ponder),
            budget,
            prover_time,
            limits,
            threads: self.settings.threads,
            multipv: self.settings.multipv,
            tables: self.syzygy.tables.clone(),
            tbhits_before: tbhits(&self.syzygy.tables),
            sink: remembering_scores(&sink, &last_score),
            last_score,
            tables_said: Arc::clone(&self.tables_said),
        };
        // The job goes into a slot the thread takes it from, so that it is still here
        // when no thread can be started.
        let slot = Arc::new(Mutex::new(Some(job)));
        let thread_slot = Arc::clone(&slot);
        let (tx, rx) = std::sync::mpsc::channel::<JoinHandle<()>>();
        let spawned = search_thread("pnmate-search").spawn(move || {
            if let Ok(previous) = rx.recv() {
                let _ = previous.join();
            }
            let job = thread_slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(job) = job {
                job.run();
            }
        });
        match spawned {
            Ok(handle) => {
                if let Some(previous) = previous {
                    let _ = tx.send(previous);
                }
                drop(tx);
                self.running = Some(Running { open_ended, control, ponder, handle });
            }
            Err(e) => {
                // No thread to search on: answer here, after the previous search.
                if let Some(previous) = previous {
                    let _ = previous.join();
                }
                sink(EngineEvent::Note(format!("error: cannot start the search thread: {e}")));
                let job = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                let best = job.and_then(|j| j.root.ok()).and_then(|root| root.first_legal());
                sink(EngineEvent::BestMove { best, ponder: None });
            }
        }
    }

    /// Asks the running search to stop; its bestmove follows shortly.
    pub fn stop(&mut self) {
        if let Some(r) = &self.running {
            r.control.stop();
        }
    }

    /// The opponent played the pondered move: the clock now applies, from now.
    pub fn ponderhit(&mut self) {
        if let Some(r) = &self.running {
            let mut p = r.ponder.lock().unwrap_or_else(|e| e.into_inner());
            if let Ponder::On { prover_time } = *p {
                r.control.set_deadline(prover_time);
                *p = Ponder::Hit { at: Instant::now() };
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

    /// Waits for the searches to finish (after their bestmoves); says whether a search
    /// thread panicked.
    pub fn wait(&mut self) -> Result<(), SearchPanicked> {
        match self.running.take() {
            Some(r) => r.handle.join().map_err(|_| SearchPanicked),
            None => Ok(()),
        }
    }
}

/// The position a search starts from.
#[derive(Clone, Debug)]
enum Root {
    /// Standard chess (and Chess960): the chess prover's.
    Chess(Chess),
    /// A variant's position: the variant prover's.
    Variant(VariantPosition),
}

impl Root {
    fn turn(&self) -> Color {
        match self {
            Root::Chess(pos) => pos.turn(),
            Root::Variant(pos) => pos.turn(),
        }
    }

    /// The legal move `code` stands for here, if any.
    fn decode(&self, code: MoveCode) -> Option<Move> {
        match self {
            Root::Chess(pos) => code.decode(pos),
            Root::Variant(pos) => code.decode(pos),
        }
    }

    /// The first legal move, if any: the answer when everything else failed.
    fn first_legal(&self) -> Option<Move> {
        match self {
            Root::Chess(pos) => pos.legal_moves().first().copied(),
            Root::Variant(pos) => pos.legal_moves().first().copied(),
        }
    }

    /// `ponder` where it is a legal reply to `best` in a game that goes on after it (a
    /// racing kings win ends the game: no move follows it).
    fn ponder_after(&self, best: Move, ponder: Move) -> Option<Move> {
        fn reply<P: Position + Clone>(pos: &P, best: Move, ponder: Move) -> bool {
            let mut after = pos.clone();
            after.play_unchecked(best);
            !after.is_game_over() && after.is_legal(ponder)
        }
        let legal = match self {
            Root::Chess(pos) => reply(pos, best, ponder),
            Root::Variant(pos) => reply(pos, best, ponder),
        };
        legal.then_some(ponder)
    }
}

/// One search, as run on the search thread.
struct Job {
    root: Result<Root, SetupError>,
    history: Vec<u64>,
    repeated: Vec<Chess>,
    tt: Arc<TranspositionTable>,
    fallback_tt: Arc<Mutex<fallback::ScoreTable>>,
    control: Arc<Control>,
    ponder: PonderState,
    /// The move's time (None: no time limit).
    budget: Option<Duration>,
    /// The prover's part of `budget` ([`prover_time`]), decided at `go`.
    prover_time: Option<Duration>,
    limits: GoLimits,
    threads: usize,
    multipv: usize,
    tables: Option<Arc<SyzygyTables>>,
    /// The tables' probe count when the job was made.
    tbhits_before: u64,
    sink: Sink,
    /// The last event with a score the sink was given (see [`Job::wait_if_required`]).
    last_score: Arc<Mutex<Option<EngineEvent>>>,
    /// The exact tables' notes said so far (see [`Job::say_tables`]).
    tables_said: Arc<Mutex<usize>>,
}

/// `sink`, keeping in `last` the last event it passes on that carries a score.
fn remembering_scores(sink: &Sink, last: &Arc<Mutex<Option<EngineEvent>>>) -> Sink {
    let (sink, last) = (Arc::clone(sink), Arc::clone(last));
    Arc::new(move |e: EngineEvent| {
        if e.has_score() {
            *last.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.clone());
        }
        sink(e)
    })
}

/// Probes of the Syzygy tables that found a value since they were loaded (0 without).
fn tbhits(tables: &Option<Arc<SyzygyTables>>) -> u64 {
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
    fn run(self) {
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
    use shakmaty::{CastlingMode, Role, Square};

    #[test]
    fn no_ponder_move_follows_the_end_of_the_game() {
        let normal = |role, from, to| Move::Normal { role, from, capture: None, to, promotion: None };
        // Racing kings: White's king reaches the eighth rank out of the black king's reach,
        // which ends the game; the knight's move after it is no reply.
        let setup = "8/6K1/8/1b6/k7/8/n7/8 w - - 0 1".parse::<shakmaty::fen::Fen>().unwrap().into_setup();
        let rk = VariantPosition::from_setup(Variant::RacingKings, setup, CastlingMode::Standard).unwrap();
        let best = normal(Role::King, Square::G7, Square::G8);
        assert!(rk.is_legal(best));
        let root = Root::Variant(rk);
        assert_eq!(root.ponder_after(best, normal(Role::Knight, Square::A2, Square::C3)), None);
        // Chess: a legal reply stays, an illegal one goes.
        let chess = Root::Chess(Chess::default());
        let (e4, e5) = (normal(Role::Pawn, Square::E2, Square::E4), normal(Role::Pawn, Square::E7, Square::E5));
        assert_eq!(chess.ponder_after(e4, e5), Some(e5));
        assert_eq!(chess.ponder_after(e4, e4), None);
    }

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
