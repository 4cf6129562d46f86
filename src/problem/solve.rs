//! Solving one problem: the keys and trees of battle play, every solution of help and
//! series play, each read off the prover's proofs, on one or more threads over one table.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::{Chess, Color, Move, Position, Square};

use super::certify::certify_problem;
use super::game::Problem;
use super::prover::{OutOfLimits, ProblemSolver};
use super::stipulation::{Play, Stipulation};
use super::tree::{FirstMove, Show, Tree};
use crate::chess::node::Node;
use crate::dfpn::monitor::{Control, Monitor};
use crate::error::{CertError, ProblemError};
use crate::jobs::run_jobs;
use crate::limits::Budget;
use crate::proof::certificate::Certificate;
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
    /// Help play with set play asked for: the solutions with White moving first, one
    /// move shorter (`h#(n-1).5`, as Popeye shows help set play); None where not asked
    /// for, not possible (Black in check) or not finished within the limits.
    pub set_play: Option<Vec<Vec<Move>>>,
    /// Nodes searched.
    pub nodes: u64,
    /// With [`ProblemSettings::certify`] and a verdict: the certificate, or why none was
    /// built.
    pub certificate: Option<Result<Certificate, CertError>>,
}

/// How one problem is solved: its limits, how many solutions to list, the table, the
/// threads, and whether to certify the verdict.
#[derive(Clone, Copy, Debug)]
pub struct ProblemSettings {
    /// The time and node limits.
    pub budget: Budget,
    /// At most this many help or series solutions are listed.
    pub max_solutions: usize,
    /// The table's size in MB, at most ([`ProblemSettings::table_mb`]).
    pub hash_mb: usize,
    /// Whether to build a certificate of the verdict (src/proof/FORMAT.md, "Problems").
    pub certify: bool,
    /// Search threads.
    pub threads: usize,
}

impl Default for ProblemSettings {
    fn default() -> Self {
        ProblemSettings { budget: Budget::default(), max_solutions: 1000, hash_mb: 64, certify: false, threads: 1 }
    }
}

/// The table a problem's search fills in a second, per thread: a search of a second with
/// 16 MB searches 0.2% more nodes than with 64 (intell.inp), and a smaller table costs a
/// short problem less to map and give back.
const TABLE_MB_PER_SECOND: f64 = 16.0;

impl ProblemSettings {
    /// The table's size: `hash_mb`, or less where the time limit leaves no time to fill it.
    pub fn table_mb(&self) -> usize {
        let Some(time) = self.budget.time else { return self.hash_mb };
        let fills = (time.as_secs_f64() * self.threads.max(1) as f64 * TABLE_MB_PER_SECOND).ceil() as usize;
        self.hash_mb.min(fills.max(TABLE_MB_PER_SECOND as usize)).max(1)
    }
}

