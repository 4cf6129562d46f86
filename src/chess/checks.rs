//! Cheap check detection: which moves give check, without playing them; a checkmate
//! test that a king's flight ends early; and the number of evasions of a check, counted
//! without generating them.
//!
//! shakmaty 0.30 has no public `gives_check`, and playing every move to ask `is_check`
//! costs a full make. Per node we precompute, from the attacker's point of view, the
//! squares from which each piece type would attack the enemy king and the attacker's
//! pieces that shield a slider's line to that king (discovered-check candidates). A
//! normal move then gives check when it lands on a check square of its (promoted) role or
//! leaves the king's line with a shielding piece. Castling and en passant, rare and
//! awkward, are played and tested.

use shakmaty::{Bitboard, Board, Chess, Color, Move, MoveList, Position, Rank, Role, Square, attacks};

use crate::chess::movegen::{Select, attacked, legal_moves, legal_moves_where, slider_blockers};

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
        // Our men that stand alone between one of our sliders and their king.
        let blockers = slider_blockers(board, !us, king) & board.by_color(us);
        CheckInfo { king: Some(king), occupied, by_role, blockers }
    }

    /// Whether legal move `m` in `pos` (the position this info was built from) checks.
    /// Inlined into the loops that ask it of every move (the call cost a third of it).
    #[inline(always)]
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

/// A selection of the checks: a man may check from its role's check squares, or from
/// anywhere when it uncovers a line to the king.
impl Select for CheckInfo {
    #[inline(always)]
    fn targets(&self, role: Role, from: Square) -> Bitboard {
        if self.blockers.contains(from) { Bitboard::FULL } else { self.by_role[role as usize - 1] }
    }

    #[inline(always)]
    fn keep(&self, pos: &Chess, m: Move) -> bool {
        self.gives_check(pos, m)
    }
}

/// The legal moves of `pos` that give check, into `moves`: [`legal_moves`] filtered by
/// [`CheckInfo::gives_check`], order kept, with the other moves never generated. Where
/// only a check can mate (the attacker's last ply), that is all the search asks for.
pub fn legal_checks(pos: &Chess, info: &CheckInfo, moves: &mut MoveList) {
    legal_moves_where(pos, info, moves);
}

/// Whether the side to move in `pos` is checkmated: as shakmaty's `is_checkmate`, but a
/// king with a safe square to step to ends the test before the full evasion list is
/// generated (most checks leave one, and the list costs as much as all legal moves).
#[inline]
pub fn is_checkmate(pos: &Chess) -> bool {
    if !pos.is_check() {
        return false;
    }
    if has_safe_step(pos.board(), pos.turn()) {
        return false;
    }
    let mut moves = MoveList::new();
    legal_moves(pos, &mut moves);
    moves.is_empty()
}

/// Whether `side`'s king on `board` has a step to a square that nothing attacks with the
/// king gone from its own (a slider's line through the king's square covers the squares
/// behind it): a legal move, whatever checks the king.
#[inline]
fn has_safe_step(board: &Board, side: Color) -> bool {
    board.king_of(side).is_some_and(|king| {
        let without_king = board.occupied() ^ Bitboard::from_square(king);
        let steps = attacks::king_attacks(king) & !board.by_color(side);
        steps.into_iter().any(|to| board.attacks_to(to, !side, without_king).is_empty())
    })
}

/// The number of legal moves of the side to move in `pos`, which is in check: shakmaty's
/// `legal_moves().len()` without the list. The prover asks it of every check it starts
/// (a check's first proof number), where the list cost as much as a full generation.
/// A position with an en passant square, where a capture can uncover the king along a
/// rank, is left to shakmaty.
pub fn evasion_count(pos: &Chess) -> u32 {
    if pos.maybe_ep_square().is_some() {
        return pos.legal_moves().len() as u32;
    }
    evasions(pos.board(), pos.turn()).unwrap_or_else(|| pos.legal_moves().len() as u32)
}

