//! A help or series solution replayed by the rules of chess alone, apart from the solver
//! (through the one replay loop of [`crate::proof::verify`]).

use shakmaty::{Chess, Move, Position};

use super::game::is_pass;
use super::stipulation::{Goal, Stipulation};
use crate::error::SolutionError;
use crate::proof::verify::{Replay, replay};

/// The moves of a solution that are played on the board: its passes left out.
pub fn played(line: &[Move]) -> Vec<Move> {
    line.iter().copied().filter(|&m| !is_pass(m)).collect()
}

/// Replays a help or series solution (passes included, as [`Solved::solutions`] holds
/// it) by the rules of chess alone, apart from the solver: every move legal, a pass only
/// by the side that waits out a series and only out of check, in a series-help the
/// other side's one move the last, and the stipulation's goal reached at the end and
/// not before, within its length.
pub fn verify_solution(pos: &Chess, stip: Stipulation, line: &[Move]) -> Result<(), SolutionError> {
    if line.is_empty() || line.len() > usize::from(stip.plies()) {
        return Err(SolutionError::Length { got: line.len(), max: stip.plies() });
    }
    replay(pos, line, &mut Solution { stip, len: line.len() })
}

/// The rules a help or series solution is replayed by (see [`verify_solution`]).
struct Solution {
    stip: Stipulation,
    /// Plies of the line.
    len: usize,
}

impl Solution {
    fn goal(&self, p: &Chess) -> bool {
        p.legal_moves().is_empty() && p.turn() == self.stip.victim() && p.is_check() == (self.stip.goal == Goal::Mate)
    }
}

impl Replay<Chess> for Solution {
    type Error = SolutionError;

    fn check(&mut self, ply: usize, p: &Chess, m: Move) -> Result<(), SolutionError> {
        if self.goal(p) {
            return Err(SolutionError::Early(ply + 1));
        }
        let waiting = self.stip.series_side().is_some_and(|s| s != p.turn());
        if is_pass(m) {
            return if !waiting || p.is_check() { Err(SolutionError::Pass(ply + 1)) } else { Ok(()) };
        }
        if waiting && !(self.stip.cooperative() && ply + 1 == self.len) {
            return Err(SolutionError::Waiting(ply + 1));
        }
        if !p.is_legal(m) {
            return Err(SolutionError::Illegal(ply + 1));
        }
        Ok(())
    }

    fn play(&mut self, p: &mut Chess, m: Move) {
        if is_pass(m) {
            // Out of check (checked): the other side to move is a legal position.
            *p = p.clone().swap_turn().expect("a pass out of check");
        } else {
            p.play_unchecked(m);
        }
    }

    fn end(&mut self, p: &Chess) -> Result<(), SolutionError> {
        if self.goal(p) { Ok(()) } else { Err(SolutionError::NoGoal) }
    }
}
