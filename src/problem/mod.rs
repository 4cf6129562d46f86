//! Chess problems on the prover: a stipulation ([`stipulation`]) makes a chess position
//! a game of its own ([`game::Problem`]), which the one df-pn solver proves like a mate.
//!
//! Battle play (`#n`, `s#n`, `r#n`, `=n`, `s=n`) asks for the keys: the first moves
//! after which every defence fails within the stipulation. Help and series play ask for
//! every solution: each line of exactly the stipulated length that meets it. Both are
//! read off the solver's proofs, one child at a time, through the shared table.

pub mod game;
pub mod notation;
pub mod stipulation;

use std::sync::Arc;
use std::time::Duration;

use shakmaty::{Chess, Color, Move, Position};

use crate::chess::game::Standing;
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::dfpn::monitor::{Control, Monitor};
use crate::dfpn::{Call, Cycles, Question, RootMoves, Solver};
use crate::problem::game::{Problem, is_pass};
use crate::problem::stipulation::Stipulation;
use crate::tt::Table;

/// What a problem's solving found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The stipulation can be met: the keys or solutions are listed.
    Solution,
    /// It cannot: proven.
    NoSolution,
    /// The limits ran out first.
    Unknown,
}

/// A solved problem.
#[derive(Clone, Debug)]
pub struct Solved {
    pub verdict: Verdict,
    /// Battle play: every key, in the order of the legal moves.
    pub keys: Vec<Move>,
    /// Help and series play: every solution, as the prover plays it: the other side's
    /// passes in a series are in it ([`played`] leaves them out).
    pub solutions: Vec<Vec<Move>>,
    /// Whether the listing stopped at the cap on solutions.
    pub capped: bool,
    /// Nodes searched.
    pub nodes: u64,
}

/// The limits of one problem's solving.
#[derive(Clone, Copy, Debug)]
pub struct ProblemLimits {
    pub time: Option<Duration>,
    pub nodes: Option<u64>,
    /// At most this many help or series solutions are listed.
    pub max_solutions: usize,
    /// The table's size in MB.
    pub hash_mb: usize,
}

impl Default for ProblemLimits {
    fn default() -> Self {
        ProblemLimits { time: None, nodes: None, max_solutions: 1000, hash_mb: 64 }
    }
}

/// Why a problem was not solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProblemError(pub String);

impl std::fmt::Display for ProblemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The moves of a solution that are played on the board: its passes left out.
pub fn played(line: &[Move]) -> Vec<Move> {
    line.iter().copied().filter(|&m| !is_pass(m)).collect()
}

/// Checks that `pos` can carry `stip`: its side to move is the stipulation's first mover.
pub fn check_setup(pos: &Chess, stip: Stipulation) -> Result<(), ProblemError> {
    let first = stip.first_mover();
    if pos.turn() != first {
        let side = |c: Color| if c == Color::White { "White" } else { "Black" };
        return Err(ProblemError(format!(
            "{stip}: {} moves first, but the position has {} to move",
            side(first),
            side(pos.turn())
        )));
    }
    Ok(())
}

/// One problem's solver: the df-pn solver over the problem's game, with the calls that
/// read keys and solutions off its proofs.
struct ProblemSolver<'a> {
    solver: Solver<'a, Problem>,
}

const CALL: Call = Call { budget: None, root: RootMoves::All, game_root: false, cycles: Cycles::Search };

impl ProblemSolver<'_> {
    /// The value of `node` with its stipulation's plies left (None: out of limits).
    fn prove(&mut self, node: &Node<Problem>, plies: u16) -> Option<bool> {
        let v = self.solver.solve_value(node, Plies::new(plies), CALL);
        if v.is_proven() {
            Some(true)
        } else if v.is_disproven() && !v.path_dependent {
            Some(false)
        } else {
            None
        }
    }

    /// Every solution below `node` (with `plies` left), after `line`, into `out`, up to
    /// `cap`. None when the limits ran out.
    fn solutions(
        &mut self,
        node: &Node<Problem>,
        plies: u16,
        line: &mut Vec<Move>,
        out: &mut Vec<Vec<Move>>,
        cap: usize,
    ) -> Option<()> {
        if node.pos.stands() == Standing::Won {
            out.push(line.clone());
            return Some(());
        }
        if plies == 0 {
            return Some(());
        }
        for m in node.pos.legal_moves() {
            if out.len() >= cap {
                return Some(());
            }
            let child = node.play(m);
            if self.prove(&child, plies - 1)? {
                line.push(m);
                let found = self.solutions(&child, plies - 1, line, out, cap);
                line.pop();
                found?;
            }
        }
        Some(())
    }
}

