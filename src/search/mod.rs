//! The prover's driver: which questions to ask df-pn, in which order, with which budgets.
//!
//! Two questions are asked about the root: "does the side to move mate?" (the root is an
//! OR node) and "is the side to move mated?" (the root is an AND node, the opponent
//! attacks). The driver
//! 1. answers both exactly for mates in one and two moves (cheap, and common),
//! 2. alternates between the two questions, with node budgets that double each round so
//!    that neither starves the other. Each round asks each question at several bounds:
//!    - the *near* bound, the smallest rung of `LADDER` not yet disproven: its
//!      disproofs are what make a later mate exact, or end the search with "no mate";
//!    - the *far* bounds, the rungs `FAR_RUNGS` above it, so that a long forcing mate is
//!      not held up by hard disproofs of short bounds. Several, because df-pn finds a
//!      mate fastest at a bound a little above its length: a bound far above it lets the
//!      search wander into long lines (a mate in 25 proved in 0.2M nodes at bounds 32 and
//!      45, and not in 8 s at 64 or more);
//!    - the *cap*: the user's bound (`go mate N`), or the longest bound in analysis, so
//!      that the question asked is searched from the first round (and in analysis, a
//!      long mate that no rung near it finds fast, like Krabbé's mate in 38, is found).
//!
//!    The far bounds and the cap only look for mates: they cut cycles on the search path
//!    ([`Cycles::Cut`]), which spares them from chasing perpetual checks to the end of
//!    a long bound,
//! 3. once a mate of `P` plies is proven, reports it at once and asks for a mate within
//!    `P - 2` until that is disproven: the last proof is then the proven shortest. Beside
//!    the disproof (climbing the ladder up to `P - 2`), it looks for shorter mates at
//!    `P - 2` and halfway down with cycles cut, since a first proof at a long bound can be
//!    three times the shortest mate's length.
//!
//! Every proof is turned into a forced line, replayed, and only then reported as an
//! [`Event`]. A proof is recorded even when its line cannot be built yet (the line
//! builder has a node budget and obeys stop): the driver retries with larger budgets,
//! and a search that ends with such a proof reports it without a line
//! ([`Event::MateUnshown`]). The search never prints.

pub mod certify;
pub mod checks;
pub mod dfpn;
pub mod expand;
pub mod line;
pub mod mate_len;
pub mod monitor;
pub mod movecode;
pub mod multipv;
pub mod node;
pub mod parallel;
pub mod pndn;
pub mod progress;
pub mod queen_rook;
pub mod query;
pub mod repetition;
pub mod report;
pub mod rook_mate;
pub mod rules;
pub mod turned;
pub mod value;
pub mod verify;

use std::time::Duration;

use shakmaty::{Board, Chess, Color, Move, Position};

use crate::tt::Table;
use dfpn::{Call, Cycles, Question, RootMoves, Solver};
use line::{Gap, LineBuilder};
use mate_len::{MAX_MATE_MOVES, MateLen, Plies};
use monitor::Monitor;
use node::Node;
use parallel::Crew;
use queen_rook::QueenRook;
use repetition::Repetitions;
pub use report::{Event, Outcome, Stats};
use rules::CLAIM_CLOCK;
use value::Verdict;
use verify::verify_line;

/// Stack size for any thread that runs a search: the recursion is as deep as the mate
/// bound (up to 2000 plies, e.g. along a perpetual check, which the bounded search does
/// not score) and each level holds a position and its move list. Only touched pages
/// become resident.
pub const SEARCH_STACK: usize = 512 << 20;

/// A thread builder for a thread that runs a search: named, with [`SEARCH_STACK`].
pub fn search_thread(name: &str) -> std::thread::Builder {
    std::thread::Builder::new().name(name.to_string()).stack_size(SEARCH_STACK)
}

/// Mate bounds (moves) the driver climbs: the smallest one not yet disproven is the
/// "near" bound; "far" bounds a few rungs higher run beside it so that a long, forcing
/// mate is not held up by hard disproofs of short bounds.
const LADDER: [u32; 18] = [3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 90, 128, 181, 256, 362, 512, 724, 1000];

/// The rungs above the near bound that are asked as far bounds. Measured on 80 matetrack
/// positions #20+ at 2 s (found/best): 2 alone 32/31, 2 and 4 37/33, 2 to 4 39/37, 2 to
/// 5 44/41, 2 to 6 41/40, 2 to 7 40/38; and on 200 matetrack positions of any length at
/// 1 s, 2 alone 162/155, 2 to 5 178/170. (As a single far bound, 2 had beaten 1, 3, 5.)
const FAR_RUNGS: std::ops::RangeInclusive<usize> = 2..=5;

