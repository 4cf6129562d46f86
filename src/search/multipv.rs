//! Several root moves, each with its own proven result: UCI MultiPV and `solve --all`.
//!
//! Each root move is its own question: the search restricted to that move (as UCI
//! `searchmoves` restricts it) proves "mate in M with this move", "mated in M after this
//! move", "no mate within N either way after this move", or nothing yet. The moves take
//! turns in rounds with node budgets that double each round, over the one table, so what
//! one move's search proves (positions after other moves included) serves the others.
//! A move whose result cannot change any more (a mate proven shortest, a longest defence
//! proven, no mate within the bound) drops out of the rounds. Every mate comes with its
//! own line, built and replayed by the restricted search exactly as a single result is.

use std::sync::Arc;

use shakmaty::Move;

use crate::dfpn::expand::Expand;
use crate::dfpn::monitor::{Control, Monitor};
use crate::knowledge::oracle::Oracle;
use crate::search::{Outcome, Params, Search, Stats};
use crate::tt::TranspositionTable;

/// Node budget per move in the first round; doubled every round.
const FIRST_BUDGET: u64 = 20_000;

/// One root move and what is proven about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveResult {
    /// The root move.
    pub mv: Move,
    /// What is proven about the position with this move played first: a mate (its line
    /// starts with `mv`), no mate within the bound, or unknown.
    pub outcome: Outcome,
    /// A quick evaluation of the move in centipawns (side to move's view), used to order
    /// and score moves without a proven mate; never a claim.
    pub eval: i32,
}

impl MoveResult {
    /// Whether more search cannot change this result.
    pub fn settled(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Mate { exact: true, .. } | Outcome::Mated { exact: true, .. } | Outcome::NoMate { .. }
        )
    }

    /// Sort key, best first: mates (shorter first, proven shortest before upper bounds),
    /// then moves without a proven mate (by evaluation), then moves that are mated
    /// (longer defence first).
    fn rank(&self) -> (u8, i64) {
        match &self.outcome {
            Outcome::Mate { moves, exact, .. } => (0, 2 * i64::from(*moves) + i64::from(!exact)),
            Outcome::NoMate { .. } | Outcome::Unknown => (1, -i64::from(self.eval)),
            Outcome::Mated { moves, exact, .. } => (2, -2 * i64::from(*moves) + i64::from(!exact)),
        }
    }
}

/// Where a round of [`rank_moves`] stands, for its caller.
pub struct Round<'r> {
    /// Every move, best first.
    pub results: &'r [MoveResult],
    /// Search statistics so far.
    pub stats: Stats,
}

/// Which root moves [`rank_moves`] ranks and how far it goes: `moves` (all legal moves
/// when empty), within `node_limit` nodes; the moves without a proven result are ordered
/// by `evaluate`, a static score of the position after each (its side to move's view):
/// the same order on every machine.
pub struct Ranking<'r, G> {
    /// The moves (all legal moves when empty).
    pub moves: &'r [Move],
    /// Nodes the ranking may spend.
    pub node_limit: Option<u64>,
    /// The static score of a position for its side to move.
    pub evaluate: &'r (dyn Fn(&G) -> i32 + Sync),
}

