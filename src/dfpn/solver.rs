//! The df-pn core: Nagai's recursive MID with thresholds over a depth-bounded AND/OR tree.
//!
//! OR nodes: the attacker to move (pn = min over children, dn = sum). AND nodes: the
//! defender to move (pn = sum, dn = min). A node carries `r`, the plies left in which the
//! attacker must mate. Values are depth-aware: a proof records the length of the mate it
//! found, a disproof the length below which no mate exists (see `mate_len`); both hold
//! for every bound they cover, so the driver's calls reuse each other's work through the
//! table.
//!
//! No I/O and no clock here: the monitor decides when to unwind.

use shakmaty::{Color, Move, MoveList, Position};

use crate::chess::mate_len::{MateRange, Plies};
use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use crate::chess::repetition::Repetitions;
use crate::dfpn::expand::{Aggregate, Child, Expansion, aggregate, best_move};
use crate::dfpn::monitor::Monitor;
use crate::dfpn::pndn::PnDn;
use crate::dfpn::query::Keys;
use crate::dfpn::value::{Value, Verdict};
use crate::knowledge::progress::{Heavy, MatingMoves};
use crate::tt::{Record, Table};

/// Whether a call's root moves are restricted to the caller's list (UCI `searchmoves`).
/// A restricted node's value answers a narrower question, so it is never stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootMoves {
    /// All legal moves.
    All,
    /// Only the solver's root move list (when it has one).
    Restricted,
}

/// One root call of the solver: how much it may spend and what its root is. The search's
/// hard limits (node limit, deadline, stop) always apply as well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// Node budget of this call (None: until a hard limit).
    pub budget: Option<u64>,
    /// Whether the root's moves are restricted.
    pub root: RootMoves,
    /// Whether the call's root is the game's current position (rather than a position
    /// below it, as the line builder asks): repetition claims count its occurrence there.
    pub game_root: bool,
    /// What a repetition of a position on the search path means.
    pub cycles: Cycles,
}

/// How a call treats a position that repeats one earlier on the search path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cycles {
    /// Searched like any position: the bound ends the cycle. Every disproof is general.
    Search,
    /// Ended as a draw ([`Value::repetition`]): sound for proofs, since a shortest mate
    /// never repeats a position, and it spares long bounds from chasing perpetual checks
    /// to the end of the bound. Disproofs that rest on such a cut hold only on their path,
    /// so they are neither stored nor reported: a call that must disprove searches.
    Cut,
}

/// What a solver is asked: who attacks, and in which game.
#[derive(Clone, Copy, Debug)]
pub struct Question<'q> {
    /// The side that tries to mate.
    pub attacker: Color,
    /// The moves of a restricted root (UCI searchmoves), when restricted.
    pub root_moves: Option<&'q [Move]>,
    /// Repetitions the defender may claim against the game history, if any.
    pub repetitions: Option<&'q Repetitions>,
}

/// The df-pn solver for one question over one table.
pub struct Solver<'a> {
    /// The transposition table.
    pub tt: &'a Table,
    /// Node counting and limits.
    pub monitor: &'a mut Monitor,
    pub(crate) attacker: Color,
    pub(crate) keys: Keys,
    pub(crate) repetitions: Option<&'a Repetitions>,
    stack: Vec<Vec<Child>>,
    root_moves: Option<&'a [Move]>,
    /// Whether the current call's root is the game's current position.
    pub(crate) at_game_root: bool,
    /// How the current call treats cycles.
    pub(crate) cycles: Cycles,
    /// Hashes of the positions on the current path, by ply.
    path: Vec<u64>,
    /// Deepest ply reached.
    pub seldepth: usize,
    /// The moves that proved attacker nodes in this call (see `progress`).
    pub(crate) mating: MatingMoves,
    /// The first ply whose attacker nodes `expand` narrows in this call (see
    /// [`Solver::solve_value`]).
    pub(crate) narrow_from: usize,
    /// Whether `expand` left moves out at an attacker node one ply below the root in
    /// this call.
    pub(crate) narrowed_below_root: bool,
    /// A copy of a node's quiet children while `expand` narrows them (kept to reuse its
    /// allocation).
    pub(crate) scratch: Vec<Child>,
    /// Whether the current call's root is an ending with a fitted model of its mate
    /// distance ([`Heavy`](crate::knowledge::progress::Heavy)): only then do the call's nodes of
    /// that ending use it (see [`Kings::of`](crate::knowledge::progress::Kings::of)).
    pub(crate) heavy_root: bool,
}

