//! The solver: Nagai's recursive MID with thresholds over a depth-bounded AND/OR tree.
//!
//! OR nodes: the attacker to move (pn = min over children, dn = sum). AND nodes: the
//! defender to move (pn = sum, dn = min). A node carries `r`, the plies left in which the
//! attacker must mate. Values are depth-aware: a proof records the length of the mate it
//! found, a disproof the length below which no mate exists (see `mate_len`); both hold
//! for every bound they cover, so the driver's calls reuse each other's work through the
//! table.
//!
//! No I/O and no clock here: the monitor decides when to unwind.

use shakmaty::{Chess, Color, Move};

use crate::chess::mate_len::{MateRange, Plies};
use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use crate::chess::rules::Repetitions;
use crate::dfpn::children::{Aggregate, Child, Expansion, aggregate, best_move};
use crate::dfpn::expand::{Expand, Expander, SetAside};
use crate::dfpn::monitor::Monitor;
use crate::dfpn::path::Path;
use crate::dfpn::pndn::PnDn;
use crate::dfpn::query::Keys;
use crate::dfpn::tree::{Cycles, RootMoves, Tree};
use crate::dfpn::value::{Value, Verdict};
use crate::knowledge::Know;
use crate::tt::{Record, TranspositionTable};

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

/// What a solver is asked: who attacks, and in which game.
pub struct Question<'q, G: Expand = Chess> {
    /// The side that tries to mate.
    pub attacker: Color,
    /// The moves of a restricted root (UCI searchmoves), when restricted.
    pub root_moves: Option<&'q [Move]>,
    /// Repetitions the defender may claim against the game history, if any.
    pub repetitions: Option<&'q Repetitions>,
    /// What the game's tables know.
    pub oracle: &'q G::Oracle,
}

impl<G: Expand> Clone for Question<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Expand> Copy for Question<'_, G> {}

/// The df-pn solver for one question over one table, in game `G` (chess unless named).
pub struct Solver<'a, G: Expand = Chess> {
    /// The question's tree: table, keys, rules and the current call's settings.
    pub tree: Tree<'a>,
    /// Node counting and limits.
    pub monitor: &'a mut Monitor,
    /// What is known beyond the rules (see [`crate::knowledge`]).
    knowledge: G::Knowledge<'a>,
    /// Where the current call sets quiet moves aside.
    set_aside: SetAside,
    /// Children lists by ply, kept for their allocations.
    stack: Vec<Vec<Child>>,
    /// The positions on the current path (kept in calls that cut cycles).
    path: Path,
    /// Deepest ply reached.
    pub seldepth: usize,
}

