//! How near the queen's side is to mating in K+Q v K+R: a model of the distance to mate
//! from the placement of the four men, fitted to tablebase lines.
//!
//! The board is turned (mirrored, flipped, and reflected in the a1-h8 diagonal) so that
//! the defending king stands in the triangle a1-d1-d4 (and, on its diagonal, the
//! attacking king on or below the diagonal). The model adds up one table for
//! that square, one for the king's safe flight squares, and five of offsets (file and
//! rank steps, -7 to 7 each, in the turned board): the attacking king, the rook and the
//! queen seen from the defending king, the rook seen from the attacking king and from the
//! queen. Offsets hold what plain distances cannot: the kings in opposition, a rook cut
//! off on the far side of its king, a queen a knight's move from the king.
//!
//! The tables are the weighted least-squares fit (ridge 5) of that additive model to
//! positions of a K+Q v K+R distance-to-mate table made by retrograde analysis (the
//! `kqkr_lines` example; the engine never reads a table): 96,430 positions on 6,000
//! tablebase-optimal lines from random starts of mates in 11 moves or more, and beside
//! each the positions after the queen's side's other moves that keep the win and the
//! best reply (1,616,161, weighing a tenth each), in units of 20 a move, each table's
//! smallest entry 0. A search compares exactly those: the position after the best move
//! with the ones after its siblings. Fit to the first half of the lines, the model
//! explains 80% of the variance of the mate distance on the lines of the other half and
//! 81% on their siblings; fitted to the lines alone (as until stop 51, to the shared
//! suite's) 85% and 56%. As the queen's side's evaluation in clock play against the
//! table's perfect defence it won 120 of 120 games where the fit to the suite's lines
//! won 117 (README, "Won endings in clock play"). `epd/tools/fit_kqkr.py` makes the
//! tables and writes them below.
//!
//! Two parts of the engine read it: the prover's progress numbers
//! ([`Kings`](crate::knowledge::progress::Kings)), which order df-pn's moves and never decide a
//! value, and the fallback's evaluation, which picks a move when no mate is proven.

use shakmaty::{Bitboard, Board, Color, Move, Role, Square, attacks};

use crate::knowledge::turned::{Steps, Turned, step};

/// The longest mate of K+Q v K+R, in moves of the queen's side: the `kqkr_lines`
/// example's retrograde table of the whole ending (`cargo run --release --example
/// kqkr_lines -- tables DIR` prints "8863768 placements won, the longest mate 35 moves"
/// for the queen's side to move; with the rook's side to move, every move leads to one of
/// those, so no defence lasts longer either). Taking the rook starts the 50-move count
/// afresh, so the bound holds whatever the root's halfmove clock.
pub const LONGEST_MATE: u32 = 35;

/// The attacker's queen and the defender's rook of a K+Q v K+R position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueenRook {
    /// The attacker's queen.
    pub queen: Square,
    /// The defender's rook.
    pub rook: Square,
}

impl QueenRook {
    /// The queen of `attacker` and the rook of the other side, when they are the only
    /// men besides the kings.
    pub fn of(board: &Board, attacker: Color) -> Option<QueenRook> {
        let ours = board.by_color(attacker) & !board.kings();
        let theirs = board.by_color(!attacker) & !board.kings();
        let (queen, rook) = (ours.single_square()?, theirs.single_square()?);
        (board.role_at(queen) == Some(Role::Queen) && board.role_at(rook) == Some(Role::Rook))
            .then_some(QueenRook { queen, rook })
    }

    /// The men after `m`, a move that captures nothing: the queen or the rook moved, or
    /// neither (a king's move).
    #[inline]
    pub fn after(self, m: Move) -> QueenRook {
        match m.from() {
            Some(from) if from == self.queen => QueenRook { queen: m.to(), ..self },
            Some(from) if from == self.rook => QueenRook { rook: m.to(), ..self },
            _ => self,
        }
    }

