//! Mate lengths: plies inside the search, signed moves outside it.
//!
//! Inside the search every length is a number of plies ([`Plies`]) counted from the node
//! that asks. What a node knows about the attacker's fastest forced mate from it is a
//! range of lengths ([`MateRange`]): a proof gives an upper end ("mate in at most P
//! plies"), a disproof a lower end ("no mate in fewer than L plies").
//!
//! Users read lengths as UCI does ([`MateLen`]): moves, signed from the side to move's
//! view. The parity of a root length says who mates: an odd number of plies ends with a
//! move of the side to move (it mates), an even number with a move of its opponent (it is
//! mated).

use std::fmt;

/// A mate bound in moves as the user asks it (`go mate N`, `go depth D`, `--mate N`):
/// at least 1, clamped once, here, to [`MAX_MATE_MOVES`]. It travels in this type from the
/// parser to the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MateBound(u32);

impl MateBound {
    /// The longest bound a search takes.
    pub const LONGEST: MateBound = MateBound(MAX_MATE_MOVES);

    /// A bound of `moves`, clamped to [`MateBound::LONGEST`]; None for 0.
    pub fn new(moves: u64) -> Option<MateBound> {
        (moves > 0).then(|| MateBound(moves.min(u64::from(MAX_MATE_MOVES)) as u32))
    }

    /// The bound of the mates that fit in `plies` (a mate in M takes 2M - 1 plies: M =
    /// ceil(plies / 2)), at least 1.
    pub fn within_plies(plies: u64) -> MateBound {
        MateBound::new(plies.div_ceil(2)).unwrap_or(MateBound(1))
    }

    /// The bound in moves.
    pub fn moves(self) -> u32 {
        self.0
    }
}

impl fmt::Display for MateBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A number of plies (half-moves): a mate length or the bound of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Plies(u16);

impl Plies {
    /// No plies.
    pub const ZERO: Plies = Plies(0);
    /// Longer than any bound: "no mate proven" as an upper end, "no mate ever" as a lower
    /// end. Arithmetic saturates here.
    pub const INFINITE: Plies = Plies(u16::MAX);
    /// The longest bound a search takes: a mate in [`MAX_MATE_MOVES`] moves, mated side.
    pub const MAX_BOUND: Plies = Plies(2 * MAX_MATE_MOVES as u16);

    /// `n` plies; `n` must be below [`Plies::INFINITE`].
    #[inline]
    pub const fn new(n: u16) -> Plies {
        debug_assert!(n < u16::MAX);
        Plies(n)
    }

    /// The plies a raw 16-bit value stands for (`u16::MAX`: [`Plies::INFINITE`]); for
    /// storage formats.
    #[inline]
    pub const fn from_raw(n: u16) -> Plies {
        Plies(n)
    }

    /// The number of plies.
    #[inline]
    pub const fn get(self) -> u16 {
        self.0
    }

    /// One ply more; [`Plies::INFINITE`] stays infinite.
    #[inline]
    pub const fn succ(self) -> Plies {
        if self.0 == u16::MAX { self } else { Plies(self.0 + 1) }
    }

    /// One ply less (the bound of a child); zero stays zero.
    #[inline]
    pub const fn pred(self) -> Plies {
        Plies(self.0.saturating_sub(1))
    }

    /// Two plies less (the next shorter mate of the same side); saturates at zero.
    #[inline]
    pub const fn shorter(self) -> Plies {
        Plies(self.0.saturating_sub(2))
    }

    /// True for [`Plies::INFINITE`].
    #[inline]
    pub const fn is_infinite(self) -> bool {
        self.0 == u16::MAX
    }

    /// The bound of the question "does the side to move mate within `moves` moves?"
    /// (`2 * moves - 1` plies), `moves` clamped to 1..=[`MAX_MATE_MOVES`].
    pub fn mate_in(moves: u32) -> Plies {
        Plies((2 * moves.clamp(1, MAX_MATE_MOVES) - 1) as u16)
    }

    /// The bound of the question "is the side to move mated within `moves` moves?"
    /// (`2 * moves` plies), `moves` clamped to 1..=[`MAX_MATE_MOVES`].
    pub fn mated_in(moves: u32) -> Plies {
        Plies((2 * moves.clamp(1, MAX_MATE_MOVES)) as u16)
    }
}

impl fmt::Display for Plies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_infinite() { f.write_str("inf") } else { write!(f, "{}", self.0) }
    }
}

/// Largest mate bound in moves a search accepts.
pub const MAX_MATE_MOVES: u32 = 1000;

/// What is proven about the attacker's fastest forced mate from a node: its length lies
/// in `at_least..=at_most`.
///
/// `at_most` is [`Plies::INFINITE`] until a mate is proven; `at_least` is zero until
/// something is disproven and [`Plies::INFINITE`] when the attacker can never mate
/// (stalemate, checkmated attacker, a draw by rule). Both ends only ever tighten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MateRange {
    /// No mate in fewer plies than this.
    pub at_least: Plies,
    /// A mate in at most this many plies.
    pub at_most: Plies,
}

