//! Certificates of variant results: the chess extractor ([`crate::proof::certify`]) over
//! the variant solver, and the header of the variant rules (`src/proof/FORMAT.md`,
//! "Variants"), which `pnmate-check` checks with shakmaty's variant rules.

use shakmaty::fen::Fen;
use shakmaty::variant::VariantPosition;
use shakmaty::{Color, EnPassantMode, Move, MoveList, Position};

use crate::chess::game::{Game, Standing};
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::dfpn::monitor::{Control, Monitor};
use crate::dfpn::tree::{Cycles, RootMoves};
use crate::dfpn::value::{Value, Verdict};
use crate::dfpn::{Call, Question, Solver};
use crate::error::CertError;
use crate::proof::certificate::{Claim, Kind};
use crate::proof::certify::{CertLimits, Certified, Plan, Prover, Spec, assemble, build_section};
use crate::search::Outcome;
use crate::tt::Table;

type VNode = Node<VariantPosition>;

/// The variant solver as the extractor's [`Prover`].
struct VariantProver<'s, 'a> {
    solver: &'s mut Solver<'a, VariantPosition>,
}

impl Prover for VariantProver<'_, '_> {
    type Node = VNode;
    const DEFENDER_LEAF: u32 = 0;

    fn attacker(&self) -> Color {
        self.solver.attacker()
    }

    fn id(node: &VNode) -> (u64, u32) {
        (node.hash, node.pos.halfmoves())
    }

    fn turn(node: &VNode) -> Color {
        node.pos.turn()
    }

    fn moves(node: &VNode) -> MoveList {
        node.pos.legal_moves()
    }

    fn play(node: &VNode, m: Move) -> VNode {
        node.play(m)
    }

    fn end(&self, node: &VNode, moves: &MoveList) -> Option<bool> {
        match node.pos.rule_end(moves, self.attacker()) {
            Standing::Won => Some(true),
            Standing::Over => Some(false),
            Standing::Open => None,
        }
    }

    fn lookup(&self, node: &VNode, bound: Plies) -> Option<Value> {
        self.solver.lookup(node, bound)
    }

    fn best_move(&self, node: &VNode, bound: Plies) -> Option<Move> {
        self.solver.best_move(node, bound)
    }

    fn solve(&mut self, node: &VNode, bound: Plies, limit: u64, budget: &mut u64) -> Verdict {
        let before = self.solver.monitor.nodes();
        let call =
            Call { budget: Some(limit.min(*budget)), root: RootMoves::All, game_root: false, cycles: Cycles::Search };
        let v = self.solver.solve_value(node, bound, call);
        *budget = budget.saturating_sub(self.solver.monitor.nodes() - before);
        v.verdict()
    }

    fn hard_stopped(&self) -> bool {
        self.solver.monitor.hard_stopped()
    }

    fn out_of_reach(&self, node: &VNode) -> u32 {
        u32::from(node.pos.least_plies_to_win(self.attacker())).saturating_sub(1)
    }
}

/// Builds the certificate of `outcome`, a result of searching `root` (a variant's
/// position, without game history) whose proofs `tt` holds, re-searching where it lost
/// them. A win's proof section has the plies of its line (`2M - 1` or `2M`); a win proven
/// shortest carries the refutation of one ply less; "no win within N" refutes `2N`
/// plies for each side.
pub fn certify_variant(
    root: &VariantPosition,
    outcome: &Outcome,
    tt: &Table,
    limits: CertLimits,
) -> Result<Certified, CertError> {
    let variant = root.variant();
    let node = VNode::new(root.clone());
    let stm = root.turn();
    let mut monitor = Monitor::new(Control::new(), None);
    let mut budget = limits.search_nodes;
    let build = |(kind, attacker, plies): Spec| {
        let question = Question { attacker, root_moves: None, repetitions: None, tables: None };
        let mut solver = Solver::new(tt, &mut monitor, root, question);
        build_section(VariantProver { solver: &mut solver }, &node, &mut budget, limits, (kind, attacker, plies))
    };
    let fen = Fen::from_position(root, EnPassantMode::Legal).to_string();
    let (claim, attacker, plies, exact) = match outcome {
        Outcome::Mate { moves, exact, pv } => (Claim::Mate(*moves), stm, pv.len() as u32, *exact),
        Outcome::Mated { moves, exact, pv } => (Claim::Mated(*moves), !stm, pv.len() as u32, *exact),
        Outcome::NoMate { moves } => {
            let plan = Plan::NoWin([(Kind::Disproof, stm, 2 * moves), (Kind::Disproof, !stm, 2 * moves)]);
            return assemble(variant, fen, Claim::NoMate(*moves), plan, build);
        }
        Outcome::Unknown => return Err(CertError::NotRebuilt { section: "proof" }),
    };
    let shorter = (exact && plies > 1).then(|| (Kind::Disproof, attacker, plies - 1));
    assemble(variant, fen, claim, Plan::Win { proof: (Kind::Proof, attacker, plies), shorter, exact }, build)
}
