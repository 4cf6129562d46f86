//! Chess problems on the prover: a stipulation ([`stipulation`]) makes a chess position
//! a game of its own ([`game::Problem`]), which the one df-pn solver proves like a mate.
//!
//! Battle play (`#n`, `s#n`, `r#n`, `=n`, `s=n`) asks for the keys: the first moves
//! after which every defence fails within the stipulation. Help and series play ask for
//! every solution: each line of exactly the stipulated length that meets it. Both are
//! read off the solver's proofs, one child at a time, through the shared table.

pub mod game;
pub mod notation;
pub mod popeye;
pub mod stipulation;
pub mod tree;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shakmaty::{Chess, Color, Move, Position};

use crate::chess::game::Standing;
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::dfpn::monitor::{Control, Monitor};
use crate::dfpn::{Call, Cycles, Question, RootMoves, Solver};
use crate::problem::game::{Problem, is_pass};
use crate::problem::stipulation::Stipulation;
use crate::problem::tree::{FirstMove, Show, Tree};
use crate::proof::certificate::Certificate;
use crate::proof::certify::certify_problem;
use crate::search::search_thread;
use crate::tt::TranspositionTable;

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
    /// Battle play: keys, tries, threats, variations and set play as asked for.
    pub tree: Option<Tree>,
    /// Help and series play: every solution, as the prover plays it: the other side's
    /// passes in a series are in it ([`played`] leaves them out).
    pub solutions: Vec<Vec<Move>>,
    /// Whether the listing stopped at the cap on solutions.
    pub capped: bool,
    /// Nodes searched.
    pub nodes: u64,
    /// With [`ProblemLimits::certify`] and a verdict: the certificate, or why none was built.
    pub certificate: Option<Result<Certificate, String>>,
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
    /// Whether to build a certificate of the verdict (src/proof/FORMAT.md, "Problems").
    pub certify: bool,
    /// Search threads.
    pub threads: usize,
}

impl Default for ProblemLimits {
    fn default() -> Self {
        ProblemLimits { time: None, nodes: None, max_solutions: 1000, hash_mb: 64, certify: false, threads: 1 }
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

/// Replays a help or series solution (passes included, as [`Solved::solutions`] holds
/// it) by the rules of chess alone, apart from the solver: every move legal, a pass only
/// by the side that waits out a series and only out of check, in a series-help the
/// other side's one move the last, and the stipulation's goal reached at the end and
/// not before, within its length.
pub fn verify_solution(pos: &Chess, stip: Stipulation, line: &[Move]) -> Result<(), String> {
    let goal = |p: &Chess| {
        p.legal_moves().is_empty()
            && p.turn() == stip.victim()
            && p.is_check() == (stip.goal == stipulation::Goal::Mate)
    };
    if line.is_empty() || line.len() > usize::from(stip.plies()) {
        return Err(format!("{} plies, the stipulation has {}", line.len(), stip.plies()));
    }
    let mut p = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if goal(&p) {
            return Err(format!("the goal is reached before ply {}", i + 1));
        }
        let waiting = stip.series_side().is_some_and(|s| s != p.turn());
        if is_pass(m) {
            if !waiting || p.is_check() {
                return Err(format!("ply {}: a pass where none is allowed", i + 1));
            }
            p = p.swap_turn().map_err(|e| e.to_string())?;
            continue;
        }
        if waiting && !(stip.cooperative() && i + 1 == line.len()) {
            return Err(format!("ply {}: the side waiting out the series moves", i + 1));
        }
        if !p.is_legal(m) {
            return Err(format!("ply {}: an illegal move", i + 1));
        }
        p.play_unchecked(m);
    }
    if goal(&p) { Ok(()) } else { Err("the line does not end in the goal".into()) }
}

/// Checks that `pos` can carry `stip`: its side to move is the stipulation's first mover
/// (the other side in a diagram after the key).
pub fn check_setup(pos: &Chess, stip: Stipulation, postkey: bool) -> Result<(), ProblemError> {
    if postkey && !stip.battle() {
        return Err(ProblemError(format!("{stip}: play after the key (postkey) is for battle play")));
    }
    let first = if postkey { !stip.first_mover() } else { stip.first_mover() };
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
    stip: Stipulation,
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

/// What every thread of one problem's solving shares.
struct Shared<'a> {
    tt: &'a TranspositionTable,
    problem: &'a Problem,
    control: Arc<Control>,
    /// Nodes per thread.
    node_limit: Option<u64>,
    threads: usize,
}

impl Shared<'_> {
    /// Runs `work` on each of `moves` on the threads, each thread with its own solver over
    /// the shared table taking the next move; returns the results in the order of
    /// `moves` and the nodes searched.
    fn each_move<T: Send>(
        &self,
        moves: &[Move],
        work: impl Fn(&mut ProblemSolver<'_>, Move) -> T + Sync,
    ) -> (Vec<T>, u64) {
        let next = AtomicUsize::new(0);
        let nodes = AtomicU64::new(0);
        let results: Mutex<Vec<Option<T>>> = Mutex::new(moves.iter().map(|_| None).collect());
        let job = || {
            let mut monitor = Monitor::new(Arc::clone(&self.control), self.node_limit);
            let mut ps = self.solver(&mut monitor);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&m) = moves.get(i) else { break };
                let r = work(&mut ps, m);
                results.lock().expect("results")[i] = Some(r);
            }
            drop(ps);
            nodes.fetch_add(monitor.nodes(), Ordering::Relaxed);
        };
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for i in 1..self.threads.min(moves.len()) {
                // A thread that cannot be started leaves the moves to the others.
                if let Ok(h) = search_thread(&format!("pnmate-problem-{i}")).spawn_scoped(scope, job) {
                    handles.push(h);
                }
            }
            job();
            for h in handles {
                if let Err(panic) = h.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        });
        let results = results.into_inner().expect("results").into_iter().map(|r| r.expect("every move taken"));
        (results.collect(), nodes.into_inner())
    }

    /// Runs `work` on this thread with a solver of its own; returns its result and nodes.
    fn alone<T>(&self, work: impl FnOnce(&mut ProblemSolver<'_>) -> T) -> (T, u64) {
        let mut monitor = Monitor::new(Arc::clone(&self.control), self.node_limit);
        let mut ps = self.solver(&mut monitor);
        let result = work(&mut ps);
        drop(ps);
        (result, monitor.nodes())
    }

    /// A solver of the problem on this thread, counting into `monitor`.
    fn solver<'m>(&'m self, monitor: &'m mut Monitor) -> ProblemSolver<'m> {
        let stip = self.problem.stip;
        let question = Question { attacker: stip.first_mover(), root_moves: None, repetitions: None, tables: None };
        ProblemSolver { solver: Solver::new(self.tt, monitor, self.problem, question), stip }
    }
}

