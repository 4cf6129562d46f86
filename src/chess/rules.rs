//! The rules of chess that end a mate search early: the 50- and 75-move rules, mating
//! material, and repetitions of the game before the root. (Checkmate and stalemate are
//! read off the legal move list.)
//!
//! ## Repetitions
//!
//!
//! FIDE lets the player to move claim a draw when the position on the board has occurred
//! three times, or when the move it is about to make produces a position that has
//! already occurred twice. With a game history (UCI `position ... moves`), the defender
//! may therefore escape a "mate" by repeating earlier game positions.
//!
//! The rule the search applies (positions are counted since the last pawn move or
//! capture, the current root included; a position is its hash):
//! - a defender node other than the root is a draw when its position has occurred twice
//!   already (the visit makes the third);
//! - the root, when the defender is to move there, is a draw when its position has
//!   occurred three times;
//! - a defender node is a draw when one of its moves leads to a position that has
//!   occurred twice.
//!
//! Why this is exact for the mates the search proves. In a proof the attacker's moves are
//! those with the shortest proven mate, so along any line the proof allows the proven
//! mate length falls at every ply and no position repeats within the line. Counts along
//! such a line are the game's counts plus one for the visit, and a position the defender
//! could move back to cannot have occurred earlier in the line (it would be an ancestor
//! of itself). So the defender can claim exactly where the rule says: proofs under the
//! rule are real mates, and a disproof under it is real too (the rule only ever gives the
//! defender claims that exist).
//!
//! The rule depends on the history, so results computed with it must not meet results of
//! another history in the table. Positions seen once change nothing; only positions seen
//! twice ("claimable") do. Without any (the usual case) the search is the plain one and
//! shares the table with every other search. With some, every key of the search is xored
//! with a salt made of the claimable positions, so its results live apart.

use rustc_hash::{FxHashMap, FxHasher};
use shakmaty::{Chess, Color, Move, Position};
use std::hash::Hasher;

/// The halfmove clock at which the side to move may claim a draw before moving (the
/// 50-move rule: fifty moves of each side without a pawn move or capture).
pub const FIFTY_MOVES: u32 = 100;

/// The halfmove clock at which the side to move may claim a draw with a non-zeroing move.
pub const CLAIM_CLOCK: u32 = FIFTY_MOVES - 1;

/// The halfmove clock at which the game is drawn without a claim (the 75-move rule),
/// unless the move that reached it mated. Larger clocks mean the same, so positions keep
/// their clock clamped to it (never wrapped).
pub const AUTOMATIC_DRAW_CLOCK: u32 = 150;

/// The halfmove clock after `m` from a position with clock `clock`.
#[inline]
pub fn clock_after(clock: u32, m: Move) -> u32 {
    if m.is_zeroing() { 0 } else { clock.saturating_add(1) }
}

/// True when the side to move may claim a 50-move draw before moving: clock at 100, or
/// at 99 with a legal move that does not reset it (the claim python-chess and FIDE allow).
pub fn can_claim_fifty<P: Position>(pos: &P, moves: &[Move]) -> bool {
    let clock = pos.halfmoves();
    clock >= FIFTY_MOVES || (clock >= CLAIM_CLOCK && moves.iter().any(|m| !m.is_zeroing()))
}

/// True when `attacker` could never mate: shakmaty's insufficient material for that
/// colour (permanent: the attacker's material can only shrink).
pub fn cannot_mate(pos: &Chess, attacker: Color) -> bool {
    pos.has_insufficient_material(attacker)
}

/// How often each position of the game has occurred, and what that lets the defender
/// claim.
#[derive(Clone, Debug)]
pub struct Repetitions {
    counts: FxHashMap<u64, u32>,
    root: u64,
    salt: u64,
    /// By attacker (White, Black): the fewest plies to mate, by the exact tables, of a
    /// position the defender could claim on its next occurrence that this attacker wins.
    /// A mate the tables give in at most as many plies cannot pass through one, so the
    /// tables may decide it (0: unknown, they decide nothing).
    exact_floor: [u32; 2],
}

