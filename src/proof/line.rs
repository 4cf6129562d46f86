//! Rebuilding the forced line of a proof from the table.
//!
//! The builder walks down from a proven node. At an OR node it follows the child with the
//! shortest known proof within `bound - 1`.
//! At an AND node every defence is mated within `bound - 1`; it collects each defence's
//! proven length and follows the longest, so the node's line is one ply longer than the
//! longest proven defence. Every length it returns is backed by proofs of all defences,
//! so the line's length is a proven mate length; when the root's length is also proven
//! shortest, the line is exactly that long (a shorter line would be a shorter mate).
//!
//! Each line built from a node is remembered for the rest of the build, by the node's
//! table key, and reused when the walk meets the node again within a bound the line fits.
//! Without it the walk is exponential where proofs are loose: an AND node whose longest
//! defence turns out shorter than its table length tries the next one, and the defences'
//! lines transpose into the same positions, which were walked again each time (a K+B+B v
//! K mate in 32 met its positions hundreds of times and ran out of budget). A remembered
//! line is a whole forced line from its node, never a link to another entry, so it stays
//! true whatever is built later.
//!
//! Lost proofs. The table forgets: a proof found cheaply because an earlier search left a
//! proven position in the table may have lost the entries below it (old entries are the
//! first replaced), and re-proving them can cost far more than the proof did. The builder
//! re-proves a missing piece with a small budget only (the node itself at an OR node,
//! which stores proofs of children to follow; the missing defence at an AND node). When
//! that fails, the piece is [`Gap::Lost`]: the builder drops the proofs on its path from
//! the table and an OR node above tries its next proven child. What is dropped was true,
//! so nothing false can come of it; the search then proves the mate again, through
//! whichever subtree is now cheapest, and the builder tries again.

use rustc_hash::FxHashMap;
use shakmaty::{Chess, Move, MoveList};

use crate::chess::game::Standing;
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::dfpn::expand::Expand;
use crate::dfpn::value::Verdict;
use crate::dfpn::{RootMoves, Solver};

/// Nodes one re-proof inside the builder may spend.
const PER_CALL_BUDGET: u64 = 100_000;

/// Positions the builder may still walk after a hard limit struck (a stop, the deadline,
/// the node limit): enough for the line of a proof the table holds whole (a K+B+B v K
/// mate in 34 over a loose proof walks 966 positions, in 1.7 ms), and few enough that a
/// stop is still answered at once (about 2 µs a position).
const AFTER_STOP_VISITS: u64 = 10_000;

/// The most moves the remembered lines of one build hold (8 MB): beyond it, lines are
/// built as before, without being remembered.
const MEMO_MOVES: usize = 1 << 20;

/// Builds forced lines within a node budget. Re-proofs obey the search's hard limits too
/// (stop, deadline, node limit): a line that needs them after a stop is not built, and
/// the driver reports the proof without it. Lines the table holds complete are built
/// without any search (mates in one are seen on the board), so they still come out after
/// a stop, within [`AFTER_STOP_VISITS`].
pub struct LineBuilder<'s, 'a, G: Expand = Chess> {
    solver: &'s mut Solver<'a, G>,
    budget: u64,
    /// Positions left to walk once a hard limit has struck.
    after_stop: u64,
    /// The lines built so far, by their node's key at the bound asked.
    built: FxHashMap<u64, Vec<Move>>,
    /// Moves held by `built`.
    built_moves: usize,
}

impl<'s, 'a, G: Expand> LineBuilder<'s, 'a, G> {
    /// A builder over `solver` that may spend `budget` nodes in all.
    pub fn new(solver: &'s mut Solver<'a, G>, budget: u64) -> Self {
        LineBuilder { solver, budget, after_stop: AFTER_STOP_VISITS, built: FxHashMap::default(), built_moves: 0 }
    }

    fn solve(&mut self, node: &Node<G>, bound: Plies) -> Verdict {
        self.solver.solve_below(node, bound, PER_CALL_BUDGET, &mut self.budget)
    }

    /// Whether the builder may search on: budget left and no hard limit struck.
    fn may_go_on(&self) -> bool {
        self.budget > 0 && !self.solver.monitor.hard_stopped()
    }

