//! A node's children and how their values combine: the children with their first
//! values and ordering class, and the aggregation of their values into the node's (OR:
//! pn = min, dn = sum; AND: pn = sum, dn = min) with the child to search next.

use shakmaty::Move;

use crate::chess::game::Game;
use crate::chess::mate_len::Plies;
use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use crate::dfpn::pndn::PnDn;
use crate::dfpn::query::Keys;
use crate::dfpn::value::Value;
pub use crate::knowledge::MoveClass;

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
    /// quiet move of `node`, asked with `bound` plies left). Always inlined, with the
    /// search's other small calls (docs/design.md, "The search's small calls inlined").
    #[inline(always)]
    pub fn keyed<G: Game>(&mut self, keys: &Keys, node: &Node<G>, bound: Plies) -> u64 {
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
/// OR nodes, dn at AND nodes) below infinity; ties go to the earlier child. Each child is
/// offered as one key, its value above its index, so that "smaller, or as small and
/// earlier" is one comparison of keys and a step is three minimum and maximum
/// instructions (the comparisons and moves of a pick by cases formed a longer chain in
/// the search's hottest loop).
struct Pick {
    best: u64,
    second: u64,
}

impl Pick {
    /// Infinity at index 0 (the child picked when none is below infinity), and a second
    /// sentinel above every key.
    const NONE: Pick = Pick { best: key(PnDn::INFINITE.0, 0), second: key(PnDn::INFINITE.0, u32::MAX as usize) };

    #[inline]
    fn offer(&mut self, i: usize, v: PnDn) {
        let k = key(v.0, i);
        self.second = self.second.min(self.best.max(k));
        self.best = self.best.min(k);
    }

    /// The best child and its value.
    #[inline]
    fn best(&self) -> (usize, PnDn) {
        ((self.best as u32) as usize, PnDn((self.best >> 32) as u32))
    }

    /// The second-best value, and its child (`usize::MAX` when no second child is below
    /// infinity; an `Option` here slowed `bench` by a tenth).
    #[inline]
    fn second(&self) -> (usize, PnDn) {
        let v = (self.second >> 32) as u32;
        if v >= PnDn::INFINITE.0 { (usize::MAX, PnDn::INFINITE) } else { ((self.second as u32) as usize, PnDn(v)) }
    }
}

/// A child's key in [`Pick`]: its value, then its index.
#[inline]
const fn key(v: u32, i: usize) -> u64 {
    ((v as u64) << 32) | i as u64
}

/// The saturating sum of many numbers ([`PnDn`]'s `+` folded over them), kept as a plain
/// sum and the union of their bits: each step is then one addition and one or, where
/// a saturating step is a chain of four dependent instructions. Equal to the fold, since
/// a number is infinite exactly when it has a bit from 30 up, and clamping a sum of
/// numbers that are not negative once at the end is clamping it at every step.
#[derive(Default)]
struct Sum {
    total: u64,
    bits: u32,
}

impl Sum {
    #[inline]
    fn add(&mut self, v: PnDn) {
        self.total += u64::from(v.0);
        self.bits |= v.0;
    }

    #[inline]
    fn total(&self) -> PnDn {
        if self.bits >= PnDn::INFINITE.0 {
            PnDn::INFINITE
        } else {
            PnDn(self.total.min(u64::from(PnDn::MAX_FINITE.0)) as u32)
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
/// and the runner-up on the deciding side. The loop that runs at every step of a node's
/// search sums and picks only; the mate lengths are gathered in a second pass, when the
/// node is solved. Always inlined, with the search's other small calls (docs/design.md,
/// "The search's small calls inlined").
#[inline(always)]
pub fn aggregate(or: bool, children: &[Child]) -> Aggregate {
    let mut pick = Pick::NONE;
    let mut sum = Sum::default();
    if or {
        for (i, c) in children.iter().enumerate() {
            pick.offer(i, c.value.pn);
            sum.add(c.value.dn);
        }
    } else {
        for (i, c) in children.iter().enumerate() {
            pick.offer(i, c.value.dn);
            sum.add(c.value.pn);
        }
    }
    let sum = sum.total();
    let (best, best_v) = pick.best();
    let (runner_up, second) = pick.second();
    let value = if or {
        if best_v.is_zero() {
            let at_most = children.iter().filter(|c| c.value.is_proven()).map(|c| c.value.mate.at_most).min();
            Value::proven(at_most.unwrap_or(Plies::INFINITE).succ())
        } else if sum.is_zero() {
            // Every move fails; the node's failure rests on the path if any move's does.
            let at_least = children.iter().map(|c| c.value.mate.at_least).min().unwrap_or(Plies::INFINITE);
            let v = Value::disproven(at_least.succ());
            if children.iter().any(|c| c.value.path_dependent) { v.on_path() } else { v }
        } else {
            Value::open(best_v, sum)
        }
    } else if best_v.is_zero() {
        // One refutation that holds off the path is enough, and then only such
        // refutations say how long the mate is at least.
        let refutations = children.iter().filter(|c| c.value.is_disproven());
        let general = refutations.clone().filter(|c| !c.value.path_dependent).map(|c| c.value.mate.at_least).max();
        match general {
            Some(g) => Value::disproven(g.succ()),
            None => {
                let at_least = refutations.map(|c| c.value.mate.at_least).max().unwrap_or(Plies::ZERO);
                Value::disproven(at_least.succ()).on_path()
            }
        }
    } else if sum.is_zero() {
        let at_most = children.iter().map(|c| c.value.mate.at_most).max().unwrap_or(Plies::ZERO);
        Value::proven(at_most.succ())
    } else {
        Value::open(sum, best_v)
    };
    Aggregate { value, best, second, runner_up }
}

/// The move to remember for a node: the shortest proven mate at a proven OR node, the
/// longest proven defence at a proven AND node, the refutation at a disproven AND node,
/// else the child the search would enter next (`next`, as [`aggregate`] picked it).
/// Always inlined, with the search's other small calls (docs/design.md, "The search's
/// small calls inlined").
#[inline(always)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The pick by cases that [`Pick`] replaced: the reference it must equal.
    fn pick_by_cases(values: &[u32]) -> (usize, PnDn, usize, PnDn) {
        let (mut best, mut best_v, mut runner_up, mut second) = (0, PnDn::INFINITE, usize::MAX, PnDn::INFINITE);
        for (i, &v) in values.iter().enumerate() {
            let v = PnDn(v);
            if v < best_v {
                (second, runner_up, best_v, best) = (best_v, best, v, i);
            } else if v < second {
                (second, runner_up) = (v, i);
            }
        }
        (best, best_v, runner_up, second)
    }

    proptest::proptest! {
        #[test]
        fn the_plain_sum_is_the_fold_of_saturating_sums(
            values in proptest::collection::vec(proptest::prop_oneof![0u32..100, 0u32..(1 << 30), 0u32..], 0..300)
        ) {
            let mut sum = Sum::default();
            values.iter().for_each(|&v| sum.add(PnDn(v)));
            let fold = values.iter().fold(PnDn::ZERO, |a, &v| a + PnDn(v));
            proptest::prop_assert_eq!(sum.total(), fold);
        }

        #[test]
        fn the_pick_by_keys_is_the_pick_by_cases(
            values in proptest::collection::vec(proptest::prop_oneof![0u32..4, 0u32..100, 0u32..(1 << 30) + 2, 0u32..], 0..300)
        ) {
            let mut pick = Pick::NONE;
            values.iter().enumerate().for_each(|(i, &v)| pick.offer(i, PnDn(v)));
            let ((best, best_v), (runner_up, second)) = (pick.best(), pick.second());
            let (old_best, old_best_v, old_runner_up, old_second) = pick_by_cases(&values);
            proptest::prop_assert_eq!((best, best_v, second), (old_best, old_best_v, old_second));
            // Without a second child below infinity the old pick named child 0 or the best
            // as runner-up, which only chose what to prefetch; the new one names none.
            if second < PnDn::INFINITE {
                proptest::prop_assert_eq!(runner_up, old_runner_up);
            } else {
                proptest::prop_assert_eq!(runner_up, usize::MAX);
            }
        }
    }
}