/// [`evasion_count`] of the position after `m`, a legal move of `pos` that gives check,
/// counted on the board after it: a normal move is not played in full (castling rights,
/// clocks and hash are not the count's business). A double pawn step, which may leave an
/// en passant capture, and the rare other moves are played.
pub fn evasion_count_after(pos: &Chess, m: Move) -> u32 {
    if let Some(n) = board_after(pos, m).and_then(|board| evasions(&board, !pos.turn())) {
        return n;
    }
    let mut after = pos.clone();
    after.play_unchecked(m);
    evasion_count(&after)
}

/// Whether legal move `m` of `pos` checkmates: [`is_checkmate`] of the position after it,
/// asked of the board after a normal move (a safe king step first, then the evasions
/// counted) and of the played position after the others, as [`evasion_count_after`].
pub fn mates_by(pos: &Chess, m: Move) -> bool {
    if let Some(board) = board_after(pos, m) {
        if has_safe_step(&board, !pos.turn()) {
            return false;
        }
        if let Some(n) = evasions(&board, !pos.turn()) {
            return n == 0;
        }
    }
    let mut after = pos.clone();
    after.play_unchecked(m);
    is_checkmate(&after)
}

/// The board after `m`, a normal move of `pos` that leaves no en passant square (not a
/// pawn's double step), on which the other side's replies can be counted; None for the
/// other moves.
#[inline]
fn board_after(pos: &Chess, m: Move) -> Option<Board> {
    let Move::Normal { role, from, to, promotion, .. } = m else { return None };
    if role == Role::Pawn && from.distance(to) == 2 {
        return None;
    }
    let mut board = pos.board().clone();
    board.discard_piece_at(from);
    board.set_piece_at(to, promotion.unwrap_or(role).of(pos.turn()));
    Some(board)
}

