//! A node's children and how their values combine: the children with their first
//! values and ordering class, and the aggregation of their values into the node's (OR:
//! pn = min, dn = sum; AND: pn = sum, dn = min) with the child to search next.

use shakmaty::Move;

use crate::chess::mate_len::Plies;
use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use crate::dfpn::pndn::PnDn;
use crate::dfpn::query::Keys;
use crate::dfpn::value::Value;

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
