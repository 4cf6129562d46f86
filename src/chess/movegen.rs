//! Legal move generation into the caller's list, move for move and in the order of
//! shakmaty's `legal_moves`.
//!
//! shakmaty returns its list by value, which costs a copy of the whole 1.6 kB array at
//! every call, and it tests each square next to the king with a full attack lookup. Here
//! the list is filled in place, and the king's steps are tested against one map of the
//! squares the other side attacks with the king off the board. The order matters: the
//! search breaks ties between children by it, so the same moves in another order would be
//! another search. A test compares both generators, order included, on random games.

use shakmaty::{
    Bitboard, Board, CastlingSide, Chess, Color, File, Move, MoveList, Position, Rank, Role, Square, attacks,
};

/// The legal moves of `pos` into `moves` (cleared first), in shakmaty's order: en passant
/// captures; then, out of check, pawn, knight, bishop, rook and queen moves, king steps
/// and castling; in check, king steps and then the other men's moves onto the checking
/// line; pinned men only along their pin.
pub fn legal_moves(pos: &Chess, moves: &mut MoveList) {
    legal_moves_where(pos, &Every, moves);
}

/// Which legal moves a generation keeps ([`legal_moves_where`]).
pub trait Select {
    /// The squares a man of `role` on `from` may reach in a kept move (a superset: the
    /// moves there are still asked [`Select::keep`]). Pawns are not asked.
    fn targets(&self, role: Role, from: Square) -> Bitboard;
    /// Whether legal move `m` of `pos` is kept.
    fn keep(&self, pos: &Chess, m: Move) -> bool;
}

/// Every legal move.
struct Every;

impl Select for Every {
    #[inline(always)]
    fn targets(&self, _: Role, _: Square) -> Bitboard {
        Bitboard::FULL
    }

    #[inline(always)]
    fn keep(&self, _: &Chess, _: Move) -> bool {
        true
    }
}

/// The legal moves of `pos` that `select` keeps, into `moves` (cleared first), in the
/// order of [`legal_moves`]: the same list, filtered.
pub fn legal_moves_where<S: Select>(pos: &Chess, select: &S, moves: &mut MoveList) {
    moves.clear();
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(us) else {
        *moves = pos.legal_moves();
        moves.retain(|m| select.keep(pos, *m));
        return;
    };
    let ours = board.by_color(us);
    let alone = Bitboard::from_square(king);
    if ours == alone {
        // A bare king (the defender of most long mates): no pawn to take en passant, no
        // rook to castle with, no man to pin, so its steps are all its moves.
        let unsafe_squares = attacked(board, !us, board.occupied() ^ alone);
        king_steps(pos, select, king, !ours & !unsafe_squares, moves);
        return;
    }
    let mut has_ep = false;
    if let Some(to) = pos.maybe_ep_square() {
        for from in board.pawns() & board.by_color(us) & attacks::pawn_attacks(!us, to) {
            let m = Move::EnPassant { from, to };
            if select.keep(pos, m) {
                moves.push(m);
                has_ep = true;
            }
        }
    }
    let unsafe_squares = attacked(board, !us, board.occupied() ^ alone);
    let checkers = pos.checkers();
    if checkers.is_empty() {
        non_king(pos, select, !ours, moves);
        king_steps(pos, select, king, !ours & !unsafe_squares, moves);
        castling(pos, select, king, CastlingSide::KingSide, moves);
        castling(pos, select, king, CastlingSide::QueenSide, moves);
    } else {
        king_steps(pos, select, king, !ours & !unsafe_squares, moves);
        if let Some(checker) = checkers.single_square() {
            non_king(pos, select, attacks::between(king, checker) | Bitboard::from_square(checker), moves);
        }
    }
    let blockers = slider_blockers(board, us, king);
    if blockers.any() || has_ep {
        moves.retain(|m| is_safe(pos, king, *m, blockers));
    }
}

