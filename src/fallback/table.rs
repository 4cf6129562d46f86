//! The fallback's own table of scores, and the mate scores it stores.

use std::time::Duration;

use crate::chess::movecode::MoveCode;

/// The score of a mate in 0 (from the mated side's view, negated).
pub(crate) const MATE: i32 = 100_000;

/// Scores beyond this are mates found by the fallback (never reported as proven).
pub const MATE_BOUND: i32 = MATE - 1000;

/// How a stored score bounds the true one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Bound {
    #[default]
    Exact,
    /// The score is at least this (a cut-off).
    Lower,
    /// The score is at most this (no move reached alpha).
    Upper,
}

/// One remembered position.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Slot {
    pub key: u64,
    pub score: i32,
    pub best: MoveCode,
    pub depth: u8,
    pub bound: Bound,
}

/// The fallback's own small table (best move and bounds per position, for ordering and
/// cut-offs), never shared with the prover. The engine keeps one between the moves of a
/// game, so each move starts from what the last one learned; `choose_move` without one
/// uses a fresh one.
#[derive(Default)]
pub struct ScoreTable {
    slots: Vec<Slot>,
}

impl ScoreTable {
    /// The most slots a table gets (12 MB).
    const MAX_SLOTS: usize = 1 << 19;

    /// An empty table; its slots are allocated on first use.
    pub fn new() -> ScoreTable {
        ScoreTable::default()
    }

    /// Grows the table (emptying it) when a search of `time` would want more slots: about
    /// the nodes it can visit, within 2^10..2^19 slots, so that a 5 ms look allocates
    /// little.
    pub(crate) fn reserve(&mut self, time: Duration) {
        let wanted = (time.as_millis() as usize).saturating_mul(2000).clamp(1 << 10, ScoreTable::MAX_SLOTS);
        let len = wanted.next_power_of_two();
        if self.slots.len() < len {
            self.slots = vec![Slot::default(); len];
        }
    }

    /// Forgets every entry (a new game).
    pub fn clear(&mut self) {
        self.slots.fill(Slot::default());
    }

    pub(crate) fn probe(&self, key: u64) -> Option<Slot> {
        let slot = self.slots[key as usize & (self.slots.len() - 1)];
        (slot.key == key && key != 0).then_some(slot)
    }

    /// Stores `slot` for `key`: over another position always, over the same position
    /// unless that entry is deeper and the new one only a bound. A deeper entry of an
    /// earlier search (the game's last move) stays: when a shallower iteration's window
    /// cannot use it, it is searched again but not forgotten, and the iteration of its own
    /// depth cuts on it.
    pub(crate) fn store(&mut self, key: u64, slot: Slot) {
        let i = key as usize & (self.slots.len() - 1);
        let old = &mut self.slots[i];
        if old.key != key || slot.depth >= old.depth || slot.bound == Bound::Exact {
            *old = Slot { key, ..slot };
        }
    }
}

/// A mate score as stored: counted from the stored position instead of the root.
pub(crate) fn to_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score + ply
    } else if score < -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

/// A stored score, counted from the root again.
pub(crate) fn from_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score - ply
    } else if score < -MATE_BOUND {
        score + ply
    } else {
        score
    }
}
