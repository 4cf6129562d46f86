//! How near a king and rook are to mating a bare king (K+R v K): a model of the
//! distance to mate from the placement of the three men, fitted to tablebase lines, made
//! as [`queen_rook`](crate::knowledge::queen_rook)'s is.
//!
//! On the board turned so that the defending king stands in the triangle a1-d1-d4
//! ([`Turned`]), the model adds up one table for that square, one for the king's safe
//! flight squares, and three of offsets (file and rank steps, -7 to 7 each): the
//! attacking king and the rook seen from the defending king, and the rook seen from the
//! attacking king. The tables are the least-squares fit (ridge 5) to the mate distances
//! along the tablebase lines of the shared K+R v K suite (12,133 positions with the
//! rook's side to move), in units of 20 a move, each table's smallest entry 0. Fit on a
//! random half of the lines, it explains 96% of the variance of the mate distance on the
//! other half (three draws of the halves), twice the defending king's edge distance plus
//! the kings' distance 75%, tables of those two distances 76%. What it sees that they do
//! not: the rook cutting the king off one line from it, the kings in opposition, the
//! rook's distance from both kings. `epd/tools/fit_krk.py` makes the tables and writes
//! them below.

use shakmaty::{Bitboard, Board, Color, Role, Square, attacks};

use crate::knowledge::fitted::rook_mate::{DEFENDER, FLIGHTS, KING, ROOK, ROOK_FROM_KING};
use crate::knowledge::turned::{Turned, step};

/// The rook of `attacker`, when it and the two kings are all the men on `board`.
pub fn rook_of(board: &Board, attacker: Color) -> Option<Square> {
    let men = board.occupied() & !board.kings();
    let rook = (men & board.by_color(attacker)).single_square()?;
    (men.count() == 1 && board.role_at(rook) == Some(Role::Rook)).then_some(rook)
}

/// The squares next to the defending king on `defender` that it could step to (the rook's
/// among them, when the attacking king does not guard it): not attacked by the attacking
/// king on `attacker` or by the rook on `rook` (its lines seen through the defending
/// king, which cannot step back along them).
#[inline]
fn flights(attacker: Square, defender: Square, rook: Square) -> u32 {
    let held = attacks::king_attacks(attacker) | attacks::rook_attacks(rook, Bitboard::from(attacker));
    (attacks::king_attacks(defender) & !held).count() as u32
}

/// The distance to mate the model gives, 20 a move (0 at its nearest), with the attacking
/// king on `attacker`, the defending king on `defender` and the rook on `rook`.
pub fn distance_to_mate(attacker: Square, defender: Square, rook: Square) -> i32 {
    let turned = Turned::around(defender, attacker);
    let (d, a, r) = (turned.at(defender), turned.at(attacker), turned.at(rook));
    i32::from(DEFENDER[d.0][d.1])
        + i32::from(FLIGHTS[flights(attacker, defender, rook).min(8) as usize])
        + step(&KING, a, d)
        + step(&ROOK, r, d)
        + step(&ROOK_FROM_KING, r, a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::turned::image;

    #[test]
    fn the_model_is_the_same_on_every_turn_of_the_board() {
        let men = [
            (Square::D6, Square::D8, Square::H7),
            (Square::C2, Square::E5, Square::G1),
            (Square::B3, Square::G7, Square::A1),
        ];
        for (attacker, defender, rook) in men {
            let d = distance_to_mate(attacker, defender, rook);
            for symmetry in 1..8 {
                let at = |sq| image(sq, symmetry);
                assert_eq!(distance_to_mate(at(attacker), at(defender), at(rook)), d);
            }
        }
    }

    #[test]
    fn flights_are_the_squares_the_defending_king_can_step_to() {
        use shakmaty::{CastlingMode, Chess, Position, fen::Fen};
        for fen in
            ["3k4/8/3K4/8/8/8/8/7R b - - 0 1", "8/8/8/3k4/8/8/2K5/4R3 b - - 0 1", "8/8/8/8/8/2k5/3R4/K7 b - - 0 1"]
        {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            let board = pos.board();
            let rook = rook_of(board, Color::White).unwrap();
            let (attacker, defender) = (board.king_of(Color::White).unwrap(), board.king_of(Color::Black).unwrap());
            let king_moves = pos.legal_moves().iter().filter(|m| m.role() == Role::King).count();
            assert_eq!(flights(attacker, defender, rook) as usize, king_moves, "{fen}");
        }
        let board: Board = "8/8/8/8/8/2k5/3R4/K7".parse().unwrap();
        assert_eq!(rook_of(&board, Color::White), Some(Square::D2));
        assert_eq!(rook_of(&board, Color::Black), None);
        let with_pawn: Board = "8/8/8/8/7p/2k5/3R4/K7".parse().unwrap();
        assert_eq!(rook_of(&with_pawn, Color::White), None);
    }

    #[test]
    fn the_rook_cutting_the_king_off_on_the_edge_is_near_mate() {
        // Kd6, Rh7 against Kd8: one rook move from mate (Rh8#), against the same king
        // in the centre with the attacking king and rook far away.
        let near = distance_to_mate(Square::D6, Square::D8, Square::H7);
        let far = distance_to_mate(Square::A1, Square::E5, Square::H1);
        assert!(near + 20 * 8 < far, "{near} {far}");
    }
}
