//! Local expansion: a node's children with their first values, ordered, and the
//! aggregation of the children's values into the node's.
//!
//! Initial numbers follow df-pn+: a check starts at pn = its number of evasions (known
//! once the check is played, which also finds mates in one; twice that where the
//! defender keeps a piece against no queen), a capture or promotion and a
//! quiet move start at fixed, larger proof numbers; every child starts at dn = 1. In
//! positions with few men, quiet moves and the defender's quiet replies start at a proof
//! number that grows with the defending king's distance from mate (see `progress`). At
//! the last attacker ply only checks can mate, so only checks are tried.

use shakmaty::{Color, Move, Position};

use crate::chess::checks::CheckInfo;
use crate::chess::mate_len::Plies;
use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use crate::chess::rules::{AUTOMATIC_DRAW_CLOCK, can_claim_fifty, cannot_mate};
use crate::dfpn::pndn::PnDn;
use crate::dfpn::query::Keys;
use crate::dfpn::solver::{Cycles, RootMoves, Solver};
use crate::dfpn::value::Value;
use crate::knowledge::progress::{Flights, Kings, MatingMoves, NARROW_QUIET, quiet_mate};

/// Initial proof number of a quiet (non-checking) attacker move: the defender is
/// unconstrained, so such a move is much harder to prove than a check. Measured on a
/// matetrack sample at 1M nodes: 4 and 8 beat 12, 24 is clearly worse.
const QUIET_PN: u32 = 8;

/// Initial proof number of a defender's capture: taking attacker material usually makes
/// the mate harder than a quiet reply does (measured at 1M nodes: 2 beat 1 and 3 on a
/// matetrack sample, and matched 1 on a mates2000 sample).
const DEFENDER_CAPTURE_PN: u32 = 2;

/// Initial proof number of a quiet attacker move: [`QUIET_PN`], or in a few-men position
/// one more than a defender's reply to it starts with, 2 + d for the progress distance d
/// (measured on samples of the 1000-position endgame suites at 1 s: it beat 2 + d/2,
/// 2 + 3d/2, 4 + d, 1 + 2d and the flat [`QUIET_PN`]), one less when the move already
/// proved an attacker node of this call (see `progress`); [`ARMED_QUIET_SCALE`] times
/// that where the defender has a piece and the attacker no queen ([`Kings::armed`]), and
/// in K+Q v K+R ([`Kings::queen_v_rook`]).
#[inline]
fn quiet_pn(kings: Option<Kings>, m: Move, mating: &MatingMoves) -> u32 {
    kings.map_or(QUIET_PN, |k| {
        let pn = 1 + reply_pn(k.after(m)) - u32::from(mating.contains(m));
        if k.armed || k.queen_v_rook() { ARMED_QUIET_SCALE * pn } else { pn }
    })
}

/// How many times its progress number a quiet attacker move starts at where the
/// defender has a piece and the attacker no queen ([`Kings::armed`]). Once expanded, the
/// defender's node sums the numbers of all its replies: a rook's dozen moves besides the
/// king's, where a bare king has a few. A quiet move that started at one reply's number
/// then looks many times worse than its unexpanded siblings, so the attacker's node
/// expands every quiet move once before it goes deeper. Measured on K+R+B v K+R
/// (`pnmate epd FILE --nodes 1500000 --hash 64`, a fresh table per position, found/best):
/// 60 mates of 14 moves or more 26/6 with 1, 32/10 with 2, 35/10 with 4, 35/10 with 6,
/// 35/8 with 8, 32/8 with 12; 60 mates of 10 to 30 moves 56/17 with 1, 57/15 with 4.
/// Also in K+Q v K+R, since its checks start at the progress number too ([`check_pn`]);
/// while they started at their evasions, 20 of its mates lost 5 found to 3 with 4. Now,
/// nodes to the first proof (`solve FEN --nodes N --hash 256`), proven with 1, 2, 4 and
/// 8: 100 + 100 mates of 10 to 20 moves from the ending's table at 1M nodes, 71 + 78,
/// 73 + 80, 75 + 83 and 72 + 81; at 2M nodes with 1 and 4, 40 of the shared suite's
/// mates in 11 to 20 with the queen's side to move 35 and 37, and 30 mated in 13 to 18
/// with the rook's side to move 18 and 23. Not with any other queen: 16 K+Q v K+P kept
/// 16 found either way. Not where the defender has only pawns, which leave it
/// a move or two each: there it slowed two matetrack mates of seven men, K+N+N+P v
/// K+P+P in 10 (`6N1/2p3p1/6k1/6N1/6K1/8/1P6/8 w`, first proof after 1,228,290 nodes
/// without, 5,176,974 with) and K+R v K+P+P+P+P in 13 (725,947 and 1,495,440).
const ARMED_QUIET_SCALE: u32 = 4;

