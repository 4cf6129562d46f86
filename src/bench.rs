//! `pnmate bench`: a fixed list of positions, each searched from an empty 16 MB table to
//! a fixed node limit on one thread. The node total is deterministic (no clock is read
//! by the search), so it signs the search's behaviour: commits that change it say
//! `Bench: <nodes>`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shakmaty::Position;

use crate::chess::position::parse_fen;
use crate::dfpn::monitor::{Control, Monitor};
use crate::knowledge::oracle::ChessOracle;
use crate::knowledge::tablebase::SyzygyTables;
use crate::limits::Budget;
use crate::search::{Event, Params, Search, solve};
use crate::tt::TranspositionTable;

/// Default node limit per position.
pub const DEFAULT_NODES: u64 = 400_000;

/// Table size used by the bench (MB).
pub const BENCH_HASH_MB: usize = 16;

/// The bench positions, from the project's own suites (epd/mates.epd: mates in 4 to 10
/// for both colours, with mixed material and in rook and queen endings) and a mated
/// side (KRvK, mated in 8).
pub const POSITIONS: &[&str] = &[
    "8/N2p4/1R6/3k4/1P6/5r2/5Q2/1K6 w - - 0 1",
    "2Q4n/2K5/p5k1/8/6P1/1P6/4B3/8 w - - 0 1",
    "8/8/8/8/b1k4p/2r5/K7/1B2b3 b - - 0 1",
    "2k5/8/1R1P4/6N1/4r3/3KP3/8/8 w - - 0 1",
    "1K5B/p7/3P4/8/8/2B5/kp6/7R w - - 0 1",
    "8/7r/8/8/6Bq/8/5BK1/k7 b - - 0 1",
    "2k5/6P1/8/3BK3/8/5B2/8/3N4 w - - 0 1",
    "1K6/7r/6k1/P7/r1n5/7B/8/8 b - - 0 1",
    "8/8/6K1/8/8/3r2k1/8/8 b - - 0 1",
    "4K3/8/8/6Q1/8/2k5/8/8 w - - 0 1",
    "3k4/8/8/8/8/8/5KR1/8 w - - 0 1",
    "8/6k1/8/8/5R2/8/4K3/8 b - - 1 1",
];

/// Result of a bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes searched in all.
    pub nodes: u64,
    /// Wall time.
    pub time: Duration,
    /// Of that time, the time spent building the exact tables the searches met.
    pub tables: Duration,
}

impl BenchResult {
    /// Nodes per second of search, the tables' builds left out: they happen once a run.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.time.saturating_sub(self.tables).as_secs_f64().max(1e-9)) as u64
    }
}

/// Runs the bench with `nodes` per position.
pub fn run(nodes: u64) -> BenchResult {
    run_positions(POSITIONS, nodes, None)
}

/// The bench positions with more men than `tables` probe, searched without the tables and
/// then with them loaded, three times each in turn: what loading tables costs a search
/// that starts outside them. The node counts differ where a search reaches positions the
/// tables cover (after captures).
pub fn outside_tables(nodes: u64, tables: &Arc<SyzygyTables>) -> [Vec<BenchResult>; 2] {
    let outside: Vec<&str> = POSITIONS
        .iter()
        .copied()
        .filter(|fen| parse_fen(fen).is_ok_and(|p| p.board().occupied().count() > tables.max_men()))
        .collect();
    let mut runs = [Vec::new(), Vec::new()];
    for _ in 0..3 {
        runs[0].push(run_positions(&outside, nodes, None));
        runs[1].push(run_positions(&outside, nodes, Some(tables)));
    }
    runs
}

/// The long-mate bench: long quiet mates, each searched from an empty table until its
/// first proof. The endings of four men are decided by their exact tables, so their time
/// is mostly the tables' first build (reported apart); Krabbe's mate takes df-pn hundreds
/// of thousands of nodes.
pub const LONG_MATES: &[(&str, &str)] = &[
    ("K+B+N v K", "8/2k5/6K1/8/8/4NB2/8/8 w - - 0 1"),
    ("K+Q v K+R", "4r3/7Q/8/6K1/8/4k3/8/8 w - - 0 1"),
    ("K+B+B v K", "1B1K4/8/8/8/8/8/B2k4/8 w - - 0 1"),
    ("Krabbe's mate in 38", "1R6/6pK/5p2/4p3/1B1p3n/8/p1p1pp2/1k3b2 w - - 0 1"),
];