impl MateRange {
    /// Nothing known.
    pub const UNKNOWN: MateRange = MateRange { at_least: Plies::ZERO, at_most: Plies::INFINITE };

    /// True when a mate within `bound` plies is proven.
    #[inline]
    pub fn proves(&self, bound: Plies) -> bool {
        self.at_most <= bound
    }

    /// True when "no mate within `bound` plies" is proven.
    #[inline]
    pub fn disproves(&self, bound: Plies) -> bool {
        self.at_least > bound
    }
}

/// A mate length as UCI and the command line report it: moves, positive when the side to
/// move mates, negative when it is mated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MateLen(i32);

impl MateLen {
    /// The side to move mates in `moves` (at least 1).
    pub fn mate_in(moves: u32) -> MateLen {
        MateLen(moves.max(1) as i32)
    }

    /// The side to move is mated in `moves` (0: it is checkmated already).
    pub fn mated_in(moves: u32) -> MateLen {
        MateLen(-(moves as i32))
    }

    /// The mate that a forced line of `plies` plies from the root is: odd plies end with
    /// the side to move's mating move, even plies with its opponent's.
    pub fn from_plies(plies: usize) -> MateLen {
        if plies % 2 == 1 { MateLen(plies.div_ceil(2) as i32) } else { MateLen(-((plies / 2) as i32)) }
    }

    /// The win that a forced line of `plies` plies from the root is, where the side to
    /// move wins (`stm_wins`) or loses: the line's moves, counted as UCI counts them
    /// (`ceil(plies / 2)`) in every game. In chess the parity says who wins; where a win
    /// can fall on the loser's move (antichess), a win in M has 2M - 1 or 2M plies either
    /// way, and only the side says who wins.
    pub fn of_line(stm_wins: bool, plies: usize) -> MateLen {
        let moves = plies.div_ceil(2).max(1) as i32;
        if stm_wins { MateLen(moves) } else { MateLen(-moves) }
    }

    /// From a signed move count as UCI writes it (nonzero).
    pub fn from_signed(moves: i32) -> MateLen {
        MateLen(moves)
    }

    /// The signed move count (UCI's `score mate` number).
    pub fn signed(self) -> i32 {
        self.0
    }

    /// The number of moves, without the sign.
    pub fn moves(self) -> u32 {
        self.0.unsigned_abs()
    }

    /// True when the side to move mates (rather than being mated).
    pub fn side_to_move_mates(self) -> bool {
        self.0 > 0
    }

    /// The length of the forced line in plies: `2M - 1` for a mate, `2|M|` when mated.
    pub fn plies(self) -> usize {
        if self.0 > 0 { 2 * self.0 as usize - 1 } else { 2 * self.0.unsigned_abs() as usize }
    }
}

impl fmt::Display for MateLen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plies_saturate_at_both_ends() {
        assert_eq!(Plies::INFINITE.succ(), Plies::INFINITE);
        assert_eq!(Plies::new(4).succ(), Plies::new(5));
        assert_eq!(Plies::ZERO.pred(), Plies::ZERO);
        assert_eq!(Plies::new(1).shorter(), Plies::ZERO);
        assert_eq!(Plies::mate_in(3), Plies::new(5));
        assert_eq!(Plies::mated_in(3), Plies::new(6));
        assert_eq!(Plies::mate_in(0), Plies::new(1), "clamped to one move");
        assert_eq!(Plies::mated_in(5000), Plies::MAX_BOUND);
    }

    #[test]
    fn mate_len_parity_and_signs() {
        assert_eq!(MateLen::from_plies(1), MateLen::mate_in(1));
        assert_eq!(MateLen::from_plies(5).signed(), 3);
        assert_eq!(MateLen::from_plies(2).signed(), -1);
        assert_eq!(MateLen::from_plies(6), MateLen::mated_in(3));
        for plies in 1..40 {
            assert_eq!(MateLen::from_plies(plies).plies(), plies);
            assert_eq!(MateLen::of_line(plies % 2 == 1, plies), MateLen::from_plies(plies));
        }
        // An antichess win of the side to move in 4 plies (the loser takes the last man
        // on its second move) is a win in 2; a loss in 3 plies (taking the opponent's
        // last man on the second move), a loss in 2.
        assert_eq!(MateLen::of_line(true, 4), MateLen::mate_in(2));
        assert_eq!(MateLen::of_line(false, 3), MateLen::mated_in(2));
        assert_eq!(MateLen::from_signed(-4).moves(), 4);
        assert!(!MateLen::from_signed(-4).side_to_move_mates());
    }

    #[test]
    fn range_reads_against_a_bound() {
        let r = MateRange { at_least: Plies::new(4), at_most: Plies::new(9) };
        assert!(r.proves(Plies::new(9)) && !r.proves(Plies::new(8)));
        assert!(r.disproves(Plies::new(3)) && !r.disproves(Plies::new(4)));
        assert!(!MateRange::UNKNOWN.proves(Plies::MAX_BOUND) && !MateRange::UNKNOWN.disproves(Plies::ZERO));
    }
}