/// How many times its number of evasions a check starts at where [`ARMED_QUIET_SCALE`]
/// applies: each evasion, once expanded, is a reply with its own progress number, so a
/// check is harder than its count of evasions says, though less so than a quiet move.
/// Measured as above with quiet moves at 4 (60 mates of 14 moves or more, found/best):
/// at 1.5M nodes 35/10 with 1, 38/12 with 2, 36/9 with 3; at 3M nodes 42/18 with 1,
/// 45/22 with 2; 80 other endings with a defender's man (K+Q v K+R and K+Q v K+P,
/// where it does not apply, among them) 23 found either way.
const ARMED_CHECK_SCALE: u32 = 2;

/// Initial proof number of a check that does not mate: its number of evasions,
/// [`ARMED_CHECK_SCALE`] times that where that scale applies; but in K+Q v K+R, where
/// the fitted model gives the progress numbers ([`Kings::queen_v_rook`]), a check that
/// takes nothing starts at the progress number a quiet move would ([`quiet_pn`]). There
/// the queen has checks on most moves and its king evasions, so evasions rank a
/// check in front of every quiet move (2 + d, d up to about 140) whether it brings the
/// mate nearer or not, and df-pn followed the checks to the end of a long bound before it
/// tried the quiet moves the model prefers. Nodes to the first proof (`solve FEN --nodes
/// N --hash 256`), proven before and after: 40 mates in 11 to 20 moves of the shared
/// suite with the queen's side to move at 2M nodes, 30 and 34; 30 with the rook's side
/// to move, mated in 13 to 18, at 2M nodes, 10 and 17; 100 + 100 mates in 10 to 20 moves
/// drawn from the ending's table at 1M nodes, 61 and 69, 72 and 76 (geometric mean of
/// the nodes where both proved: 0.894, 0.863, 0.874, 0.964). The same for K+R v K's
/// model made its 60 mates of the shared suite 1.08 times slower, so it stays there.
#[inline]
fn check_pn(kings: Option<Kings>, m: Move, evasions: u32, mating: &MatingMoves) -> u32 {
    match kings {
        Some(k) if k.queen_v_rook() && !m.is_capture() => quiet_pn(kings, m, mating),
        Some(k) if k.armed => ARMED_CHECK_SCALE * evasions,
        _ => evasions,
    }
}

/// Whether an attacker node of a few-men position keeps only its most promising quiet
/// moves in a call that only looks for mates (see `Solver::narrow_quiet_moves`): in a
/// [`quiet_mate`], and in K+Q v K+R, whose fitted model ranks the queen's quiet moves
/// ([`Kings::queen_v_rook`]; a check or a capture is always kept). Measured there, nodes to
/// the first proof (`solve FEN --nodes N --hash 256`), proven without and with: 200 mates
/// of 10 to 20 moves drawn from the ending's table at 1M nodes, 69 and 71, 76 and 78
/// (keeping 6 quiet moves: 68 and 77; 14: 72 and 77); at 2M nodes, 40 mates in 11 to 20
/// of the shared suite with the queen's side to move 34 and 35, 30 mated in 13 to 18
/// with the rook's side to move 17 and 18.
#[inline]
fn narrows(node: &Node, kings: Kings, attacker: Color) -> bool {
    kings.queen_v_rook() || quiet_mate(node.pos.board(), attacker)
}

/// Initial proof number of a defender's quiet reply in a few-men position: the further
/// from mate it leaves the defending king, the larger (measured: 1 + 2d and a flat 1
/// were worse).
#[inline]
fn reply_pn(kings: Kings) -> u32 {
    1 + kings.distance()
}

