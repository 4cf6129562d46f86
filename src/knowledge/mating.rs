//! The moves that mated in a solver's calls: a quiet move that already proved an
//! attacker node starts one lower (quiet mates repeat their manoeuvres).

use shakmaty::Move;

use crate::chess::movecode::MoveCode;

/// The moves, as (from, to) pairs, that proved an attacker node of the current df-pn call.
pub struct MatingMoves {
    bits: [u64; 64],
}

impl Default for MatingMoves {
    fn default() -> Self {
        MatingMoves::new()
    }
}

impl MatingMoves {
    /// No move yet.
    pub fn new() -> MatingMoves {
        MatingMoves { bits: [0; 64] }
    }

    /// `code` proved an attacker node. ([`MoveCode::NONE`] marks the pair a1-a1, which no
    /// move has.)
    #[inline]
    pub fn insert(&mut self, code: MoveCode) {
        let (word, bit) = Self::slot(code.pair());
        self.bits[word] |= bit;
    }

    /// Whether `m`'s (from, to) pair proved an attacker node.
    #[inline]
    pub fn contains(&self, m: Move) -> bool {
        let (word, bit) = Self::slot(MoveCode::pair_of(m));
        self.bits[word] & bit != 0
    }

    /// The word and bit of a (from, to) pair, a move code's low 12 bits.
    #[inline]
    fn slot(pair: u16) -> (usize, u64) {
        let pair = usize::from(pair);
        (pair / 64, 1 << (pair % 64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    #[test]
    fn mating_moves_are_told_apart_by_from_and_to() {
        let step = |from, to| Move::Normal { role: Role::Bishop, from, capture: None, to, promotion: None };
        let mut mating = MatingMoves::new();
        assert!(!mating.contains(step(Square::C1, Square::D2)));
        mating.insert(MoveCode::of(step(Square::C1, Square::D2)));
        assert!(mating.contains(step(Square::C1, Square::D2)));
        assert!(!mating.contains(step(Square::C1, Square::E3)));
        assert!(!mating.contains(step(Square::D2, Square::C1)));
        mating.insert(MoveCode::of(step(Square::H8, Square::A1)));
        assert!(mating.contains(step(Square::H8, Square::A1)));
    }
}