impl<'a> Solver<'a> {
    /// A solver for `question` over `tt`, counting in `monitor`.
    pub fn new(tt: &'a Table, monitor: &'a mut Monitor, question: Question<'a>) -> Self {
        Solver {
            tt,
            monitor,
            attacker: question.attacker,
            keys: Keys::new(question.attacker, question.repetitions.map_or(0, Repetitions::salt)),
            repetitions: question.repetitions,
            stack: Vec::new(),
            root_moves: question.root_moves,
            at_game_root: false,
            cycles: Cycles::Search,
            path: Vec::new(),
            seldepth: 0,
            mating: MatingMoves::new(),
            narrow_from: 1,
            narrowed_below_root: false,
            scratch: Vec::new(),
            heavy_root: false,
        }
    }

    /// Whether this solver reports the root move it works on: the main thread does
    /// (helpers work on other moves on purpose).
    #[inline]
    fn reports_root_move(&self) -> bool {
        !self.monitor.is_helper()
    }

    /// The attacking colour.
    pub fn attacker(&self) -> Color {
        self.attacker
    }

    /// What the table knows of `node` with `bound` plies left.
    pub fn lookup(&self, node: &Node, bound: Plies) -> Option<Value> {
        self.known(self.keys.of(node, bound), bound)
    }

    /// What the table knows of the entry `key` read with `bound` plies left.
    #[inline]
    pub(crate) fn known(&self, key: u64, bound: Plies) -> Option<Value> {
        self.tt.probe(key).and_then(|e| Value::from_entry(&e, bound))
    }

    /// The best move the table records for `node` with `bound` plies left, if any.
    pub fn best_move(&self, node: &Node, bound: Plies) -> Option<Move> {
        self.tt.probe(self.keys.of(node, bound)).and_then(|e| e.best.decode(&node.pos))
    }

    /// Whether the table proves that the attacker, to move at `node`, mates within
    /// `plies` by playing `m`: `m` mates at once, or the position after it has a proof
    /// of a mate within one ply less.
    pub fn proves_after(&self, node: &Node, m: Move, plies: Plies) -> bool {
        if plies == Plies::ZERO {
            return false;
        }
        let child = node.play(m);
        if child.pos.is_checkmate() {
            return true;
        }
        let within = plies.pred();
        self.tt.probe(self.keys.of(&child, within)).is_some_and(|e| e.mate.proves(within))
    }

    /// Whether `node`, the root of a call at the game root, is a defender node whose
    /// repetition claim differs from that of its later occurrences (it has occurred
    /// exactly twice: a third occurrence, not this one, lets the defender claim). Its value
    /// then holds for this node only and is not stored, like a restricted root's.
    fn root_is_special(&self, node: &Node) -> bool {
        self.at_game_root
            && node.pos.turn() != self.attacker
            && self.repetitions.is_some_and(|r| r.count(node.hash) == 2)
    }

    /// Records that the attacker mates from `node` within `plies` (a length the line
    /// builder established from proofs of every defence).
    pub fn record_proof(&self, node: &Node, plies: Plies) {
        let record = Record {
            bound: plies,
            pn: 0,
            dn: PnDn::INFINITE.0,
            mate: MateRange { at_most: plies, ..MateRange::UNKNOWN },
            work: 0,
            best: MoveCode::NONE,
        };
        self.tt.store(self.keys.of(node, plies), &record);
    }

    /// Drops the proof the table records for `node` (see [`crate::tt::Table::forget_proof`]).
    pub fn forget_proof(&self, node: &Node, bound: Plies) {
        self.tt.forget_proof(self.keys.of(node, bound));
    }

