//! Which ending a position is: the classes of material the rest of this module's
//! knowledge is keyed on.

use shakmaty::{Board, Color};

use crate::knowledge::exact;

/// Positions with at most this many men (kings included) use the progress numbers.
pub const MAX_MEN: usize = 6;

/// Whether `board` holds a quiet mating problem: at most [`MAX_MEN`] men, a bare
/// defending king, and no queen or rook for the attacker. Minor pieces mate a lone king
/// only by quiet manoeuvres, over up to 19 moves (two bishops) or 33 (bishop and knight);
/// a queen or rook mates it within 16, by checks the ladder's bounds find. These
/// positions get narrowed quiet moves (see [`NARROW_QUIET`](crate::knowledge::NARROW_QUIET)); the driver's long bound
/// serves every endgame of at most [`MAX_MEN`] men.
pub fn quiet_mate(board: &Board, attacker: Color) -> bool {
    board.occupied().count() <= MAX_MEN
        && board.by_color(!attacker).count() == 1
        && (board.queens() | board.rooks()).is_empty()
}

/// Whether `board` holds a [`quiet_mate`] of two bishops or more, without a knight (the
/// attacker's pawns beside them or not). Two bishops mate a lone king within 19 moves,
/// in any corner.
pub fn bishops_mate(board: &Board, attacker: Color) -> bool {
    let ours = board.by_color(attacker);
    quiet_mate(board, attacker) && (board.bishops() & ours).count() >= 2 && (board.knights() & ours).is_empty()
}

/// Whether the defender has a piece besides its king (not only pawns, which have a move
/// or two each) while the attacker has no queen: K+R+B v K+R, K+R+P v K+R, K+B+P v K+B.
/// An attacker's quiet move then leaves the defender a dozen replies or more to be
/// proven, not a king's few (see [`Kings::armed`](crate::knowledge::progress::Kings::armed)).
pub fn armed_defender(board: &Board, attacker: Color) -> bool {
    (board.by_color(!attacker) & !board.pawns() & !board.kings()).any()
        && (board.queens() & board.by_color(attacker)).is_empty()
}

/// The longest mate either side can have on `board` (moves), where its exact table says
/// it: in an ending of at most [`exact::DTM_MEN`] men whose table is ready.
pub fn longest_mate(board: &Board) -> Option<u32> {
    exact::longest_mate(board)
}