/// The long bound of the analysis of an endgame of at most [`progress::MAX_MEN`] men
/// (moves): each round asks it after the ladder's bounds, with [`LONG_SHARE`] times their
/// budget, cycles cut. Quiet mates of a lone king (two bishops, bishop and knight) are
/// proven far sooner at a bound well above their length than near it: on 40 K+B+B v K
/// positions of mates in 6 to 17 moves, one call at 45 moves proved 35 within 1M nodes,
/// the driver's ladder 24 within 1.5M. The same holds where the defender has men
/// (`pnmate epd --nodes 1500000`, a fresh table per position, found/best, without and
/// with it: 40 K+R+B v K+R 30/18 and 35/17, 30 K+Q v K+P 29/29 and 30/29, 40 K+R v K
/// 39/23 and 40/27, 60 K+Q v K+R 16/15 and 17/16). It was first kept to bare kings
/// because the judge, whose runs share one table between positions, measured no gain;
/// the line builder then lost proven mates whose subtrees the table had forgotten.
/// Clamped so that the root's halfmove clock plus the bound stays below the 50-move
/// claim (above it table keys would carry the clock, so transpositions would no longer
/// meet). 49 moves, the longest mate the claim allows from a fresh clock, rather than
/// the ladder's rung of 45: nodes to the first proof (`solve FEN --nodes 3000000 --hash
/// 256`), geometric mean of 49 against 45, 90 K+B+B v K of 10 moves or more 0.965 (48
/// fewer, 33 more), 48 K+B+N v K of up to 22 moves 0.967 (13 within 1.3M nodes against
/// 12), 60 K+R+B v K+R 0.990 (27 fewer, 16 more); 40 K+Q v K+P, 40 K+R+P v K+R, 50
/// K+B+P v K+B and 80 matetrack positions of at most six men without queen or rook
/// between 1.000 and 1.004. A bound of 25 or 32 moves for two bishops, whose mates
/// take at most 19: 1.55 and 1.13 times the nodes.
const LONG_MOVES: u32 = 49;

/// The long bound's budget, in multiples of one ladder call's, except in quiet mates and
/// against an armed defender (see [`QUIET_LONG_SHARE`]).
const LONG_SHARE: u64 = 16;

/// The long bound's budget where the defender has a bare king and the attacker no queen
/// or rook ([`progress::quiet_mate`]: two bishops, bishop and knight): the ladder's short
/// bounds hardly ever prove such a mate, so the long bound gets most of the nodes from
/// the first round on. At fixed nodes (`pnmate epd FILE --nodes N --hash 64`, a fresh
/// table per position, found/best, 16 against 64): 60 K+B+B v K at 1M 52/9 against 56/9,
/// 40 more at 1.5M 36/8 against 38/8. Not elsewhere: there the ladder's far bounds prove
/// many mates in their second round, which a long first call delays (80 matetrack
/// positions of at most six men at 1M nodes: 78/72 with 16, 75/70 with 64 everywhere,
/// 78/72 with 64 for quiet mates only; 30 K+R+B v K+R gained, 24/9 against 27/8).
/// The same share serves a defender with a piece against no queen
/// ([`progress::armed_defender`]), once its quiet moves and checks started higher there:
/// 60 K+R+B v K+R mates of 14 moves or more at 1.5M nodes 38/12 with 16, 41/12 with 64,
/// 42/12 with 128; at 3M 45/22 and 48/20; at `epd --time 1 --hash 256` 38/11 and 41/12;
/// 60 of 10 to 30 moves at 1.5M 58/18 and 59/19; the 59 matetrack positions of at most
/// six men with such a defender at 1M nodes 53/45 and 56/47.
const QUIET_LONG_SHARE: u64 = 64;

/// Node budget of the first alternating round; doubled each round.
const FIRST_ROUND_BUDGET: u64 = 20_000;

/// Nodes the line builder may first spend on one line; doubled on each retry.
const LINE_BUDGET: u64 = 500_000;

/// What the caller asks.
#[derive(Clone, Debug, Default)]
pub struct Params {
    /// Mate bound in moves for both questions; None keeps growing it (analysis).
    pub mate: Option<u32>,
    /// Root moves to consider (UCI searchmoves); None or empty: all.
    pub root_moves: Option<Vec<Move>>,
    /// Hashes of the game's positions before the root since its last pawn move or capture,
    /// oldest first: the repetitions the defender may claim.
    pub history: Vec<u64>,
    /// Search threads (0 and 1: one; see `parallel`).
    pub threads: usize,
}

/// One of the two questions.
struct Side {
    attacker: Color,
    /// The attacker is the side to move at the root.
    root_or: bool,
    /// Index of the near bound on [`LADDER`].
    rung: usize,
    /// What is proven about the shortest mate: no mate in fewer plies than this.
    at_least: Plies,
    /// What is proven about the shortest mate: a mate in at most this many plies.
    at_most: Plies,
    /// The shortest line built and replayed so far.
    line: Option<Vec<Move>>,
    /// Nodes the next attempt to build a line may spend.
    line_budget: u64,
}

impl Side {
    fn new(attacker: Color, root_or: bool) -> Side {
        Side {
            attacker,
            root_or,
            rung: 0,
            at_least: Plies::ZERO,
            at_most: Plies::INFINITE,
            line: None,
            line_budget: LINE_BUDGET,
        }
    }

    /// The bound in plies of a mate in `moves` for this side's attacker.
    fn plies_for(&self, moves: u32) -> Plies {
        if self.root_or { Plies::mate_in(moves) } else { Plies::mated_in(moves) }
    }

