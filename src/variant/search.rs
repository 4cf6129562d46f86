//! The variant prover's driver: which questions to ask the solver, in which order, and
//! the forced lines of what it proves.
//!
//! Two questions are asked about the root, as in chess: "does the side to move win?" and
//! "does it lose?". Each round asks each open question, with a node budget that doubles
//! every round:
//! - before a win is found, at the *near* bound (the smallest rung of [`LADDER`] not yet
//!   disproven, cycles searched, so that its disproof is general) and at a *far* bound
//!   some rungs up ([`VariantGuide::far_rungs`]) or the cap (cycles cut: it only looks
//!   for wins);
//! - once a win of `P` plies is proven, at `P - 1` until that is disproven, which makes
//!   the last win the proven shortest.
//!
//! A proof becomes a line through the table's proofs ([`LineBuilder`]): the attacker's
//! shortest proven move, and at each defender turn the reply with the longest proven win
//! against it, lengths taken from the proofs themselves, so the line's length is a proven
//! bound. The line is replayed with shakmaty's rules ([`verify_variant_line`]) before it
//! is reported.

use std::time::Duration;

use rustc_hash::FxHashMap;
use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{Color, Move, Position};

use crate::chess::game::{Game, Standing};
use crate::chess::mate_len::{MateBound, MateLen, Plies};
use crate::chess::node::Node;
use crate::chess::rules::{Repetitions, can_claim_fifty};
use crate::dfpn::monitor::Monitor;
use crate::dfpn::tree::{Cycles, RootMoves};
use crate::dfpn::{Call, Question as Ask, Solver};
use crate::knowledge::variants::VariantGuide;
use crate::search::{Event, Outcome, Stats};
use crate::tt::Table;
use crate::variant::game::hash;

type VNode = Node<VariantPosition>;

/// The bounds, in plies, the near question climbs.
const LADDER: [u16; 24] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64, 80, 100, 128, 160, 200];

/// Node budget of each question in the first round; doubled every round.
const FIRST_BUDGET: u64 = 20_000;

/// Nodes the line builder may spend re-proving positions whose proofs left the table.
const LINE_BUDGET: u64 = 2_000_000;

/// The most positions the line builder visits (its search of the proof tree).
const LINE_STEPS: usize = 200_000;

/// What the caller asks of a variant search.
#[derive(Clone, Debug, Default)]
pub struct VariantParams {
    /// Win bound in moves; None: analysis, up to the longest bound.
    pub mate: Option<MateBound>,
    /// Hashes of the game's earlier positions that may recur, oldest first.
    pub history: Vec<u64>,
}

/// One question: does `attacker` win?
struct Question {
    attacker: Color,
    /// No win in fewer plies than this (proven, general).
    at_least: Plies,
    /// The shortest proven win so far, with its line.
    proven: Option<(Plies, Vec<Move>)>,
    /// A proof whose line could not be built yet.
    unshown: Option<Plies>,
}

impl Question {
    /// The shortest win proven so far, its line shown or not.
    fn shortest(&self) -> Option<Plies> {
        self.proven.as_ref().map(|(p, _)| *p).or(self.unshown)
    }

    fn settled(&self, cap: Plies) -> bool {
        match &self.proven {
            Some((p, _)) => self.at_least >= *p,
            None => self.at_least > cap,
        }
    }
}

/// A search of one variant position.
pub struct VariantSearch<'a> {
    root: VNode,
    variant: Variant,
    params: VariantParams,
    repetitions: Option<Repetitions>,
    tt: &'a Table,
    monitor: &'a mut Monitor,
    events: &'a mut dyn FnMut(Event),
    seldepth: u32,
}

