//! The df-pn core: Nagai's recursive MID with thresholds over a depth-bounded AND/OR tree.
//!
//! OR nodes: the attacker to move (pn = min over children, dn = sum). AND nodes: the
//! defender to move (pn = sum, dn = min). A node carries `r`, the plies left in which the
//! attacker must mate. Verdicts are depth-aware: a proof records the length of the mate it
//! found (`proof`, "mate in <= proof plies"), a disproof the depth it covers (`disproof`,
//! "no mate in <= disproof plies"); both are valid for every bound they cover, so the
//! driver's iterations reuse each other's work through the table.
//!
//! No I/O and no clock here: the monitor decides when to unwind.

use shakmaty::{Chess, Color, Move, MoveList, Position};

use super::checks::CheckInfo;
use super::monitor::Monitor;
use super::node::{Node, can_claim_fifty, cannot_mate, clock_after, encode_move, table_key};
use super::pndn::{DISPROOF_NEVER, NO_PROOF, Plies, PnDn};
use crate::tt::{Entry, Table};

/// Initial proof number of a quiet (non-checking) attacker move: the defender is
/// unconstrained, so such a move is much harder to prove than a check. Measured on a
/// matetrack sample at 1M nodes: 4 and 8 beat 12, 24 is clearly worse.
const QUIET_PN: u32 = 8;

/// Initial proof number of a defender's capture: taking attacker material usually makes
/// the mate harder than a quiet reply does (measured at 1M nodes: 2 beat 1 and 3 on a
/// matetrack sample, and matched 1 on a mates2000 sample).
const DEFENDER_CAPTURE_PN: u32 = 2;

/// Scale of a checking move's proof number per legal evasion.
const EVASION_PN: u32 = 1;

/// What a search knows about a node: working numbers and verdict lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    /// Proof number (0: proven).
    pub pn: PnDn,
    /// Disproof number (0: disproven).
    pub dn: PnDn,
    /// Mate in at most this many plies when proven, else [`NO_PROOF`].
    pub proof: Plies,
    /// No mate within this many plies when disproven, else -1.
    pub disproof: i16,
}

impl Value {
    /// A proven value: mate in `plies`.
    pub fn proven(plies: Plies) -> Value {
        Value { pn: PnDn::ZERO, dn: PnDn::INFINITE, proof: plies, disproof: -1 }
    }

    /// A disproven value: no mate in `plies` or fewer.
    pub fn disproven(plies: i16) -> Value {
        Value { pn: PnDn::INFINITE, dn: PnDn::ZERO, proof: NO_PROOF, disproof: plies }
    }

    /// An unsolved value.
    pub fn open(pn: PnDn, dn: PnDn) -> Value {
        Value { pn, dn, proof: NO_PROOF, disproof: -1 }
    }

    /// True when proven.
    pub fn is_proven(&self) -> bool {
        self.pn.is_zero()
    }

    /// True when disproven.
    pub fn is_disproven(&self) -> bool {
        self.dn.is_zero()
    }

    /// Reads a table entry as seen by a node with `bound` plies left: a verdict that
    /// covers the bound, else working numbers of this bound or of a deeper one.
    pub fn from_entry(e: &Entry, bound: Plies) -> Option<Value> {
        if e.proof <= bound {
            Some(Value::proven(e.proof))
        } else if i32::from(e.disproof) >= i32::from(bound) {
            Some(Value::disproven(e.disproof))
        } else if e.bound == bound {
            Some(Value::open(PnDn(e.pn), PnDn(e.dn)))
        } else if e.bound > bound && e.pn > 0 && e.dn > 0 {
            // Working numbers of a deeper search: a better first guess than the
            // heuristic (measured: +8 found on a 150-position matetrack sample; reusing
            // shallower numbers as well cost 27).
            Some(Value::open(PnDn(e.pn).min(PnDn::MAX_FINITE), PnDn(e.dn).min(PnDn::MAX_FINITE)))
        } else {
            None
        }
    }
}

/// One child of an expanded node.
#[derive(Clone, Copy, Debug)]
struct Child {
    mv: Move,
    key: u64,
    value: Value,
    /// Ordering class at OR nodes: 0 check, 1 capture or promotion, 2 quiet.
    class: u8,
    /// Whether the table was asked about this child yet (quiet moves are asked lazily).
    probed: bool,
}

/// The smallest and second-smallest value among children on the deciding side (pn at
/// OR nodes, dn at AND nodes); ties go to the earlier child.
struct Pick {
    best: usize,
    best_v: PnDn,
    second: PnDn,
}