    /// Whether a mate is proven (with or without a line).
    fn found(&self) -> bool {
        !self.at_most.is_infinite()
    }

    fn done(&self, cap: u32) -> bool {
        self.found() || self.at_least > self.plies_for(cap)
    }

    /// Whether the shortest proven mate still lacks its line.
    fn needs_line(&self) -> bool {
        self.found() && self.line.as_ref().is_none_or(|l| l.len() > usize::from(self.at_most.get()))
    }

    /// The near bound (moves) under the cap.
    fn near(&mut self, cap: u32) -> u32 {
        while self.rung + 1 < LADDER.len() && self.at_least > self.plies_for(LADDER[self.rung]) {
            self.rung += 1;
        }
        LADDER[self.rung].min(cap)
    }

    /// The far bounds (moves) under the cap, ascending; call after [`Side::near`].
    fn far(&self, cap: u32) -> impl Iterator<Item = u32> + use<> {
        let rung = self.rung;
        FAR_RUNGS.map(move |k| LADDER[(rung + k).min(LADDER.len() - 1)].min(cap))
    }

    /// The most moves within which this side's mate is disproven.
    fn disproven_moves(&self) -> u32 {
        (0..MAX_MATE_MOVES).take_while(|&m| self.plies_for(m + 1) < self.at_least).count() as u32
    }

    /// In words: what is disproven for this side, and the bound the search tries next
    /// (`stm` is the side to move at the root).
    fn disproven_status(&mut self, stm: Color, cap: u32) -> String {
        let moves = self.disproven_moves();
        let who = if stm == Color::White { ("white", "black") } else { ("black", "white") };
        let done = if self.root_or {
            format!("no mate for {} within {moves} (proven)", who.0)
        } else {
            format!("{} is not mated within {moves} (proven)", who.0)
        };
        if self.done(cap) {
            return done;
        }
        let near = self.near(cap);
        let who_mates = if self.root_or { who.0 } else { who.1 };
        format!("{done}; proving mate within {near} for {who_mates}")
    }

    /// Whether a mate of `plies` is proven shortest: the next shorter length (plies - 2)
    /// is disproven, or there is none (a mate in one; mated in one, as a root already
    /// checkmated never reaches the search).
    fn is_exact(&self, plies: usize) -> bool {
        plies <= 2 || usize::from(self.at_least.get()) > plies - 2
    }
}

/// The search: owns nothing, borrows the table and the monitor.
pub struct Search<'a> {
    root: Node,
    params: Params,
    repetitions: Option<Repetitions>,
    tt: &'a Table,
    monitor: &'a mut Monitor,
    events: &'a mut dyn FnMut(Event),
    seldepth: u32,
    /// The helper threads' shared state, when there are helpers.
    crew: Option<Crew>,
}