impl<'a> VariantSearch<'a> {
    /// Prepares a search of `root`; `events` receives every proven win and disproof.
    pub fn new(
        root: &VariantPosition,
        params: VariantParams,
        tt: &'a Table,
        monitor: &'a mut Monitor,
        events: &'a mut dyn FnMut(Event),
    ) -> VariantSearch<'a> {
        let root = VNode::new(root.clone());
        let repetitions = Repetitions::new(root.hash, &params.history);
        let variant = root.pos.variant();
        VariantSearch { root, variant, params, repetitions, tt, monitor, events, seldepth: 0 }
    }

    fn stats(&self, depth: Plies) -> Stats {
        Stats::now(self.monitor, self.tt, u32::from(depth.get()), self.seldepth, 0)
    }

    /// The longest bound asked, in plies.
    fn cap(&self) -> Plies {
        let moves = self.params.mate.map_or(MateBound::LONGEST.moves(), MateBound::moves);
        Plies::new((2 * moves).min(u32::from(Plies::MAX_BOUND.get())) as u16)
    }

    /// Runs the search to a settled answer or a limit; reports as it goes.
    pub fn run(mut self) -> Outcome {
        let cap = self.cap();
        let turn = self.root.pos.turn();
        let mut questions =
            [turn, !turn].map(|attacker| Question { attacker, at_least: Plies::new(1), proven: None, unshown: None });
        let mut budget = FIRST_BUDGET;
        loop {
            for q in questions.iter_mut() {
                if !q.settled(cap) && !self.monitor.hard_stopped() {
                    self.ask(q, cap, budget);
                }
            }
            let [win, loss] = &questions;
            let done = win.proven.is_some() && win.settled(cap)
                || loss.proven.is_some() && loss.settled(cap) && win.settled(cap)
                || win.settled(cap) && loss.settled(cap);
            if done || self.monitor.hard_stopped() {
                break;
            }
            budget = budget.saturating_mul(2);
        }
        self.outcome(&questions, cap)
    }

    /// One round of one question.
    fn ask(&mut self, q: &mut Question, cap: Plies, budget: u64) {
        // Progress reports show the bound that can end the search: the near bound, or the
        // bound a found win is being tightened to.
        let shown = q.shortest().map_or(q.at_least, |p| Plies::new(p.get() - 1));
        self.monitor.control().publish_depth(u32::from(shown.min(cap).get()), self.seldepth);
        let tt = self.tt;
        let ask = Ask { attacker: q.attacker, root_moves: None, repetitions: self.repetitions.as_ref(), tables: None };
        let mut solver = Solver::new(tt, self.monitor, &self.root.pos, ask);
        let mut proofs = Vec::new();
        match q.shortest() {
            Some(p) => {
                // Shorter than the shortest so far, or proven shortest.
                let shorter = Plies::new(p.get() - 1);
                let v = solver.solve_value(&self.root, shorter, call(Some(budget), Cycles::Search, true));
                if v.is_proven() {
                    proofs.push(v.mate.at_most);
                } else if v.is_disproven() && !v.path_dependent {
                    q.at_least = q.at_least.max(v.mate.at_least);
                }
                if q.unshown.is_some() {
                    proofs.push(p);
                }
            }
            None => {
                let near_index = LADDER.iter().position(|&b| Plies::new(b) >= q.at_least).unwrap_or(LADDER.len() - 1);
                let near = Plies::new(LADDER[near_index]).min(cap);
                let far_index = near_index + VariantGuide::new(self.variant, q.attacker).far_rungs();
                let far = LADDER.get(far_index).map_or(cap, |&b| Plies::new(b).min(cap));
                let v = solver.solve_value(&self.root, near, call(Some(budget), Cycles::Search, true));
                if v.is_proven() {
                    proofs.push(v.mate.at_most);
                } else {
                    if v.is_disproven() && !v.path_dependent {
                        q.at_least = q.at_least.max(v.mate.at_least);
                    }
                    if far > near && !solver.monitor.hard_stopped() {
                        let v = solver.solve_value(&self.root, far, call(Some(budget), Cycles::Cut, true));
                        if v.is_proven() {
                            proofs.push(v.mate.at_most);
                        }
                    }
                }
            }
        }
        self.seldepth = self.seldepth.max(solver.seldepth as u32);
        if let Some(&p) = proofs.iter().min() {
            let mut builder = LineBuilder::new(solver);
            match builder.build(&self.root, p) {
                Some((length, moves))
                    if verify_variant_line(&self.root.pos, q.attacker, &moves, &self.params.history) =>
                {
                    let length = Plies::new(length);
                    if q.proven.as_ref().is_none_or(|(best, _)| length < *best) {
                        let exact = q.at_least >= length;
                        let mate = mate_len(q.attacker == self.root.pos.turn(), length);
                        let stats = self.stats(length);
                        (self.events)(Event::Mate { mate, exact, pv: moves.clone(), stats });
                        q.proven = Some((length, moves));
                    }
                    q.unshown = None;
                }
                _ => q.unshown = Some(q.unshown.map_or(p, |u| u.min(p))),
            }
        }
    }

    /// The search's answer from its questions.
    fn outcome(&mut self, questions: &[Question; 2], cap: Plies) -> Outcome {
        let [win, loss] = questions;
        if let Some((p, pv)) = &win.proven {
            return Outcome::Mate { moves: moves(*p), exact: win.at_least >= *p, pv: pv.clone() };
        }
        if let Some((p, pv)) = &loss.proven {
            return Outcome::Mated { moves: moves(*p), exact: loss.at_least >= *p, pv: pv.clone() };
        }
        if let Some(p) = win.unshown.or(loss.unshown) {
            let mate = mate_len(win.unshown.is_some(), p);
            let stats = self.stats(p);
            (self.events)(Event::MateUnshown { mate, first: None, stats });
        }
        if win.at_least > cap && loss.at_least > cap {
            let within = moves(cap);
            let stats = self.stats(cap);
            (self.events)(Event::NoMate { moves: within, stats });
            return Outcome::NoMate { moves: within };
        }
        Outcome::Unknown
    }
}

