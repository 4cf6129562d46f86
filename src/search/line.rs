//! Rebuilding the forced line of a proof from the table.
//!
//! The builder walks down from a proven node. At an OR node it follows the child with the
//! shortest known proof within `bound - 1` (re-proving children whose entries were lost).
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

use rustc_hash::FxHashMap;
use shakmaty::{Move, Position};

use super::dfpn::{RootMoves, Solver};
use super::mate_len::Plies;
use super::node::Node;
use super::value::Verdict;

/// Nodes one re-proof inside the builder may spend.
const PER_CALL_BUDGET: u64 = 100_000;

/// The most moves the remembered lines of one build hold (8 MB): beyond it, lines are
/// built as before, without being remembered.
const MEMO_MOVES: usize = 1 << 20;

/// Builds forced lines within a node budget. Re-proofs obey the search's hard limits too
/// (stop, deadline, node limit): a line that needs them after a stop is not built, and
/// the driver reports the proof without it. Lines the table holds complete are built
/// without any search, so they still come out after a stop.
pub struct LineBuilder<'s, 'a> {
    solver: &'s mut Solver<'a>,
    budget: u64,
    /// The lines built so far, by their node's key at the bound asked.
    built: FxHashMap<u64, Vec<Move>>,
    /// Moves held by `built`.
    built_moves: usize,
}

impl<'s, 'a> LineBuilder<'s, 'a> {
    /// A builder over `solver` that may spend `budget` nodes in all.
    pub fn new(solver: &'s mut Solver<'a>, budget: u64) -> Self {
        LineBuilder { solver, budget, built: FxHashMap::default(), built_moves: 0 }
    }

    fn solve(&mut self, node: &Node, bound: Plies) -> Verdict {
        self.solver.solve_below(node, bound, PER_CALL_BUDGET, &mut self.budget)
    }

    /// Whether the builder may search on: budget left and no hard limit struck.
    fn may_go_on(&self) -> bool {
        self.budget > 0 && !self.solver.monitor.hard_stopped()
    }

    /// Counts one position the builder expands, against its budget and the search's
    /// limits; false when the builder must give up.
    fn visit(&mut self) -> bool {
        if !self.may_go_on() {
            return false;
        }
        self.budget -= 1;
        self.solver.monitor.count(1);
        true
    }

    /// Appends to `out` a forced line from `node`, which must be proven within `bound`
    /// plies, and returns its length (at most `bound`). None when the budget ran out or a
    /// hard limit struck. `root` says whether this node's moves are restricted.
    pub fn line(&mut self, node: &Node, bound: Plies, root: RootMoves, out: &mut Vec<Move>) -> Option<Plies> {
        if !self.visit() {
            return None;
        }
        // A restricted root is never met again, so only other nodes are remembered.
        let key = (root == RootMoves::All).then(|| self.solver.keys.of(node, bound));
        if let Some(known) = key.and_then(|k| self.built.get(&k)).filter(|l| l.len() <= usize::from(bound.get())) {
            out.extend_from_slice(known);
            return Some(Plies::new(known.len() as u16));
        }
        let mark = out.len();
        let length = if node.pos.turn() == self.solver.attacker() {
            self.or_line(node, bound, root, out)
        } else {
            self.and_line(node, bound, root, out)
        }?;
        debug_assert_eq!(out.len() - mark, usize::from(length.get()), "a line is as long as it says");
        if let Some(key) = key
            && self.built_moves < MEMO_MOVES
        {
            let line = out[mark..].to_vec();
            self.built_moves += line.len();
            self.built.insert(key, line);
        }
        Some(length)
    }

    fn or_line(&mut self, node: &Node, bound: Plies, root: RootMoves, out: &mut Vec<Move>) -> Option<Plies> {
        if bound == Plies::ZERO {
            return None;
        }
        let moves = self.solver.node_moves(node, root);
        let hint = self.solver.best_move(node, bound);
        // Known proofs first (shortest first, the table's move breaking ties), then the rest.
        let mut known = Vec::new();
        let mut rest = Vec::new();
        for &m in &moves {
            let child = node.play(m);
            match self.solver.lookup(&child, bound.pred()) {
                Some(v) if v.is_proven() => known.push((v.mate.at_most, Some(m) != hint, m, child)),
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
                None => match self.solve(&child, bound.pred()) {
                    Verdict::Proven(p) => p,
                    Verdict::Disproven(_) => continue,
                    // A move whose re-proof did not settle within its budget need not be
                    // the one that mates: the next may be, while the builder may go on.
                    Verdict::Unknown if self.may_go_on() => continue,
                    Verdict::Unknown => return None,
                },
            };
            let mark = out.len();
            out.push(m);
            match self.line(&child, proof, RootMoves::All, out) {
                Some(sub) => {
                    if sub < proof {
                        self.solver.record_proof(&child, sub);
                    }
                    return Some(sub.succ());
                }
                None => {
                    out.truncate(mark);
                    return None;
                }
            }
        }
        None
    }

