//! The board turned so that the defending king stands in the triangle a1-d1-d4, as the
//! fitted models of the endings with a heavy piece see it ([`queen_rook`](crate::knowledge::queen_rook),
//! [`rook_mate`](crate::knowledge::rook_mate)): mirrored (files), flipped (ranks), then reflected in
//! the a1-h8 diagonal. Eight placements that are one another's images score alike, and a
//! table of file and rank offsets from the defending king then says "beside it, towards
//! the centre" the same way wherever the king stands.

use shakmaty::Square;

/// A table indexed by [file step + 7][rank step + 7].
pub type Steps = [[i16; 15]; 15];

/// How the board is turned so that the defending king stands in the triangle a1-d1-d4:
/// mirrored (files), flipped (ranks), then reflected in the a1-h8 diagonal. Mirroring and
/// flipping are one xor of the square's index (7 and 56), the reflection a swap of file
/// and rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turned {
    mask: u8,
    transpose: bool,
}

impl Turned {
    /// The turn that brings `defender` into the triangle and, when it stands on the
    /// triangle's diagonal, `attacker` on or below the diagonal (so that a position and
    /// its mirror image in the diagonal score alike).
    pub fn around(defender: Square, attacker: Square) -> Turned {
        let (mirror, flip) = (defender.file() as u8 > 3, defender.rank() as u8 > 3);
        let plain = Turned { mask: if mirror { 7 } else { 0 } | if flip { 56 } else { 0 }, transpose: false };
        let (d, a) = (plain.at(defender), plain.at(attacker));
        Turned { transpose: d.1 > d.0 || (d.1 == d.0 && a.1 > a.0), ..plain }
    }

    /// `sq` on the turned board, as (file, rank).
    #[inline]
    pub fn at(self, sq: Square) -> (usize, usize) {
        let index = usize::from(u8::from(sq) ^ self.mask);
        let (file, rank) = (index & 7, index >> 3);
        if self.transpose { (rank, file) } else { (file, rank) }
    }
}

/// The entry of `table` for the step from `from` to `to`.
#[inline]
pub fn entry(table: &Steps, to: (usize, usize), from: (usize, usize)) -> i16 {
    table[to.0 + 7 - from.0][to.1 + 7 - from.1]
}

/// [`entry`], widened for a sum of terms.
#[inline]
pub fn step(table: &Steps, to: (usize, usize), from: (usize, usize)) -> i32 {
    i32::from(entry(table, to, from))
}

/// `sq` under one of the board's eight symmetries (bit 0 mirrors, bit 1 flips, bit 2
/// reflects in the diagonal): the models' tests check that they score every image alike.
#[cfg(test)]
pub fn image(sq: Square, symmetry: usize) -> Square {
    let sq = if symmetry & 1 != 0 { sq.flip_horizontal() } else { sq };
    let sq = if symmetry & 2 != 0 { sq.flip_vertical() } else { sq };
    if symmetry & 4 != 0 { sq.flip_diagonal() } else { sq }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_puts_the_defending_king_in_the_triangle() {
        for sq in Square::ALL {
            let (file, rank) = Turned::around(sq, Square::A1).at(sq);
            assert!(rank <= file && file <= 3, "{sq}: ({file}, {rank})");
        }
    }
}