impl Repetitions {
    /// The counts of a game whose root has hash `root` and whose earlier positions since
    /// the last pawn move or capture have hashes `earlier`. None when no position has
    /// occurred twice: then the history cannot change any result.
    pub fn new(root: u64, earlier: &[u64]) -> Option<Repetitions> {
        let mut counts: FxHashMap<u64, u32> = FxHashMap::default();
        for &h in earlier.iter().chain(std::iter::once(&root)) {
            *counts.entry(h).or_default() += 1;
        }
        let mut claimable: Vec<u64> = counts.iter().filter(|&(_, &n)| n >= 2).map(|(&h, _)| h).collect();
        if claimable.is_empty() {
            return None;
        }
        claimable.sort_unstable();
        let mut hasher = FxHasher::default();
        for h in &claimable {
            hasher.write_u64(*h);
        }
        // Never zero, so a salted key differs from the plain one.
        let salt = hasher.finish() | 1;
        Some(Repetitions { counts, root, salt, exact_floor: [0, 0] })
    }

    /// The hashes of the positions the defender may claim on their next occurrence.
    pub fn claimable(&self) -> impl Iterator<Item = u64> + '_ {
        self.counts.iter().filter(|&(_, &n)| n >= 2).map(|(&h, _)| h)
    }

    /// The same history, with the exact tables' floor per attacker (see `exact_floor`).
    pub fn with_exact_floor(mut self, floor: [u32; 2]) -> Repetitions {
        self.exact_floor = floor;
        self
    }

    /// The fewest plies to mate of a claimable position that `attacker` wins (0: unknown).
    pub fn exact_floor(&self, attacker: Color) -> u32 {
        self.exact_floor[usize::from(attacker == Color::Black)]
    }

    /// The key salt of searches under this history.
    pub fn salt(&self) -> u64 {
        self.salt
    }

    /// How often the position with hash `h` has occurred (root included).
    pub fn count(&self, h: u64) -> u32 {
        self.counts.get(&h).copied().unwrap_or(0)
    }

    /// Whether the defender, to move in the position with hash `here` (at the root when
    /// `at_root`), may claim before moving.
    pub fn claims_here(&self, here: u64, at_root: bool) -> bool {
        let seen = self.count(here);
        if at_root { here == self.root && seen >= 3 } else { seen >= 2 }
    }

    /// Whether a move to the position with hash `after` lets the defender claim.
    pub fn claims_by_moving_to(&self, after: u64) -> bool {
        self.count(after) >= 2
    }

    /// Whether the root position has occurred five times: the game is drawn already.
    pub fn root_is_drawn(&self) -> bool {
        self.count(self.root) >= 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_seen_once_change_nothing() {
        assert!(Repetitions::new(1, &[2, 3, 4]).is_none());
        let r = Repetitions::new(1, &[2, 3, 2]).unwrap();
        assert!(r.claims_here(2, false) && !r.claims_here(3, false));
        assert!(r.claims_by_moving_to(2) && !r.claims_by_moving_to(3));
        assert!(!r.claims_here(1, true), "the root has occurred once");
    }

    #[test]
    fn the_root_counts_its_own_occurrence() {
        let r = Repetitions::new(7, &[7, 5, 7]).unwrap();
        assert!(r.claims_here(7, true), "third occurrence at the root");
        let r = Repetitions::new(7, &[7, 5, 5]).unwrap();
        assert!(!r.claims_here(7, true));
        assert!(r.claims_here(7, false), "a return to the root makes its third occurrence");
    }

    #[test]
    fn salts_depend_on_the_claimable_set_only() {
        let a = Repetitions::new(1, &[2, 2, 3]).unwrap();
        let b = Repetitions::new(1, &[3, 2, 2, 4]).unwrap();
        let c = Repetitions::new(1, &[2, 2, 3, 3]).unwrap();
        assert_eq!(a.salt(), b.salt());
        assert_ne!(a.salt(), c.salt());
    }
}