/// Whether `pos` has a legal move: a knight or slider that is not pinned and can move,
/// with the king out of check, settles it at once; else the moves are generated.
pub fn has_legal_move(pos: &Chess) -> bool {
    let board = pos.board();
    let us = pos.turn();
    if let Some(king) = board.king_of(us)
        && pos.checkers().is_empty()
    {
        let ours = board.by_color(us);
        let free = ours & !board.pawns() & !board.kings() & !slider_blockers(board, us, king);
        let occupied = board.occupied();
        if free
            .into_iter()
            .any(|from| board.piece_at(from).is_some_and(|p| (attacks::attacks(from, p, occupied) & !ours).any()))
        {
            return true;
        }
    }
    let mut moves = MoveList::new();
    legal_moves(pos, &mut moves);
    !moves.is_empty()
}

/// The squares `color` attacks with the men on `occupied` in the way.
pub(crate) fn attacked(board: &Board, color: Color, occupied: Bitboard) -> Bitboard {
    let theirs = board.by_color(color);
    let mut map = Bitboard::EMPTY;
    for sq in board.pawns() & theirs {
        map |= attacks::pawn_attacks(color, sq);
    }
    for sq in board.knights() & theirs {
        map |= attacks::knight_attacks(sq);
    }
    for sq in board.bishops_and_queens() & theirs {
        map |= attacks::bishop_attacks(sq, occupied);
    }
    for sq in board.rooks_and_queens() & theirs {
        map |= attacks::rook_attacks(sq, occupied);
    }
    for sq in board.kings() & theirs {
        map |= attacks::king_attacks(sq);
    }
    map
}

/// A normal move of a man of `role` from `from` to `to`, taking what stands there.
#[inline]
fn normal(pos: &Chess, role: Role, from: Square, to: Square, promotion: Option<Role>) -> Move {
    Move::Normal { role, from, capture: pos.board().role_at(to), to, promotion }
}

/// The king's steps onto `targets`.
fn king_steps<S: Select>(pos: &Chess, select: &S, king: Square, targets: Bitboard, moves: &mut MoveList) {
    for to in attacks::king_attacks(king) & targets & select.targets(Role::King, king) {
        push(pos, select, normal(pos, Role::King, king, to, None), moves);
    }
}

/// Pushes `m` when `select` keeps it.
#[inline(always)]
fn push<S: Select>(pos: &Chess, select: &S, m: Move, moves: &mut MoveList) {
    if select.keep(pos, m) {
        moves.push(m);
    }
}

/// The moves of every man but the king onto `target`: pawns, knights, bishops, rooks,
/// queens, each by its square.
fn non_king<S: Select>(pos: &Chess, select: &S, target: Bitboard, moves: &mut MoveList) {
    let board = pos.board();
    let ours = board.by_color(pos.turn());
    pawn_moves(pos, select, target, moves);
    for from in board.knights() & ours {
        for to in attacks::knight_attacks(from) & target & select.targets(Role::Knight, from) {
            push(pos, select, normal(pos, Role::Knight, from, to, None), moves);
        }
    }
    let occupied = board.occupied();
    for (role, men) in [(Role::Bishop, board.bishops()), (Role::Rook, board.rooks()), (Role::Queen, board.queens())] {
        for from in men & ours {
            for to in attacks::attacks(from, role.of(pos.turn()), occupied) & target & select.targets(role, from) {
                push(pos, select, normal(pos, role, from, to, None), moves);
            }
        }
    }
}