/// Table size of the long-mate bench (MB).
pub const LONG_HASH_MB: usize = 64;

/// Node limit of one long mate: far above what each first proof takes.
const LONG_NODE_LIMIT: u64 = 50_000_000;

/// The first proof of one long mate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstProof {
    /// The position's name in [`LONG_MATES`].
    pub name: &'static str,
    /// The mate proven first, in moves (None: none within the node limit).
    pub moves: Option<u32>,
    /// Nodes searched up to the first proof (its line built and replayed).
    pub nodes: u64,
    /// Time to the first proof.
    pub time: Duration,
    /// Of that time, the time spent building exact tables the search needed.
    pub tables: Duration,
}

/// Searches each of [`LONG_MATES`] from an empty table, one thread, until its first proof.
pub fn long_mates() -> Vec<FirstProof> {
    let mut tt = TranspositionTable::new(LONG_HASH_MB);
    tt.finish_touching();
    LONG_MATES
        .iter()
        .map(|&(name, fen)| {
            tt.clear();
            first_proof(name, fen, &tt)
        })
        .collect()
}

fn first_proof(name: &'static str, fen: &str, tt: &TranspositionTable) -> FirstProof {
    let pos = parse_fen(fen).expect("bench positions are valid");
    let control = Control::new();
    let mut monitor = Monitor::new(Arc::clone(&control), Some(LONG_NODE_LIMIT));
    tt.new_search();
    let mut first = FirstProof { name, moves: None, nodes: 0, time: Duration::ZERO, tables: Duration::ZERO };
    let building = crate::knowledge::exact::store().waiting_time();
    let mut events = |event: Event| {
        if let Event::Mate { mate, stats, .. } = event
            && first.moves.is_none()
        {
            first = FirstProof { moves: Some(mate.moves()), nodes: stats.nodes, time: stats.time, ..first };
            control.stop();
        }
    };
    Search::new(&pos, Params::default(), tt, &mut monitor, &mut events).run();
    if first.moves.is_none() {
        first.nodes = monitor.total_nodes();
        first.time = control.elapsed();
    }
    first.tables = crate::knowledge::exact::store().waiting_time() - building;
    first
}

/// Fixtures of the micro-benchmarks (`cargo bench`, benches/speed.rs): the steps of a
/// df-pn node measured one at a time, on the library's own types.
pub mod micro {
    use shakmaty::{Chess, Color, Move, MoveList, Position};

    use crate::chess::checks::{CheckInfo, evasion_count_after, legal_checks, mates_by};
    use crate::chess::mate_len::Plies;
    use crate::chess::movegen::legal_moves;
    use crate::chess::node::Node;
    use crate::chess::position::parse_fen;
    use crate::dfpn::children::{Child, Expansion, aggregate};
    use crate::dfpn::expand::{Expander, SetAside};
    use crate::dfpn::monitor::{Control, Monitor};
    use crate::dfpn::query::Keys;
    use crate::dfpn::tree::{Cycles, RootMoves, Tree};
    use crate::knowledge::{Know, Knowledge};
    use crate::tt::TranspositionTable;

    /// A position, the attacker (its side to move) and an empty table.
    pub struct Fixture {
        node: Node,
        attacker: Color,
        tt: TranspositionTable,
    }

    impl Fixture {
        /// The fixture of `fen`, whose side to move attacks (a valid FEN).
        pub fn new(fen: &str) -> Fixture {
            let pos = parse_fen(fen).expect("a valid FEN");
            Fixture { attacker: pos.turn(), node: Node::new(pos), tt: TranspositionTable::new(1) }
        }

        /// The position.
        pub fn position(&self) -> &Chess {
            &self.node.pos
        }

