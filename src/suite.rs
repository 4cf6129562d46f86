//! The suite runner behind `pnmate epd`: solves positions on several threads, judges
//! every result against the suite and tallies a summary. Printing is the caller's.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::Chess;

use crate::chess::game::Game;
use crate::chess::mate_len::MateBound;
use crate::dfpn::expand::Expand;
use crate::dfpn::monitor::Control;
use crate::epd::{EpdEntry, Judgement, LENGTH_BANDS, band, judge};
use crate::error::CertError;
use crate::knowledge::tablebase::SyzygyTables;
use crate::proof::Written;
use crate::proof::certify::CertBudget;
use crate::search::Outcome;
use crate::search::multipv::{MoveResult, rank_moves};
use crate::search::{Budget, Params, search_thread, solve};
use crate::tt::TranspositionTable;

/// The result of one suite position.
#[derive(Clone, Debug)]
pub struct PositionResult<G: Game = Chess> {
    /// Index in the (sharded) run.
    pub index: usize,
    /// The suite entry.
    pub entry: EpdEntry<G>,
    /// What the search proved.
    pub outcome: Outcome,
    /// The judgement against the suite.
    pub judgement: Judgement,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
    /// With [`RunSettings::all_keys`] and a mate for the side to move: every first move
    /// that mates within the mate found, with its result (best first).
    pub keys: Vec<MoveResult>,
    /// With [`RunSettings::proofs`] and a proven result: the certificate written, or why
    /// none was.
    pub certificate: Option<Result<Written, CertError>>,
}

/// Per-run settings (the tablebases serve chess only).
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// The tablebases, when loaded.
    pub tables: Option<Arc<SyzygyTables>>,
    /// Limits per position.
    pub limits: Budget,
    /// Table size per job (MB).
    pub hash: usize,
    /// Positions solved at once.
    pub jobs: usize,
    /// Search threads per position.
    pub threads: usize,
    /// After a mate for the side to move, also list every first move that mates within
    /// its length (cooks and duals at move 1), with the same limits again.
    pub all_keys: bool,
    /// Write a proof certificate of every proven result into this directory, named by
    /// the position's number in the run (`00001.cert`, ...).
    pub proofs: Option<PathBuf>,
}

/// The file name of the certificate of the run's `index`-th position (from 0):
/// `00001.cert`, `00002.cert`, ...
pub fn certificate_name(index: usize) -> String {
    format!("{:05}.cert", index + 1)
}

/// Solves every entry on `settings.jobs` threads; `on_result` is called (from the
/// workers, serialised) as each finishes. Results come back in input order.
pub fn run<G: Expand>(
    entries: &[EpdEntry<G>],
    settings: &RunSettings,
    bound_of: &(dyn Fn(&EpdEntry<G>) -> Option<MateBound> + Sync),
    on_result: &(dyn Fn(&PositionResult<G>) + Sync),
) -> Vec<PositionResult<G>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<PositionResult<G>>>> = Mutex::new(vec![None; entries.len()]);
    let tables = if G::ENDINGS { settings.tables.clone() } else { None };
    let jobs = settings.jobs.max(1).min(entries.len().max(1));
    let work = || {
        let mut tt = TranspositionTable::new(settings.hash);
        tt.finish_touching(); // the first position's time starts with the table in memory
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(entry) = entries.get(i) else { break };
            let params = Params {
                mate: bound_of(entry),
                threads: settings.threads,
                tables: tables.clone(),
                ..Params::default()
            };
            tt.clear(); // independent positions: results do not depend on scheduling
            let started = Instant::now();
            let (outcome, mut stats) = solve(&entry.pos, params, settings.limits, &tt, &mut |_| {});
            let judgement = judge(entry, &outcome);
            let keys = match &outcome {
                Outcome::Mate { moves, .. } if settings.all_keys && judgement.is_found() => {
                    let (keys, nodes) = all_keys(entry, *moves, settings, tables.clone(), &tt);
                    stats.nodes += nodes;
                    keys
                }
                _ => Vec::new(),
            };
            let certificate = settings.proofs.as_ref().filter(|_| outcome != Outcome::Unknown).map(|dir| {
                let path = dir.join(certificate_name(i));
                outcome.certify(&entry.pos, &tt, CertBudget::default(), tables.as_deref()).and_then(|c| c.write(&path))
            });
            let r = PositionResult {
                index: i,
                entry: entry.clone(),
                outcome,
                judgement,
                nodes: stats.nodes,
                time: started.elapsed(),
                keys,
                certificate,
            };
            on_result(&r);
            results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
        }
    };
    std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..jobs {
            started += usize::from(search_thread("pnmate-epd").spawn_scoped(scope, work).is_ok());
        }
        if started == 0 {
            work(); // no thread could be started: solve here
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect()
}

/// Every first move of `entry` that mates within `moves`, best first, and the nodes spent.
fn all_keys<G: Expand>(
    entry: &EpdEntry<G>,
    moves: u32,
    settings: &RunSettings,
    tables: Option<Arc<SyzygyTables>>,
    tt: &TranspositionTable,
) -> (Vec<MoveResult>, u64) {
    let control = Control::new();
    control.set_deadline(settings.limits.time);
    let params = Params { mate: MateBound::new(moves.into()), threads: settings.threads, tables, ..Params::default() };
    let mut nodes = 0;
    let results = rank_moves(&entry.pos, &params, &[], tt, &control, settings.limits.nodes, &mut |round| {
        nodes = round.stats.nodes;
    });
    (results.into_iter().filter(|r| matches!(r.outcome, Outcome::Mate { .. })).collect(), nodes)
}

/// Counts for one summary row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Positions.
    pub positions: usize,
    /// Verified mates of any length.
    pub found: usize,
    /// Verified mates of the suite's length.
    pub best: usize,
    /// Verified mates shorter than the suite's.
    pub better: usize,
    /// Verified mates proven shortest by the search itself (a shorter one disproven).
    pub shortest: usize,
    /// Proven no-mate (consistent with the suite).
    pub no_mate: usize,
    /// Nothing proven.
    pub unknown: usize,
    /// Claims contradicting the suite.
    pub wrong: usize,
    /// Lines failing replay.
    pub bad_line: usize,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent (summed over positions).
    pub time: Duration,
}

impl Tally {
    /// Adds one result.
    pub fn add<G: Game>(&mut self, r: &PositionResult<G>) {
        self.positions += 1;
        self.nodes += r.nodes;
        self.time += r.time;
        match r.judgement {
            Judgement::Best => self.best += 1,
            Judgement::Better => self.better += 1,
            Judgement::Found => {}
            Judgement::NoMate => self.no_mate += 1,
            Judgement::Unknown => self.unknown += 1,
            Judgement::Wrong => self.wrong += 1,
            Judgement::BadLine => self.bad_line += 1,
        }
        if r.judgement.is_found() {
            self.found += 1;
            let exact = matches!(r.outcome, Outcome::Mate { exact: true, .. } | Outcome::Mated { exact: true, .. });
            self.shortest += usize::from(exact);
        }
    }
}

/// The whole summary: overall and by suite mate length.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// All positions.
    pub total: Tally,
    /// One tally per [`LENGTH_BANDS`] row (positions with a bm only).
    pub bands: [Tally; LENGTH_BANDS.len()],
}

impl Summary {
    /// Tallies results.
    pub fn of<G: Game>(results: &[PositionResult<G>]) -> Summary {
        let mut s = Summary::default();
        for r in results {
            s.total.add(r);
            if let Some(bm) = r.entry.bm {
                s.bands[band(bm)].add(r);
            }
        }
        s
    }
}