/// Solves `stip` from `pos` within `limits`, showing what `show` asks for in battle play.
/// With several threads each takes the next first move, all on one table.
pub fn solve_problem(pos: Chess, stip: Stipulation, limits: ProblemLimits, show: Show) -> Result<Solved, ProblemError> {
    check_setup(&pos, stip, show.postkey)?;
    let problem = Problem::new(pos, stip);
    let root = Node::new(problem.clone());
    let tt = TranspositionTable::new(limits.hash_mb.max(1));
    let control: Arc<Control> = Control::new();
    control.set_deadline(limits.time);
    let threads = limits.threads.max(1);
    let node_limit = limits.nodes.map(|n| (n / threads as u64).max(1));
    let shared = Shared { tt: &tt, problem: &problem, control, node_limit, threads };
    let plies = stip.plies() - u16::from(show.postkey);
    let moves: Vec<Move> = root.pos.legal_moves().into_iter().collect();
    let mut solved = Solved {
        verdict: Verdict::Unknown,
        keys: Vec::new(),
        tree: None,
        solutions: Vec::new(),
        capped: false,
        nodes: 0,
        certificate: None,
    };
    let verdict_of = |some: bool| if some { Verdict::Solution } else { Verdict::NoSolution };
    if show.postkey {
        // The diagram is after the key: the defender's moves, one thread.
        let (done, nodes) = shared.alone(|ps| {
            let verdict = ps.prove(&root, plies)?;
            Some((verdict, ps.play_after(&root, plies, &show, true)?))
        });
        solved.nodes = nodes;
        if let Some((verdict, play)) = done {
            solved.verdict = verdict_of(verdict);
            solved.tree = Some(Tree { postkey: Some(play), ..Tree::default() });
        }
    } else if stip.battle() {
        let (firsts, nodes) = shared.each_move(&moves, |ps, m| ps.first_move(&root, m, plies, &show));
        solved.nodes = nodes;
        let mut set_play = Some(None);
        if show.set_play {
            let (set, nodes) = shared.alone(|ps| ps.set_play(&root, plies, &show));
            solved.nodes += nodes;
            set_play = set;
        }
        if let (Some(firsts), Some(set_play)) = (firsts.into_iter().collect::<Option<Vec<_>>>(), set_play) {
            let first: Vec<FirstMove> = firsts.into_iter().flatten().collect();
            solved.keys = first.iter().filter(|f| f.refutations.is_empty()).filter_map(|f| f.attack.mv).collect();
            solved.verdict = verdict_of(!solved.keys.is_empty());
            solved.tree = Some(Tree { set_play, first, postkey: None });
        }
    } else {
        let cap = limits.max_solutions.max(1);
        let (lines, nodes) = shared.each_move(&moves, |ps, m| {
            let child = root.play(m);
            let mut out = Vec::new();
            if ps.prove(&child, plies - 1)? {
                ps.solutions(&child, plies - 1, &mut vec![m], &mut out, cap)?;
            }
            Some(out)
        });
        solved.nodes = nodes;
        if let Some(lines) = lines.into_iter().collect::<Option<Vec<_>>>() {
            let mut all: Vec<Vec<Move>> = lines.into_iter().flatten().collect();
            solved.capped = all.len() >= cap;
            all.truncate(cap);
            solved.verdict = verdict_of(!all.is_empty());
            solved.solutions = all;
        }
    }
    if limits.certify && solved.verdict != Verdict::Unknown {
        solved.certificate = Some(if show.postkey {
            Err("no certificate for play after the key".into())
        } else {
            certify_problem(&problem, solved.verdict == Verdict::Solution, u32::from(plies), &tt)
                .map(|c| c.certificate)
                .map_err(|e| e.to_string())
        });
    }
    Ok(solved)
}