/// A call of the solver at the root (`game_root`) or below it.
fn call(budget: Option<u64>, cycles: Cycles, game_root: bool) -> Call {
    Call { budget, root: RootMoves::All, game_root, cycles }
}

/// The moves of a win of `plies` plies: its line has `2M - 1` or `2M` plies.
fn moves(plies: Plies) -> u32 {
    u32::from(plies.get()).div_ceil(2)
}

/// A win of `plies` plies as UCI scores it, from the side to move's view.
fn mate_len(side_to_move_wins: bool, plies: Plies) -> MateLen {
    if side_to_move_wins { MateLen::mate_in(moves(plies)) } else { MateLen::mated_in(moves(plies)) }
}

/// A node's place on a line: its proven length, the move played and the child's bound.
type Step = (u16, Move, u16);

/// Builds forced lines from the table's proofs. The length it gives a node is a proven
/// bound: at an attacker's node, one plus that of the child it plays; at a defender's
/// node, one plus the longest of every reply's, where a reply it does not follow is
/// bounded by its own proof. A proof that has left the table is searched again.
struct LineBuilder<'s> {
    solver: Solver<'s, VariantPosition>,
    /// Per position and bound: the proven length, the move and the child's bound.
    memo: FxHashMap<(u64, u16), Option<Step>>,
    budget: u64,
    steps: usize,
}

impl<'s> LineBuilder<'s> {
    fn new(solver: Solver<'s, VariantPosition>) -> Self {
        LineBuilder { solver, memo: FxHashMap::default(), budget: LINE_BUDGET, steps: 0 }
    }

    /// The line of a win proven within `bound` plies from `root`: its length and moves.
    fn build(&mut self, root: &VNode, bound: Plies) -> Option<(u16, Vec<Move>)> {
        let length = self.length(root, bound.get())?;
        let (mut node, mut r, mut line) = (root.clone(), bound.get(), Vec::new());
        while let Some(Some((_, m, child_r))) = self.memo.get(&(node.hash, r)).copied() {
            line.push(m);
            node = node.play(m);
            r = child_r;
        }
        (line.len() == usize::from(length)).then_some((length, line))
    }

    /// A proven length of the win from `node` within `r` plies (None: no proof found).
    fn length(&mut self, node: &VNode, r: u16) -> Option<u16> {
        if let Some(known) = self.memo.get(&(node.hash, r)) {
            return known.map(|(l, _, _)| l);
        }
        self.steps += 1;
        if self.steps > LINE_STEPS || self.solver.monitor.hard_stopped() {
            return None;
        }
        let moves = node.pos.legal_moves();
        match node.pos.standing(&moves, self.solver.attacker()) {
            Standing::Won => return Some(0),
            Standing::Over => return None,
            Standing::Open if r == 0 => return None,
            Standing::Open => {}
        }
        let within = Plies::new(r - 1);
        let proven = |this: &mut Self, child: &VNode| -> Option<u16> {
            let v = this.solver.lookup(child, within).filter(|v| v.is_proven()).or_else(|| {
                let spend = this.budget.min(LINE_BUDGET / 4);
                let before = this.solver.monitor.nodes();
                let v = this.solver.solve_value(child, within, call(Some(spend), Cycles::Cut, false));
                this.budget = this.budget.saturating_sub(this.solver.monitor.nodes() - before);
                v.is_proven().then_some(v)
            })?;
            Some(v.mate.at_most.get())
        };
        let or = node.pos.turn() == self.solver.attacker();
        let result = if or {
            // The attacker's moves with a proof in the table, shortest first.
            let mut wins: Vec<(u16, Move, VNode)> = moves
                .iter()
                .filter_map(|&m| {
                    let child = node.play(m);
                    let v = self.solver.lookup(&child, within).filter(|v| v.is_proven())?;
                    Some((v.mate.at_most.get(), m, child))
                })
                .collect();
            if wins.is_empty() {
                // The children's proofs left the table: take the move the node's own proof
                // records, if it still holds, and prove its child again.
                if !self.solver.lookup(node, Plies::new(r)).is_some_and(|v| v.is_proven()) {
                    return None;
                }
                if let Some(m) = self.solver.best_move(node, Plies::new(r)) {
                    let child = node.play(m);
                    if let Some(l) = proven(self, &child) {
                        wins.push((l, m, child));
                    }
                }
            }
            wins.sort_by_key(|w| w.0);
            wins.into_iter().find_map(|(l, m, child)| {
                let sub = self.length(&child, l)?;
                Some((sub + 1, m, l))
            })
        } else {
            let mut replies = Vec::with_capacity(moves.len());
            for &m in &moves {
                let child = node.play(m);
                let l = proven(self, &child)?;
                replies.push((l, m, child));
            }
            replies.sort_by_key(|w| std::cmp::Reverse(w.0));
            let mut best: Option<Step> = None;
            for (l, m, child) in replies {
                if best.is_some_and(|b| b.0 > l) {
                    break;
                }
                let sub = self.length(&child, l)?;
                if best.is_none_or(|b| sub + 1 > b.0) {
                    best = Some((sub + 1, m, l));
                }
            }
            best
        };
        self.memo.insert((node.hash, r), result);
        result.map(|(l, _, _)| l)
    }
}

