//! Cheap check detection: which moves give check, without playing them.
//!
//! shakmaty 0.30 has no public `gives_check`, and playing every move to ask `is_check`
//! costs a full make. Per node we precompute, from the attacker's point of view, the
//! squares from which each piece type would attack the enemy king and the attacker's
//! pieces that shield a slider's line to that king (discovered-check candidates). A
//! normal move then gives check when it lands on a check square of its (promoted) role or
//! leaves the king's line with a shielding piece. Castling and en passant, rare and
//! awkward, are played and tested.

use shakmaty::{Bitboard, Chess, Color, Move, Position, Square, attacks};

/// Check squares and discovered-check candidates for the side to move.
pub struct CheckInfo {
    king: Option<Square>,
    occupied: Bitboard,
    by_role: [Bitboard; 6],
    blockers: Bitboard,
}

impl CheckInfo {
    /// Precomputes check information for the side to move in `pos`.
    pub fn new(pos: &Chess) -> CheckInfo {
        let board = pos.board();
        let us: Color = pos.turn();
        let occupied = board.occupied();
        let Some(king) = board.king_of(!us) else {
            return CheckInfo { king: None, occupied, by_role: [Bitboard::EMPTY; 6], blockers: Bitboard::EMPTY };
        };
        let bishop = attacks::bishop_attacks(king, occupied);
        let rook = attacks::rook_attacks(king, occupied);
        let by_role = [
            attacks::pawn_attacks(!us, king),
            attacks::knight_attacks(king),
            bishop,
            rook,
            bishop | rook,
            Bitboard::EMPTY,
        ];
        let ours = board.by_color(us);
        let snipers = ((attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens())
            | (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens()))
            & ours;
        let mut blockers = Bitboard::EMPTY;
        for sniper in snipers {
            let between = attacks::between(sniper, king) & occupied;
            if between.count() == 1 {
                blockers |= between & ours;
            }
        }
        CheckInfo { king: Some(king), occupied, by_role, blockers }
    }

    /// Whether legal move `m` in `pos` (the position this info was built from) checks.
    #[inline]
    pub fn gives_check(&self, pos: &Chess, m: Move) -> bool {
        let Some(king) = self.king else { return false };
        match m {
            Move::Normal { role, from, to, promotion, .. } => {
                if self.blockers.contains(from) && !attacks::aligned(from, to, king) {
                    return true;
                }
                match promotion {
                    None => self.by_role[role as usize - 1].contains(to),
                    Some(p) => {
                        let occ = (self.occupied ^ Bitboard::from_square(from)) | Bitboard::from_square(to);
                        attacks::attacks(to, p.of(pos.turn()), occ).contains(king)
                    }
                }
            }
            _ => {
                let mut after = pos.clone();
                after.play_unchecked(m);
                after.is_check()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn walk(pos: &Chess, depth: u32, checked: &mut u64) {
        let info = CheckInfo::new(pos);
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            assert_eq!(
                info.gives_check(pos, m),
                after.is_check(),
                "{} move {m:?}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
            *checked += 1;
            if depth > 1 {
                walk(&after, depth - 1, checked);
            }
        }
    }

    #[test]
    fn matches_make_and_test() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "3k4/8/8/2pP4/8/8/8/K2R4 w - c6 0 1",
            "7k/1P6/8/8/8/8/8/K7 w - - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            walk(&pos, 3, &mut checked);
        }
        assert!(checked > 100_000, "walked {checked} moves");
    }
}