    fn and_line(&mut self, node: &Node, bound: Plies, root: RootMoves, out: &mut Vec<Move>) -> Option<Plies> {
        let moves = self.solver.node_moves(node, root);
        if moves.is_empty() {
            return node.pos.is_check().then_some(Plies::ZERO);
        }
        if bound < Plies::new(2) {
            return None;
        }
        // Every defence is mated within bound - 1; collect each one's proven length.
        let mut defences = Vec::with_capacity(moves.len());
        for &m in &moves {
            let child = node.play(m);
            let proof = match self.solver.lookup(&child, bound.pred()) {
                Some(v) if v.is_proven() => v.mate.at_most,
                _ => match self.solve(&child, bound.pred()) {
                    Verdict::Proven(p) => p,
                    _ => return None,
                },
            };
            defences.push((proof, m, child));
        }
        // Follow the longest defence. If its line turns out shorter than its recorded
        // proof, that proof tightens (in the table too, so no subtree is walked twice for
        // it) and the next longest is tried.
        loop {
            let i = (0..defences.len()).max_by_key(|&i| defences[i].0)?;
            let (proof, m, child) = &defences[i];
            let (proof, m) = (*proof, *m);
            let mark = out.len();
            out.push(m);
            let sub = match self.line(&child.clone(), proof, RootMoves::All, out) {
                Some(sub) => sub,
                None => {
                    out.truncate(mark);
                    return None;
                }
            };
            if sub == proof {
                return Some(sub.succ());
            }
            self.solver.record_proof(child, sub);
            out.truncate(mark);
            defences[i].0 = sub;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use crate::search::dfpn::{Call, Cycles, Question};
    use crate::search::mate_len::MateLen;
    use crate::search::monitor::{Control, Monitor};
    use crate::search::verify::verify_line;
    use crate::tt::Table;
    use shakmaty::Color;

    #[test]
    fn a_move_whose_re_proof_is_unknown_does_not_end_the_line() {
        // Ra8 mates at once. The root is recorded as a mate within 21 moves while nothing
        // below it is in the table (entries lost), so the builder re-proves the moves in
        // generation order; the moves before Ra8 are neither mates nor disprovable within
        // a re-proof's budget at that bound. The builder must go on to Ra8.
        let root = Node::new(parse_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap());
        let tt = Table::new(16);
        let mut monitor = Monitor::new(Control::new(), None);
        let question = Question { attacker: Color::White, root_moves: None, repetitions: None };
        let mut solver = Solver::new(&tt, &mut monitor, question);
        let bound = Plies::mate_in(21);
        solver.record_proof(&root, bound);
        let mut line = Vec::new();
        let length = LineBuilder::new(&mut solver, 20_000_000).line(&root, bound, RootMoves::All, &mut line);
        assert_eq!(length, Some(Plies::mate_in(1)));
        assert_eq!(line.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["Ra1-a8"]);
    }

    #[test]
    fn a_loose_proof_is_walked_once_per_position() {
        // K+B+B v K proven at a long bound (45 moves, cycles cut): the table's lengths are
        // loose, so the walk tries defence after defence, and their lines transpose. Each
        // position's line is built once: 2,330 nodes here, where walking them again cost
        // 19,685.
        let root = Node::new(parse_fen("8/4k3/8/8/5B2/K7/8/7B w - - 0 1").unwrap());
        let tt = Table::new(64);
        let mut monitor = Monitor::new(Control::new(), None);
        let question = Question { attacker: Color::White, root_moves: None, repetitions: None };
        let mut solver = Solver::new(&tt, &mut monitor, question);
        let call = Call { budget: Some(1_000_000), root: RootMoves::All, game_root: true, cycles: Cycles::Cut };
        let Verdict::Proven(proof) = solver.solve(&root, Plies::mate_in(45), call) else { panic!("not proven") };
        let mut line = Vec::new();
        let length = LineBuilder::new(&mut solver, 5_000).line(&root, proof, RootMoves::All, &mut line);
        assert_eq!(length, Some(Plies::mate_in(31)));
        let pos = root.pos.clone();
        verify_line(&pos, &line, MateLen::from_plies(line.len()), &[]).unwrap();
    }
}