impl Pick {
    #[inline]
    fn offer(&mut self, i: usize, v: PnDn) {
        if v < self.best_v {
            self.second = self.best_v;
            self.best_v = v;
            self.best = i;
        } else if v < self.second {
            self.second = v;
        }
    }
}

/// A node decided during expansion: its value and the move that decides it (0: none).
type Decided = (Value, u16);

/// The df-pn solver for one attacker over one table.
pub struct Solver<'a> {
    /// The shared transposition table.
    pub tt: &'a mut Table,
    /// Node counting and limits.
    pub monitor: &'a mut Monitor,
    attacker: Color,
    stack: Vec<Vec<Child>>,
    scratch: Vec<Child>,
    root_moves: Option<Vec<Move>>,
    /// Deepest ply reached.
    pub seldepth: usize,
}

/// The result of one root call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Mate within the bound, in at most this many plies.
    Proven(Plies),
    /// No mate within this many plies (at least the bound).
    Disproven(i16),
    /// Budget, limit or stop came first.
    Unknown,
}

impl<'a> Solver<'a> {
    /// A solver where `attacker` tries to mate. `root_moves`, when given, restricts the
    /// moves of the root node (UCI searchmoves); a restricted root is never stored.
    pub fn new(tt: &'a mut Table, monitor: &'a mut Monitor, attacker: Color, root_moves: Option<Vec<Move>>) -> Self {
        Solver { tt, monitor, attacker, stack: Vec::new(), scratch: Vec::new(), root_moves, seldepth: 0 }
    }

    /// The attacking colour.
    pub fn attacker(&self) -> Color {
        self.attacker
    }

    /// Looks up what the table knows of `node` at `bound`.
    pub fn lookup(&self, node: &Node, bound: Plies) -> Option<Value> {
        self.tt.probe(node.key(self.attacker, bound)).and_then(|e| Value::from_entry(&e, bound))
    }

    /// Solves `node` with `bound` plies, spending at most `budget` nodes (None: until a
    /// hard limit). `restricted` applies the root move restriction to this node.
    pub fn solve(
        &mut self,
        node: &Node,
        bound: Plies,
        budget: Option<u64>,
        ignore_hard: bool,
        restricted: bool,
    ) -> Verdict {
        let or = node.pos.turn() == self.attacker;
        if (!restricted || self.root_moves.is_none())
            && let Some(v) = self.lookup(node, bound)
        {
            if v.is_proven() {
                return Verdict::Proven(v.proof);
            }
            if v.is_disproven() {
                return Verdict::Disproven(v.disproof);
            }
        }
        self.monitor.begin(budget, ignore_hard);
        let restrict = restricted && self.root_moves.is_some();
        let v = self.mid(node, bound, or, PnDn::INFINITE, PnDn::INFINITE, 0, restrict);
        if v.is_proven() {
            Verdict::Proven(v.proof)
        } else if v.is_disproven() {
            Verdict::Disproven(v.disproof)
        } else {
            Verdict::Unknown
        }
    }

    /// The best move the table records for `node` at `bound`, if any.
    pub fn best_move_code(&self, node: &Node, bound: Plies) -> u16 {
        self.tt.probe(node.key(self.attacker, bound)).map_or(0, |e| e.best)
    }

    /// Legal moves of a node, restricted at a restricted root.
    pub fn node_moves(&self, node: &Node, restricted: bool) -> MoveList {
        let mut moves = node.pos.legal_moves();
        if restricted && let Some(allowed) = &self.root_moves {
            moves.retain(|m| allowed.contains(m));
        }
        moves
    }

    /// Pushes one child per move with its table key.
    fn push_children(&self, node: &Node, moves: &[Move], bound: Plies, children: &mut Vec<Child>) {
        for &m in moves {
            let key = table_key(node.child_hash(m), clock_after(node.clock(), m), self.attacker, bound);
            children.push(Child { mv: m, key, value: Value::open(PnDn::ONE, PnDn::ONE), class: 0, probed: true });
        }
    }

    #[inline]
    fn known(&self, key: u64, bound: Plies) -> Option<Value> {
        self.tt.probe(key).and_then(|e| Value::from_entry(&e, bound))
    }