/// How an attacker move is ordered: checks first, then captures and promotions, then
/// quiet moves. Selection breaks ties by this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MoveClass {
    /// Gives check.
    Check,
    /// A capture or promotion that does not check.
    Tactical,
    /// Anything else.
    Quiet,
}

/// One child of an expanded node.
#[derive(Clone, Copy, Debug)]
pub struct Child {
    /// The move to the child.
    pub mv: Move,
    /// The child's table key (0 for an OR node's quiet move until it is selected).
    pub key: u64,
    /// What is known of the child.
    pub value: Value,
    /// Ordering class (attacker moves; defender moves are all [`MoveClass::Check`]).
    pub class: MoveClass,
    /// Whether the table was asked about this child yet (an OR node's quiet moves are
    /// asked lazily, and only then get their key).
    pub probed: bool,
}

impl Child {
    /// The child's table key, made first when the child has none yet (a lazily keyed
    /// quiet move of `node`, asked with `bound` plies left).
    #[inline]
    pub fn keyed(&mut self, keys: &Keys, node: &Node, bound: Plies) -> u64 {
        if self.key == 0 {
            self.key = keys.of_child(node, self.mv, bound);
        }
        self.key
    }
}

/// The result of expanding a node.
pub enum Expansion {
    /// The node has children to search.
    Open,
    /// The node's value is known without a search (a terminal position, a mate in one,
    /// or a child whose verdict settles it), with the move that settles it.
    Decided(Value, MoveCode),
}

/// The smallest and second-smallest value among children on the deciding side (pn at
/// OR nodes, dn at AND nodes); ties go to the earlier child.
struct Pick {
    best: usize,
    best_v: PnDn,
    /// The child with the second-best value (`usize::MAX` while there is none; an
    /// `Option` here slowed `bench` by a tenth, this being the search's hottest loop).
    runner_up: usize,
    second: PnDn,
}

impl Pick {
    const NONE: Pick = Pick { best: 0, best_v: PnDn::INFINITE, runner_up: usize::MAX, second: PnDn::INFINITE };

    #[inline]
    fn offer(&mut self, i: usize, v: PnDn) {
        if v < self.best_v {
            self.second = self.best_v;
            self.runner_up = self.best;
            self.best_v = v;
            self.best = i;
        } else if v < self.second {
            self.second = v;
            self.runner_up = i;
        }
    }
}

