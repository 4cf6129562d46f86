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
//! The tables are the least-squares fit (ridge 5) of that additive model to the mate
//! distances along the tablebase lines of the shared K+Q v K+R suite (15,133 positions
//! with the queen's side to move, both heavy pieces on the board), in units of 20 a
//! move, each table's smallest entry 0. Fit on a random half of the lines, the model
//! explains 84 to 85% of the variance of the mate distance on the other half (three
//! draws of the halves), where the nine tables of plain distances it replaces (the
//! defending king's distance to the edge and to a corner, the kings' distance, ...)
//! explained 69%. `epd/tools/fit_kqkr.py` makes the tables and writes them below.
//!
//! Two parts of the engine read it: the prover's progress numbers
//! ([`Kings`](super::progress::Kings)), which order df-pn's moves and never decide a
//! value, and the fallback's evaluation, which picks a move when no mate is proven.

use shakmaty::{Bitboard, Board, Color, Move, Role, Square, attacks};

use super::turned::{Steps, Turned, step};

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
    [ 32,  55,   0,   0],
    [ 78, 129, 183,   0],
    [134, 180, 226, 251],
];
/// The defending king's safe flight squares, 0 to 8.
#[rustfmt::skip]
const FLIGHTS: [i16; 9] = [  0,   5,  19,  26,  36,  55,  64,  76,  76];
/// The attacking king seen from the defending king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const KING: Steps = [
    [105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105],
    [105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105],
    [105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105],
    [105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105, 105],
    [105, 105, 105, 105, 105,  95, 103,  27,  59,  83, 109, 105, 113, 152, 126],
    [105, 105, 105, 105, 117, 113,  77,  97,  56,  52,  62, 106, 120, 167, 145],
    [105, 105, 105, 105, 106,  96, 105, 105, 105,   0,  33,  73, 101, 106, 138],
    [105, 105, 105, 105,  94,  94, 105, 105, 105,   5,  40,  76,  92, 132, 138],
    [105, 105, 105, 105,  58,  74, 105, 105, 105,   3,  47,  74, 101, 112, 163],
    [105, 105, 105, 105, 100, 100,  32,  23,  33,  50,  80, 105, 100, 132, 161],
    [105, 105, 105, 105,  47, 118,  47,  47,  46,  72, 101, 118, 145, 168, 165],
    [105, 105, 105, 105, 137,  80,  87,  87,  89,  96, 110, 132, 162, 161, 174],
    [105, 105, 105, 105, 105, 100, 134, 142, 124, 123, 133, 139, 107, 160, 151],
    [105, 105, 105, 105, 105, 105, 155, 158, 141, 168, 125, 145, 148, 166, 147],
    [105, 105, 105, 105, 105, 105, 105, 119,  97, 116, 109, 157, 112, 148, 201],
];
/// The rook seen from its king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const ROOK: Steps = [
    [141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141],
    [141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141],
    [141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141],
    [141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141, 141],
    [141, 141, 141, 141, 126,  79,  66,  36, 189, 177, 154,  34,  48,  46, 117],
    [141, 141, 141, 141, 103,  98, 128, 165, 215, 203,  89,  64, 127, 134, 128],
    [141, 141, 141, 141, 141, 150, 201, 206, 246, 244, 178,  99,  87, 115, 147],
    [141, 141, 141, 141,  96, 156, 200, 141, 252, 240, 195,  84, 157, 181, 185],
    [141, 141, 141, 141, 141, 139, 221, 245, 268, 271, 209, 139, 155, 171, 173],
    [141, 141, 141, 141, 111, 200, 189, 214, 252, 256, 142,  52,  70, 115, 176],
    [141, 141, 141, 141, 160, 103, 143,  75, 229, 179, 145,  59,  85,  92, 141],
    [141, 141, 141, 141, 136, 104,   0,  75, 156, 153,  59,  86,  64,  82, 125],
    [141, 141, 141, 141, 141, 149, 103, 140, 188, 181,  93,  92,  61, 113, 113],
    [141, 141, 141, 141, 141, 141, 135, 149, 185, 169, 121, 120, 121, 128, 120],
    [141, 141, 141, 141, 141, 141, 141, 140, 166, 150, 141, 145, 131, 141, 136],
];
/// The queen seen from the defending king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const QUEEN: Steps = [
    [ 73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73],
    [ 73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73],
    [ 73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73],
    [ 73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73,  73],
    [ 73,  73,  73,  73,  73,  97,  82,  57,  96,  60,  46,  73,  39,  83,  73],
    [ 73,  73,  73,  73, 118,  82, 100, 116,  96,  47,  65,  36,   0,  86,  44],
    [ 73,  73,  73,  73, 102, 120,  73,  73,  73,  89,  68,  79,  74,  68,  72],
    [ 73,  73,  73,  73,  73,  93,  73,  73,  73,  54,  77,  52,  38,  56,  18],
    [ 73,  73,  73,  73,  48,  95,  73,  73,  73,  89,  59,  77,  83, 104,  99],
    [ 73,  73,  73,  73,  77,  85,  92,  53,  89,  45,  68,  52,  89,  85,  63],
    [ 73,  73,  73,  73,  73,  83,  65,  51,  70,  73,  23,  71,  48,  92,  89],
    [ 73,  73,  73,  73, 105,  80,  64,   4,  83,  24,  51,  42,  86,  35,  99],
    [ 73,  73,  73,  73,  73,  84,  41,  54,  67,  74,  70, 107,  47, 101, 104],
    [ 73,  73,  73,  73,  73,  73,  92,  73,  91,  74, 108,  73, 106,  51,  77],
    [ 73,  73,  73,  73,  73,  73,  73,  76,  67,  73,  76,  73,  76, 119,  73],
];
/// The rook seen from the attacking king: [file step + 7][rank step + 7].
#[rustfmt::skip]
const ROOK_FROM_KING: Steps = [
    [160, 138, 125, 177, 220, 202, 217, 202, 133, 157, 109, 179, 150, 160, 136],
    [160, 181, 212, 217, 189, 161, 156, 208, 205, 150, 155, 133, 183, 138, 142],
    [160, 168, 212, 222, 204, 166, 201, 221, 197, 133,  72, 160, 143, 116, 123],
    [172, 159, 200, 164, 171, 184, 175, 215, 173, 128, 130, 167, 167, 107, 160],
    [175, 208, 182, 180, 170, 153, 163, 180, 183, 164, 226, 188, 166, 179, 164],
    [160, 183, 180, 177, 143, 115, 138, 153, 147, 203, 167, 180, 114, 160, 147],
    [208, 187, 189, 174, 145, 123,  93, 129,  48, 150, 185, 131,  72, 115, 114],
    [194, 208, 189, 182, 183, 169, 144, 160, 160, 218, 252, 210, 138, 227, 176],
    [188, 216, 178, 175, 148, 142,   0, 161,  56, 155, 162, 126,  72, 148, 163],
    [176, 193, 168, 152, 152, 156, 154, 219, 152, 204, 143, 137, 149, 150, 177],
    [170, 173, 160, 134, 182, 162, 169, 218, 180, 190, 194, 160, 102, 160, 129],
    [160, 140, 161, 156, 156, 161, 145, 224, 152, 142, 143, 162, 123, 101, 160],
    [160, 157, 187, 182, 158, 107,  76, 228,  82, 130, 115,  90, 124, 160, 131],
    [160, 140, 105, 157,  87, 126,  89, 258, 158, 164, 134, 160, 137, 132, 127],
    [160, 189, 160, 149, 145, 141, 226, 249, 143, 161, 113, 143, 144, 139, 135],
];
/// The rook seen from the queen: [file step + 7][rank step + 7].
#[rustfmt::skip]
const ROOK_FROM_QUEEN: Steps = [
    [119, 130, 127, 136, 143, 148, 155,  73, 145, 163, 130, 123, 157, 119, 119],
    [119,  82, 134, 127, 135, 148, 158, 120, 130, 127, 115, 119, 104,  50,  65],
    [ 90, 132,  80, 129, 142, 135, 145,  78, 151, 140, 132,  84,  37, 149, 107],
    [119, 115,  91, 105, 109, 113, 128, 105, 118, 129, 129,  44, 136, 143, 174],
    [119, 135, 122, 119,  88, 110, 124, 120, 117, 111,   5, 133, 142, 187, 133],
    [140, 150,  62, 109, 115, 108, 121, 117, 115,  60, 131, 124, 146, 177, 172],
    [119, 147, 163, 113, 116, 131, 102, 116,  80, 107, 104, 113, 144, 149, 164],
    [ 87, 112, 112, 123, 101, 110, 105, 119, 123, 119, 118, 105, 119,  73,  91],
    [113, 126, 148, 132, 120, 129, 106, 111,  86, 105, 100, 163, 179, 152, 174],
    [139, 123, 126, 158, 126,  96, 138, 119, 122,  42,  98,  99, 132, 157, 119],
    [102, 119, 139, 135,  80, 144, 135,  91, 118, 101,  26, 104,  76, 141,  83],
    [109, 117, 113,  93, 144, 149, 136,  76, 122, 123,  88,   0,  97, 169,  99],
    [123, 168,  69, 161, 151, 176, 154,  77, 154, 131, 130,  95,  16, 114, 134],
    [119,  51, 155, 116, 103, 157, 125,  77, 175, 124, 166, 101,  72,   4,  47],
    [119, 104,  82, 168, 158, 154, 158,  73, 137, 172, 170, 119, 158, 119,  86],
];
// END TABLES

#[cfg(test)]
mod tests {
    use super::super::turned::image;
    use super::*;

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
