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

use crate::knowledge::turned::{Steps, Turned, step};

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

// BEGIN TABLES (epd/tools/fit_krk.py)
/// The defending king on (file, rank) of the triangle a1-d1-d4 (rank <= file; the
/// other entries are never read).
#[rustfmt::skip]
const DEFENDER: [[i16; 4]; 4] = [
    [  0,   0,   0,   0],
    [ 27,  39,   0,   0],
    [ 57,  78, 109,   0],
    [ 77, 101, 136, 155],
];
/// The defending king's safe flight squares, 0 to 8.
#[rustfmt::skip]
const FLIGHTS: [i16; 9] = [ 29,   4,   0,  23,  26,  39,  39,  52,  49];
/// The attacking king seen from the defending king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const KING: Steps = [
    [ 86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86],
    [ 86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86],
    [ 86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86],
    [ 86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86,  86],
    [ 86,  86,  86,  86,  96,  97,  90,  73,  79,  82,  85,  85,  95, 104, 107],
    [ 86,  86,  86,  86,  90,  93,  93,  89,  78,  73,  65,  72,  87, 106, 117],
    [ 86,  86,  86,  86,  76,  85,  86,  86,  86,  25,  40,  68,  91, 109, 107],
    [ 86,  86,  86,  86,  74,  95,  86,  86,  86,   0,  31,  64,  90, 108, 108],
    [ 86,  86,  86,  86,  73,  59,  86,  86,  86,  18,  40,  72,  90, 107, 103],
    [ 86,  86,  86,  86,  80,  65,  43,  32,  28,  35,  50,  73,  95, 117, 110],
    [ 86,  86,  86,  86,  86,  73,  55,  58,  49,  60,  67,  88, 101, 115, 103],
    [ 86,  86,  86,  86,  96,  81,  82,  83,  75,  78,  85,  93, 104, 115, 120],
    [ 86,  86,  86,  86,  86,  96, 102, 102, 102, 105, 103, 115, 122, 120, 117],
    [ 86,  86,  86,  86,  86,  86, 118, 125, 109, 106, 106, 119, 129, 132, 126],
    [ 86,  86,  86,  86,  86,  86,  86, 111,  86,  86,  86,  86,  86, 103,  86],
];
/// The rook seen from the defending king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const ROOK: Steps = [
    [ 29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29],
    [ 29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29],
    [ 29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29],
    [ 29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  29],
    [ 29,  29,  29,  29,  16,  16,  28,  29,   7,  21,  21,  21,  24,  33,  29],
    [ 29,  29,  29,  29,  20,  22,  38,  29,  16,  32,  12,  15,  18,  21,   0],
    [ 29,  29,  29,  29,  27,  45,  71,  29,  31,  45,  35,  44,  52,  48,  29],
    [ 29,  29,  29,  29,  29,  29,  29,  29,  29,  29,  35,  52,  45,  38,  44],
    [ 29,  29,  29,  29,  15,  23,  55,  29,  13,  22,  23,  31,  33,  42,  28],
    [ 29,  29,  29,  29,  25,  40,  44,  29,  15,  20,  31,  38,  39,  24,  37],
    [ 29,  29,  29,  29,  26,  25,  47,  29,  18,  18,  30,  34,  35,  32,  29],
    [ 29,  29,  29,  29,  24,  22,  38,  30,  16,  23,  36,  31,  35,  35,  29],
    [ 29,  29,  29,  29,  29,  31,  34,  29,  18,  20,  38,  25,  32,  23,  29],
    [ 29,  29,  29,  29,  29,  29,  29,  29,  20,  17,  27,  27,  29,  38,  29],
    [ 29,  29,  29,  29,  29,  29,  29,  29,  21,  30,  29,  29,  29,  29,  29],
];
/// The rook seen from the attacking king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const ROOK_FROM_KING: Steps = [
    [ 27,  32,  37,  19,  33,  34,  26,  37,  21,  25,  41,  28,  30,  29,  27],
    [ 30,  31,  36,  31,  31,  31,  31,  25,  16,  21,  35,  33,  27,  30,  26],
    [ 31,  38,  36,  32,  29,  31,  32,  37,  19,  32,  24,  26,  37,  33,  36],
    [ 38,  38,  47,  30,  34,  36,  37,  31,  22,  28,  28,  27,  36,  34,  29],
    [ 32,  38,  44,  33,  36,  38,  35,  36,  28,  38,  21,  27,  34,  38,  39],
    [ 30,  34,  41,  33,  34,  33,  22,  18,  21,  13,  12,  15,  18,  22,  20],
    [ 33,  38,  41,  35,  27,  20,  30,  25,  11,   3,  14,  21,  19,  32,  20],
    [ 27,  31,  33,  32,  24,  23,  23,  26,  20,   2,   8,  11,   9,  21,  38],
    [ 25,  37,  27,  23,  27,  15,  25,   5,  14,   0,   8,  19,  20,  15,  16],
    [ 30,  21,  29,  20,  23,  20,  20,  14,  14,   8,  16,  17,  26,  23,  29],
    [ 29,  30,  39,  30,  16,  28,  20,  18,  17,   2,   7,  29,  44,  31,  23],
    [ 29,  28,  38,  32,  24,  28,  21,   6,  14,  16,  14,  11,  27,  37,  26],
    [ 32,  26,  30,  38,  29,  31,  26,  17,   0,  14,  25,  23,  24,  30,  26],
    [ 26,  26,  36,  32,  24,  48,  17,  19,  13,   7,  35,  31,  26,  26,  24],
    [ 26,  26,  39,  34,  23,  28,  31,  23,  16,  30,  27,  26,  26,  19,  26],
];
// END TABLES

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