    /// Legal moves of a node, restricted at a restricted root.
    pub fn node_moves(&self, node: &Node, root: RootMoves) -> MoveList {
        let mut moves = node.pos.legal_moves();
        if root == RootMoves::Restricted
            && let Some(allowed) = self.root_moves
        {
            moves.retain(|m| allowed.contains(m));
        }
        moves
    }

    /// Re-solves `node`, a position below the game root, with `bound` plies left (all
    /// moves): the line builder's and the certificate writer's re-proof. Spends at most
    /// `limit` nodes of `budget` and takes what it spent from `budget`; Unknown at once
    /// when `budget` is empty.
    ///
    /// The proof being rebuilt was often found with cycles cut (the far bound and the
    /// cap), and searching cycles out can cost a re-proof far more than the proof cost:
    /// a long mate with a rook shuttling while the defender shuffles is full of them. So
    /// the re-proof cuts cycles first (its proofs are sound, see [`Cycles::Cut`]), and only
    /// when that fails on a cut cycle does it search them, with what is left.
    pub fn solve_below(&mut self, node: &Node, bound: Plies, limit: u64, budget: &mut u64) -> Verdict {
        let mut verdict = Verdict::Unknown;
        let mut left = limit.min(*budget);
        for cycles in [Cycles::Cut, Cycles::Search] {
            if left == 0 {
                break;
            }
            let before = self.monitor.nodes();
            let call = Call { budget: Some(left), root: RootMoves::All, game_root: false, cycles };
            let v = self.solve_value(node, bound, call);
            let spent = self.monitor.nodes() - before;
            *budget = budget.saturating_sub(spent);
            left = left.saturating_sub(spent);
            verdict = v.verdict();
            let rests_on_a_cut = v.is_disproven() && v.path_dependent;
            if !rests_on_a_cut {
                break;
            }
        }
        verdict
    }

    /// Solves `node` with `bound` plies left, as `call` allows.
    pub fn solve(&mut self, node: &Node, bound: Plies, call: Call) -> Verdict {
        self.solve_value(node, bound, call).verdict()
    }

    /// Solves `node` with `bound` plies left, as `call` allows; the root's value, which
    /// says (unlike its verdict) whether a failure rests on a cut cycle.
    fn solve_value(&mut self, node: &Node, bound: Plies, call: Call) -> Value {
        self.at_game_root = call.game_root;
        self.cycles = call.cycles;
        let restricted = call.root == RootMoves::Restricted && self.root_moves.is_some() || self.root_is_special(node);
        if !restricted
            && let Some(v) = self.lookup(node, bound)
            && v.is_solved()
        {
            return v;
        }
        self.monitor.begin(call.budget);
        let or = node.pos.turn() == self.attacker;
        let root = if restricted { RootMoves::Restricted } else { RootMoves::All };
        self.narrow_from = 1;
        self.narrowed_below_root = false;
        self.heavy_root = Heavy::of(node.pos.board(), self.attacker).is_some();
        let mut v = self.mid(node, bound, or, PnDn::INFINITE, PnDn::INFINITE, 0, root);
        // Below a defender's root, each attacker node of the first level is the only
        // answer to its reply: the moves narrowing dropped there (see `expand`) are lost
        // to the whole call, which then fails on the cut, often without a search. Such a
        // call is searched again with every move at that level. (Never narrowing there
        // cost more: 90 K+B+B v K mates of 10 moves or more, `solve FEN --nodes 4000000
        // --hash 256`, first proofs within 1.3M nodes 86 against 89; with the search
        // again, 90, and 3 positions changed, all to fewer nodes.)
        if self.narrowed_below_root && v.is_disproven() && v.path_dependent && !self.monitor.aborted() {
            self.narrow_from = 2;
            v = self.mid(node, bound, or, PnDn::INFINITE, PnDn::INFINITE, 0, root);
        }
        v
    }