/// The pawns' moves onto `target`: captures towards one side and then the other (each
/// without promotion first), single steps, double steps.
fn pawn_moves<S: Select>(pos: &Chess, select: &S, target: Bitboard, moves: &mut MoveList) {
    let board = pos.board();
    let us = pos.turn();
    let pawns = board.pawns() & board.by_color(us);
    if pawns.is_empty() {
        return;
    }
    let last_ranks = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
    let forward = us.fold_wb(8, -8);
    let step = |moves: &mut MoveList, from: Square, to: Square| {
        if last_ranks.contains(to) {
            for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                push(pos, select, normal(pos, Role::Pawn, from, to, Some(promotion)), moves);
            }
        } else {
            push(pos, select, normal(pos, Role::Pawn, from, to, None), moves);
        }
    };
    // Towards the a-file first: a shift one less than the rank's, which a pawn on the
    // a-file cannot take (it would wrap to the h-file); then towards the h-file.
    for (side, edge) in [(forward - 1, File::A), (forward + 1, File::H)] {
        let captures = (pawns & !Bitboard::from_file(edge)).shift(side) & board.by_color(!us) & target;
        for promotions in [false, true] {
            let part = if promotions { captures & last_ranks } else { captures & !last_ranks };
            for to in part {
                let from = to.offset(-side).expect("the pawn's own square");
                step(moves, from, to);
            }
        }
    }
    let single = pawns.shift(forward) & !board.occupied();
    for promotions in [false, true] {
        let part = single & target & if promotions { last_ranks } else { !last_ranks };
        for to in part {
            step(moves, to.offset(-forward).expect("the pawn's own square"), to);
        }
    }
    let double_rank = Bitboard::from_rank(us.fold_wb(Rank::Fourth, Rank::Fifth));
    let double = single.shift(forward) & double_rank & !board.occupied();
    for to in double & target {
        let from = to.offset(-2 * forward).expect("the pawn's own square");
        push(pos, select, normal(pos, Role::Pawn, from, to, None), moves);
    }
}

/// Castling to `side`, when the rook may castle, the squares between are empty and the
/// king crosses no attacked square.
fn castling<S: Select>(pos: &Chess, select: &S, king: Square, side: CastlingSide, moves: &mut MoveList) {
    let us = pos.turn();
    let castles = pos.castles();
    let Some(rook) = castles.rook(us, side) else { return };
    let occupied = pos.board().occupied();
    if (castles.path(us, side) & occupied).any() {
        return;
    }
    let king_to = side.king_to(us);
    let after = occupied ^ Bitboard::from_square(king) ^ Bitboard::from_square(rook) ^ side.rook_to(us);
    if pos.king_attackers(king_to, !us, after).any() {
        return;
    }
    let crossed = attacks::between(king, king_to) | Bitboard::from_square(king);
    let without_king = occupied ^ Bitboard::from_square(king);
    if crossed.into_iter().any(|sq| pos.king_attackers(sq, !us, without_king).any()) {
        return;
    }
    push(pos, select, Move::Castle { king, rook }, moves);
}

/// The men (of either side) that stand alone between `us`'s king on `king` and an enemy
/// slider's line to it.
pub(crate) fn slider_blockers(board: &Board, us: Color, king: Square) -> Bitboard {
    let snipers = ((attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens()))
        & board.by_color(!us);
    let mut blockers = Bitboard::EMPTY;
    for sniper in snipers {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            blockers |= between;
        }
    }
    blockers
}

