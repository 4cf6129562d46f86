//! What the search knows about one node: working proof/disproof numbers and the proven
//! range of its mate length; and the [`Verdict`] a solved node reduces to.

use crate::chess::mate_len::{MateRange, Plies};
use crate::dfpn::pndn::PnDn;
use crate::tt::Entry;

/// A node's value: the df-pn numbers of the current bound and the mate lengths proven so
/// far (valid for every bound).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    /// Proof number (0: proven).
    pub pn: PnDn,
    /// Disproof number (0: disproven).
    pub dn: PnDn,
    /// The proven range of the mate length.
    pub mate: MateRange,
    /// The value rests on a repetition of a position of the current path (counted as a
    /// draw there): true only of this path, so it is never stored as a verdict.
    pub path_dependent: bool,
}

impl Value {
    /// Proven: a mate in at most `at_most` plies.
    #[inline]
    pub fn proven(at_most: Plies) -> Value {
        Value {
            pn: PnDn::ZERO,
            dn: PnDn::INFINITE,
            mate: MateRange { at_most, ..MateRange::UNKNOWN },
            path_dependent: false,
        }
    }

    /// Disproven: no mate in fewer than `at_least` plies.
    #[inline]
    pub fn disproven(at_least: Plies) -> Value {
        Value {
            pn: PnDn::INFINITE,
            dn: PnDn::ZERO,
            mate: MateRange { at_least, ..MateRange::UNKNOWN },
            path_dependent: false,
        }
    }

    /// Unsolved, with working numbers `pn` and `dn`.
    #[inline]
    pub fn open(pn: PnDn, dn: PnDn) -> Value {
        Value { pn, dn, mate: MateRange::UNKNOWN, path_dependent: false }
    }

    /// A repetition of a position earlier on the current path: a draw on this path (no
    /// mate here), known of nothing else.
    #[inline]
    pub fn repetition() -> Value {
        Value::disproven(Plies::ZERO).on_path()
    }

    /// This value, as true only of the current path.
    #[inline]
    pub fn on_path(self) -> Value {
        Value { path_dependent: true, ..self }
    }

    /// True when proven.
    #[inline]
    pub fn is_proven(&self) -> bool {
        self.pn.is_zero()
    }

    /// True when disproven.
    #[inline]
    pub fn is_disproven(&self) -> bool {
        self.dn.is_zero()
    }

    /// True when proven or disproven.
    #[inline]
    pub fn is_solved(&self) -> bool {
        self.is_proven() || self.is_disproven()
    }

    /// The verdict this value amounts to (a disproof that rests on the path proves
    /// nothing).
    pub fn verdict(&self) -> Verdict {
        if self.is_proven() {
            Verdict::Proven(self.mate.at_most)
        } else if self.is_disproven() && !self.path_dependent {
            Verdict::Disproven(self.mate.at_least)
        } else {
            Verdict::Unknown
        }
    }

    /// Reads a table entry as seen by a node with `bound` plies left: a verdict that
    /// covers the bound, else the working numbers of this bound or of a deeper one.
    #[inline]
    pub fn from_entry(e: &Entry, bound: Plies) -> Option<Value> {
        if e.mate.proves(bound) {
            Some(Value::proven(e.mate.at_most))
        } else if e.mate.disproves(bound) {
            Some(Value::disproven(e.mate.at_least))
        } else if e.bound == bound {
            Some(Value::open(PnDn(e.pn), PnDn(e.dn)))
        } else if e.bound > bound && e.pn > 0 && e.dn > 0 {
            // Working numbers of a deeper search: a better first guess than the
            // heuristic (shallower ones are not: docs/design.md).
            Some(Value::open(PnDn(e.pn).min(PnDn::MAX_FINITE), PnDn(e.dn).min(PnDn::MAX_FINITE)))
        } else {
            None
        }
    }
}

/// What one search call established at its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A mate in at most this many plies (within the bound asked).
    Proven(Plies),
    /// No mate in fewer than this many plies (more than the bound asked).
    Disproven(Plies),
    /// A budget, limit or stop came first.
    Unknown,
}