impl<'a> Search<'a> {
    /// Prepares a search of `root`. `events` receives every proven mate and disproof.
    pub fn new(
        root: &Chess,
        mut params: Params,
        tt: &'a Table,
        monitor: &'a mut Monitor,
        events: &'a mut dyn FnMut(Event),
    ) -> Search<'a> {
        if params.root_moves.as_ref().is_some_and(|m| m.is_empty()) {
            params.root_moves = None;
        }
        let root = Node::new(root.clone());
        let repetitions = Repetitions::new(root.hash, &params.history);
        let crew = Crew::new(params.threads, monitor);
        Search { root, params, repetitions, tt, monitor, events, seldepth: 0, crew }
    }

    fn stats(&self, depth: Plies) -> Stats {
        Stats {
            nodes: self.monitor.total_nodes(),
            time: self.monitor.control().elapsed(),
            hashfull: self.tt.hashfull(),
            depth: u32::from(depth.get()),
            seldepth: self.seldepth.max(u32::from(depth.get())),
        }
    }

    fn question<'q>(params: &'q Params, repetitions: &'q Option<Repetitions>, side: &Side) -> Question<'q> {
        Question {
            attacker: side.attacker,
            root_moves: params.root_moves.as_deref(),
            repetitions: repetitions.as_ref(),
        }
    }

    /// Runs one df-pn call for `side` at `bound`.
    fn solve(&mut self, side: &Side, bound: Plies, budget: Option<u64>, cycles: Cycles) -> Verdict {
        let question = Self::question(&self.params, &self.repetitions, side);
        // Progress reports show the bound of the question that can end the search (the
        // near bound, and the tightening), not the long bounds searched beside it.
        let shown =
            if cycles == Cycles::Search { u32::from(bound.get()) } else { self.monitor.control().progress().depth };
        self.monitor.control().publish_depth(shown, self.seldepth);
        let call = Call { budget, root: RootMoves::Restricted, game_root: true, cycles };
        let (v, seldepth) = match &self.crew {
            Some(crew) => crew.solve(self.tt, self.monitor, question, &self.root, bound, call),
            None => {
                let mut solver = Solver::new(self.tt, self.monitor, question);
                let v = solver.solve(&self.root, bound, call);
                (v, solver.seldepth)
            }
        };
        self.seldepth = self.seldepth.max(seldepth as u32);
        self.monitor.control().publish_depth(shown, self.seldepth);
        v
    }

    /// Records a verdict of `side` at `bound`; on a proof, tries to build its line.
    fn record(&mut self, side: &mut Side, bound: Plies, verdict: Verdict) {
        match verdict {
            Verdict::Disproven(at_least) => side.at_least = side.at_least.max(at_least),
            Verdict::Proven(p) => {
                side.at_most = side.at_most.min(p);
                // A line not built now is built by the tightening (see `tighten`).
                let _ = self.build_line(side, bound);
            }
            Verdict::Unknown => {}
        }
    }

    /// Builds, replays and reports the line of `side`'s shortest proof, when it lacks one.
    /// A line that cannot be built within the budget (or before a stop) is left for a
    /// later attempt with twice the budget; one whose proof the table has lost in part is
    /// left for the search to prove again ([`Gap::Lost`]).
    fn build_line(&mut self, side: &mut Side, bound: Plies) -> Result<(), Gap> {
        if !side.needs_line() {
            return Ok(());
        }
        let question = Self::question(&self.params, &self.repetitions, side);
        let mut solver = Solver::new(self.tt, self.monitor, question);
        let mut line = Vec::new();
        let built = LineBuilder::new(&mut solver, side.line_budget).line(
            &self.root,
            side.at_most,
            RootMoves::Restricted,
            &mut line,
        );
        if built == Err(Gap::Limit) {
            side.line_budget = side.line_budget.saturating_mul(2);
        }
        built?;
        let mate = MateLen::from_plies(line.len());
        if let Err(e) = verify_line(&self.root.pos, &line, mate, &self.params.history) {
            // Cannot happen for a sound proof; if it does, nothing of it is shown.
            debug_assert!(false, "line failed replay: {e}");
            side.at_most = Plies::INFINITE;
            return Ok(());
        }
        side.at_most = side.at_most.min(Plies::new(line.len() as u16));
        if side.line.as_ref().is_some_and(|b| b.len() <= line.len()) {
            return Ok(());
        }
        let exact = side.is_exact(line.len());
        let stats = self.stats(bound);
        (self.events)(Event::Mate { mate, exact, pv: line.clone(), stats });
        side.line = Some(line);
        Ok(())
    }

    /// Runs the search to a verdict or a limit.
    pub fn run(&mut self) -> Outcome {
        let stm = self.root.pos.turn();
        let mut sides = [Side::new(stm, true), Side::new(!stm, false)];
        if self.root.pos.legal_moves().is_empty() {
            return if self.root.pos.is_check() {
                Outcome::Mated { moves: 0, exact: true, pv: Vec::new() }
            } else {
                Outcome::NoMate { moves: self.params.mate.unwrap_or(MAX_MATE_MOVES) }
            };
        }
        let cap = self.params.mate.map_or(MAX_MATE_MOVES, |m| m.clamp(1, MAX_MATE_MOVES));
        if self.repetitions.as_ref().is_some_and(Repetitions::root_is_drawn) {
            // Fivefold repetition: the game is over, drawn.
            return Outcome::NoMate { moves: cap };
        }

        // 1. Short mates, exactly and in ascending order.
        'short: for moves in 1..=cap.min(2) {
            for side in sides.iter_mut() {
                let bound = side.plies_for(moves);
                if self.monitor.hard_stopped() {
                    break 'short;
                }
                let v = self.solve(side, bound, Some(FIRST_ROUND_BUDGET), Cycles::Search);
                self.record(side, bound, v);
                if side.found() {
                    return self.tighten(side, cap);
                }
                if v == Verdict::Unknown {
                    break 'short;
                }
            }
        }

        // 2. Both questions, alternating, each at a near bound and far ones, with budgets
        //    that double every round.
        let mut budget = FIRST_ROUND_BUDGET;
        loop {
            for side in sides.iter_mut() {
                loop {
                    if side.done(cap) || self.monitor.hard_stopped() {
                        break;
                    }
                    let near = side.near(cap);
                    let bound = side.plies_for(near);
                    let v = self.solve(side, bound, Some(budget), Cycles::Search);
                    self.record(side, bound, v);
                    if side.found() {
                        return self.tighten(side, cap);
                    }
                    if matches!(v, Verdict::Disproven(_)) {
                        let status = side.disproven_status(stm, cap);
                        (self.events)(Event::Status(status));
                        continue; // climb at once: the next rung gets this round's budget
                    }
                    // The far bounds, the cap (the user's bound, or the longest one in
                    // analysis) and then the long bound of a few-men endgame look for
                    // mates only: cycles are cut there.
                    let long = self.long_call(side, near);
                    let ceiling = self.far_ceiling(side, long);
                    let mut calls: Vec<(u32, u64)> = Vec::new();
                    let mut last = near;
                    for moves in side.far(cap).chain([cap]) {
                        if moves > last && moves <= ceiling && long.is_none_or(|(m, _)| m != moves) {
                            calls.push((moves, 1));
                        }
                        last = last.max(moves);
                    }
                    calls.extend(long);
                    for (moves, share) in calls {
                        if self.monitor.hard_stopped() {
                            break;
                        }
                        let bound = side.plies_for(moves);
                        let v = self.solve(side, bound, Some(budget * share), Cycles::Cut);
                        self.record(side, bound, v);
                        if side.found() {
                            return self.tighten(side, cap);
                        }
                    }
                    break;
                }
            }
            if sides.iter().all(|s| s.done(cap)) {
                let bound = sides[0].plies_for(cap);
                let stats = self.stats(bound);
                (self.events)(Event::NoMate { moves: cap, stats });
                return Outcome::NoMate { moves: cap };
            }
            if self.monitor.hard_stopped() {
                return Outcome::Unknown;
            }
            budget = budget.saturating_mul(2);
        }
    }

    /// The long call of this round for `side`, in the analysis of an endgame of few men:
    /// its bound (moves, see [`LONG_MOVES`]; where the ending's longest mate is known,
    /// [`longest_mate`], that, see [`Search::far_ceiling`]) and its budget in
    /// ladder calls ([`QUIET_LONG_SHARE`] in a quiet mate or against an armed defender,
    /// else [`LONG_SHARE`]). None elsewhere, or when the bound is not above `near`.
    fn long_call(&self, side: &Side, near: u32) -> Option<(u32, u64)> {
        let board = self.root.pos.board();
        if self.params.mate.is_some() || board.occupied().count() > progress::MAX_MEN {
            return None;
        }
        let clock = self.root.clock();
        let attacker = side.attacker;
        let longest = longest_mate(board, attacker).unwrap_or(LONG_MOVES);
        let moves = (1..=longest).rev().find(|&m| clock + u32::from(side.plies_for(m).get()) < CLAIM_CLOCK)?;
        let share = if progress::quiet_mate(board, attacker) || progress::armed_defender(board, attacker) {
            QUIET_LONG_SHARE
        } else {
            LONG_SHARE
        };
        (moves > near).then_some((moves, share))
    }

    /// The longest far bound (moves, the cap among them) worth asking beside the round's
    /// `long` call for `side`. In a quiet mate ([`progress::quiet_mate`]) the ladder hardly
    /// ever proves the mate, and one longer than the long bound needs a pawn move or a
    /// capture to beat the fifty-move claim, so no far bound goes above the long one; and
    /// where two bishops mate ([`progress::bishops_mate`], at most 19 moves, well below
    /// the long bound), the long call proves their mates sooner with the budget of every
    /// far bound, so none is asked. Every bound is asked again once the near bound passes
    /// the long one and no long call is left.
    ///
    /// Nodes to the first proof (`solve FEN --nodes N --hash 256`), geometric mean against
    /// asking every far bound, without those above the long one and without any:
    /// K+B+B v K of 10 moves or more, 50 positions, 0.95 and 0.62; 60 of 14 or more 0.95
    /// and 0.85; 40 of 14 or more with the defender to move 0.93 and 0.81;
    /// 48 K+B+N v K of up to 22 moves 0.99 and 1.03 (some of its mates are proven first
    /// by a far bound: 7 to over 40 times the nodes for three of them without any); 80
    /// matetrack positions of at most six men without queen or rook 1.00 and 0.97. Not
    /// where a defender's piece faces no queen ([`progress::armed_defender`]), though it
    /// also gets the quiet mates' long share: without the bounds above the long one, 60
    /// K+R+B v K+R of 10 to 30 moves 0.94 and 60 of 14 or more 0.99, but the mate in 16
    /// of `1R6/7K/3r4/2k5/8/8/3B4/8 w` took 1,598,405 nodes instead of 1,275,312 (64 MB).
    ///
    /// In K+Q v K+R no mate is longer than [`queen_rook::LONGEST_MATE`], so neither the
    /// long call nor any far bound (the cap among them) goes above it: a longer bound only
    /// lets df-pn wander into lines longer than any mate. Nodes to the first proof at 1M
    /// nodes (`solve FEN --nodes 1000000 --hash 256`), proven before and after, over
    /// 290 positions of mates in 8 to 20 moves: 100 + 100 drawn at random from the
    /// ending's table, 60 + 30 of the shared suite with the rook's and the queen's side
    /// to move: 59 + 71 + 33 + 27 = 190 before, 61 + 72 + 34 + 28 = 195 after; geometric
    /// mean of the nodes where both proved 0.975, 0.965, 0.956 and 0.984. The long bound
    /// alone at 35: 193, and 1.003, 0.984, 0.982 and 1.000. Unlike the quiet mates' ceiling,
    /// this one is not cut at the 50-move claim, since taking the rook resets the count.
    fn far_ceiling(&self, side: &Side, long: Option<(u32, u64)>) -> u32 {
        let board = self.root.pos.board();
        match long {
            Some(_) if progress::bishops_mate(board, side.attacker) => 0,
            Some((moves, _)) if progress::quiet_mate(board, side.attacker) => moves,
            Some(_) => longest_mate(board, side.attacker).unwrap_or(u32::MAX),
            None => u32::MAX,
        }
    }

    /// Shortens a proven mate until the next shorter bound is disproven or a limit hits;
    /// builds the line of the shortest proof along the way. Each round, with a budget
    /// that doubles (and stays while answers come), asks up to three questions below the
    /// mate of `P` plies found, until one is answered:
    /// - `P - 2` with cycles cut, which looks for a shorter mate: a first proof at a long
    ///   bound is often far from the shortest (a mate in 63 where 21 exists), and searching
    ///   cycles out at such a bound chases perpetual checks;
    /// - a bound halfway between the near bound and `P - 2`, cycles cut: a smaller bound
    ///   keeps df-pn on shorter lines, so it finds a much shorter mate sooner;
    /// - the near bound (the smallest rung not yet disproven, at most `P - 2`), cycles
    ///   searched: its disproofs climb towards `P - 2`, whose disproof makes the mate exact.
    fn tighten(&mut self, side: &mut Side, cap: u32) -> Outcome {
        if !side.is_exact(usize::from(side.at_most.get())) {
            let mate = MateLen::from_plies(usize::from(side.at_most.get()));
            (self.events)(Event::Status(format!("mate {mate} found, proving it shortest")));
        }
        let mut budget = FIRST_ROUND_BUDGET;
        loop {
            if side.needs_line() {
                // After a stop the builder still walks what the table holds, so a proof
                // found just before the deadline is shown with its line.
                let stopped = self.monitor.hard_stopped();
                if self.build_line(side, side.at_most) == Err(Gap::Lost) && !stopped {
                    // The table lost part of the proof: prove the mate again (the lost
                    // proofs were dropped, so this searches), then build its line.
                    let bound = side.at_most;
                    let v = self.solve(side, bound, Some(budget), Cycles::Cut);
                    self.record(side, bound, v);
                    budget = budget.saturating_mul(2);
                }
                if stopped {
                    break;
                }
                continue;
            }
            if self.monitor.hard_stopped() || side.is_exact(usize::from(side.at_most.get())) {
                break;
            }
            let shorter = side.at_most.shorter();
            let near = side.near(cap);
            let near = side.plies_for(near).min(shorter);
            // Bounds keep their parity (a bound of the other parity asks the same question).
            let mid = Plies::new(near.get() + (shorter.get() - near.get()) / 4 * 2);
            // Whether a question moved what is known (an answer the table already held does
            // not: asked again, it would loop without a node searched).
            let mut answered = false;
            for (bound, cycles) in [(shorter, Cycles::Cut), (mid, Cycles::Cut), (near, Cycles::Search)] {
                // The cut questions only when they ask more than the near bound (the halfway
                // bound is below P - 2 whenever it is above the near bound).
                if cycles == Cycles::Cut && bound <= near {
                    continue;
                }
                if self.monitor.hard_stopped() {
                    break;
                }
                let known = (side.at_least, side.at_most);
                let v = self.solve(side, bound, Some(budget), cycles);
                self.record(side, bound, v);
                if (side.at_least, side.at_most) != known {
                    answered = true;
                    break;
                }
            }
            if !answered {
                budget = budget.saturating_mul(2);
            }
        }
        match side.line.clone() {
            Some(pv) if !side.needs_line() => {
                let exact = side.is_exact(pv.len());
                Outcome::from_mate(MateLen::from_plies(pv.len()), exact, pv)
            }
            line => {
                // The shortest proof has no line yet: report it without one, and a longer
                // line when there is one.
                let first = self.first_move(side);
                let stats = self.stats(side.at_most);
                let mate = MateLen::from_plies(usize::from(side.at_most.get()));
                (self.events)(Event::MateUnshown { mate, first, stats });
                match line {
                    Some(pv) => Outcome::from_mate(MateLen::from_plies(pv.len()), false, pv),
                    None => Outcome::Unknown,
                }
            }
        }
    }

    /// The first move of `side`'s shortest proof, as the table records it at the root.
    /// Where the attacker moves first, only a move the table proves (the position after it
    /// holds a proof one ply shorter) is taken: the root entry's move first, else any
    /// such move. The root entry's move alone can be a later call's working move rather
    /// than the proof's (an entry keeps the proven range of every bound but the move of
    /// the last store, and the tightening stores its own), and the engine plays this
    /// move unreplayed. A K+Q v K+R clock game against a perfect defence once left the
    /// queen en prise (Qg7 in `8/R7/4k3/8/5K2/8/8/6q1 b`, where Qxa7 mates in 8), and
    /// this is the one way found for a mate search to play such a move.
    fn first_move(&mut self, side: &Side) -> Option<Move> {
        let question = Self::question(&self.params, &self.repetitions, side);
        let solver = Solver::new(self.tt, self.monitor, question);
        let allowed = |m: &Move| self.params.root_moves.as_ref().is_none_or(|allowed| allowed.contains(m));
        let stored = solver.best_move(&self.root, side.at_most).filter(allowed);
        if !side.root_or {
            return stored;
        }
        let proven = |m: &Move| solver.proves_after(&self.root, *m, side.at_most);
        stored.filter(proven).or_else(|| self.root.pos.legal_moves().into_iter().filter(allowed).find(proven))
    }
}