impl Solver<'_> {
    /// Pushes one child per move (an AND node's replies) with its table key and a neutral
    /// value. Every reply is probed next, so every bucket is asked for here: the cache
    /// misses overlap.
    fn push_children(&self, node: &Node, moves: &[Move], bound: Plies, children: &mut Vec<Child>) {
        for &m in moves {
            let key = self.keys.of_child(node, m, bound);
            self.tt.prefetch(key);
            children.push(Child {
                mv: m,
                key,
                value: Value::open(PnDn::ONE, PnDn::ONE),
                class: MoveClass::Check,
                probed: true,
            });
        }
    }

    /// Expands an OR node (attacker to move, `r` plies left, `ply` plies below the search
    /// root) into `children`.
    pub(crate) fn expand_or(
        &mut self,
        node: &Node,
        r: Plies,
        ply: usize,
        root: RootMoves,
        children: &mut Vec<Child>,
    ) -> Expansion {
        let moves = self.node_moves(node, root);
        // The 50-move rule is the defender's claim, made on its own turn (see expand_and);
        // at the attacker's turn only the automatic 75-move draw ends the game.
        if moves.is_empty() || node.clock() >= AUTOMATIC_DRAW_CLOCK || cannot_mate(&node.pos, self.attacker) {
            return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE);
        }
        if r == Plies::ZERO {
            return Expansion::Decided(Value::disproven(Plies::new(1)), MoveCode::NONE);
        }
        let info = CheckInfo::new(&node.pos);
        if r == Plies::new(1) {
            // Only a check can mate in one: the cheap mate-in-1 test.
            for &m in &moves {
                if info.gives_check(&node.pos, m) {
                    self.monitor.count(1);
                    if node.is_mate_after(m) {
                        return Expansion::Decided(Value::proven(Plies::new(1)), MoveCode::of(m));
                    }
                }
            }
            return Expansion::Decided(Value::disproven(Plies::new(2)), MoveCode::NONE);
        }
        // Children in the order selection breaks ties by: checks, then captures and
        // promotions, then quiet moves. Checks and captures are probed at once (their
        // buckets prefetched together); quiet moves, the bulk of an OR node's moves and
        // rarely selected, get their key and probe only when selected.
        let mut classes = [MoveClass::Quiet; 256];
        for (class, &m) in classes.iter_mut().zip(&moves) {
            *class = if info.gives_check(&node.pos, m) {
                MoveClass::Check
            } else if m.is_capture() || m.is_promotion() {
                MoveClass::Tactical
            } else {
                MoveClass::Quiet
            };
        }
        for class in [MoveClass::Check, MoveClass::Tactical, MoveClass::Quiet] {
            for (&mv, _) in moves.iter().zip(&classes).filter(|&(_, &c)| c == class) {
                let probed = class != MoveClass::Quiet;
                let mut child = Child { mv, key: 0, value: Value::open(PnDn::ONE, PnDn::ONE), class, probed };
                if probed {
                    self.tt.prefetch(child.keyed(&self.keys, node, r.pred()));
                }
                children.push(child);
            }
        }
        let mut shortest: Option<(Plies, Move)> = None;
        let kings = Kings::of(node, self.attacker, self.heavy_root);
        for c in children.iter_mut() {
            if !c.probed {
                c.value = Value::open(PnDn(quiet_pn(kings, c.mv, &self.mating)), PnDn::ONE);
                continue;
            }
            let m = c.mv;
            let value = match self.known(c.key, r.pred()) {
                Some(v) => v,
                None if c.class == MoveClass::Check => {
                    let child = node.play(m);
                    self.monitor.count(1);
                    let evasions = child.pos.legal_moves().len() as u32;
                    if evasions == 0 {
                        return Expansion::Decided(Value::proven(Plies::new(1)), MoveCode::of(m));
                    }
                    Value::open(PnDn(check_pn(kings, m, evasions, &self.mating)), PnDn::ONE)
                }
                None => Value::open(PnDn(QUIET_PN), PnDn::ONE),
            };
            if value.is_proven() && shortest.is_none_or(|(p, _)| value.mate.at_most < p) {
                shortest = Some((value.mate.at_most, m));
            }
            c.value = value;
        }
        if let Some((p, m)) = shortest {
            return Expansion::Decided(Value::proven(p.succ()), MoveCode::of(m));
        }
        if let Some(kings) = kings
            && self.cycles == Cycles::Cut
            && ply >= self.narrow_from
            && narrows(node, kings, self.attacker)
        {
            let narrowed = self.narrow_quiet_moves(node, kings, children);
            self.narrowed_below_root |= narrowed && ply == 1;
        }
        Expansion::Open
    }

    /// Keeps the [`NARROW_QUIET`] most promising quiet moves of an OR node that
    /// [`narrows`] below the call's root, in a call that only looks for mates (cycles
    /// cut). The root keeps every move: a move dropped there is lost to the whole call,
    /// and the root's moves are few against the nodes below them (K+B+N v K
    /// `8/2N5/8/8/8/1k2B3/8/2K5 w`, mate in 15: the root dropped 1.Kd2, which keeps the
    /// kings' distance and takes no flight, and nothing was proven within 40M nodes;
    /// with every root move, a mate after 270,795; 80 matetrack positions of at most six
    /// men without queen or rook at 1M nodes 78/71 before this and the bishop's corners
    /// of [`MateZone`](crate::knowledge::progress::MateZone), 79/75 after). Below a defender's root,
    /// the attacker nodes of the first level are narrowed, which usually pays, but a call
    /// that then fails on the cut is searched again with every move there (see
    /// `Solver::solve_value`). Kept: those with the
    /// smallest progress number, ties going to the move that leaves the defending king
    /// the fewest flights ([`Flights`]), in that order; the flights are then added to the
    /// kept moves' proof numbers (nodes to the first proof, `solve FEN --nodes 4000000
    /// --hash 64`, geometric mean over two samples of 40 K+B+B v K mates of 13 moves or
    /// more: 339,811 and 325,521 without, 313,560 and 289,330 with the flights, 332,149
    /// with twice them; 80 matetrack positions of at most six men without queen or rook
    /// kept 78/72 at 1M nodes). The moves left out stand for one child that fails on
    /// this path ([`Value::repetition`]): a proof through the kept moves is a proof, and
    /// a failure of every kept move is path-dependent, so it is neither stored nor
    /// reported, as a failure that rests on a cut cycle is not.
    /// Says whether it left moves out.
    fn narrow_quiet_moves(&mut self, node: &Node, kings: Kings, children: &mut Vec<Child>) -> bool {
        let start = children.iter().position(|c| c.class == MoveClass::Quiet).unwrap_or(children.len());
        let n = children.len() - start;
        if n <= NARROW_QUIET {
            return false;
        }
        // Sort keys: the proof number, the flights, the child's index (which makes every
        // key distinct, so an unstable selection keeps move order among ties).
        let flights = Flights::new(node, self.attacker, kings);
        let mut order = [0u64; 256];
        for (i, c) in children[start..].iter().enumerate() {
            order[i] = (u64::from(c.value.pn.0) << 40) | (u64::from(flights.after(c.mv)) << 32) | i as u64;
        }
        let order = &mut order[..n];
        order.select_nth_unstable(NARROW_QUIET);
        order[..NARROW_QUIET].sort_unstable();
        let index = |key: u64| (key & 0xffff_ffff) as usize;
        self.scratch.clear();
        self.scratch.extend_from_slice(&children[start..]);
        let left_out = self.scratch[index(order[NARROW_QUIET])].mv;
        children.truncate(start);
        // A kept move starts at its progress number plus the flights it leaves: among the
        // bishop steps, which leave the kings alike, the flights stay the measure of
        // progress after the first choice, not only its tie-break.
        let flights_of = |key: u64| (key >> 32) as u8 as u32;
        children.extend(order[..NARROW_QUIET].iter().map(|&key| {
            let child = self.scratch[index(key)];
            let value = Value::open(PnDn(child.value.pn.0 + flights_of(key)), child.value.dn);
            Child { value, ..child }
        }));
        children.push(Child {
            mv: left_out,
            key: 0,
            value: Value::repetition(),
            class: MoveClass::Quiet,
            probed: true,
        });
        true
    }

    /// Expands an AND node (defender to move, `r` plies left, `ply` plies below the
    /// search root) into `children`.
    pub(crate) fn expand_and(
        &mut self,
        node: &Node,
        r: Plies,
        ply: usize,
        root: RootMoves,
        children: &mut Vec<Child>,
    ) -> Expansion {
        let all = node.pos.legal_moves();
        if all.is_empty() {
            let v = if node.pos.is_check() { Value::proven(Plies::ZERO) } else { Value::disproven(Plies::INFINITE) };
            return Expansion::Decided(v, MoveCode::NONE);
        }
        if can_claim_fifty(&node.pos, &all) || cannot_mate(&node.pos, self.attacker) {
            return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE);
        }
        if let Some(reps) = self.repetitions
            && (reps.claims_here(node.hash, ply == 0 && self.at_game_root)
                || all.iter().any(|&m| reps.claims_by_moving_to(node.child_hash(m))))
        {
            return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE);
        }
        if r <= Plies::new(1) {
            return Expansion::Decided(Value::disproven(r.succ()), MoveCode::NONE);
        }
        // Borrowed, not moved: a move list is a 2 kB array.
        let restricted;
        let moves: &[Move] = if root == RootMoves::Restricted {
            restricted = self.node_moves(node, root);
            &restricted
        } else {
            &all
        };
        self.push_children(node, moves, r.pred(), children);
        let kings = Kings::of(node, self.attacker, self.heavy_root);
        for c in children.iter_mut() {
            if let Some(value) = self.known(c.key, r.pred()) {
                if value.is_disproven() {
                    return Expansion::Decided(Value::disproven(value.mate.at_least.succ()), MoveCode::of(c.mv));
                }
                c.value = value;
            } else if c.mv.is_capture() {
                c.value = Value::open(PnDn(DEFENDER_CAPTURE_PN), PnDn::ONE);
            } else if let Some(k) = kings {
                c.value = Value::open(PnDn(reply_pn(k.after(c.mv))), PnDn::ONE);
            }
        }
        Expansion::Open
    }
}