/// Checks that `pos` can carry `stip`: its side to move is the stipulation's first mover
/// (the other side in a diagram after the key).
pub fn check_setup(pos: &Chess, stip: Stipulation, postkey: bool) -> Result<(), ProblemError> {
    if postkey && !stip.battle() {
        return Err(ProblemError::PostkeyNotBattle(stip.to_string()));
    }
    let first = if postkey { !stip.first_mover() } else { stip.first_mover() };
    if pos.turn() != first {
        let side = |c: Color| if c == Color::White { "White" } else { "Black" };
        return Err(ProblemError::WrongSide {
            stipulation: stip.to_string(),
            first: side(first),
            to_move: side(pos.turn()),
        });
    }
    Ok(())
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
    /// Runs `work` on each of `moves` on the threads, each thread with a monitor of its own
    /// and a solver over the shared table for each move; returns the results in the order
    /// of `moves` and the nodes searched.
    fn each_move<T: Send>(
        &self,
        moves: &[Move],
        work: impl Fn(&mut ProblemSolver<'_>, Move) -> T + Sync,
    ) -> (Vec<T>, u64) {
        let nodes = AtomicU64::new(0);
        let init = || Monitor::new(Arc::clone(&self.control), self.node_limit);
        let results = run_jobs(
            moves.len(),
            self.threads,
            "pnmate-problem",
            init,
            |monitor, i| {
                let before = monitor.nodes();
                let result = work(&mut ProblemSolver::new(self.tt, monitor, self.problem), moves[i]);
                nodes.fetch_add(monitor.nodes() - before, Ordering::Relaxed);
                result
            },
            |_, _| {},
        );
        (results, nodes.into_inner())
    }

    /// Runs `work` on this thread with a solver of its own; returns its result and nodes.
    fn alone<T>(&self, work: impl FnOnce(&mut ProblemSolver<'_>) -> T) -> (T, u64) {
        let mut monitor = Monitor::new(Arc::clone(&self.control), self.node_limit);
        let result = work(&mut ProblemSolver::new(self.tt, &mut monitor, self.problem));
        (result, monitor.nodes())
    }
}

/// The most solutions for which help and series play stay split by the victim king's
/// final square (see [`solve_problem`]).
const SPLIT_SOLUTIONS: usize = 100;

/// Solves `stip` from `pos` with `settings`, showing what `show` asks for in battle play.
/// With several threads each takes the next first move, all on one table.
pub fn solve_problem(
    pos: Chess,
    stip: Stipulation,
    settings: ProblemSettings,
    show: Show,
) -> Result<Solved, ProblemError> {
    check_setup(&pos, stip, show.postkey)?;
    let problem = Problem::new(pos, stip);
    let root = Node::new(problem.clone());
    let tt = TranspositionTable::new(settings.table_mb());
    let control: Arc<Control> = Control::new();
    control.set_deadline(settings.budget.time);
    let threads = settings.threads.max(1);
    let node_limit = settings.budget.nodes.map(|n| (n / threads as u64).max(1));
    let shared = Shared { tt: &tt, problem: &problem, control, node_limit, threads };
    let plies = stip.plies() - u16::from(show.postkey);
    let moves: Vec<Move> = root.pos.legal_moves().into_iter().collect();
    let mut solved = Solved {
        verdict: Verdict::Unknown,
        keys: Vec::new(),
        tree: None,
        solutions: Vec::new(),
        capped: false,
        set_play: None,
        nodes: 0,
        certificate: None,
    };
    let verdict_of = |some: bool| if some { Verdict::Solution } else { Verdict::NoSolution };
    if show.postkey {
        // The diagram is after the key: the defender's moves, one thread.
        let (done, nodes) = shared.alone(|ps| {
            let verdict = ps.prove(&root, plies)?;
            Ok::<_, OutOfLimits>((verdict, ps.play_after(&root, plies, &show, true)?))
        });
        solved.nodes = nodes;
        if let Ok((verdict, play)) = done {
            solved.verdict = verdict_of(verdict);
            solved.tree = Some(Tree { postkey: Some(play), ..Tree::default() });
        }
    } else if stip.battle() {
        let (firsts, nodes) = shared.each_move(&moves, |ps, m| ps.first_move(&root, m, plies, &show));
        solved.nodes = nodes;
        let mut set_play = Ok(None);
        if show.set_play {
            let (set, nodes) = shared.alone(|ps| ps.set_play(&root, plies, &show));
            solved.nodes += nodes;
            set_play = set;
        }
        if let (Ok(firsts), Ok(set_play)) = (firsts.into_iter().collect::<Result<Vec<_>, _>>(), set_play) {
            let first: Vec<FirstMove> = firsts.into_iter().flatten().collect();
            solved.keys = first.iter().filter(|f| f.refutations.is_empty()).filter_map(|f| f.attack.mv).collect();
            solved.verdict = verdict_of(!solved.keys.is_empty());
            solved.tree = Some(Tree { set_play, first, postkey: None });
        }
    } else {
        let cap = settings.max_solutions.max(1);
        // One search for each square where the victim's king may end: each prunes every
        // line that cannot end there, and every solution ends on one of them. A problem
        // with many solutions has them on many squares, each search walking much of the
        // same tree: past SPLIT_SOLUTIONS it is searched once, whole.
        let mut targets: Vec<Option<Square>> =
            problem.final_king_squares(u32::from(plies)).into_iter().map(Some).collect();
        let mut found: Vec<(usize, Vec<Move>)> = Vec::new();
        let mut complete = true;
        let mut next = 0;
        while next < targets.len() {
            let target = targets[next];
            next += 1;
            let sub = Problem { target, ..problem.clone() };
            let sub_root = Node::new(sub.clone());
            let shared = Shared { problem: &sub, control: Arc::clone(&shared.control), ..shared };
            let (lines, nodes) = shared.each_move(&moves, |ps, m| {
                let child = sub_root.play(m);
                let mut out = Vec::new();
                if ps.prove(&child, plies - 1)? {
                    ps.solutions(&child, plies - 1, &mut vec![m], &mut out, cap)?;
                }
                Ok(out)
            });
            solved.nodes += nodes;
            match lines.into_iter().collect::<Result<Vec<_>, OutOfLimits>>() {
                Ok(lines) => {
                    found.extend(lines.into_iter().enumerate().flat_map(|(i, l)| l.into_iter().map(move |l| (i, l))))
                }
                Err(_) => {
                    complete = false;
                    break;
                }
            }
            if target.is_some() && found.len() > SPLIT_SOLUTIONS {
                found.clear();
                targets = vec![None];
                next = 0;
            }
        }
        if complete {
            if targets.iter().any(Option::is_some) {
                // In the order of the first moves, then of the moves' UCI; a line found
                // under two squares once.
                let uci = |l: &Vec<Move>| {
                    l.iter().map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string()).collect::<Vec<_>>()
                };
                found.sort_by_cached_key(|(i, l)| (*i, uci(l)));
                found.dedup();
            }
            let mut all: Vec<Vec<Move>> = found.into_iter().map(|(_, l)| l).collect();
            solved.capped = all.len() >= cap;
            all.truncate(cap);
            solved.verdict = verdict_of(!all.is_empty());
            solved.solutions = all;
        }
    }
    if show.set_play && stip.play == Play::Help && !stip.half {
        // Help set play: as if Black had passed, White moves first and n-1 moves follow.
        let set_stip = Stipulation { moves: stip.moves - 1, half: true, ..stip };
        if let Ok(before) = problem.pos.clone().swap_turn() {
            let set = solve_problem(before, set_stip, ProblemSettings { certify: false, ..settings }, Show::default())?;
            solved.nodes += set.nodes;
            if set.verdict != Verdict::Unknown {
                solved.set_play = Some(set.solutions);
            }
        }
    }
    if settings.certify && solved.verdict != Verdict::Unknown {
        solved.certificate = Some(if show.postkey {
            Err(CertError::Postkey)
        } else {
            certify_problem(&problem, solved.verdict == Verdict::Solution, u32::from(plies), &tt).map(|c| c.certificate)
        });
    }
    Ok(solved)
}
