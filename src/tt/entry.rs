//! What the table holds of one key: an entry as read, and a record as stored.

use crate::chess::mate_len::{MateRange, Plies};
use crate::chess::movecode::MoveCode;

/// One table entry, 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Entry {
    /// Full 64-bit key; meaningful only when `generation != 0`.
    pub key: u64,
    /// Working proof number, valid for bound `bound` only.
    pub pn: u32,
    /// Working disproof number, valid for bound `bound` only.
    pub dn: u32,
    /// Nodes spent below this entry (saturating): the replacement weight.
    pub work: u32,
    /// The proven range of the mate length (valid for every bound).
    pub mate: MateRange,
    /// The remaining-depth bound that `pn` and `dn` belong to.
    pub bound: Plies,
    /// The best move known (the search's encoding).
    pub best: MoveCode,
    /// The search generation that last wrote the entry (0 = empty slot).
    pub generation: u8,
    pub(crate) _pad: [u8; 3],
}

impl Entry {
    pub(crate) const EMPTY: Entry = Entry {
        key: 0,
        pn: 0,
        dn: 0,
        work: 0,
        mate: MateRange::UNKNOWN,
        bound: Plies::ZERO,
        best: MoveCode::NONE,
        generation: 0,
        _pad: [0; 3],
    };

    /// True when a proof or a disproof is recorded.
    pub fn is_solved(&self) -> bool {
        self.mate != MateRange::UNKNOWN
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.generation == 0
    }

    /// The entry without its proof: the mate bound, the working numbers and the move
    /// that led to the proof go; a disproof stays.
    pub(crate) fn without_proof(mut self) -> Entry {
        if self.mate.at_most != Plies::INFINITE {
            self.mate.at_most = Plies::INFINITE;
            (self.pn, self.dn, self.bound, self.best) = (1, 1, Plies::ZERO, MoveCode::NONE);
        }
        self
    }
}

/// What a search stores about one key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The bound the working numbers belong to.
    pub bound: Plies,
    /// Working proof number (replaces the stored one).
    pub pn: u32,
    /// Working disproof number (replaces the stored one).
    pub dn: u32,
    /// Proven mate lengths (tighten the stored range).
    pub mate: MateRange,
    /// Nodes spent (added to the stored work).
    pub work: u32,
    /// The best move, or [`MoveCode::NONE`] to keep the stored one.
    pub best: MoveCode,
}