    /// Counts one position the builder expands, against its budget (and, once a hard
    /// limit has struck, against [`AFTER_STOP_VISITS`]); false when the builder must give
    /// up.
    fn visit(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        if self.solver.monitor.hard_stopped() {
            if self.after_stop == 0 {
                return false;
            }
            self.after_stop -= 1;
        }
        self.budget -= 1;
        self.solver.monitor.count(1);
        true
    }

    /// Appends to `out` a forced line from `node`, which must be proven within `bound`
    /// plies, and returns its length (at most `bound`). `root` says whether this node's
    /// moves are restricted.
    pub fn line(&mut self, node: &Node<G>, bound: Plies, root: RootMoves, out: &mut Vec<Move>) -> Result<Plies, Gap> {
        if !self.visit() {
            return Err(Gap::Limit);
        }
        // A restricted root is never met again, so only other nodes are remembered.
        let key = (root == RootMoves::All).then(|| self.solver.tree.keys.of(node, bound));
        if let Some(known) = key.and_then(|k| self.built.get(&k)).filter(|l| l.len() <= usize::from(bound.get())) {
            out.extend_from_slice(known);
            return Ok(Plies::new(known.len() as u16));
        }
        let mark = out.len();
        let length = if node.pos.turn() == self.solver.attacker() {
            self.or_line(node, bound, root, out)
        } else {
            self.and_line(node, bound, root, out)
        };
        let length = match length {
            Ok(length) => length,
            Err(gap) => {
                out.truncate(mark);
                if gap == Gap::Lost {
                    self.solver.forget_proof(node, bound);
                }
                return Err(gap);
            }
        };
        debug_assert_eq!(out.len() - mark, usize::from(length.get()), "a line is as long as it says");
        if let Some(key) = key
            && self.built_moves < MEMO_MOVES
        {
            let line = out[mark..].to_vec();
            self.built_moves += line.len();
            self.built.insert(key, line);
        }
        Ok(length)
    }

    /// The line of an OR node: the child with the shortest known proof whose line can be
    /// built. When none can (their proofs were lost), the node is proven again once,
    /// which stores proofs of children to follow; at a restricted root, where a proof of
    /// the node may rest on a move left out, the moves are re-proven one by one instead.
    fn or_line(&mut self, node: &Node<G>, bound: Plies, root: RootMoves, out: &mut Vec<Move>) -> Result<Plies, Gap> {
        let attacker = self.solver.attacker();
        // Where the loser's move may end the game, an attacker's node may be won already.
        if node.pos.wins_on_either_move() && node.pos.is_won_by(attacker) {
            return Ok(Plies::ZERO);
        }
        if bound == Plies::ZERO {
            return Err(Gap::Lost);
        }
        let mut moves = MoveList::new();
        self.solver.tree.node_moves(node, root, &mut moves);
        // A mate on the board needs no proof from the table (which may hold none: a mated
        // position has no entry of its own), and no line is shorter.
        if let Some(&m) = moves.iter().find(|&&m| node.pos.wins_by(m, attacker)) {
            out.push(m);
            return Ok(Plies::mate_in(1));
        }
        for pass in 0..2 {
            let hint = self.solver.best_move(node, bound);
            // Known proofs first (shortest first, the table's move breaking ties), then the
            // table's move and, at a restricted root, every other move, re-proven one by one.
            let mut known = Vec::new();
            let mut rest = Vec::new();
            for &m in &moves {
                let child = node.play(m);
                match self.solver.lookup(&child, bound.pred()) {
                    Some(v) if v.is_proven() => known.push((v.mate.at_most, Some(m) != hint, m, child)),
                    Some(v) if v.is_disproven() => {}
                    // The table's move too: a mate's last move, or a move just proven,
                    // may have left no entry of its own.
                    _ if root == RootMoves::Restricted || Some(m) == hint => rest.push((Some(m) != hint, m, child)),
                    _ => {}
                }
            }
            known.sort_by_key(|k| (k.0, k.1));
            rest.sort_by_key(|r| r.0);
            let candidates = known
                .into_iter()
                .map(|(p, _, m, c)| (Some(p), m, c))
                .chain(rest.into_iter().map(|(_, m, c)| (None, m, c)));
            for (proof, m, child) in candidates {
                let proof = match proof {
                    Some(p) => p,
                    None => match self.solve(&child, bound.pred()) {
                        Verdict::Proven(p) => p,
                        Verdict::Disproven(_) => continue,
                        // A move whose re-proof did not settle within its budget need not be
                        // the one that mates: the next may be, while the builder may go on.
                        Verdict::Unknown if self.may_go_on() => continue,
                        Verdict::Unknown => return Err(Gap::Limit),
                    },
                };
                out.push(m);
                match self.line(&child, proof, RootMoves::All, out) {
                    Ok(sub) => {
                        if sub < proof {
                            self.solver.record_proof(&child, sub);
                        }
                        return Ok(sub.succ());
                    }
                    Err(Gap::Lost) => out.pop(),
                    Err(Gap::Limit) => return Err(Gap::Limit),
                };
            }
            if pass == 1 || root == RootMoves::Restricted {
                break;
            }
            // No proof of a child could be followed: prove the node again.
            self.solver.forget_proof(node, bound);
            match self.solve(node, bound) {
                Verdict::Proven(_) => {}
                Verdict::Unknown if !self.may_go_on() => return Err(Gap::Limit),
                _ => break,
            }
        }
        Err(Gap::Lost)
    }

