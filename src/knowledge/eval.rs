//! The static evaluation the fallback searches with, and the move order of MultiPV:
//! material, a little mobility, and the mop-up of won endings (drive the enemy king to
//! the edge, to a corner of the bishop's colour with bishop and knight). Centipawns;
//! never a claim.

use shakmaty::{Bitboard, Board, Chess, Color, Position, Role, Square};

use crate::knowledge::progress::edge_distance;

/// A piece's material value in centipawns.
pub(crate) fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 310,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King => 0,
    }
}

/// How far `sq` is from the centre, 0 (centre) to 3 (edge).
fn edge_closeness(sq: Square) -> i32 {
    3 - edge_distance(sq) as i32
}

fn distance(a: Square, b: Square) -> i32 {
    a.distance(b) as i32
}

/// What each king step nearer a corner of the bishop's colour is worth with bishop and
/// knight against a lone king. It outweighs the box (12 a flight square) and the kings'
/// approach (10 a step), so the search drives the king along the edge to the mating corner
/// instead of boxing it in near the wrong one (docs/design.md).
const KBN_CORNER_STEP: i32 = 60;

/// The mop-up term for `strong`: push the lone (or outgunned, pawnless) enemy king to the
/// edge, or with bishop and knight to a corner of the bishop's colour, and bring the own
/// king close. Zero when the ending is not of that kind.
pub(crate) fn mop_up(pos: &Chess, strong: Color, material_edge: i32) -> i32 {
    let board = pos.board();
    let weak = !strong;
    if material_edge < 400 || (board.pawns() & board.by_color(weak)).any() || pos.has_insufficient_material(strong) {
        return 0;
    }
    let (Some(sk), Some(wk)) = (board.king_of(strong), board.king_of(weak)) else { return 0 };
    let flights = safe_flights(pos, strong, wk);
    let Some(boxed) = confinement(pos, strong, wk, flights) else {
        // The desperado's draw: three quarters of the edge are given back, so that
        // every position that leaves the king a square ranks above it, while it still
        // ranks above losing the material.
        return -material_edge * 3 / 4;
    };
    let ours = board.by_color(strong);
    let bishops = board.bishops() & ours;
    let knights = board.knights() & ours;
    let lone_bn = bishops.count() == 1 && knights.count() == 1 && (ours & !board.kings()).count() == 2;
    let push = if lone_bn {
        // The corners the bishop's colour can mate in.
        let dark = bishops.first().is_some_and(|b| Bitboard::DARK_SQUARES.contains(b));
        let corners: [Square; 2] = if dark { [Square::A1, Square::H8] } else { [Square::H1, Square::A8] };
        let d = corners.iter().map(|&c| distance(wk, c)).min().unwrap_or(7);
        10 * edge_closeness(wk) + KBN_CORNER_STEP * (7 - d)
    } else {
        30 * edge_closeness(wk)
    };
    // Against a king with a defender, the own king must come close twice as urgently:
    // far away, it only walks from the defender's checks, never into the net.
    let defended = (board.by_color(weak) & !board.kings()).any();
    let approach = if defended { 20 } else { 10 };
    200 + push + approach * (7 - distance(sk, wk)) + boxed
}

/// The squares next to the enemy king on `wk` it could step to: not its own pieces', not
/// attacked by `strong` (with the king itself out of the way of sliders).
fn safe_flights(pos: &Chess, strong: Color, wk: Square) -> u32 {
    let board = pos.board();
    let through_king = board.occupied() ^ Bitboard::from(wk);
    let held = board.by_color(strong).into_iter().fold(Bitboard::EMPTY, |held, sq| {
        held | board.piece_at(sq).map_or(Bitboard::EMPTY, |p| shakmaty::attacks::attacks(sq, p, through_king))
    });
    (shakmaty::attacks::king_attacks(wk) & !board.by_color(!strong) & !held).count() as u32
}

/// How well `strong` boxes in the enemy king on `wk`: fewer safe flight squares (`flights`,
/// from [`safe_flights`]), and (when
/// the enemy still has pieces, as the rook in K+Q v K+R) those pieces far from their king,
/// where checks fork them and the king cannot shield them. None when the king has no
/// flight square while it has a piece to give away: the stalemate trap of the desperado
/// rook, which checks until taken, and taking it stalemates. (A clock game against
/// Stockfish was drawn so: 1.Qc7 from k7/8/8/8/1r6/8/7Q/7K w, then rook checks to the
/// end; the fallback saw +890 at depth 11, Stockfish 0.)
fn confinement(pos: &Chess, strong: Color, wk: Square, flights: u32) -> Option<i32> {
    let board = pos.board();
    let weak = !strong;
    let flights = flights as i32;
    let helpers = board.by_color(weak) & !board.kings();
    let apart = helpers.into_iter().map(|sq| distance(sq, wk)).max().unwrap_or(0);
    if flights == 0 && helpers.any() {
        return None;
    }
    Some(12 * (8 - flights) + 8 * apart)
}

/// The material of `color` minus the other side's, in centipawns.
pub(crate) fn material_edge(pos: &Chess, color: Color) -> i32 {
    pos.board().iter().map(|(_, p)| if p.color == color { piece_value(p.role) } else { -piece_value(p.role) }).sum()
}

/// How many moves `side` has on `board`, counted cheaply for the evaluation: its pieces'
/// attacks on squares it does not hold (pins and the king's safety ignored) and its
/// pawns' single pushes. Legal moves are generated only where they are searched.
pub(crate) fn mobility(board: &Board, side: Color) -> i32 {
    let ours = board.by_color(side);
    let pieces: u32 =
        (ours & !board.pawns()).into_iter().map(|sq| (board.attacks_from(sq) & !ours).count() as u32).sum();
    let pawns = board.pawns() & ours;
    let pushes = pawns.shift(if side == Color::White { 8 } else { -8 }) & !board.occupied();
    (pieces + pushes.count() as u32) as i32
}

/// Static evaluation from the side to move's view: material, a little mobility, mop-up.
pub(crate) fn evaluate(pos: &Chess) -> i32 {
    let white = material_edge(pos, Color::White);
    let mut score = white + mop_up(pos, Color::White, white) - mop_up(pos, Color::Black, -white);
    if pos.turn() == Color::Black {
        score = -score;
    }
    score + 2 * mobility(pos.board(), pos.turn())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::parse_fen;

    #[test]
    fn boxing_in_a_king_that_has_a_rook_to_give_away_is_scored_as_the_desperado_draw() {
        // Ka8 with no flight square (Qc7) and a free rook: the desperado rook's stalemate
        // trap. Its mop-up gives back three quarters of the material edge; the same king
        // with two flight squares (Qc6: a7 and b8 free) is scored far above.
        let boxed = parse_fen("k7/2Q5/8/8/8/8/1r6/6K1 b - - 0 1").unwrap();
        let open = parse_fen("k7/8/2Q5/8/8/8/1r6/6K1 b - - 0 1").unwrap();
        let m = |pos: &Chess| mop_up(pos, Color::White, material_edge(pos, Color::White));
        assert!(m(&boxed) < 0 && m(&open) > m(&boxed) + 200, "{} vs {}", m(&boxed), m(&open));
        // Without a piece to give away, no flight square is still the best confinement.
        let c = |fen: &str| {
            let pos = parse_fen(fen).unwrap();
            confinement(&pos, Color::White, Square::A8, safe_flights(&pos, Color::White, Square::A8)).unwrap()
        };
        assert!(c("k7/2Q5/8/8/8/8/8/6K1 b - - 0 1") > c("k7/8/2Q5/8/8/8/8/6K1 b - - 0 1"));
    }
}