/// The solving written as Popeye's English output writes a solution: each key as
/// `   1.Se8-c7 # !`, each help or series solution on a line of its own; then how it ended.
pub fn report_text(pos: &Chess, stip: Stipulation, solved: &Solved) -> String {
    let mut out = String::new();
    if let Some(tree) = &solved.tree {
        out.push_str(&notation::tree_text(pos, tree));
        out.push('\n');
    } else if stip.battle() {
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
    let result = match solved.verdict {
        Verdict::Solution => "solution",
        Verdict::NoSolution => "no solution",
        Verdict::Unknown => "unknown",
    };
    serde_json::json!({
        "stipulation": stip.to_string(),
        "result": result,
        "keys": solved.keys.iter().map(|&m| uci(m)).collect::<Vec<_>>(),
        "tree": solved.tree.as_ref().map(tree_json),
        "solutions": solved.solutions.iter().map(|l| played(l).into_iter().map(uci).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "capped": solved.capped,
        "nodes": solved.nodes,
    })
}

fn uci(m: Move) -> String {
    m.to_uci(shakmaty::CastlingMode::Standard).to_string()
}

/// A battle solution as JSON: its first moves (keys and tries) and set play.
fn tree_json(tree: &Tree) -> serde_json::Value {
    let first: Vec<_> = tree
        .first
        .iter()
        .map(|f| {
            let mut v = attack_json(&f.attack);
            v["key"] = f.refutations.is_empty().into();
            v["refutations"] = f.refutations.iter().map(|&m| uci(m)).collect::<Vec<_>>().into();
            v
        })
        .collect();
    serde_json::json!({
        "first": first,
        "set_play": tree.set_play.as_ref().map(|d| defences_json(d)),
        "postkey": tree.postkey.as_ref().map(play_json),
    })
}

fn attack_json(a: &tree::Attack) -> serde_json::Value {
    let mut v = play_json(&a.play);
    v["move"] = a.mv.map(uci).into();
    v
}

fn play_json(p: &tree::Play) -> serde_json::Value {
    serde_json::json!({
        "threat": p.threat.as_ref().map(|t| t.iter().map(attack_json).collect::<Vec<_>>()),
        "defences": defences_json(&p.defences),
    })
}

fn defences_json(defences: &[tree::Defence]) -> serde_json::Value {
    defences
        .iter()
        .map(|d| {
            serde_json::json!({
                "move": uci(d.mv),
                "refutes": d.refutes,
                "continuations": d.continuations.iter().map(attack_json).collect::<Vec<_>>(),
            })
        })
        .collect::<Vec<_>>()
        .into()
}

#[cfg(test)]
mod tests;
