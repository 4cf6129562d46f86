//! Proof and disproof numbers, mate lengths in plies, and the three search outcomes.

use std::fmt;

/// A proof or disproof number with saturating arithmetic.
///
/// [`PnDn::INFINITE`] means "cannot be proven" (for a proof number) or "cannot be
/// disproven" (for a disproof number). It sits well below `u32::MAX` so that a sum of
/// two finite values never wraps before it is clamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PnDn(pub u32);

impl PnDn {
    /// The value of a solved node's winning side: proven (pn) or disproven (dn).
    pub const ZERO: PnDn = PnDn(0);
    /// The value of an unsolved leaf in plain df-pn.
    pub const ONE: PnDn = PnDn(1);
    /// "Never": the other side of a solved node.
    pub const INFINITE: PnDn = PnDn(1 << 30);

    /// The largest finite value: sums of finite values stop here, so only a solved child
    /// makes a sum infinite.
    pub const MAX_FINITE: PnDn = PnDn((1 << 30) - 1);

    /// True for zero.
    #[inline]
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// True for [`PnDn::INFINITE`].
    #[inline]
    pub fn is_infinite(self) -> bool {
        self.0 >= Self::INFINITE.0
    }

    /// The 1+ε threshold for the best child, given the second-best child's value `second`
    /// and the parent's threshold `th`: `min(th, max(second + 1, ceil(second * (1 + ε))))`
    /// with ε = 1/2 (measured: 1/2 beat 0, 1/8, 1/4 and 1 on a 150-position matetrack
    /// sample at 1M nodes). Always greater than `second`, so a child below `second` always gets
    /// room to grow.
    #[inline]
    pub fn epsilon_threshold(th: PnDn, second: PnDn) -> PnDn {
        let grown = second.0.saturating_add(second.0.div_ceil(2)).max(second.0 + 1);
        PnDn(grown.min(th.0).min(Self::INFINITE.0))
    }
}

impl std::ops::Add for PnDn {
    type Output = PnDn;

    /// Saturating sum: infinite if either side is, else clamped at [`PnDn::MAX_FINITE`].
    #[inline]
    fn add(self, other: PnDn) -> PnDn {
        if self.is_infinite() || other.is_infinite() {
            PnDn::INFINITE
        } else {
            PnDn((self.0 + other.0).min(PnDn::MAX_FINITE.0))
        }
    }
}

impl std::ops::Sub for PnDn {
    type Output = PnDn;

    /// Saturating difference (never below zero); `INFINITE - x` stays `INFINITE`.
    #[inline]
    fn sub(self, other: PnDn) -> PnDn {
        if self.is_infinite() { self } else { PnDn(self.0.saturating_sub(other.0)) }
    }
}

impl fmt::Display for PnDn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_infinite() { f.write_str("inf") } else { write!(f, "{}", self.0) }
    }
}

/// A distance in plies (half-moves). Mate lengths and search bounds use it.
pub type Plies = u16;

/// "No proof yet": the proof length of an unproven node.
pub const NO_PROOF: Plies = Plies::MAX;
/// "No mate at any length" (stalemate, dead position, attacker mated, 50-move draw): the
/// disproof length of a node the attacker can never win from.
pub const DISPROOF_NEVER: i16 = i16::MAX;

/// Converts a mate length in plies to the signed UCI "mate M" number seen from the side
/// to move at the root: the side to move mates in `(plies + 1) / 2` when it attacks
/// (odd plies), and is mated in `plies / 2` (negative) when it defends (even plies).
pub fn plies_to_moves(plies: Plies, root_attacks: bool) -> i32 {
    if root_attacks { (i32::from(plies) + 1) / 2 } else { -(i32::from(plies) / 2) }
}

/// The final verdict of a search, as proven (or not) by the prover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move mates in `moves` (a proven upper bound; `exact` when a shorter mate
    /// was also disproven). `pv` replays to checkmate in exactly `2 * moves - 1` plies.
    Mate {
        /// Mate length in moves.
        moves: u32,
        /// True when no shorter mate exists (proven).
        exact: bool,
        /// The forced line, attacker's fastest move and defender's longest defence.
        pv: Vec<shakmaty::Move>,
    },
    /// The side to move is mated in `moves`; `pv` has exactly `2 * moves` plies.
    Mated {
        /// Mate length in moves.
        moves: u32,
        /// True when the opponent provably has no shorter mate.
        exact: bool,
        /// The defender's longest resistance against the fastest mate.
        pv: Vec<shakmaty::Move>,
    },
    /// Proven: neither side mates within `moves` moves (a real disproof).
    NoMate {
        /// The bound in moves.
        moves: u32,
    },
    /// Nothing proven before a limit, a stop or lack of memory ended the search.
    Unknown,
}

impl Outcome {
    /// The signed mate number from the side to move's view (negative: it is mated).
    pub fn signed_moves(&self) -> Option<i32> {
        match self {
            Outcome::Mate { moves, .. } => Some(*moves as i32),
            Outcome::Mated { moves, .. } => Some(-(*moves as i32)),
            _ => None,
        }
    }

    /// The forced line of a mate verdict; empty otherwise.
    pub fn pv(&self) -> &[shakmaty::Move] {
        match self {
            Outcome::Mate { pv, .. } | Outcome::Mated { pv, .. } => pv,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturating_ops() {
        assert_eq!(PnDn::INFINITE + PnDn(5), PnDn::INFINITE);
        assert_eq!(PnDn(3) + PnDn(4), PnDn(7));
        assert_eq!(PnDn::MAX_FINITE + PnDn(4), PnDn::MAX_FINITE);
        assert_eq!(PnDn::INFINITE - PnDn(5), PnDn::INFINITE);
        assert_eq!(PnDn(3) - PnDn(5), PnDn::ZERO);
    }

    #[test]
    fn epsilon_threshold_always_grows() {
        for second in [0, 1, 2, 3, 4, 7, 100, 1 << 29] {
            let th = PnDn::epsilon_threshold(PnDn::INFINITE, PnDn(second));
            assert!(th.0 > second, "threshold {th} not above {second}");
        }
        assert_eq!(PnDn::epsilon_threshold(PnDn(5), PnDn(100)), PnDn(5));
        assert_eq!(PnDn::epsilon_threshold(PnDn::INFINITE, PnDn(8)), PnDn(12));
    }

    #[test]
    fn plies_to_moves_signs() {
        assert_eq!(plies_to_moves(1, true), 1);
        assert_eq!(plies_to_moves(5, true), 3);
        assert_eq!(plies_to_moves(2, false), -1);
        assert_eq!(plies_to_moves(6, false), -3);
    }
}