/// The legal moves of `us`, in check on `board` with no en passant capture possible (None
/// when `us` has no king or is not in check).
///
/// The king's steps to safe squares; against a single check also every move of an
/// unpinned man onto the checker or a square between it and the king (a pinned man never
/// can: its line and the check's meet only at the king). Pawn moves onto the last rank
/// count four promotions.
fn evasions(board: &Board, us: Color) -> Option<u32> {
    let king = board.king_of(us)?;
    let occupied = board.occupied();
    let checkers = board.attacks_to(king, !us, occupied);
    let checker = checkers.first()?;
    let ours = board.by_color(us);
    let unsafe_squares = attacked(board, !us, occupied ^ Bitboard::from_square(king));
    let mut n = (attacks::king_attacks(king) & !ours & !unsafe_squares).count() as u32;
    // Against a double check, or with a bare king, the king's steps are all the moves.
    if checkers.more_than_one() || ours == Bitboard::from_square(king) {
        return Some(n);
    }
    let between = attacks::between(king, checker);
    let target = between | Bitboard::from_square(checker);
    let pinned = slider_blockers(board, us, king) & ours;
    let movers = ours & !board.kings() & !pinned;
    for sq in movers & !board.pawns() {
        if let Some(piece) = board.piece_at(sq) {
            n += (attacks::attacks(sq, piece, occupied) & target).count() as u32;
        }
    }
    let pawns = movers & board.pawns();
    if pawns.is_empty() {
        return Some(n);
    }
    let last_rank = Bitboard::from_rank(us.fold_wb(Rank::Eighth, Rank::First));
    let moves_to = |to: Bitboard| (to & !last_rank).count() as u32 + 4 * (to & last_rank).count() as u32;
    for sq in pawns {
        n += moves_to(attacks::pawn_attacks(us, sq) & Bitboard::from_square(checker));
    }
    let forward = us.fold_wb(8, -8);
    let single = pawns.shift(forward) & !occupied;
    let double_from = Bitboard::from_rank(us.fold_wb(Rank::Third, Rank::Sixth));
    let double = (single & double_from).shift(forward) & !occupied;
    Some(n + moves_to(single & between) + (double & between).count() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn walk(pos: &Chess, depth: u32, checked: &mut u64, mates: &mut u64) {
        assert_eq!(
            is_checkmate(pos),
            pos.is_checkmate(),
            "{}",
            Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
        );
        if pos.is_check() {
            assert_eq!(
                evasion_count(pos),
                pos.legal_moves().len() as u32,
                "{}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
        }
        let info = CheckInfo::new(pos);
        let mut checks = MoveList::new();
        legal_checks(pos, &info, &mut checks);
        let filtered: Vec<Move> = pos.legal_moves().into_iter().filter(|&m| info.gives_check(pos, m)).collect();
        assert_eq!(checks.as_slice(), filtered, "{}", Fen::from_position(pos, shakmaty::EnPassantMode::Legal));
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let fen = Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
            if after.is_check() {
                assert_eq!(evasion_count_after(pos, m), after.legal_moves().len() as u32, "{fen} move {m:?}");
            }
            assert_eq!(mates_by(pos, m), after.is_checkmate(), "{fen} move {m:?}");
            assert_eq!(
                info.gives_check(pos, m),
                after.is_check(),
                "{} move {m:?}",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
            *checked += 1;
            *mates += u64::from(after.is_checkmate());
            if depth > 1 {
                walk(&after, depth - 1, checked, mates);
            }
        }
    }

    #[test]
    fn evasions_are_counted_as_shakmaty_lists_them() {
        // Random games from positions rich in pins, promotions and blocks; checking moves
        // are preferred so that most positions visited are in check.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "7k/1P1P1P2/8/3q4/8/8/2p1p1p1/3QK3 w - - 0 1",
        ];
        let mut rng = crate::rng::Rng::new(7);
        let mut in_check = 0;
        for fen in fens {
            let start: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            for _ in 0..300 {
                let mut pos = start.clone();
                for _ in 0..80 {
                    let moves = pos.legal_moves();
                    if pos.is_check() {
                        in_check += 1;
                        let fen = Fen::from_position(&pos, shakmaty::EnPassantMode::Legal);
                        assert_eq!(evasion_count(&pos), moves.len() as u32, "{fen}");
                    }
                    if moves.is_empty() {
                        break;
                    }
                    let info = CheckInfo::new(&pos);
                    let checks: Vec<Move> = moves.iter().copied().filter(|&m| info.gives_check(&pos, m)).collect();
                    let mut generated = MoveList::new();
                    legal_checks(&pos, &info, &mut generated);
                    assert_eq!(
                        generated.as_slice(),
                        checks,
                        "{}",
                        Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    );
                    let m = if !checks.is_empty() && rng.below(3) > 0 { rng.pick(&checks) } else { rng.pick(&moves) };
                    pos.play_unchecked(m);
                }
            }
        }
        assert!(in_check > 20_000, "{in_check} positions in check");
    }

    #[test]
    fn a_bare_king_s_evasions_are_counted_as_shakmaty_lists_them() {
        let mut checks = 0;
        for pos in crate::chess::movegen::tests::bare_king_positions(5, 5_000, Color::White) {
            for m in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(m);
                if after.is_check() {
                    checks += 1;
                    assert_eq!(evasion_count_after(&pos, m), after.legal_moves().len() as u32, "{m:?}");
                    assert_eq!(mates_by(&pos, m), after.is_checkmate(), "{m:?}");
                }
            }
        }
        assert!(checks > 10_000, "{checks} checks");
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
            // Mates in one, by a queen beside the king, a rook along the edge, a knight
            // into a smothered corner, and a discovered double check.
            "k7/8/1K6/8/8/8/8/6Q1 w - - 0 1",
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            "6rk/6pp/8/6N1/8/8/8/K7 w - - 0 1",
            "4k3/8/8/8/1b6/8/3PPP2/3QKBNR w K - 0 1",
        ];
        let (mut checked, mut mates) = (0, 0);
        for fen in fens {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            walk(&pos, 3, &mut checked, &mut mates);
        }
        assert!(checked > 100_000, "walked {checked} moves");
        assert!(mates > 20, "walked {mates} checkmates");
    }
}