    /// Nagai's MID: searches `node` until its pn reaches `th_pn`, its dn reaches `th_dn`,
    /// it is solved, or the monitor says stop. Stores the result in the table.
    #[expect(clippy::too_many_arguments, reason = "the recursion's state, passed flat for speed")]
    fn mid(&mut self, node: &Node, r: Plies, or: bool, th_pn: PnDn, th_dn: PnDn, ply: usize, root: RootMoves) -> Value {
        let start_nodes = self.monitor.nodes();
        self.monitor.count(1);
        self.seldepth = self.seldepth.max(ply);
        if self.stack.len() <= ply {
            self.stack.resize_with(ply + 1, Vec::new);
        }
        if self.cycles == Cycles::Cut {
            self.path.truncate(ply);
            self.path.push(node.hash);
            // A repetition can only reach back to the last pawn move or capture.
            let reach = ply.min(node.clock() as usize);
            if (4..=reach).step_by(2).any(|back| self.path[ply - back] == node.hash) {
                return Value::repetition();
            }
        }
        let mut children = std::mem::take(&mut self.stack[ply]);
        children.clear();
        let expansion = if or {
            self.expand_or(node, r, ply, root, &mut children)
        } else {
            self.expand_and(node, r, ply, root, &mut children)
        };
        let (value, best) = match expansion {
            Expansion::Decided(value, best) => (value, best),
            Expansion::Open => loop {
                let Aggregate { value: v, best, second, runner_up } = aggregate(or, &children);
                if v.is_solved() || v.pn >= th_pn || v.dn >= th_dn || self.monitor.aborted() {
                    break (v, best_move(or, &v, &children, best));
                }
                // A quiet child of an OR node is probed when it is first picked: a miss
                // into the table, which the search waits for. The runner-up is the
                // likeliest next pick; fetching its bucket now overlaps the two misses
                // (about a fifth more nodes per second on K+B+B v K with a 256 MB table).
                if let Some(next) = children.get_mut(runner_up).filter(|c| !c.probed) {
                    self.tt.prefetch(next.keyed(&self.keys, node, r.pred()));
                }
                if !children[best].probed {
                    let c = &mut children[best];
                    c.probed = true;
                    let key = c.keyed(&self.keys, node, r.pred());
                    if let Some(known) = self.known(key, r.pred()) {
                        children[best].value = known;
                        continue;
                    }
                }
                let c = children[best];
                if ply == 0 && self.at_game_root && self.reports_root_move() {
                    self.monitor.control().publish_root_move(MoveCode::of(c.mv), best + 1);
                }
                let (child_th_pn, child_th_dn) = if or {
                    (PnDn::epsilon_threshold(th_pn, second), th_dn - (v.dn - c.value.dn))
                } else {
                    (th_pn - (v.pn - c.value.pn), PnDn::epsilon_threshold(th_dn, second))
                };
                let child = node.play(c.mv);
                let cv = self.mid(&child, r.pred(), !or, child_th_pn, child_th_dn, ply + 1, RootMoves::All);
                debug_assert!(
                    self.monitor.aborted() || cv.is_solved() || cv.pn >= child_th_pn || cv.dn >= child_th_dn,
                    "child returned below its thresholds"
                );
                children[best].value = cv;
            },
        };
        if or && value.is_proven() {
            self.mating.insert(best);
        }
        if root == RootMoves::All && !value.path_dependent {
            let work = (self.monitor.nodes() - start_nodes).min(u64::from(u32::MAX)) as u32;
            let record = Record { bound: r, pn: value.pn.0, dn: value.dn.0, mate: value.mate, work, best };
            self.tt.store(self.keys.of(node, r), &record);
        }
        self.stack[ply] = children;
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfpn::monitor::Control;
    use shakmaty::{CastlingMode, Chess, fen::Fen};

    fn node(fen: &str) -> Node {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        Node::new(pos)
    }

    fn verdict(tt: &Table, node: &Node, moves: u32, cycles: Cycles) -> Verdict {
        let mut monitor = Monitor::new(Control::new(), Some(5_000_000));
        let question = Question { attacker: node.pos.turn(), root_moves: None, repetitions: None };
        let mut solver = Solver::new(tt, &mut monitor, question);
        let call = Call { budget: None, root: RootMoves::Restricted, game_root: true, cycles };
        solver.solve(node, Plies::mate_in(moves), call)
    }

    #[test]
    fn a_disproof_that_rests_on_a_cut_cycle_is_neither_reported_nor_stored() {
        // KR v K from the middle of the board: no mate in 3 (the shortest is longer).
        let kr = node("8/8/8/4k3/8/8/8/4K2R w - - 0 1");
        let tt = Table::new(1);
        assert_eq!(verdict(&tt, &kr, 3, Cycles::Cut), Verdict::Unknown);
        let mut monitor = Monitor::new(Control::new(), None);
        let question = Question { attacker: Color::White, root_moves: None, repetitions: None };
        let stored = Solver::new(&tt, &mut monitor, question).lookup(&kr, Plies::mate_in(3));
        assert!(!stored.is_some_and(|v| v.is_disproven()), "a path-dependent disproof reached the table");
        assert_eq!(verdict(&tt, &kr, 3, Cycles::Search), Verdict::Disproven(Plies::mate_in(3).succ()));
    }

    #[test]
    fn a_call_that_only_looks_for_mates_narrows_a_few_men_node_to_its_best_quiet_moves() {
        use crate::dfpn::expand::MoveClass;
        use crate::knowledge::progress::NARROW_QUIET;
        // K+B+B v K: two bishop checks and 20 quiet moves.
        let n = node("8/6K1/8/8/8/1k6/8/1BB5 w - - 0 1");
        let tt = Table::new(1);
        let mut monitor = Monitor::new(Control::new(), None);
        let question = Question { attacker: Color::White, root_moves: None, repetitions: None };
        let mut solver = Solver::new(&tt, &mut monitor, question);
        let mut children = Vec::new();
        let quiet = |children: &[Child]| children.iter().filter(|c| c.class == MoveClass::Quiet).count();

        solver.cycles = Cycles::Search;
        assert!(matches!(solver.expand_or(&n, Plies::mate_in(20), 1, RootMoves::All, &mut children), Expansion::Open));
        assert_eq!(quiet(&children), 20, "a call that must disprove searches every move");
        assert!(children.iter().all(|c| !c.value.is_solved()));

        children.clear();
        solver.cycles = Cycles::Cut;
        assert!(matches!(solver.expand_or(&n, Plies::mate_in(20), 0, RootMoves::All, &mut children), Expansion::Open));
        assert_eq!(quiet(&children), 20, "the root of a call keeps every move");

        children.clear();
        assert!(matches!(solver.expand_or(&n, Plies::mate_in(20), 1, RootMoves::All, &mut children), Expansion::Open));
        let (left_out, kept) = children.split_last().unwrap();
        assert_eq!(quiet(kept), NARROW_QUIET);
        assert_eq!(kept.iter().filter(|c| c.class == MoveClass::Check).count(), 2, "checks are all kept");
        assert!(kept.windows(2).all(|w| w[0].class < w[1].class || w[0].value.pn <= w[1].value.pn));
        // The moves left out fail here only, so the node can never be disproven off this path.
        assert!(left_out.value.is_disproven() && left_out.value.path_dependent);
        let mut all: Vec<Child> = kept.to_vec();
        for c in all.iter_mut() {
            c.value = Value::disproven(Plies::mate_in(20).succ());
        }
        all.push(*left_out);
        let v = aggregate(true, &all).value;
        assert!(v.is_disproven() && v.path_dependent && v.verdict() == Verdict::Unknown);
    }

    #[test]
    fn cutting_cycles_keeps_every_shortest_mate() {
        // Mates in 1, 2 and 3 (checked by brute force): a shortest mate never repeats a position.
        for (fen, moves) in [
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1),
            ("k7/8/2K5/8/8/8/8/7R w - - 0 1", 2),
            ("k7/8/8/3K4/8/8/8/7R w - - 0 1", 3),
        ] {
            let n = node(fen);
            for cycles in [Cycles::Search, Cycles::Cut] {
                let tt = Table::new(1);
                assert_eq!(verdict(&tt, &n, moves, cycles), Verdict::Proven(Plies::mate_in(moves)), "{fen} {cycles:?}");
                if moves > 1 {
                    assert_ne!(verdict(&tt, &n, moves - 1, cycles), Verdict::Proven(Plies::mate_in(moves - 1)));
                }
            }
        }
    }
}
