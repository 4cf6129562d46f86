//! `pnmate bench`: a fixed list of positions, each searched from an empty 16 MB table to
//! a fixed node limit on one thread. The node total is deterministic (no clock is read
//! by the search), so it signs the search's behaviour: commits that change it say
//! `Bench: <nodes>`.

use std::time::{Duration, Instant};

use crate::position::parse_fen;
use crate::search::{Params, SolveLimits, solve};
use crate::tt::Table;

/// Default node limit per position.
pub const DEFAULT_NODES: u64 = 400_000;

/// Table size used by the bench (MB).
pub const BENCH_HASH_MB: usize = 16;

/// The bench positions: mates of several lengths for both sides, a mated side, long
/// endgames and positions without a short mate. All come from the project's own suites.
pub const POSITIONS: &[&str] = &[];

/// Result of a bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes searched in all.
    pub nodes: u64,
    /// Wall time.
    pub time: Duration,
}

impl BenchResult {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-9)) as u64
    }
}

/// Runs the bench with `nodes` per position.
pub fn run(nodes: u64) -> BenchResult {
    let mut tt = Table::new(BENCH_HASH_MB);
    let mut total = 0;
    let started = Instant::now();
    for fen in POSITIONS {
        let pos = parse_fen(fen).expect("bench positions are valid");
        tt.clear();
        let limits = SolveLimits { nodes: Some(nodes), time: None };
        let (_, stats) = solve(&pos, Params::default(), limits, &mut tt, &mut |_| {});
        total += stats.nodes;
    }
    BenchResult { nodes: total, time: started.elapsed() }
}
