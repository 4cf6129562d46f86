//! The suite runner behind `pnmate epd`: solves positions on several threads, judges
//! every result against the suite and tallies a summary. Printing is the caller's.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use shakmaty::Chess;

use crate::chess::game::Game;
use crate::chess::mate_len::MateBound;
use crate::dfpn::expand::Expand;
use crate::dfpn::monitor::Control;
use crate::epd::{EpdEntry, Judgement, LENGTH_BANDS, band, judge};
use crate::error::CertError;
use crate::fallback::AlphaBeta;
use crate::jobs::run_jobs;
use crate::limits::Budget;
use crate::proof::Written;
use crate::proof::certify::CertBudget;
use crate::search::Outcome;
use crate::search::multipv::{MoveResult, Ranking, rank_moves};
use crate::search::{Params, solve};
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

/// Per-run settings, in game `G` (chess unless named).
#[derive(Clone)]
pub struct RunSettings<G: Expand = Chess> {
    /// What the game's tables know (chess: the Syzygy tables, when loaded).
    pub oracle: G::Oracle,
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
pub fn run<G: AlphaBeta + Expand>(
    entries: &[EpdEntry<G>],
    settings: &RunSettings<G>,
    bound_of: &(dyn Fn(&EpdEntry<G>) -> Option<MateBound> + Sync),
    on_result: &(dyn Fn(&PositionResult<G>) + Sync),
) -> Vec<PositionResult<G>> {
    let jobs = settings.jobs.max(1).min(entries.len().max(1));
    let table = || {
        let mut tt = TranspositionTable::new(settings.hash);
        tt.finish_touching(); // the first position's time starts with the table in memory
        tt
    };
    let solve_one = |tt: &mut TranspositionTable, i: usize| {
        let entry = &entries[i];
        let params = Params {
            mate: bound_of(entry),
            threads: settings.threads,
            oracle: settings.oracle.clone(),
            ..Params::default()
        };
        tt.clear(); // independent positions: results do not depend on scheduling
        let started = Instant::now();
        let (outcome, mut stats) = solve(&entry.pos, params, settings.limits, tt, &mut |_| {});
        let judgement = judge(entry, &outcome);
        let keys = match &outcome {
            Outcome::Mate { moves, .. } if settings.all_keys && judgement.is_found() => {
                let (keys, nodes) = all_keys(entry, *moves, settings, tt);
                stats.nodes += nodes;
                keys
            }
            _ => Vec::new(),
        };
        let certificate = settings.proofs.as_ref().filter(|_| outcome != Outcome::Unknown).map(|dir| {
            let path = dir.join(certificate_name(i));
            outcome.certify(&entry.pos, tt, CertBudget::default(), &settings.oracle).and_then(|c| c.write(&path))
        });
        PositionResult {
            index: i,
            entry: entry.clone(),
            outcome,
            judgement,
            nodes: stats.nodes,
            time: started.elapsed(),
            keys,
            certificate,
        }
    };
    run_jobs(entries.len(), jobs, "pnmate-epd", table, solve_one, |_, r| on_result(r))
}

/// Every first move of `entry` that mates within `moves`, best first, and the nodes spent.
fn all_keys<G: AlphaBeta + Expand>(
    entry: &EpdEntry<G>,
    moves: u32,
    settings: &RunSettings<G>,
    tt: &TranspositionTable,
) -> (Vec<MoveResult>, u64) {
    let control = Control::new();
    control.set_deadline(settings.limits.time);
    let params = Params {
        mate: MateBound::new(moves.into()),
        threads: settings.threads,
        oracle: settings.oracle.clone(),
        ..Params::default()
    };
    let mut nodes = 0;
    let ranking = Ranking { moves: &[], node_limit: settings.limits.nodes, evaluate: &G::evaluate };
    let results = rank_moves(&entry.pos, &params, ranking, tt, &control, &mut |round| {
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
