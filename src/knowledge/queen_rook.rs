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

use crate::knowledge::fitted::queen_rook::{DEFENDER, FLIGHTS, KING, QUEEN, ROOK, ROOK_FROM_KING, ROOK_FROM_QUEEN};
use crate::knowledge::turned::{Turned, step};

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
