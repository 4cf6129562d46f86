//! One problem's prover: the df-pn solver over the problem's game, asked whether the
//! first mover meets the stipulation from a position within so many plies, and the help
//! and series solutions read off its proofs.

use shakmaty::{Color, Move, Position};

use super::game::Problem;
use super::stipulation::Stipulation;
use crate::chess::game::Standing;
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::dfpn::monitor::Monitor;
use crate::dfpn::{Call, Cycles, Question, RootMoves, Solver};
use crate::tt::TranspositionTable;

/// The limits (node limit, deadline or stop) ran out before an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfLimits;

/// The df-pn solver of one problem, with the calls that read keys, trees and solutions
/// off its proofs (this module and `super::tree`).
pub(crate) struct ProblemSolver<'a> {
    pub(crate) solver: Solver<'a, Problem>,
    pub(crate) stip: Stipulation,
}

/// Every call asks from the position given, all moves allowed, searching cycles.
const CALL: Call = Call { budget: None, root: RootMoves::All, game_root: false, cycles: Cycles::Search };

impl<'a> ProblemSolver<'a> {
    /// The solver of `problem` over `tt`, counting into `monitor`.
    pub(crate) fn new(tt: &'a TranspositionTable, monitor: &'a mut Monitor, problem: &Problem) -> ProblemSolver<'a> {
        let stip = problem.stip;
        let attacker: Color = stip.first_mover();
        let question = Question { attacker, root_moves: None, repetitions: None, oracle: &() };
        ProblemSolver { solver: Solver::new(tt, monitor, problem, question), stip }
    }

    /// Whether the first mover meets the stipulation from `node` within `plies`.
    pub(crate) fn prove(&mut self, node: &Node<Problem>, plies: u16) -> Result<bool, OutOfLimits> {
        let v = self.solver.solve_value(node, Plies::new(plies), CALL);
        if v.is_proven() {
            Ok(true)
        } else if v.is_disproven() && !v.path_dependent {
            Ok(false)
        } else {
            Err(OutOfLimits)
        }
    }

    /// Every solution below `node` (with `plies` left), after `line`, into `out`, up to
    /// `cap`.
    pub(crate) fn solutions(
        &mut self,
        node: &Node<Problem>,
        plies: u16,
        line: &mut Vec<Move>,
        out: &mut Vec<Vec<Move>>,
        cap: usize,
    ) -> Result<(), OutOfLimits> {
        // The listing walks proven nodes without searching: the clock is read here.
        if self.solver.monitor.hard_stopped() {
            return Err(OutOfLimits);
        }
        if node.pos.stands() == Standing::Won {
            out.push(line.clone());
            return Ok(());
        }
        if plies == 0 {
            return Ok(());
        }
        for m in node.pos.legal_moves() {
            if out.len() >= cap {
                return Ok(());
            }
            let child = node.play(m);
            if self.prove(&child, plies - 1)? {
                line.push(m);
                let found = self.solutions(&child, plies - 1, line, out, cap);
                line.pop();
                found?;
            }
        }
        Ok(())
    }
}