/// Solves `stip` from `pos` within `limits`.
pub fn solve_problem(pos: Chess, stip: Stipulation, limits: ProblemLimits) -> Result<Solved, ProblemError> {
    check_setup(&pos, stip)?;
    let problem = Problem::new(pos, stip);
    let root = Node::new(problem.clone());
    let tt = Table::new(limits.hash_mb.max(1));
    let control: Arc<Control> = Control::new();
    control.set_deadline(limits.time);
    let mut monitor = Monitor::new(control, limits.nodes);
    let question = Question { attacker: stip.first_mover(), root_moves: None, repetitions: None, tables: None };
    let mut ps = ProblemSolver { solver: Solver::new(&tt, &mut monitor, &problem, question) };
    let plies = stip.plies();
    let mut solved =
        Solved { verdict: Verdict::Unknown, keys: Vec::new(), solutions: Vec::new(), capped: false, nodes: 0 };
    match ps.prove(&root, plies) {
        None => {}
        Some(false) => solved.verdict = Verdict::NoSolution,
        Some(true) if stip.battle() => {
            let mut keys = Vec::new();
            let mut complete = true;
            for m in root.pos.legal_moves() {
                match ps.prove(&root.play(m), plies - 1) {
                    Some(true) => keys.push(m),
                    Some(false) => {}
                    None => complete = false,
                }
            }
            solved.keys = keys;
            solved.verdict = if complete { Verdict::Solution } else { Verdict::Unknown };
        }
        Some(true) => {
            let mut out = Vec::new();
            let cap = limits.max_solutions.max(1);
            let complete = ps.solutions(&root, plies, &mut Vec::new(), &mut out, cap).is_some();
            solved.capped = out.len() >= cap;
            solved.solutions = out;
            solved.verdict = if complete { Verdict::Solution } else { Verdict::Unknown };
        }
    }
    drop(ps);
    solved.nodes = monitor.nodes();
    Ok(solved)
}

/// The solving written as Popeye's English output writes a solution: each key as
/// `   1.Se8-c7 # !`, each help or series solution on a line of its own; then how it ended.
pub fn report_text(pos: &Chess, stip: Stipulation, solved: &Solved) -> String {
    let mut out = String::new();
    if stip.battle() {
        for &key in &solved.keys {
            out.push_str(&format!("   1.{} !\n", notation::move_text(pos, key)));
        }
    } else {
        for line in &solved.solutions {
            out.push_str(&notation::line_text(pos, line, stip.series_side().is_some(), stip.half));
            out.push('\n');
        }
    }
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let summary = match solved.verdict {
        Verdict::Solution if stip.battle() => format!("{stip}: {}", count(solved.keys.len(), "key")),
        Verdict::Solution if solved.capped => {
            format!(
                "{stip}: {}, the cap (--max-solutions); there may be more",
                count(solved.solutions.len(), "solution")
            )
        }
        Verdict::Solution => format!("{stip}: {}", count(solved.solutions.len(), "solution")),
        Verdict::NoSolution => format!("{stip}: no solution"),
        Verdict::Unknown => format!("{stip}: unknown (the limits ran out; what is listed is proven)"),
    };
    out.push_str(&format!("{summary}, {} nodes\n", solved.nodes));
    out
}

/// The solving as one JSON object (fields in docs/problems.md).
pub fn report_json(stip: Stipulation, solved: &Solved) -> serde_json::Value {
    let uci = |m: &Move| m.to_uci(shakmaty::CastlingMode::Standard).to_string();
    let result = match solved.verdict {
        Verdict::Solution => "solution",
        Verdict::NoSolution => "no solution",
        Verdict::Unknown => "unknown",
    };
    serde_json::json!({
        "stipulation": stip.to_string(),
        "result": result,
        "keys": solved.keys.iter().map(uci).collect::<Vec<_>>(),
        "solutions": solved.solutions.iter().map(|l| played(l).iter().map(uci).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "capped": solved.capped,
        "nodes": solved.nodes,
    })
}

#[cfg(test)]
mod tests;