    /// Expands an OR node into `children`, or returns its value when it is decided
    /// without a search (terminal, or a mate in one found while expanding).
    fn expand_or(&mut self, node: &Node, r: Plies, restrict: bool, children: &mut Vec<Child>) -> Result<(), Decided> {
        let moves = self.node_moves(node, restrict);
        // The 50-move rule is the defender's claim, made on its own turn (see expand_and);
        // at the attacker's turn only the automatic 75-move draw ends the game.
        if moves.is_empty() || node.clock() >= 150 || cannot_mate(&node.pos, self.attacker) {
            return Err((Value::disproven(DISPROOF_NEVER), 0));
        }
        if r == 0 {
            return Err((Value::disproven(0), 0));
        }
        let info = CheckInfo::new(&node.pos);
        if r == 1 {
            // Only a check can mate in one: the cheap mate-in-1 test.
            for &m in &moves {
                if info.gives_check(&node.pos, m) && self.is_mate_after(node, m) {
                    return Err((Value::proven(1), encode_move(m)));
                }
            }
            return Err((Value::disproven(1), 0));
        }
        // Checks and captures are probed at once (prefetched together); quiet moves, the
        // bulk of an OR node's moves and rarely selected, are probed only when selected.
        let mut shortest: Option<(Plies, Move)> = None;
        self.push_children(node, &moves, r - 1, children);
        for c in children.iter_mut() {
            let check = info.gives_check(&node.pos, c.mv);
            c.class = if check {
                0
            } else if c.mv.is_capture() || c.mv.is_promotion() {
                1
            } else {
                2
            };
            c.probed = c.class < 2;
            self.tt.prefetch(c.key);
        }
        for c in children.iter_mut() {
            if !c.probed {
                c.value = Value::open(PnDn(QUIET_PN), PnDn::ONE);
                continue;
            }
            let m = c.mv;
            let value = match self.known(c.key, r - 1) {
                Some(v) => v,
                None if c.class == 0 => {
                    let child = node.play(m);
                    self.monitor.count(1);
                    let evasions = child.pos.legal_moves().len() as u32;
                    if evasions == 0 {
                        return Err((Value::proven(1), encode_move(m)));
                    }
                    Value::open(PnDn(evasions * EVASION_PN), PnDn::ONE)
                }
                None => Value::open(PnDn(QUIET_PN), PnDn::ONE),
            };
            if value.is_proven() && shortest.is_none_or(|(p, _)| value.proof < p) {
                shortest = Some((value.proof, m));
            }
            c.value = value;
        }
        if let Some((p, m)) = shortest {
            return Err((Value::proven(p.saturating_add(1)), encode_move(m)));
        }
        // Selection breaks ties by position: checks, then captures, then quiet moves
        // (a stable three-way partition through a reused buffer; no allocation).
        let mut ordered = std::mem::take(&mut self.scratch);
        ordered.clear();
        for class in 0..3 {
            ordered.extend(children.iter().filter(|c| c.class == class));
        }
        std::mem::swap(children, &mut ordered);
        self.scratch = ordered;
        Ok(())
    }

    fn is_mate_after(&mut self, node: &Node, m: Move) -> bool {
        let mut pos: Chess = node.pos.clone();
        pos.play_unchecked(m);
        self.monitor.count(1);
        pos.legal_moves().is_empty()
    }

    /// Expands an AND node, or returns its value when decided without a search.
    fn expand_and(&mut self, node: &Node, r: Plies, restrict: bool, children: &mut Vec<Child>) -> Result<(), Decided> {
        let all = node.pos.legal_moves();
        if all.is_empty() {
            let v = if node.pos.is_check() { Value::proven(0) } else { Value::disproven(DISPROOF_NEVER) };
            return Err((v, 0));
        }
        if can_claim_fifty(&node.pos, &all) || cannot_mate(&node.pos, self.attacker) {
            return Err((Value::disproven(DISPROOF_NEVER), 0));
        }
        if r <= 1 {
            return Err((Value::disproven(r as i16), 0));
        }
        let moves = if restrict { self.node_moves(node, true) } else { all };
        self.push_children(node, &moves, r - 1, children);
        for c in children.iter_mut() {
            if let Some(value) = self.known(c.key, r - 1) {
                if value.is_disproven() {
                    return Err((Value::disproven(value.disproof.saturating_add(1)), encode_move(c.mv)));
                }
                c.value = value;
            } else if c.mv.is_capture() {
                c.value = Value::open(PnDn(DEFENDER_CAPTURE_PN), PnDn::ONE);
            }
        }
        Ok(())
    }