    /// The squares next to the defending king on `defender` that it could step to: not
    /// its rook's, not attacked by the attacking king on `attacker` or by the queen (its
    /// lines seen through the defending king, which cannot step back along them).
    #[inline]
    pub fn flights(self, attacker: Square, defender: Square) -> u32 {
        let through_king = Bitboard::from(attacker) | Bitboard::from(self.queen) | Bitboard::from(self.rook);
        let held = attacks::king_attacks(attacker) | attacks::queen_attacks(self.queen, through_king);
        (attacks::king_attacks(defender) & !held & !Bitboard::from(self.rook)).count() as u32
    }
}

/// The distance to mate the model gives, 20 a move (0 at its nearest), with the attacking
/// king on `attacker`, the defending king on `defender` with `flights` safe flight squares.
pub fn distance_to_mate(attacker: Square, defender: Square, queen: Square, rook: Square, flights: u32) -> i32 {
    let turned = Turned::around(defender, attacker);
    let (d, a, q, r) = (turned.at(defender), turned.at(attacker), turned.at(queen), turned.at(rook));
    i32::from(DEFENDER[d.0][d.1])
        + i32::from(FLIGHTS[flights.min(8) as usize])
        + step(&KING, a, d)
        + step(&ROOK, r, d)
        + step(&QUEEN, q, d)
        + step(&ROOK_FROM_KING, r, a)
        + step(&ROOK_FROM_QUEEN, r, q)
}

