//! The rules of chess that end a mate search early: the 50- and 75-move rules and
//! mating material. (Checkmate and stalemate are read off the legal move list.)

use shakmaty::{Chess, Color, Move, Position};

/// The halfmove clock at which the side to move may claim a draw with a non-zeroing move.
pub const CLAIM_CLOCK: u32 = 99;

/// The halfmove clock at which the game is drawn without a claim (the 75-move rule),
/// unless the move that reached it mated. Larger clocks mean the same.
pub const AUTOMATIC_DRAW_CLOCK: u32 = 150;

/// The halfmove clock after `m` from a position with clock `clock`.
#[inline]
pub fn clock_after(clock: u32, m: Move) -> u32 {
    if m.is_zeroing() { 0 } else { clock.saturating_add(1) }
}

/// True when the side to move may claim a 50-move draw before moving: clock at 100, or
/// at 99 with a legal move that does not reset it (the claim python-chess and FIDE allow).
pub fn can_claim_fifty(pos: &Chess, moves: &[Move]) -> bool {
    let clock = pos.halfmoves();
    clock >= 100 || (clock >= CLAIM_CLOCK && moves.iter().any(|m| !m.is_zeroing()))
}

/// True when `attacker` could never mate: shakmaty's insufficient material for that
/// colour (permanent: the attacker's material can only shrink).
pub fn cannot_mate(pos: &Chess, attacker: Color) -> bool {
    pos.has_insufficient_material(attacker)
}
