//! The game-history rule against an independent brute force. Random K+R v K games are
//! played with shuffling moves (so positions recur); at the end, pnmate's exact answer
//! to "mate within N?" must equal that of a plain minimax that counts every position of
//! the game and of the line as FIDE does and lets the defender claim whenever it may (and
//! finds no mate in a game already drawn by a fifth occurrence of its position).

use pnmate::MateBound;
use pnmate::limits::Budget;
use pnmate::rng::Rng;
use pnmate::search::{Params, solve};
use pnmate::{Outcome, TranspositionTable};
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, zobrist::Zobrist64};

fn hash(p: &Chess) -> u64 {
    p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Whether the defender, to move in `p` with the game's positions `seen` (p included),
/// may claim a draw: threefold on the board, or a move that makes one.
fn defender_claims(p: &Chess, seen: &[u64]) -> bool {
    let count = |h: u64| seen.iter().filter(|&&s| s == h).count();
    count(hash(p)) >= 3
        || p.legal_moves().iter().any(|&m| {
            let mut after = p.clone();
            after.play_unchecked(m);
            count(hash(&after)) >= 2
        })
}

/// Can the side to move in `p` (the attacker) mate within `plies`?
fn mates(p: &Chess, plies: u32, seen: &mut Vec<u64>) -> bool {
    if plies == 0 {
        return false;
    }
    for m in p.legal_moves() {
        let mut after = p.clone();
        after.play_unchecked(m);
        seen.push(hash(&after));
        let win = loses(&after, plies - 1, seen);
        seen.pop();
        if win {
            return true;
        }
    }
    false
}

/// Is the side to move in `p` (the defender) mated within `plies`, claims allowed?
fn loses(p: &Chess, plies: u32, seen: &mut Vec<u64>) -> bool {
    if p.is_checkmate() {
        return true;
    }
    if p.legal_moves().is_empty() || p.is_insufficient_material() || defender_claims(p, seen) || plies == 0 {
        return false;
    }
    for m in p.legal_moves() {
        let mut after = p.clone();
        after.play_unchecked(m);
        seen.push(hash(&after));
        let lost = mates(&after, plies - 1, seen);
        seen.pop();
        if !lost {
            return false;
        }
    }
    true
}

/// A random K+R v K game of `len` plies that keeps stepping back and forth.
fn random_game(rng: &mut Rng, len: usize) -> Option<(Chess, Vec<u64>, String)> {
    // The black king on an edge square and the white king near it: mates are close.
    let squares = shakmaty::Square::ALL;
    let edge: Vec<shakmaty::Square> = squares
        .iter()
        .copied()
        .filter(|s| matches!(u8::from(s.file()), 0 | 7) || matches!(u8::from(s.rank()), 0 | 7))
        .collect();
    let bk = edge[rng.below(edge.len())];
    let near: Vec<shakmaty::Square> = squares.iter().copied().filter(|s| s.distance(bk) == 2).collect();
    let (wk, wr) = (near[rng.below(near.len())], squares[rng.below(64)]);
    let fen = {
        let mut board = shakmaty::Board::empty();
        board.set_piece_at(wk, shakmaty::Piece { color: Color::White, role: shakmaty::Role::King });
        board.set_piece_at(bk, shakmaty::Piece { color: Color::Black, role: shakmaty::Role::King });
        board.set_piece_at(wr, shakmaty::Piece { color: Color::White, role: shakmaty::Role::Rook });
        format!("{board} w - - 0 1")
    };
    let mut pos = pnmate::chess::position::parse_fen(&fen).ok()?;
    let mut history = Vec::new();
    let mut played: Vec<Move> = Vec::new();
    for _ in 0..len {
        let moves: Vec<Move> = pos.legal_moves().into_iter().filter(|m| !m.is_capture()).collect();
        if moves.is_empty() || pos.is_checkmate() {
            return None;
        }
        // Half of the time undo the move played two plies ago, when that is legal.
        let back = played.len() >= 2
            && rng.below(2) == 0
            && moves
                .iter()
                .copied()
                .find(|m| {
                    let old = played[played.len() - 2];
                    m.from() == Some(old.to()) && m.to() == old.from().unwrap()
                })
                .is_some();
        let m = if back {
            let old = played[played.len() - 2];
            moves.iter().copied().find(|m| m.from() == Some(old.to()) && m.to() == old.from().unwrap()).unwrap()
        } else {
            moves[rng.below(moves.len())]
        };
        history.push(hash(&pos));
        pos.play_unchecked(m);
        played.push(m);
    }
    let game = format!("position fen {fen} moves {}", pnmate::chess::position::uci_line(&played));
    (!pos.legal_moves().is_empty()).then_some((pos, history, game))
}

#[test]
fn history_rule_matches_a_brute_force_with_fide_claims() {
    let mut rng = Rng::new(0x1234_5678_9ABC_DEF1);
    let mut tt = TranspositionTable::new(16);
    let (mut checked, mut with_repeats, mut mates_found, mut history_mattered) = (0, 0, 0, 0);
    while checked < 800 {
        let len = 8 + rng.below(12);
        let Some((pos, history, game)) = random_game(&mut rng, len) else { continue };
        let n = 3u32; // mate within 3 moves, for whichever side is to move
        let mut seen = history.clone();
        seen.push(hash(&pos));
        let repeats = seen.iter().any(|h| seen.iter().filter(|s| *s == h).count() >= 2);
        let stm_attacks = pos.turn() == Color::White;
        // Brute force: the shortest mate within n, from the side to move's view; none
        // when the root has occurred five times (the game is drawn, FIDE 9.6.1).
        let shortest = |seen: &[u64]| {
            if seen.iter().filter(|&&h| h == hash(&pos)).count() >= 5 {
                return None;
            }
            (1..=n).find(|&k| {
                let mut seen = seen.to_vec();
                if stm_attacks { mates(&pos, 2 * k - 1, &mut seen) } else { loses(&pos, 2 * k, &mut seen) }
            })
        };
        let brute = shortest(&seen);
        let mattered = brute != shortest(&[hash(&pos)]);
        tt.clear();
        let params = Params { mate: MateBound::new(u64::from(n)), history: history.clone(), ..Params::default() };
        let (outcome, _) = solve(&pos, params, Budget::default(), &tt, &mut |_| {});
        let fen = pnmate::chess::position::to_fen(&pos);
        match (brute, &outcome) {
            (None, Outcome::NoMate { moves }) => assert_eq!(*moves, n, "{fen}"),
            (Some(k), Outcome::Mate { moves, exact: true, .. }) if stm_attacks => assert_eq!(*moves, k, "{fen}"),
            (Some(k), Outcome::Mated { moves, exact: true, .. }) if !stm_attacks => assert_eq!(*moves, k, "{fen}"),
            _ => panic!("{fen} after {} game plies ({game}): brute force {brute:?}, pnmate {outcome:?}", history.len()),
        }
        checked += 1;
        with_repeats += usize::from(repeats);
        mates_found += usize::from(brute.is_some());
        history_mattered += usize::from(mattered);
    }
    assert!(with_repeats >= 400, "only {with_repeats} games with a repeated position");
    eprintln!(
        "{checked} cases: {with_repeats} with repeats, {mates_found} mates, history mattered in {history_mattered}"
    );
    assert!(mates_found >= 100, "only {mates_found} mates among the cases");
    assert!(history_mattered >= 10, "the history changed the answer in only {history_mattered} cases");
}