/// A node's value, combined from its children's, and the children to search next.
pub struct Aggregate {
    /// The node's value.
    pub value: Value,
    /// The child to search next: the best number on the deciding side.
    pub best: usize,
    /// The second-best number on the deciding side, which bounds `best`'s threshold.
    pub second: PnDn,
    /// The child with that number (`usize::MAX` when there is none): the likeliest to
    /// be searched after `best`.
    pub runner_up: usize,
}

/// Combines the children's values into the node's, and picks the child to search next
/// and the runner-up on the deciding side, in one pass.
pub fn aggregate(or: bool, children: &[Child]) -> Aggregate {
    let mut pick = Pick::NONE;
    let value = if or {
        let mut dn = PnDn::ZERO;
        let mut at_most = Plies::INFINITE;
        let mut at_least = Plies::INFINITE;
        for (i, c) in children.iter().enumerate() {
            let v = c.value;
            pick.offer(i, v.pn);
            dn = dn + v.dn;
            if v.is_proven() {
                at_most = at_most.min(v.mate.at_most);
            }
            at_least = at_least.min(v.mate.at_least);
        }
        if pick.best_v.is_zero() {
            Value::proven(at_most.succ())
        } else if dn.is_zero() {
            // Every move fails; the node's failure rests on the path if any move's does.
            let v = Value::disproven(at_least.succ());
            if children.iter().any(|c| c.value.path_dependent) { v.on_path() } else { v }
        } else {
            Value::open(pick.best_v, dn)
        }
    } else {
        let mut pn = PnDn::ZERO;
        let mut at_most = Plies::ZERO;
        // The best refutation that holds off the path, and the best of all.
        let mut general: Option<Plies> = None;
        let mut at_least = Plies::ZERO;
        for (i, c) in children.iter().enumerate() {
            let v = c.value;
            pick.offer(i, v.dn);
            pn = pn + v.pn;
            at_most = at_most.max(v.mate.at_most);
            if v.is_disproven() {
                at_least = at_least.max(v.mate.at_least);
                if !v.path_dependent {
                    general = Some(general.map_or(v.mate.at_least, |g| g.max(v.mate.at_least)));
                }
            }
        }
        if pick.best_v.is_zero() {
            // One refutation that holds off the path is enough, and then only such
            // refutations say how long the mate is at least.
            match general {
                Some(g) => Value::disproven(g.succ()),
                None => Value::disproven(at_least.succ()).on_path(),
            }
        } else if pn.is_zero() {
            Value::proven(at_most.succ())
        } else {
            Value::open(pn, pick.best_v)
        }
    };
    Aggregate { value, best: pick.best, second: pick.second, runner_up: pick.runner_up }
}

/// The move to remember for a node: the shortest proven mate at a proven OR node, the
/// longest proven defence at a proven AND node, the refutation at a disproven AND node,
/// else the child the search would enter next (`next`, as [`aggregate`] picked it).
pub fn best_move(or: bool, v: &Value, children: &[Child], next: usize) -> MoveCode {
    let pick = if v.is_proven() {
        if or {
            children.iter().filter(|c| c.value.is_proven()).min_by_key(|c| c.value.mate.at_most)
        } else {
            children.iter().max_by_key(|c| c.value.mate.at_most)
        }
    } else if v.is_disproven() {
        // A refutation that holds off the path when the node's disproof does.
        let refutes = |c: &&Child| c.value.is_disproven() && (v.path_dependent || !c.value.path_dependent);
        if or { None } else { children.iter().filter(refutes).max_by_key(|c| c.value.mate.at_least) }
    } else {
        children.get(next)
    };
    pick.map_or(MoveCode::NONE, |c| MoveCode::of(c.mv))
}
