//! Rebuilding the forced line from the table, and replaying it before anyone sees it.
//!
//! The builder walks down from a proven node. At an OR node it follows the child with the
//! shortest known proof within `bound - 1` (re-proving children whose entries were lost).
//! At an AND node every defence is mated within `bound - 1`; it collects each defence's
//! proven length and follows the longest, so the node's line is one ply longer than the
//! longest proven defence. Every length it returns is backed by proofs of all defences,
//! so the line's length is a proven mate length; when the root's length is also proven
//! shortest, the line is exactly that long (a shorter line would be a shorter mate).

use shakmaty::{Chess, EnPassantMode, Move, Position, zobrist::Zobrist64};

use super::dfpn::{Solver, Verdict};
use super::node::{Node, can_claim_fifty, decode_move};
use super::pndn::Plies;

/// Nodes one re-proof inside the builder may spend.
const PER_CALL_BUDGET: u64 = 100_000;

/// Builds forced lines with a bounded total node budget; ignores stop and deadline so a
/// proven mate can still be printed after `stop`.
pub struct LineBuilder<'s, 'a> {
    solver: &'s mut Solver<'a>,
    budget: u64,
}

impl<'s, 'a> LineBuilder<'s, 'a> {
    /// A builder over `solver` that may spend `budget` nodes in all.
    pub fn new(solver: &'s mut Solver<'a>, budget: u64) -> Self {
        LineBuilder { solver, budget }
    }

    fn solve(&mut self, node: &Node, bound: Plies) -> Verdict {
        if self.budget == 0 {
            return Verdict::Unknown;
        }
        let before = self.solver.monitor.nodes();
        let v = self.solver.solve(node, bound, Some(self.budget.min(PER_CALL_BUDGET)), true, false);
        self.budget = self.budget.saturating_sub(self.solver.monitor.nodes() - before);
        v
    }

    /// Appends to `out` a forced line from `node`, which must be proven within `bound`
    /// plies, and returns its length (at most `bound`). None when the budget ran out.
    /// `restricted` applies the root move restriction to this node.
    pub fn line(&mut self, node: &Node, bound: Plies, restricted: bool, out: &mut Vec<Move>) -> Option<Plies> {
        if node.pos.turn() == self.solver.attacker() {
            self.or_line(node, bound, restricted, out)
        } else {
            self.and_line(node, bound, restricted, out)
        }
    }

    fn or_line(&mut self, node: &Node, bound: Plies, restricted: bool, out: &mut Vec<Move>) -> Option<Plies> {
        if bound == 0 {
            return None;
        }
        let moves = self.solver.node_moves(node, restricted);
        let hint = decode_move(&node.pos, self.solver.best_move_code(node, bound));
        // Known proofs first (shortest first, the table's move breaking ties), then the rest.
        let mut known = Vec::new();
        let mut rest = Vec::new();
        for &m in &moves {
            let child = node.play(m);
            match self.solver.lookup(&child, bound - 1) {
                Some(v) if v.is_proven() => known.push((v.proof, Some(m) != hint, m, child)),
                Some(v) if v.is_disproven() => {}
                _ => rest.push((Some(m) != hint, m, child)),
            }
        }
        known.sort_by_key(|k| (k.0, k.1));
        rest.sort_by_key(|r| r.0);
        let candidates =
            known.into_iter().map(|(p, _, m, c)| (Some(p), m, c)).chain(rest.into_iter().map(|(_, m, c)| (None, m, c)));
        for (proof, m, child) in candidates {
            let proof = match proof {
                Some(p) => p,
                None => match self.solve(&child, bound - 1) {
                    Verdict::Proven(p) => p,
                    Verdict::Disproven(_) => continue,
                    Verdict::Unknown => return None,
                },
            };
            let mark = out.len();
            out.push(m);
            match self.line(&child, proof, false, out) {
                Some(sub) => return Some(sub + 1),
                None => {
                    out.truncate(mark);
                    return None;
                }
            }
        }
        None
    }

    fn and_line(&mut self, node: &Node, bound: Plies, restricted: bool, out: &mut Vec<Move>) -> Option<Plies> {
        let moves = self.solver.node_moves(node, restricted);
        if moves.is_empty() {
            return node.pos.is_check().then_some(0);
        }
        if bound < 2 {
            return None;
        }
        // Every defence is mated within bound - 1; collect each one's proven length.
        let mut defences = Vec::with_capacity(moves.len());
        for &m in &moves {
            let child = node.play(m);
            let proof = match self.solver.lookup(&child, bound - 1) {
                Some(v) if v.is_proven() => v.proof,
                _ => match self.solve(&child, bound - 1) {
                    Verdict::Proven(p) => p,
                    _ => return None,
                },
            };
            defences.push((proof, m, child));
        }
        // Follow the longest defence. If its line turns out shorter than its recorded
        // proof, that proof tightens and the next longest is tried.
        loop {
            let i = (0..defences.len()).max_by_key(|&i| defences[i].0)?;
            let (proof, m, child) = &defences[i];
            let (proof, m) = (*proof, *m);
            let mark = out.len();
            out.push(m);
            let sub = match self.line(&child.clone(), proof, false, out) {
                Some(sub) => sub,
                None => {
                    out.truncate(mark);
                    return None;
                }
            };
            if sub == proof {
                return Some(sub + 1);
            }
            out.truncate(mark);
            defences[i].0 = sub;
        }
    }
}

