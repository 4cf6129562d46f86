//! Proof and disproof numbers.

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
    /// with ε = 1/2 (docs/design.md). Greater than `second` whenever `th` is (a child below
    /// `second` gets room to grow); never above `th`, the parent's own limit.
    #[inline]
    pub fn epsilon_threshold(th: PnDn, second: PnDn) -> PnDn {
        let grown = second.0.saturating_add(second.0.div_ceil(2)).max(second.0 + 1);
        PnDn(grown.min(th.0).min(Self::INFINITE.0))
    }
}

const _: () = assert!(PnDn::INFINITE.0.is_power_of_two() && PnDn::MAX_FINITE.0 == PnDn::INFINITE.0 - 1);

impl std::ops::Add for PnDn {
    type Output = PnDn;

    /// Saturating sum: infinite if either side is, else clamped at [`PnDn::MAX_FINITE`].
    /// Written to compile without branches (the sums of df-pn's hottest loop): infinity
    /// is the single bit 30, so a value is infinite exactly when it has a bit from 30 up,
    /// and two finite values sum below 2^31.
    #[inline]
    fn add(self, other: PnDn) -> PnDn {
        let finite = self.0.wrapping_add(other.0).min(PnDn::MAX_FINITE.0);
        PnDn(if (self.0 | other.0) >= PnDn::INFINITE.0 { PnDn::INFINITE.0 } else { finite })
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

    proptest::proptest! {
        #[test]
        fn the_branchless_sum_is_the_saturating_sum(a in 0u32.., b in 0u32.., small in 0u32..3000) {
            let reference = |a: u32, b: u32| {
                if a >= PnDn::INFINITE.0 || b >= PnDn::INFINITE.0 {
                    PnDn::INFINITE
                } else {
                    PnDn((a + b).min(PnDn::MAX_FINITE.0))
                }
            };
            for (x, y) in [(a, b), (small, b), (a, small), (small, small), (a >> 2, b >> 2)] {
                proptest::prop_assert_eq!(PnDn(x) + PnDn(y), reference(x, y));
            }
        }
    }

    #[test]
    fn epsilon_threshold_grows_above_the_second_best_within_the_parents_limit() {
        for second in [0, 1, 2, 3, 4, 7, 100, 1 << 29] {
            let th = PnDn::epsilon_threshold(PnDn::INFINITE, PnDn(second));
            assert!(th.0 > second, "threshold {th} not above {second}");
        }
        assert_eq!(PnDn::epsilon_threshold(PnDn(5), PnDn(100)), PnDn(5));
        assert_eq!(PnDn::epsilon_threshold(PnDn::INFINITE, PnDn(8)), PnDn(12));
    }
}
