//! A compact 16-bit move code, as the transposition table stores best moves.

use shakmaty::{Move, Position};

/// A move packed into 16 bits: from (6), to (6), promotion role (3), castle flag (1). A
/// crazyhouse drop is coded from and to its square, with the dropped role as promotion.
/// [`MoveCode::NONE`] (0) is never the code of a legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MoveCode(pub u16);

impl MoveCode {
    /// "No move".
    pub const NONE: MoveCode = MoveCode(0);

    /// The code of `m`.
    pub fn of(m: Move) -> MoveCode {
        let (from, to) = match m {
            Move::Castle { king, rook } => (king, rook),
            Move::EnPassant { from, to } => (from, to),
            Move::Normal { from, to, .. } => (from, to),
            Move::Put { to, .. } => (to, to),
        };
        let promo = match m {
            Move::Put { role, .. } => role as u16,
            _ => m.promotion().map_or(0u16, |r| r as u16),
        };
        let castle = u16::from(m.is_castle());
        MoveCode((u16::from(from) | (u16::from(to) << 6) | (promo << 12) | (castle << 15)).max(1))
    }

    /// The code's (from, to) pair: its low 12 bits, without the promotion and castle
    /// fields.
    #[inline]
    pub fn pair(self) -> u16 {
        self.0 & 0xfff
    }

    /// `MoveCode::of(m).pair()`, read from the move without building its whole code.
    #[inline]
    pub fn pair_of(m: Move) -> u16 {
        let (from, to) = match m {
            Move::Castle { king, rook } => (king, rook),
            Move::EnPassant { from, to } | Move::Normal { from, to, .. } => (from, to),
            Move::Put { to, .. } => (to, to),
        };
        u16::from(from) | (u16::from(to) << 6)
    }

    /// The code without the castle flag: the move code of the certificate format
    /// (`src/proof/FORMAT.md`: from, to, promotion role), which tells a castle by its king
    /// and rook squares.
    pub fn portable(self) -> u16 {
        self.0 & 0x7fff
    }

    /// The legal move of `pos` with this code, if any.
    pub fn decode<P: Position>(self, pos: &P) -> Option<Move> {
        if self == MoveCode::NONE {
            return None;
        }
        pos.legal_moves().into_iter().find(|&m| MoveCode::of(m) == self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    #[test]
    fn move_codes_round_trip() {
        let pos = Chess::default();
        for m in pos.legal_moves() {
            assert_eq!(MoveCode::of(m).decode(&pos), Some(m));
        }
        assert_eq!(MoveCode::NONE.decode(&pos), None);
    }

    #[test]
    fn a_pair_is_the_low_bits_of_the_code() {
        // Promotions, en passant and castles in both castling modes.
        for (fen, mode) in [
            ("r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1", shakmaty::CastlingMode::Standard),
            ("r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R b KQkq - 0 1", shakmaty::CastlingMode::Chess960),
        ] {
            let pos: Chess = fen.parse::<shakmaty::fen::Fen>().unwrap().into_position(mode).unwrap();
            for m in pos.legal_moves() {
                assert_eq!(MoveCode::pair_of(m), MoveCode::of(m).pair(), "{m:?}");
            }
        }
        let drop = Move::Put { role: shakmaty::Role::Knight, to: shakmaty::Square::A1 };
        assert_eq!(MoveCode::pair_of(drop), MoveCode::of(drop).pair());
    }
}