/// Proves what it can about each of `ranking`'s moves from `root`,
/// until every result is settled, the control says stop or passes its deadline, or the
/// ranking's nodes are spent. `on_round` sees the results, best first, after every
/// round. Returns them best first.
pub fn rank_moves<G: Expand>(
    root: &G,
    params: &Params<G>,
    ranking: Ranking<'_, G>,
    tt: &TranspositionTable,
    control: &Arc<Control>,
    on_round: &mut dyn FnMut(Round<'_>),
) -> Vec<MoveResult> {
    let Ranking { moves, node_limit, evaluate } = ranking;
    let tbhits_before = params.oracle.hits();
    let moves: Vec<Move> = if moves.is_empty() { root.legal_moves().into_iter().collect() } else { moves.to_vec() };
    let after = |mv: Move| {
        let mut after = root.clone();
        after.play_unchecked(mv);
        -evaluate(&after)
    };
    let mut results: Vec<MoveResult> =
        moves.iter().map(|&mv| MoveResult { mv, outcome: Outcome::Unknown, eval: after(mv) }).collect();
    results.sort_by_key(MoveResult::rank);
    let mut nodes = 0u64;
    let mut seldepth = 0u32;
    let mut budget = FIRST_BUDGET;
    let limit = node_limit.unwrap_or(u64::MAX);
    let out_of_time = || control.stopped() || control.past_deadline();
    while !out_of_time() && nodes < limit && results.iter().any(|r| !r.settled()) {
        for r in results.iter_mut().filter(|r| !r.settled()) {
            if out_of_time() || nodes >= limit {
                break;
            }
            let mut monitor = Monitor::new(Arc::clone(control), Some(budget.min(limit - nodes))).counting_from(nodes);
            let restricted = Params { root_moves: Some(vec![r.mv]), ..params.clone() };
            let mut ignore = |_| {};
            let mut search = Search::new(root, restricted, tt, &mut monitor, &mut ignore);
            let outcome = search.run();
            seldepth = seldepth.max(search.seldepth);
            nodes += monitor.total_nodes();
            if better(&outcome, &r.outcome) {
                r.outcome = outcome;
            }
        }
        results.sort_by_key(MoveResult::rank);
        let stats = Stats {
            nodes,
            time: control.elapsed(),
            hashfull: tt.hashfull(),
            depth: params.mate.map_or(seldepth, |m| 2 * m.moves()),
            seldepth,
            tbhits: params.oracle.hits() - tbhits_before,
        };
        on_round(Round { results: &results, stats });
        budget = budget.saturating_mul(2);
    }
    results
}

/// Whether `new` tells more than `old` about the same move.
fn better(new: &Outcome, old: &Outcome) -> bool {
    match (new, old) {
        (Outcome::Unknown, _) => false,
        (_, Outcome::Unknown) => true,
        (Outcome::NoMate { .. }, _) => true,
        (Outcome::Mate { moves: a, exact: x, .. }, Outcome::Mate { moves: b, exact: y, .. })
        | (Outcome::Mated { moves: a, exact: x, .. }, Outcome::Mated { moves: b, exact: y, .. }) => {
            a < b || (a == b && *x && !*y)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::mate_len::MateBound;
    use crate::chess::position::{parse_fen, uci};
    use shakmaty::Position;

    fn results(fen: &str, mate: u32) -> Vec<MoveResult> {
        let pos = parse_fen(fen).unwrap();
        let tt = TranspositionTable::new(16);
        let params = Params { mate: MateBound::new(u64::from(mate)), ..Params::default() };
        let ranking = Ranking { moves: &[], node_limit: Some(20_000_000), evaluate: &crate::knowledge::evaluate };
        rank_moves(&pos, &params, ranking, &tt, &Control::new(), &mut |_| {})
    }

    #[test]
    fn every_key_gets_its_own_length_and_a_replayed_line() {
        // Back-rank mates: two keys with the rooks, three with the queen as well.
        for (fen, keys) in [("6k1/5ppp/8/8/8/8/8/R3R1K1 w - - 0 1", 2), ("6k1/5ppp/8/8/8/8/8/R2QR1K1 w - - 0 1", 3)] {
            let r = results(fen, 2);
            let pos = parse_fen(fen).unwrap();
            for (i, k) in r.iter().enumerate() {
                let one = matches!(k.outcome, Outcome::Mate { moves: 1, exact: true, .. });
                assert_eq!(one, i < keys, "{fen}: {} at {i}: {:?}", uci(k.mv), k.outcome);
                if one {
                    let pv = k.outcome.pv();
                    assert_eq!((pv.len(), pv[0]), (1, k.mv));
                    let mut p = pos.clone();
                    p.play_unchecked(pv[0]);
                    assert!(p.is_checkmate(), "{fen}: {}", uci(k.mv));
                }
            }
            assert!(r.iter().all(MoveResult::settled), "a bound of 2 settles every move: {r:?}");
            assert_eq!(r.len(), pos.legal_moves().len());
        }
    }
}