impl<'a, G: Expand> Solver<'a, G> {
    /// A solver for `question` about the game of `root` over `tt`, counting in `monitor`.
    pub fn new(tt: &'a TranspositionTable, monitor: &'a mut Monitor, root: &G, question: Question<'a, G>) -> Self {
        let salt = question.repetitions.map_or(0, Repetitions::salt) ^ root.salt();
        Solver {
            tree: Tree {
                tt,
                keys: Keys::new(question.attacker, salt),
                attacker: question.attacker,
                repetitions: question.repetitions,
                root_moves: question.root_moves,
                at_game_root: false,
                cycles: Cycles::Search,
            },
            monitor,
            knowledge: G::knowledge(root, question.attacker, question.oracle),
            set_aside: SetAside::default(),
            stack: Vec::new(),
            path: Path::default(),
            seldepth: 0,
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
        self.tree.attacker
    }

    /// What the table knows of `node` with `bound` plies left.
    pub fn lookup(&self, node: &Node<G>, bound: Plies) -> Option<Value> {
        self.tree.known(self.tree.keys.of(node, bound), bound)
    }

    /// The best move the table records for `node` with `bound` plies left, if any.
    pub fn best_move(&self, node: &Node<G>, bound: Plies) -> Option<Move> {
        self.tree.tt.probe(self.tree.keys.of(node, bound)).and_then(|e| e.best.decode(&node.pos))
    }

    /// Whether the table proves that the attacker, to move at `node`, mates within
    /// `plies` by playing `m`: `m` wins at once, or the position after it has a proof
    /// of a win within one ply less.
    pub fn proves_after(&self, node: &Node<G>, m: Move, plies: Plies) -> bool {
        if plies == Plies::ZERO {
            return false;
        }
        let child = node.play(m);
        if child.pos.is_won_by(self.tree.attacker) {
            return true;
        }
        let within = plies.pred();
        self.tree.tt.probe(self.tree.keys.of(&child, within)).is_some_and(|e| e.mate.proves(within))
    }

    /// Whether `node`, the root of a call at the game root, is a defender node whose
    /// repetition claim differs from that of its later occurrences (it has occurred
    /// exactly twice: a third occurrence, not this one, lets the defender claim). Its value
    /// then holds for this node only and is not stored, like a restricted root's.
    fn root_is_special(&self, node: &Node<G>) -> bool {
        self.tree.at_game_root
            && node.pos.turn() != self.tree.attacker
            && self.tree.repetitions.is_some_and(|r| r.count(node.hash) == 2)
    }

    /// Records that the attacker mates from `node` within `plies` (a length the line
    /// builder established from proofs of every defence).
    pub fn record_proof(&self, node: &Node<G>, plies: Plies) {
        let record = Record {
            bound: plies,
            pn: 0,
            dn: PnDn::INFINITE.0,
            mate: MateRange { at_most: plies, ..MateRange::UNKNOWN },
            work: 0,
            best: MoveCode::NONE,
        };
        self.tree.tt.store(self.tree.keys.of(node, plies), &record);
    }

    /// Drops the proof the table records for `node` (see [`crate::tt::TranspositionTable::forget_proof`]).
    pub fn forget_proof(&self, node: &Node<G>, bound: Plies) {
        self.tree.tt.forget_proof(self.tree.keys.of(node, bound));
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
    pub fn solve_below(&mut self, node: &Node<G>, bound: Plies, limit: u64, budget: &mut u64) -> Verdict {
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
    pub fn solve(&mut self, node: &Node<G>, bound: Plies, call: Call) -> Verdict {
        self.solve_value(node, bound, call).verdict()
    }

    /// Solves `node` with `bound` plies left, as `call` allows; the root's value, which
    /// says (unlike its verdict) whether a failure rests on a cut cycle.
    pub fn solve_value(&mut self, node: &Node<G>, bound: Plies, call: Call) -> Value {
        self.tree.at_game_root = call.game_root;
        self.tree.cycles = call.cycles;
        let restricted =
            call.root == RootMoves::Restricted && self.tree.root_moves.is_some() || self.root_is_special(node);
        if !restricted
            && let Some(v) = self.lookup(node, bound)
            && v.is_solved()
        {
            return v;
        }
        self.monitor.begin(call.budget);
        let or = node.pos.or_node(self.tree.attacker);
        let root = if restricted { RootMoves::Restricted } else { RootMoves::All };
        self.set_aside.begin();
        self.knowledge.begin_call(node.pos.board(), self.monitor.limits());
        let mut v = self.mid(node, bound, or, PnDn::INFINITE, PnDn::INFINITE, 0, root).value();
        // Below a defender's root, each attacker node of the first level is the only
        // answer to its reply: moves set aside there are lost to the whole call, which
        // then fails on the cut. Such a call is searched again with every move there.
        if self.set_aside.below_root && v.is_disproven() && v.path_dependent && !self.monitor.aborted() {
            self.set_aside.from = 2;
            v = self.mid(node, bound, or, PnDn::INFINITE, PnDn::INFINITE, 0, root).value();
        }
        v
    }

    /// Nagai's MID: searches `node` until its pn reaches `th_pn`, its dn reaches `th_dn`,
    /// it is solved, or the monitor says stop. Stores the result in the table.
    #[expect(clippy::too_many_arguments, reason = "the recursion's state, passed flat for speed")]
    fn mid(
        &mut self,
        node: &Node<G>,
        r: Plies,
        or: bool,
        th_pn: PnDn,
        th_dn: PnDn,
        ply: usize,
        root: RootMoves,
    ) -> Returned {
        let start_nodes = self.monitor.nodes();
        self.monitor.count(1);
        self.seldepth = self.seldepth.max(ply);
        if self.stack.len() <= ply {
            self.stack.resize_with(ply + 1, Vec::new);
        }
        if self.tree.cycles == Cycles::Cut {
            self.path.enter(ply, node.hash);
            // A repetition can only reach back to the last pawn move or capture.
            if self.path.repeats(ply, ply.min(node.clock() as usize)) {
                return Returned::of(Value::repetition());
            }
        }
        let mut children = std::mem::take(&mut self.stack[ply]);
        children.clear();
        let mut expander = Expander::<G> {
            tree: &self.tree,
            monitor: &mut *self.monitor,
            knowledge: &self.knowledge,
            set_aside: &mut self.set_aside,
        };
        let expansion = G::expand(&mut expander, node, r, or, ply, root, &mut children);
        let (value, best) = match expansion {
            Expansion::Decided(value, best) => (value, best),
            Expansion::Open => {
                let mut steps = 0;
                loop {
                    let Aggregate { value: v, best, second, runner_up } = aggregate(or, &children);
                    if v.is_solved() || v.pn >= th_pn || v.dn >= th_dn || self.monitor.aborted() {
                        break (v, best_move(or, &v, &children, best));
                    }
                    steps += 1;
                    // A node that takes a second step often takes many: an attacker node
                    // whose quiet moves the table knows from earlier visits probes them one
                    // after another, each found worse than the next. Their buckets are all
                    // asked for now, so that those misses overlap.
                    if steps == 2 {
                        for c in children.iter_mut().filter(|c| !c.probed) {
                            self.tree.tt.prefetch(c.keyed(&self.tree.keys, node, r.pred()));
                        }
                    }
                    // A quiet child of an OR node is probed when it is first picked: a
                    // miss into the table, which the search waits for. The runner-up is
                    // the likeliest next pick; fetching its bucket now overlaps the two
                    // misses.
                    if let Some(next) = children.get_mut(runner_up).filter(|c| !c.probed) {
                        self.tree.tt.prefetch(next.keyed(&self.tree.keys, node, r.pred()));
                    }
                    if !children[best].probed {
                        let c = &mut children[best];
                        c.probed = true;
                        let key = c.keyed(&self.tree.keys, node, r.pred());
                        if let Some(known) = self.tree.known(key, r.pred()) {
                            children[best].value = known;
                            continue;
                        }
                    }
                    let c = children[best];
                    if ply == 0 && self.tree.at_game_root && self.reports_root_move() {
                        self.monitor.control().publish_root_move(MoveCode::of(c.mv), best + 1);
                    }
                    let (child_th_pn, child_th_dn) = if or {
                        (PnDn::epsilon_threshold(th_pn, second), th_dn - (v.dn - c.value.dn))
                    } else {
                        (th_pn - (v.pn - c.value.pn), PnDn::epsilon_threshold(th_dn, second))
                    };
                    let mut child = node.clone();
                    child.apply(c.mv);
                    let cv = self
                        .mid(&child, r.pred(), node.pos.or_after(or), child_th_pn, child_th_dn, ply + 1, RootMoves::All)
                        .value();
                    debug_assert!(
                        self.monitor.aborted() || cv.is_solved() || cv.pn >= child_th_pn || cv.dn >= child_th_dn,
                        "child returned below its thresholds"
                    );
                    children[best].value = cv;
                }
            }
        };
        if or && value.is_proven() {
            self.knowledge.learn_mate(best);
        }
        if root == RootMoves::All && !value.path_dependent {
            let work = (self.monitor.nodes() - start_nodes).min(u64::from(u32::MAX)) as u32;
            let record = Record { bound: r, pn: value.pn.0, dn: value.dn.0, mate: value.mate, work, best };
            self.tree.tt.store(self.tree.keys.of(node, r), &record);
        }
        self.stack[ply] = children;
        Returned::of(value)
    }
}

/// A [`Value`] as [`Solver::mid`] returns it: two words, which come back in registers.
/// Returned in memory, the value was written field by field and read back whole, a load
/// that waits for the stores to retire.
#[derive(Clone, Copy)]
struct Returned(u64, u64);

impl Returned {
    #[inline(always)]
    fn of(v: Value) -> Returned {
        Returned(
            u64::from(v.pn.0) | u64::from(v.dn.0) << 32,
            u64::from(v.mate.at_least.get())
                | u64::from(v.mate.at_most.get()) << 16
                | u64::from(v.path_dependent) << 32,
        )
    }

    #[inline(always)]
    fn value(self) -> Value {
        Value {
            pn: PnDn(self.0 as u32),
            dn: PnDn((self.0 >> 32) as u32),
            mate: MateRange {
                at_least: Plies::from_raw(self.1 as u16),
                at_most: Plies::from_raw((self.1 >> 16) as u16),
            },
            path_dependent: (self.1 >> 32) & 1 != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfpn::monitor::Control;
    use crate::knowledge::oracle::ChessOracle;
    use shakmaty::{CastlingMode, Chess, fen::Fen};

    fn node(fen: &str) -> Node {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        Node::new(pos)
    }

    fn verdict(tt: &TranspositionTable, node: &Node, moves: u32, cycles: Cycles) -> Verdict {
        let mut monitor = Monitor::new(Control::new(), Some(5_000_000));
        let question = Question {
            attacker: shakmaty::Position::turn(&node.pos),
            root_moves: None,
            repetitions: None,
            oracle: &ChessOracle::default(),
        };
        let mut solver = Solver::new(tt, &mut monitor, &node.pos, question);
        let call = Call { budget: None, root: RootMoves::Restricted, game_root: true, cycles };
        solver.solve(node, Plies::mate_in(moves), call)
    }

    #[test]
    fn a_returned_value_is_the_value() {
        let values = [
            Value::proven(Plies::new(37)),
            Value::disproven(Plies::INFINITE),
            Value::repetition(),
            Value::open(PnDn(1), PnDn::MAX_FINITE),
            Value::open(PnDn::INFINITE, PnDn(12_345)),
            Value {
                mate: MateRange { at_least: Plies::new(9), at_most: Plies::new(u16::MAX - 1) },
                ..Value::open(PnDn(7), PnDn(8))
            },
        ];
        for v in values {
            assert_eq!(Returned::of(v).value(), v);
        }
    }

    #[test]
    fn a_disproof_that_rests_on_a_cut_cycle_is_neither_reported_nor_stored() {
        // K+R+P+P v K from the middle of the board (five men: no exact table decides
        // it): no mate in 3 (the shortest is longer).
        let kr = node("8/8/8/4k3/8/8/PP6/4K2R w - - 0 1");
        let tt = TranspositionTable::new(1);
        assert_eq!(verdict(&tt, &kr, 3, Cycles::Cut), Verdict::Unknown);
        let mut monitor = Monitor::new(Control::new(), None);
        let question =
            Question { attacker: Color::White, root_moves: None, repetitions: None, oracle: &ChessOracle::default() };
        let stored = Solver::new(&tt, &mut monitor, &kr.pos, question).lookup(&kr, Plies::mate_in(3));
        assert!(!stored.is_some_and(|v| v.is_disproven()), "a path-dependent disproof reached the table");
        assert_eq!(verdict(&tt, &kr, 3, Cycles::Search), Verdict::Disproven(Plies::mate_in(3).succ()));
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
                let tt = TranspositionTable::new(1);
                assert_eq!(verdict(&tt, &n, moves, cycles), Verdict::Proven(Plies::mate_in(moves)), "{fen} {cycles:?}");
                if moves > 1 {
                    assert_ne!(verdict(&tt, &n, moves - 1, cycles), Verdict::Proven(Plies::mate_in(moves - 1)));
                }
            }
        }
    }
}