/// Replays `line` from `pos` with shakmaty's rules: every move legal, the game going on
/// until its last move and won by `attacker` there, and no draw the defender could
/// claim on the way (the 50-move rule, or a third occurrence counting the game's
/// `history`).
pub fn verify_variant_line(pos: &VariantPosition, attacker: Color, line: &[Move], history: &[u64]) -> bool {
    let mut pos = pos.clone();
    let mut seen: FxHashMap<u64, u32> = FxHashMap::default();
    for &h in history {
        *seen.entry(h).or_default() += 1;
    }
    // A game that ends before the last move fails the next move's test.
    for &m in line {
        let moves = pos.legal_moves();
        if pos.standing(&moves, attacker) != Standing::Open || !moves.contains(&m) {
            return false;
        }
        let count = seen.entry(hash(&pos)).or_default();
        *count += 1;
        if pos.turn() != attacker && (*count >= 3 || can_claim_fifty(&pos, &moves)) {
            return false;
        }
        pos.play_unchecked(m);
    }
    !line.is_empty() && pos.standing(&pos.legal_moves(), attacker) == Standing::Won
}

/// Proves what it can about `pos` of its variant within `limit` (None: until the search
/// settles) and `nodes`; for tests and the command line.
pub fn solve_variant(
    pos: &VariantPosition,
    mate: Option<MateBound>,
    limit: Option<Duration>,
    nodes: Option<u64>,
    hash_mb: usize,
) -> Outcome {
    let tt = Table::new(hash_mb);
    let control = crate::dfpn::monitor::Control::new();
    control.set_deadline(limit);
    let mut monitor = Monitor::new(control, nodes);
    let mut events = |_e: Event| {};
    VariantSearch::new(pos, VariantParams { mate, history: Vec::new() }, &tt, &mut monitor, &mut events).run()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::game::parse_variant_fen;

    fn outcome(variant: Variant, fen: &str) -> Outcome {
        let pos = parse_variant_fen(variant, fen).unwrap();
        solve_variant(&pos, None, None, Some(5_000_000), 16)
    }

    fn replays(variant: Variant, fen: &str, o: &Outcome) -> bool {
        let pos = parse_variant_fen(variant, fen).unwrap();
        match o {
            Outcome::Mate { pv, .. } => verify_variant_line(&pos, pos.turn(), pv, &[]),
            Outcome::Mated { pv, .. } => verify_variant_line(&pos, !pos.turn(), pv, &[]),
            _ => false,
        }
    }

    #[test]
    fn shortest_wins_are_proven_with_lines_that_replay() {
        for (variant, fen, moves) in [
            (Variant::KingOfTheHill, "7k/8/8/8/8/8/8/K7 w - - 0 1", 3),
            (Variant::Antichess, "8/8/8/8/8/8/1p6/2R5 w - - 0 1", 1),
            (Variant::Atomic, "4k3/5p2/8/7Q/8/8/8/4K3 w - - 0 1", 1),
            (Variant::ThreeCheck, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1 +2+0", 1),
        ] {
            let o = outcome(variant, fen);
            assert!(matches!(o, Outcome::Mate { moves: m, exact: true, .. } if m == moves), "{variant:?} {fen}: {o:?}");
            assert!(replays(variant, fen, &o), "{variant:?} {fen}: {o:?}");
        }
    }
}