// BEGIN TABLES (epd/tools/fit_kqkr.py)
/// The defending king on (file, rank) of the triangle a1-d1-d4 (rank <= file; the
/// other entries are never read).
#[rustfmt::skip]
const DEFENDER: [[i16; 4]; 4] = [
    [  0,   0,   0,   0],
    [ 67, 118,   0,   0],
    [130, 193, 247,   0],
    [164, 235, 297, 326],
];
/// The defending king's safe flight squares, 0 to 8.
#[rustfmt::skip]
const FLIGHTS: [i16; 9] = [  0,  11,  23,  27,  34,  44,  47,  51,  51];
/// The attacking king seen from the defending king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const KING: Steps = [
    [134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134],
    [134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134],
    [134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134],
    [134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134, 134],
    [134, 134, 134, 134, 130, 151, 115,  85,  78, 103, 131, 135, 152, 173, 200],
    [134, 134, 134, 134, 116, 124, 109,  68,  37,  67, 107, 125, 144, 173, 207],
    [134, 134, 134, 134,  60,  72, 134, 134, 134,   6,  62,  97, 129, 163, 209],
    [134, 134, 134, 134,  69,  63, 134, 134, 134,   3,  45,  84, 115, 149, 199],
    [134, 134, 134, 134,  64,  46, 134, 134, 134,   0,  52,  93, 107, 139, 181],
    [134, 134, 134, 134,  83,  79,  20,  10,  26,  44,  82, 109, 123, 152, 190],
    [134, 134, 134, 134, 126, 101,  60,  49,  49,  76, 110, 125, 142, 170, 202],
    [134, 134, 134, 134, 111, 119,  98,  93,  95, 109, 134, 148, 145, 176, 198],
    [134, 134, 134, 134, 134, 157, 138, 151, 143, 148, 165, 172, 188, 197, 218],
    [134, 134, 134, 134, 134, 134, 186, 200, 202, 196, 213, 219, 223, 234, 219],
    [134, 134, 134, 134, 134, 134, 134, 261, 256, 254, 258, 253, 281, 289, 279],
];
/// The rook seen from its king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const ROOK: Steps = [
    [198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198],
    [198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198],
    [198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198],
    [198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198, 198],
    [198, 198, 198, 198, 167, 106, 150, 119, 260, 264, 260,  53, 107, 115, 184],
    [198, 198, 198, 198,  86, 168, 176, 208, 268, 283, 232, 120, 139, 163, 161],
    [198, 198, 198, 198, 210, 189, 224, 256, 301, 295, 255, 146, 167, 178, 199],
    [198, 198, 198, 198, 120, 208, 245, 198, 308, 292, 275, 194, 201, 222, 249],
    [198, 198, 198, 198, 211, 243, 272, 278, 318, 316, 289, 198, 213, 219, 241],
    [198, 198, 198, 198, 174, 260, 245, 258, 314, 301, 236, 150, 160, 169, 209],
    [198, 198, 198, 198, 107, 125, 206, 206, 289, 253, 193,  75, 120, 130, 171],
    [198, 198, 198, 198,   0, 180, 141, 204, 236, 229, 124,  87, 113, 132, 162],
    [198, 198, 198, 198, 198, 256, 207, 224, 238, 229, 154, 126, 123, 152, 176],
    [198, 198, 198, 198, 198, 198, 191, 244, 241, 261, 166, 159, 158, 138, 198],
    [198, 198, 198, 198, 198, 198, 198, 243, 248, 223, 244, 183, 183, 180, 147],
];
/// The queen seen from the defending king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const QUEEN: Steps = [
    [ 46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46],
    [ 46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46],
    [ 46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46],
    [ 46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46,  46],
    [ 46,  46,  46,  46,  88,  62,  55,   0,  52,  36,  23,  44,  32,  44,  50],
    [ 46,  46,  46,  46,  54, 110,  82,  85,  52,  11,  36,  13,  32,  38,  63],
    [ 46,  46,  46,  46,  58,  79,  46,  46,  46,  54,  33,  43,  49,  61,  33],
    [ 46,  46,  46,  46,  51,  67,  46,  46,  46,  15,  31,  28,  30,  35,  40],
    [ 46,  46,  46,  46,  37,  68,  46,  46,  46,  53,  33,  52,  44,  80,  46],
    [ 46,  46,  46,  46,  58,  14,  40,  47,  54,  30,  18,  12,  27,  34,  39],
    [ 46,  46,  46,  46,  54,  55,  21,  58,  44,  29,   6,  36,  19,  42,  34],
    [ 46,  46,  46,  46,  58,  28,  56,  15,  51,  23,  31,  25,  46,  28,  67],
    [ 46,  46,  46,  46,  46,  59,  64,  67,  39,  39,  27,  43,   9,  79,  51],
    [ 46,  46,  46,  46,  46,  46,  43,  77,  73,  34,  42,  27,  75,  46,  65],
    [ 46,  46,  46,  46,  46,  46,  46,  77,  66,  99,  87,  55,   9,  70,  77],
];
/// The rook seen from the attacking king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const ROOK_FROM_KING: Steps = [
    [253, 305, 273, 270, 257, 249, 265, 315, 280, 206, 194, 173, 144, 151, 181],
    [277, 282, 301, 291, 272, 242, 265, 308, 278, 251, 199, 193, 174, 182, 140],
    [305, 284, 288, 281, 270, 253, 273, 313, 268, 261, 255, 225, 248, 207, 246],
    [300, 298, 286, 279, 273, 261, 267, 304, 264, 260, 262, 297, 296, 281, 223],
    [290, 282, 270, 258, 261, 244, 249, 287, 259, 261, 318, 290, 273, 277, 286],
    [276, 275, 268, 251, 233, 211, 221, 264, 244, 292, 277, 279, 227, 235, 242],
    [277, 283, 269, 253, 230, 203, 174, 267,   0, 253, 250, 182, 156, 182, 173],
    [325, 315, 298, 282, 282, 272, 275, 245, 271, 328, 367, 385, 371, 420, 409],
    [269, 293, 270, 248, 237, 219,  48, 322,  92, 236, 219, 181, 157, 197, 164],
    [277, 281, 266, 244, 232, 211, 234, 303, 265, 296, 232, 228, 175, 174, 169],
    [278, 263, 253, 250, 260, 249, 255, 355, 258, 273, 327, 274, 255, 244, 239],
    [239, 258, 229, 257, 257, 249, 243, 355, 239, 242, 266, 302, 249, 230, 203],
    [219, 215, 241, 252, 216, 224, 170, 382, 181, 204, 222, 182, 238, 156, 168],
    [146, 217, 258, 240, 195, 194, 153, 372, 186, 210, 187, 203, 158, 127, 137],
    [232, 203, 265, 170, 211, 186, 192, 360, 225, 175, 182, 182, 200, 172, 161],
];
/// The rook seen from the queen: [file step + 7][rank step + 7].
#[rustfmt::skip]
const ROOK_FROM_QUEEN: Steps = [
    [154, 155, 164, 183, 186, 186, 217, 128, 179, 186, 182, 195, 210, 167, 148],
    [157, 141, 168, 179, 192, 182, 204, 151, 170, 193, 200, 161, 117, 100, 112],
    [191, 155, 143, 183, 189, 191, 188, 145, 187, 199, 182, 143, 134, 218, 201],
    [190, 183, 171, 171, 179, 181, 181, 161, 172, 181, 155, 120, 177, 212, 254],
    [199, 192, 196, 189, 173, 171, 185, 172, 173, 157,  96, 174, 197, 244, 246],
    [195, 200, 180, 176, 181, 168, 178, 152, 163, 121, 177, 184, 227, 253, 246],
    [198, 177, 196, 188, 189, 177, 174, 160, 162, 171, 155, 175, 222, 264, 263],
    [197, 186, 179, 196, 180, 178, 167, 174, 162, 186, 155, 164, 132,  11,   5],
    [200, 181, 195, 185, 183, 174, 165, 147,  92, 159, 150, 209, 224, 210, 236],
    [190, 205, 192, 190, 177, 163, 182, 164, 153,  95, 136, 174, 226, 207, 223],
    [210, 186, 193, 160, 152, 183, 163, 159, 157, 143,  62, 158, 192, 175, 206],
    [190, 190, 185, 135, 190, 192, 181, 153, 173, 167, 137,  65, 188, 233, 215],
    [129, 177, 101, 178, 207, 207, 209,   9, 211, 184, 174, 138,  64, 205, 159],
    [134,  13, 190, 179, 213, 219, 213,   0, 223, 206, 204, 173, 139,  54, 143],
    [209, 163, 191, 260, 250, 224, 256,  34, 243, 235, 218, 227, 208, 119, 129],
];
// END TABLES

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::turned::image;

    #[test]
    fn the_model_is_the_same_on_every_turn_of_the_board() {
        let men = [
            (Square::D6, Square::D8, Square::H1, Square::C7),
            (Square::C2, Square::E5, Square::G1, Square::E4),
            (Square::B3, Square::G7, Square::A1, Square::F2),
        ];
        for (attacker, defender, queen, rook) in men {
            let d = distance_to_mate(attacker, defender, queen, rook, 3);
            for symmetry in 1..8 {
                let at = |sq| image(sq, symmetry);
                assert_eq!(distance_to_mate(at(attacker), at(defender), at(queen), at(rook), 3), d);
            }
        }
    }

    #[test]
    fn flights_are_the_squares_the_defending_king_can_step_to() {
        use shakmaty::{CastlingMode, Chess, Position, fen::Fen};
        for fen in
            ["3k4/2r5/3K4/8/8/8/8/7Q b - - 0 1", "8/8/8/3k4/4r3/8/2K5/6Q1 b - - 0 1", "7k/8/5K2/8/8/8/r7/6Q1 b - - 0 1"]
        {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            let board = pos.board();
            let duel = QueenRook::of(board, Color::White).unwrap();
            let (attacker, defender) = (board.king_of(Color::White).unwrap(), board.king_of(Color::Black).unwrap());
            let king_moves = pos.legal_moves().iter().filter(|m| m.role() == Role::King && !m.is_capture()).count();
            assert_eq!(duel.flights(attacker, defender) as usize, king_moves, "{fen}");
        }
    }
}