/// Why a line fails replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// A move is not legal where it is played.
    Illegal(usize),
    /// The line's length does not match the claimed mate.
    Length {
        /// Plies the claim needs.
        want: usize,
        /// Plies the line has.
        got: usize,
    },
    /// The line does not end in checkmate.
    NotMate,
    /// The losing side could claim a 50-move draw at this ply.
    FiftyMoveClaim(usize),
    /// The losing side could claim a threefold repetition at this ply.
    RepetitionClaim(usize),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::Illegal(i) => write!(f, "illegal move at ply {i}"),
            LineError::Length { want, got } => {
                write!(f, "line has {got} plies, claim needs {want}")
            }
            LineError::NotMate => f.write_str("line does not end in checkmate"),
            LineError::FiftyMoveClaim(i) => {
                write!(f, "losing side may claim a 50-move draw at ply {i}")
            }
            LineError::RepetitionClaim(i) => {
                write!(f, "losing side may claim a repetition at ply {i}")
            }
        }
    }
}

fn hash(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Replays `line` from `root` and checks that it proves "mate `signed_moves`" from the
/// side to move's view (negative: the side to move is mated): legal moves, exactly
/// `2M - 1` (or `2|M|`) plies, checkmate at the end, and no 50-move or threefold claim
/// for the losing side on the way. `history` holds the hashes of earlier game positions
/// (oldest first, the root excluded) for the repetition rule.
pub fn verify_line(root: &Chess, line: &[Move], signed_moves: i32, history: &[u64]) -> Result<(), LineError> {
    let want = if signed_moves > 0 { 2 * signed_moves as usize - 1 } else { 2 * signed_moves.unsigned_abs() as usize };
    if line.len() != want || signed_moves == 0 {
        return Err(LineError::Length { want, got: line.len() });
    }
    let loser = if signed_moves > 0 { !root.turn() } else { root.turn() };
    let mut pos = root.clone();
    let mut seen: Vec<u64> = history.to_vec();
    seen.push(hash(&pos));
    for (ply, &m) in line.iter().enumerate() {
        let moves = pos.legal_moves();
        if !moves.contains(&m) {
            return Err(LineError::Illegal(ply));
        }
        if pos.turn() == loser {
            if can_claim_fifty(&pos, &moves) {
                return Err(LineError::FiftyMoveClaim(ply));
            }
            let here = *seen.last().unwrap_or(&0);
            let count = |h: u64| seen.iter().filter(|&&s| s == h).count();
            let repeats = count(here) >= 3
                || moves.iter().any(|&n| {
                    let mut after = pos.clone();
                    after.play_unchecked(n);
                    count(hash(&after)) >= 2
                });
            if repeats {
                return Err(LineError::RepetitionClaim(ply));
            }
        }
        pos.play_unchecked(m);
        seen.push(hash(&pos));
    }
    if pos.is_checkmate() { Ok(()) } else { Err(LineError::NotMate) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen, uci::UciMove};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn moves(p: &Chess, uci: &str) -> Vec<Move> {
        let mut p = p.clone();
        uci.split_whitespace()
            .map(|u| {
                let m = u.parse::<UciMove>().unwrap().to_move(&p).unwrap();
                p.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn accepts_a_real_mate_and_rejects_bad_lines() {
        let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        let line = moves(&p, "a1a8");
        assert_eq!(verify_line(&p, &line, 1, &[]), Ok(()));
        assert_eq!(verify_line(&p, &line, 2, &[]), Err(LineError::Length { want: 3, got: 1 }));
        assert_eq!(verify_line(&p, &line, -1, &[]), Err(LineError::Length { want: 2, got: 1 }));
        let not_mate = moves(&p, "a1a7");
        assert_eq!(verify_line(&p, &not_mate, 1, &[]), Err(LineError::NotMate));
        let black = pos("6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1");
        assert_eq!(verify_line(&black, &line, 1, &[]), Err(LineError::Illegal(0)));
    }

    #[test]
    fn a_mate_in_one_at_clock_100_stands() {
        // The defender never gets a turn on which to claim.
        let p = pos("k7/8/1K6/8/8/8/8/7R w - - 100 80");
        assert_eq!(verify_line(&p, &moves(&p, "h1h8"), 1, &[]), Ok(()));
    }

    #[test]
    fn rejects_fifty_move_claims() {
        // White mates in 2 (Rh2, Kb8, Rh8#), but Black to move at clock 99 may claim.
        let p = pos("k7/8/1K6/8/8/8/8/7R w - - 98 80");
        let line = moves(&p, "h1h2 a8b8 h2h8");
        assert_eq!(verify_line(&p, &line, 2, &[]), Err(LineError::FiftyMoveClaim(1)));
        let fresh = pos("k7/8/1K6/8/8/8/8/7R w - - 0 80");
        assert_eq!(verify_line(&fresh, &line, 2, &[]), Ok(()));
    }
}