    /// Combines the children's values into the node's, and picks the child to search
    /// next with the second-best value on the deciding side (one pass over the children).
    fn evaluate(or: bool, children: &[Child]) -> (Value, usize, PnDn) {
        let mut pick = Pick { best: 0, best_v: PnDn::INFINITE, second: PnDn::INFINITE };
        let value = if or {
            let mut dn = PnDn::ZERO;
            let mut proof = NO_PROOF;
            let mut disproof = DISPROOF_NEVER;
            for (i, c) in children.iter().enumerate() {
                let v = c.value;
                pick.offer(i, v.pn);
                dn = dn + v.dn;
                if v.is_proven() {
                    proof = proof.min(v.proof);
                }
                disproof = disproof.min(v.disproof);
            }
            if pick.best_v.is_zero() {
                Value::proven(proof.saturating_add(1))
            } else if dn.is_zero() {
                Value::disproven(disproof.saturating_add(1))
            } else {
                Value::open(pick.best_v, dn)
            }
        } else {
            let mut pn = PnDn::ZERO;
            let mut proof: Plies = 0;
            let mut disproof: i16 = -1;
            for (i, c) in children.iter().enumerate() {
                let v = c.value;
                pick.offer(i, v.dn);
                pn = pn + v.pn;
                proof = proof.max(v.proof);
                if v.is_disproven() {
                    disproof = disproof.max(v.disproof);
                }
            }
            if pick.best_v.is_zero() {
                Value::disproven(disproof.saturating_add(1))
            } else if pn.is_zero() {
                Value::proven(proof.saturating_add(1))
            } else {
                Value::open(pn, pick.best_v)
            }
        };
        (value, pick.best, pick.second)
    }

    /// The move to remember for a node: the shortest proven mate at a proven OR node, the
    /// longest defence at a proven AND node, the refutation at a disproven AND node, else
    /// the child the search would enter next (`next`, as `evaluate` picked it).
    fn best_move(or: bool, v: &Value, children: &[Child], next: usize) -> u16 {
        let pick = if v.is_proven() {
            if or {
                children.iter().filter(|c| c.value.is_proven()).min_by_key(|c| c.value.proof)
            } else {
                children.iter().max_by_key(|c| c.value.proof)
            }
        } else if v.is_disproven() {
            if or { None } else { children.iter().filter(|c| c.value.is_disproven()).max_by_key(|c| c.value.disproof) }
        } else {
            children.get(next)
        };
        pick.map_or(0, |c| encode_move(c.mv))
    }

    /// Nagai's MID: searches `node` until its pn reaches `th_pn`, its dn reaches `th_dn`,
    /// it is solved, or the monitor says stop. Stores the result in the table.
    #[expect(clippy::too_many_arguments, reason = "the recursion's state, passed flat for speed")]
    fn mid(&mut self, node: &Node, r: Plies, or: bool, th_pn: PnDn, th_dn: PnDn, ply: usize, restrict: bool) -> Value {
        let start_nodes = self.monitor.nodes();
        self.monitor.count(1);
        self.seldepth = self.seldepth.max(ply);
        if self.stack.len() <= ply {
            self.stack.resize_with(ply + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.stack[ply]);
        children.clear();
        let expanded = if or {
            self.expand_or(node, r, restrict, &mut children)
        } else {
            self.expand_and(node, r, restrict, &mut children)
        };
        let (value, best) = match expanded {
            Err(decided) => decided,
            Ok(()) => loop {
                let (v, best, second) = Self::evaluate(or, &children);
                if v.is_proven() || v.is_disproven() || v.pn >= th_pn || v.dn >= th_dn || self.monitor.aborted() {
                    break (v, Self::best_move(or, &v, &children, best));
                }
                if !children[best].probed {
                    children[best].probed = true;
                    if let Some(known) = self.known(children[best].key, r - 1) {
                        children[best].value = known;
                        continue;
                    }
                }
                let c = children[best];
                let (child_th_pn, child_th_dn) = if or {
                    (PnDn::epsilon_threshold(th_pn, second), th_dn - (v.dn - c.value.dn))
                } else {
                    (th_pn - (v.pn - c.value.pn), PnDn::epsilon_threshold(th_dn, second))
                };
                let child = node.play(c.mv);
                let cv = self.mid(&child, r - 1, !or, child_th_pn, child_th_dn, ply + 1, false);
                debug_assert!(
                    self.monitor.aborted()
                        || cv.is_proven()
                        || cv.is_disproven()
                        || cv.pn >= child_th_pn
                        || cv.dn >= child_th_dn,
                    "child returned below its thresholds"
                );
                children[best].value = cv;
            },
        };
        if !restrict {
            let work = (self.monitor.nodes() - start_nodes).min(u64::from(u32::MAX)) as u32;
            let key = node.key(self.attacker, r);
            self.tt.store(key, r, value.pn.0, value.dn.0, value.proof, value.disproof, work, best);
        }
        self.stack[ply] = children;
        value
    }
}