        /// Expands the position once as the search does at a node `moves` moves from the
        /// bound, into `children`; the number of children (0: decided without them).
        pub fn expand(&self, moves: u32, children: &mut Vec<Child>) -> usize {
            let tree = Tree {
                tt: &self.tt,
                keys: Keys::new(self.attacker, 0),
                attacker: self.attacker,
                repetitions: None,
                root_moves: None,
                at_game_root: false,
                cycles: Cycles::Search,
            };
            let mut monitor = Monitor::new(Control::new(), None);
            let mut knowledge = Knowledge::new(self.attacker, None);
            knowledge.begin_call(self.node.pos.board(), crate::knowledge::SearchLimits::default());
            let mut set_aside = SetAside::default();
            set_aside.begin();
            let mut expander =
                Expander { tree: &tree, monitor: &mut monitor, knowledge: &knowledge, set_aside: &mut set_aside };
            children.clear();
            let r = Plies::mate_in(moves);
            let expansion = if self.node.pos.turn() == self.attacker {
                expander.or(&self.node, r, 1, RootMoves::All, children)
            } else {
                expander.and(&self.node, r, 1, RootMoves::All, children)
            };
            match expansion {
                Expansion::Open => children.len(),
                Expansion::Decided(..) => 0,
            }
        }

        /// The children of the position's expansion `moves` moves from the bound.
        pub fn children(&self, moves: u32) -> Vec<Child> {
            let mut children = Vec::new();
            self.expand(moves, &mut children);
            children
        }

        /// The node after each legal move, its hash updated as the search does.
        pub fn play_all(&self) -> u64 {
            self.node.pos.legal_moves().into_iter().fold(0, |h, m| h ^ self.node.play(m).hash)
        }
    }

    /// The search's aggregation of `children` (an attacker's node when `or`): the index
    /// of the child it picks.
    pub fn pick(or: bool, children: &[Child]) -> usize {
        aggregate(or, children).best
    }

    /// The number of evasions of each check of `pos`, counted as the search counts them.
    pub fn evasions_of_checks(pos: &Chess, checks: &[Move]) -> u32 {
        checks.iter().map(|&m| evasion_count_after(pos, m)).sum()
    }

    /// How many of `moves` mate at once, tested as the search's mate-in-one test does.
    pub fn mates_among(pos: &Chess, moves: &[Move]) -> usize {
        moves.iter().filter(|&&m| mates_by(pos, m)).count()
    }

    /// The number of legal moves of `pos`, generated as the search generates them.
    pub fn legal_move_count(pos: &Chess) -> usize {
        let mut moves = MoveList::new();
        legal_moves(pos, &mut moves);
        moves.len()
    }

    /// The number of checks of `pos`, generated as a node with one ply left generates them.
    pub fn check_count(pos: &Chess) -> usize {
        let mut checks = MoveList::new();
        legal_checks(pos, &CheckInfo::new(pos), &mut checks);
        checks.len()
    }
}

fn run_positions(positions: &[&str], nodes: u64, tables: Option<&Arc<SyzygyTables>>) -> BenchResult {
    let mut tt = TranspositionTable::new(BENCH_HASH_MB);
    tt.finish_touching(); // the timing starts with the table in memory
    let mut total = 0;
    let building = crate::knowledge::exact::store().waiting_time();
    let started = Instant::now();
    for fen in positions {
        let pos = parse_fen(fen).expect("bench positions are valid");
        tt.clear();
        let limits = Budget { nodes: Some(nodes), time: None };
        let params = Params { oracle: ChessOracle::with_syzygy(tables.cloned()), ..Params::default() };
        let (_, stats) = solve(&pos, params, limits, &tt, &mut |_| {});
        total += stats.nodes;
    }
    let tables = crate::knowledge::exact::store().waiting_time() - building;
    BenchResult { nodes: total, time: started.elapsed(), tables }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bench signature: the node total of `pnmate bench`. A change of search
    /// behaviour changes it; update it here and say `Bench: <nodes>` in the commit.
    const BENCH_NODES: u64 = 1_628_494;

    /// The long-mate bench's first proofs: (mate, nodes) by position. A change of search
    /// behaviour changes them, like [`BENCH_NODES`].
    const LONG_FIRST_PROOFS: [(u32, u64); 4] = [(16, 84), (20, 177), (16, 91), (38, 815_887)];

    #[test]
    fn long_mate_bench_first_proofs_are_pinned() {
        let proofs: Vec<(u32, u64)> = long_mates().iter().map(|p| (p.moves.unwrap_or(0), p.nodes)).collect();
        assert_eq!(proofs, LONG_FIRST_PROOFS);
    }

    #[test]
    fn bench_node_count_is_pinned() {
        let first = run(DEFAULT_NODES);
        assert_eq!(first.nodes, BENCH_NODES, "bench signature changed");
    }
}