    fn and_line(&mut self, node: &Node<G>, bound: Plies, root: RootMoves, out: &mut Vec<Move>) -> Result<Plies, Gap> {
        let attacker = self.solver.attacker();
        let mut moves = MoveList::new();
        self.solver.tree.node_moves(node, root, &mut moves);
        if moves.is_empty() || node.pos.wins_on_either_move() {
            let mut all = MoveList::new();
            node.pos.moves_into(&mut all);
            match node.pos.standing(&all, attacker) {
                Standing::Won => return Ok(Plies::ZERO),
                Standing::Over => return Err(Gap::Lost),
                Standing::Open if moves.is_empty() => return Err(Gap::Lost),
                Standing::Open => {}
            }
        }
        let least = if node.pos.wins_on_either_move() { 1 } else { 2 };
        if bound < Plies::new(least) {
            return Err(Gap::Lost);
        }
        // Every defence is mated within bound - 1; collect each one's proven length.
        let mut defences = Vec::with_capacity(moves.len());
        for &m in &moves {
            let child = node.play(m);
            let proof = match self.solver.lookup(&child, bound.pred()) {
                Some(v) if v.is_proven() => v.mate.at_most,
                _ if child.pos.wins_on_either_move() && child.pos.is_won_by(attacker) => Plies::ZERO,
                _ if child.pos.winning_move(attacker).is_some() => Plies::mate_in(1),
                _ => match self.solve(&child, bound.pred()) {
                    Verdict::Proven(p) => p,
                    Verdict::Unknown if !self.may_go_on() => return Err(Gap::Limit),
                    _ => return Err(Gap::Lost),
                },
            };
            defences.push((proof, m, child));
        }
        // Follow the longest defence. If its line turns out shorter than its recorded
        // proof, that proof tightens (in the table too, so no subtree is walked twice for
        // it) and the next longest is tried.
        loop {
            let i = (0..defences.len()).max_by_key(|&i| defences[i].0).ok_or(Gap::Lost)?;
            let (proof, m, child) = &defences[i];
            let (proof, m) = (*proof, *m);
            let mark = out.len();
            out.push(m);
            let sub = self.line(&child.clone(), proof, RootMoves::All, out)?;
            if sub == proof {
                return Ok(sub.succ());
            }
            self.solver.record_proof(child, sub);
            out.truncate(mark);
            defences[i].0 = sub;
        }
    }
}