/// Whether `m` leaves the king on `king` safe from the lines that `blockers` close: a
/// blocker moves along its line only; an en passant capture must not open one.
fn is_safe(pos: &Chess, king: Square, m: Move, blockers: Bitboard) -> bool {
    match m {
        Move::Normal { from, to, .. } => !blockers.contains(from) || attacks::aligned(from, to, king),
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            let occupied = pos.board().occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(captured)
                | Bitboard::from_square(to);
            (pos.board().attacks_to(king, !pos.turn(), occupied) & !Bitboard::from_square(captured)).is_empty()
        }
        _ => true,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use shakmaty::{CastlingMode, EnPassantMode, FromSetup, fen::Fen};

    fn same_as_shakmaty(pos: &Chess) {
        let mut ours = MoveList::new();
        legal_moves(pos, &mut ours);
        let theirs = pos.legal_moves();
        assert_eq!(ours.as_slice(), theirs.as_slice(), "{}", Fen::from_position(pos, EnPassantMode::Legal));
        assert_eq!(has_legal_move(pos), !theirs.is_empty(), "{}", Fen::from_position(pos, EnPassantMode::Legal));
    }

    #[test]
    fn a_position_has_a_legal_move_when_shakmaty_lists_one() {
        // (position, has a legal move): a stalemate with a pinned knight, a king without
        // steps whose pawn may move, a bare stalemate, a checkmate, a check with a reply.
        for (fen, any) in [
            ("8/8/8/8/3b4/1p6/1Nk5/K7 w - - 0 1", false),
            ("8/8/8/8/8/1p6/2k1P3/K7 w - - 0 1", true),
            ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false),
            ("8/8/8/8/8/k1b5/p1P5/K7 w - - 0 1", false),
            ("k7/8/1K6/8/8/8/8/6Q1 b - - 0 1", true),
        ] {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            assert_eq!(pos.legal_moves().is_empty(), !any, "{fen}");
            assert_eq!(has_legal_move(&pos), any, "{fen}");
        }
    }

    #[test]
    fn the_moves_and_their_order_are_shakmaty_s() {
        // Random games from positions with castling (standard and Chess960), en passant,
        // promotions, pins and checks.
        let games = [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", CastlingMode::Standard),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", CastlingMode::Standard),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", CastlingMode::Standard),
            ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", CastlingMode::Standard),
            ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", CastlingMode::Standard),
            ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", CastlingMode::Chess960),
            ("1r2k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1", CastlingMode::Chess960),
            ("8/8/8/2k5/3pP3/8/8/4K2R b K e3 0 1", CastlingMode::Standard),
        ];
        let mut rng = crate::rng::Rng::new(11);
        let mut positions = 0;
        for (fen, mode) in games {
            let start: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            for _ in 0..150 {
                let mut pos = start.clone();
                for _ in 0..100 {
                    same_as_shakmaty(&pos);
                    positions += 1;
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play_unchecked(rng.pick(&moves));
                }
            }
        }
        assert!(positions > 50_000, "{positions} positions");
    }

    /// `count` random legal positions of a bare black king against White's king and one
    /// to three men, with `turn` to move.
    pub(crate) fn bare_king_positions(seed: u64, count: usize, turn: Color) -> Vec<Chess> {
        let mut rng = crate::rng::Rng::new(seed);
        let roles = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];
        let mut positions = Vec::new();
        while positions.len() < count {
            let mut board = Board::empty();
            let men = 1 + rng.below(3);
            let mut pieces = vec![Color::White.king(), Color::Black.king()];
            pieces.extend((0..men).map(|_| roles[rng.below(roles.len())].of(Color::White)));
            for piece in pieces {
                let mut sq = Square::new(rng.below(64) as u32);
                while board.piece_at(sq).is_some() {
                    sq = Square::new(rng.below(64) as u32);
                }
                board.set_piece_at(sq, piece);
            }
            let mut setup = shakmaty::Setup::empty();
            setup.board = board;
            setup.turn = turn;
            if let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard) {
                positions.push(pos);
            }
        }
        positions
    }

    #[test]
    fn a_bare_king_s_moves_are_shakmaty_s() {
        // Random placements of a bare king to move (in check or not), and K+R+P v K with an
        // en passant square that the bare king's side cannot use.
        let positions = bare_king_positions(7, 20_000, Color::Black);
        let checked = positions.iter().filter(|pos| pos.is_check()).count();
        assert!(checked > 1_000, "{checked} positions in check");
        positions.iter().for_each(same_as_shakmaty);
        let ep: Chess =
            "8/8/8/8/3Pk3/8/8/R3K3 b - d3 0 1".parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        same_as_shakmaty(&ep);
    }
}