/// The longest mate `attacker` can have on `board` (moves), where the ending is one whose
/// longest mate is known: K+Q v K+R's [`queen_rook::LONGEST_MATE`]. No bound above it
/// asks anything a bound at it does not.
fn longest_mate(board: &Board, attacker: Color) -> Option<u32> {
    QueenRook::of(board, attacker).map(|_| queen_rook::LONGEST_MATE)
}

/// Limits of one blocking solve.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveLimits {
    /// Total node limit.
    pub nodes: Option<u64>,
    /// Wall-clock limit.
    pub time: Option<Duration>,
}

/// Solves `root` in the calling thread: a convenience for the CLI, the suite runner and
/// tests. Returns the outcome and the final statistics.
pub fn solve(
    root: &Chess,
    params: Params,
    limits: SolveLimits,
    tt: &Table,
    events: &mut dyn FnMut(Event),
) -> (Outcome, Stats) {
    let control = monitor::Control::new();
    control.set_deadline(limits.time);
    let mut monitor = Monitor::new(control, limits.nodes);
    tt.new_search();
    let mut search = Search::new(root, params, tt, &mut monitor, events);
    let outcome = search.run();
    let stats = search.stats(Plies::ZERO);
    (outcome, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use crate::position::uci;
    use crate::tt;
    use mate_len::MateRange;
    use monitor::Control;
    use movecode::MoveCode;

    #[test]
    fn a_mate_proven_as_a_limit_strikes_comes_with_its_line() {
        // 1. Qf3 Kd6 2. Qd5#. Whatever node limit stops the search, a mate it proved is
        // shown with its line: when the limit strikes with the last node of the proof, the
        // line is still built from the table. (Before, 14 of these limits ended in "mate
        // 2 proven; its line was not built".)
        let pos = parse_fen("8/1R6/8/4k3/1K4B1/2N4Q/8/8 w - - 0 1").unwrap();
        let mut mates = 0;
        for limit in 1..=200 {
            let tt = Table::new(1);
            let mut monitor = Monitor::new(Control::new(), Some(limit));
            let mut unshown = false;
            let mut events = |e: Event| unshown |= matches!(e, Event::MateUnshown { .. });
            let outcome = Search::new(&pos, Params::default(), &tt, &mut monitor, &mut events).run();
            assert!(!unshown, "limit {limit}: a mate reported without its line");
            match outcome {
                Outcome::Unknown => {}
                Outcome::Mate { moves: 2, pv, .. } => {
                    verify_line(&pos, &pv, MateLen::mate_in(2), &[]).unwrap();
                    mates += 1;
                }
                other => panic!("limit {limit}: {other:?}"),
            }
        }
        assert!(mates > 100, "the mate takes about 100 nodes to prove");
    }

    #[test]
    fn a_mate_shown_without_its_line_is_played_only_by_a_proven_move() {
        // Qxa7 mates in 8 (15 plies). The root entry keeps that proven range whatever a
        // later, shorter bound stores there, and such a store leaves its own working move:
        // here Qg7, which gives the queen away. The move played without a line must be
        // one the table proves.
        let pos = parse_fen("8/R7/4k3/8/5K2/8/8/6q1 b - - 55 28").unwrap();
        let tt = Table::new(4);
        let mut monitor = Monitor::new(Control::new(), None);
        let mut events = |_| {};
        let mut search =
            Search::new(&pos, Params { mate: Some(8), ..Params::default() }, &tt, &mut monitor, &mut events);
        let outcome = search.run();
        let Outcome::Mate { moves: 8, pv, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(uci(pv[0]), "g1a7");
        let mut side = Side::new(Color::Black, true);
        side.at_most = Plies::new(15);
        let root = Node::new(pos.clone());
        let keys = query::Keys::new(Color::Black, 0);
        let qg7 = pos.legal_moves().into_iter().find(|m| uci(*m) == "g1g7").unwrap();
        let working = tt::Record {
            bound: Plies::new(13),
            pn: 3,
            dn: 5,
            mate: MateRange::UNKNOWN,
            work: 1,
            best: MoveCode::of(qg7),
        };
        tt.store(keys.of(&root, Plies::new(13)), &working);
        let entry = tt.probe(keys.of(&root, Plies::new(15))).unwrap();
        assert!(entry.mate.proves(Plies::new(15)) && entry.best == MoveCode::of(qg7), "the setting of the test");
        assert_eq!(search.first_move(&side).map(uci).as_deref(), Some("g1a7"));
    }

    /// The long call (bound and share) the first round of a search of `fen` asks, the
    /// near bound at 3.
    fn long_call(fen: &str, mate: Option<u32>) -> Option<(u32, u64)> {
        first_round(fen, mate, |search, side| search.long_call(side, 3))
    }

    /// What `ask` reads from a search of `fen` (bound `mate`, if any) for the question
    /// "does the side to move mate?".
    fn first_round<R>(fen: &str, mate: Option<u32>, ask: impl FnOnce(&Search, &Side) -> R) -> R {
        let pos = parse_fen(fen).unwrap();
        let tt = Table::new(1);
        let mut monitor = Monitor::new(Control::new(), None);
        let mut events = |_| {};
        let search = Search::new(&pos, Params { mate, ..Params::default() }, &tt, &mut monitor, &mut events);
        ask(&search, &Side::new(pos.turn(), true))
    }

    #[test]
    fn endgame_analysis_asks_a_long_bound_below_the_fifty_move_claim() {
        let kbbk = "8/4k3/8/8/5B2/K7/8/7B w - -";
        assert_eq!(long_call(&format!("{kbbk} 0 1"), None), Some((LONG_MOVES, QUIET_LONG_SHARE)));
        assert_eq!(long_call(&format!("{kbbk} 0 1"), Some(20)), None, "the user's bound is the question");
        // 40 + (2 * 29 - 1) plies stays below the claim at 99; a mate in 30 would not.
        assert_eq!(long_call(&format!("{kbbk} 40 60"), None), Some((29, QUIET_LONG_SHARE)));
        assert_eq!(long_call(&format!("{kbbk} 95 100"), None), None, "nothing above the near bound fits");
        assert_eq!(long_call("8/N2p4/1R6/3k4/1P6/5r2/5Q2/1K6 w - - 0 1", None), None, "eight men");
        assert_eq!(long_call("8/8/3p4/1K6/8/4k3/P7/R1N3N1 w - - 0 1", None), None, "seven men");
        assert_eq!(
            long_call("Q7/8/1k5r/8/8/8/2K5/8 w - - 0 1", None),
            Some((queen_rook::LONGEST_MATE, LONG_SHARE)),
            "the defender's rook against a queen: the ending's longest mate"
        );
        assert_eq!(
            long_call("Q7/8/1k5r/8/8/8/2K5/8 w - - 80 100", None),
            Some((9, LONG_SHARE)),
            "80 + 17 plies, below the claim"
        );
        assert_eq!(
            long_call("8/8/1k5r/8/8/8/2K5/8 b - - 0 1", None),
            Some((LONG_MOVES, LONG_SHARE)),
            "K+R v K: no known longest mate, the 49-move bound"
        );
        assert_eq!(
            long_call("8/5r2/7R/8/5BK1/8/6k1/8 w - - 0 1", None),
            Some((LONG_MOVES, QUIET_LONG_SHARE)),
            "the defender's rook against rook and bishop"
        );
        assert_eq!(
            long_call("8/5p2/8/8/6N1/8/6K1/k5N1 w - - 0 1", None),
            Some((LONG_MOVES, LONG_SHARE)),
            "the defender's pawn"
        );
        assert_eq!(
            long_call("8/8/8/8/8/5k2/3K4/N1B5 w - - 0 1", None),
            Some((LONG_MOVES, QUIET_LONG_SHARE)),
            "a bare king"
        );
    }

    /// The longest far bound the first round of a search of `fen` asks beside its long
    /// call, the near bound at 3.
    fn far_ceiling(fen: &str, mate: Option<u32>) -> u32 {
        first_round(fen, mate, |search, side| search.far_ceiling(side, search.long_call(side, 3)))
    }

    #[test]
    fn quiet_mates_ask_no_far_bound_above_the_long_one() {
        let kbbk = "8/4k3/8/8/5B2/K7/8/7B w - -";
        assert_eq!(far_ceiling(&format!("{kbbk} 0 1"), None), 0, "two bishops: the long call alone");
        assert_eq!(far_ceiling(&format!("{kbbk} 0 1"), Some(20)), u32::MAX, "the user's bound: no long call");
        let kbnk = "8/8/8/8/8/5k2/3K4/N1B5 w - -";
        assert_eq!(far_ceiling(&format!("{kbnk} 0 1"), None), LONG_MOVES);
        assert_eq!(far_ceiling(&format!("{kbnk} 40 60"), None), 29, "the long bound below the claim");
        assert_eq!(far_ceiling("8/8/8/3k4/8/2K5/3P4/1B2B3 w - - 0 1", None), 0, "two bishops and a pawn");
        assert_eq!(far_ceiling("8/8/8/3k4/8/2K5/3P4/1N2B3 w - - 0 1", None), LONG_MOVES, "bishop, knight and pawn");
        assert_eq!(far_ceiling("8/8/8/3k4/8/2K5/8/1R6 w - - 0 1", None), u32::MAX, "a rook mates by checks");
        assert_eq!(far_ceiling("8/5r2/7R/8/5BK1/8/6k1/8 w - - 0 1", None), u32::MAX, "an armed defender");
        let kqkr = "Q7/8/1k5r/8/8/8/2K5/8 w - -";
        assert_eq!(far_ceiling(&format!("{kqkr} 0 1"), None), queen_rook::LONGEST_MATE, "no K+Q v K+R mate is longer");
        assert_eq!(
            far_ceiling(&format!("{kqkr} 80 100"), None),
            queen_rook::LONGEST_MATE,
            "taking the rook resets the clock"
        );
        assert_eq!(far_ceiling(&format!("{kqkr} 0 1"), Some(40)), u32::MAX, "the user's bound: no long call");
    }
}