/// Why no line was built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gap {
    /// The budget ran out or a hard limit struck.
    Limit,
    /// The table lost part of the proof, and proving it again within the builder's
    /// budget did not restore it. The lost proofs are dropped from the table, so the
    /// search proves them again (or finds another mate) before the next attempt.
    Lost,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::mate_len::MateLen;
    use crate::chess::position::parse_fen;
    use crate::dfpn::monitor::{Control, Monitor};
    use crate::dfpn::{Call, Cycles, Question};
    use crate::knowledge::oracle::ChessOracle;
    use crate::proof::verify::verify_line;
    use crate::tt::TranspositionTable;
    use shakmaty::Color;

    #[test]
    fn a_proof_whose_subtree_was_lost_is_proven_again() {
        // Ra8 mates at once. The root is recorded as a mate within 21 moves while nothing
        // below it is in the table (entries lost), so the builder proves the root again
        // and follows the move that proof found.
        let root = Node::new(parse_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap());
        let tt = TranspositionTable::new(16);
        let mut monitor = Monitor::new(Control::new(), None);
        let question =
            Question { attacker: Color::White, root_moves: None, repetitions: None, oracle: &ChessOracle::default() };
        let mut solver = Solver::new(&tt, &mut monitor, &root.pos, question);
        let bound = Plies::mate_in(21);
        solver.record_proof(&root, bound);
        let mut line = Vec::new();
        let length = LineBuilder::new(&mut solver, 20_000_000).line(&root, bound, RootMoves::All, &mut line);
        assert_eq!(length, Ok(Plies::mate_in(1)));
        assert_eq!(line.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["Ra1-a8"]);
    }

    #[test]
    fn a_line_the_table_holds_is_built_after_a_stop() {
        // 1. Qf3 Kd6 2. Qd5#, proven; then the search is stopped. The mates in one at the
        // end are seen on the board, the rest is in the table: no search is needed.
        let root = Node::new(parse_fen("8/1R6/8/4k3/1K4B1/2N4Q/8/8 w - - 0 1").unwrap());
        let tt = TranspositionTable::new(1);
        let control = Control::new();
        let mut monitor = Monitor::new(std::sync::Arc::clone(&control), None);
        let question =
            Question { attacker: Color::White, root_moves: None, repetitions: None, oracle: &ChessOracle::default() };
        let mut solver = Solver::new(&tt, &mut monitor, &root.pos, question);
        let call = Call { budget: Some(100_000), root: RootMoves::All, game_root: true, cycles: Cycles::Search };
        let Verdict::Proven(proof) = solver.solve(&root, Plies::mate_in(2), call) else { panic!("not proven") };
        control.stop();
        let mut line = Vec::new();
        let length = LineBuilder::new(&mut solver, 1_000).line(&root, proof, RootMoves::All, &mut line);
        assert_eq!(length, Ok(Plies::mate_in(2)));
        verify_line(&root.pos, &line, MateLen::mate_in(2), &[]).unwrap();
        assert_eq!(line[0].to_string(), "Qh3-f3");
    }

    #[test]
    fn a_loose_proof_is_walked_once_per_position() {
        // K+B+B+P v K (a pawn beside the bishops: five men, which no exact table decides)
        // proven at a long bound (45 moves, cycles cut): the table's lengths are loose, so
        // the walk tries defence after defence, and their lines transpose. Each position's
        // line is built once, which keeps the walk within the 5,000 nodes given here.
        let root = Node::new(parse_fen("8/4k3/8/8/5B2/K7/7P/7B w - - 0 1").unwrap());
        let tt = TranspositionTable::new(64);
        let mut monitor = Monitor::new(Control::new(), None);
        let question =
            Question { attacker: Color::White, root_moves: None, repetitions: None, oracle: &ChessOracle::default() };
        let mut solver = Solver::new(&tt, &mut monitor, &root.pos, question);
        let call = Call { budget: Some(1_000_000), root: RootMoves::All, game_root: true, cycles: Cycles::Cut };
        let Verdict::Proven(proof) = solver.solve(&root, Plies::mate_in(45), call) else { panic!("not proven") };
        let mut line = Vec::new();
        let length = LineBuilder::new(&mut solver, 5_000).line(&root, proof, RootMoves::All, &mut line);
        assert_eq!(length, Ok(Plies::mate_in(41)));
        let pos = root.pos.clone();
        verify_line(&pos, &line, MateLen::from_plies(line.len()), &[]).unwrap();
    }
}
