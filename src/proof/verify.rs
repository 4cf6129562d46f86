//! Replaying a forced line before anyone sees it, in any game: legal moves, the claimed
//! length, the game going on until the winner's win at the end, and no draw the losing
//! side could claim on the way.
//!
//! This check hashes with shakmaty alone and shares nothing with the search but the rule
//! predicates, so a bug in the search's hashing or keys cannot hide a bad line.

use shakmaty::Move;
use thiserror::Error;

use crate::chess::game::{Game, Standing};
use crate::chess::mate_len::MateLen;
use crate::chess::rules::{AUTOMATIC_DRAW_CLOCK, can_claim_fifty};

/// Why a line fails replay.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LineError {
    /// A move is not legal where it is played.
    #[error("illegal move at ply {0}")]
    Illegal(usize),
    /// The line's length does not match the claimed mate.
    #[error("line has {got} plies, claim needs {want}")]
    Length {
        /// Plies the claim needs.
        want: usize,
        /// Plies the line has.
        got: usize,
    },
    /// The line does not end in the winner's win (checkmate in chess).
    #[error("line does not end in checkmate")]
    NotMate,
    /// The game is over (won, lost or drawn by its rules) before this ply.
    #[error("the game is over before ply {0}")]
    Over(usize),
    /// The losing side could claim a 50-move draw at this ply.
    #[error("losing side may claim a 50-move draw at ply {0}")]
    FiftyMoveClaim(usize),
    /// The losing side could claim a threefold repetition at this ply.
    #[error("losing side may claim a repetition at ply {0}")]
    RepetitionClaim(usize),
}

/// Replays `line` from `root` and checks that it proves `mate` (from the side to move's
/// view): legal moves, `mate.plies()` plies (where the game's win can fall on the
/// loser's move, `2M - 1` or `2M` for a win or a loss in M), the game going on until the
/// last move and won by the winner there, and no 50-move or threefold claim for the
/// losing side on the way.
/// `history` holds the hashes of earlier game positions (oldest first, the root
/// excluded) for the repetition rule. Hashes are shakmaty's, computed afresh.
pub fn verify_line<G: Game>(root: &G, line: &[Move], mate: MateLen, history: &[u64]) -> Result<(), LineError> {
    let want = mate.plies();
    let moves = mate.moves() as usize;
    let fits = moves > 0
        && (line.len() == want || root.wins_on_either_move() && (2 * moves - 1..=2 * moves).contains(&line.len()));
    if !fits {
        return Err(LineError::Length { want, got: line.len() });
    }
    let winner = if mate.side_to_move_mates() { root.turn() } else { !root.turn() };
    let loser = !winner;
    let hash = |pos: &G| pos.full_hash();
    let mut pos = root.clone();
    let mut seen: Vec<u64> = history.to_vec();
    seen.push(hash(&pos));
    for (ply, &m) in line.iter().enumerate() {
        let moves = pos.legal_moves();
        if pos.standing(&moves, winner) != Standing::Open
            || pos.turn() == winner && pos.halfmoves() >= AUTOMATIC_DRAW_CLOCK
        {
            return Err(LineError::Over(ply));
        }
        if !moves.contains(&m) {
            return Err(LineError::Illegal(ply));
        }
        if pos.turn() == loser {
            if can_claim_fifty(&pos, &moves) {
                return Err(LineError::FiftyMoveClaim(ply));
            }
            let here = *seen.last().unwrap_or(&0);
            let count = |h: u64| seen.iter().filter(|&&s| s == h).count();
            let repeats = count(here) >= 3
                || moves.iter().any(|&n| {
                    let mut after = pos.clone();
                    after.play_unchecked(n);
                    count(hash(&after)) >= 2
                });
            if repeats {
                return Err(LineError::RepetitionClaim(ply));
            }
        }
        pos.play_unchecked(m);
        seen.push(hash(&pos));
    }
    if pos.is_won_by(winner) { Ok(()) } else { Err(LineError::NotMate) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn moves<P: Position + Clone>(p: &P, uci: &str) -> Vec<Move> {
        let mut p = p.clone();
        uci.split_whitespace()
            .map(|u| {
                let m = u.parse::<UciMove>().unwrap().to_move(&p).unwrap();
                p.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn accepts_a_real_mate_and_rejects_bad_lines() {
        let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        let line = moves(&p, "a1a8");
        assert_eq!(verify_line(&p, &line, MateLen::mate_in(1), &[]), Ok(()));
        assert_eq!(verify_line(&p, &line, MateLen::mate_in(2), &[]), Err(LineError::Length { want: 3, got: 1 }));
        assert_eq!(verify_line(&p, &line, MateLen::mated_in(1), &[]), Err(LineError::Length { want: 2, got: 1 }));
        let not_mate = moves(&p, "a1a7");
        assert_eq!(verify_line(&p, &not_mate, MateLen::mate_in(1), &[]), Err(LineError::NotMate));
        let black = pos("6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1");
        assert_eq!(verify_line(&black, &line, MateLen::mate_in(1), &[]), Err(LineError::Illegal(0)));
    }

    #[test]
    fn a_variant_win_may_end_on_the_loser_s_move_and_a_game_may_not_end_early() {
        use shakmaty::variant::{Variant, VariantPosition};
        let anti = |fen: &str| {
            let setup = fen.parse::<Fen>().unwrap().into_setup();
            VariantPosition::from_setup(Variant::Antichess, setup, CastlingMode::Standard).unwrap()
        };
        // White gives its last man away and Black must take it: a win in 1, two plies.
        let p = anti("8/8/8/8/8/8/1p6/2R5 w - - 0 1");
        let give = moves(&p, "c1a1 b2a1q");
        assert_eq!(verify_line(&p, &give, MateLen::mate_in(1), &[]), Ok(()));
        assert_eq!(verify_line(&p, &give, MateLen::mated_in(1), &[]), Err(LineError::NotMate));
        assert_eq!(verify_line(&p, &give[..1], MateLen::mate_in(1), &[]), Err(LineError::NotMate));
        // Black to move must take the rook at once and loses: a loss in 1, one ply.
        let b = anti("8/8/8/8/8/8/1p6/2R5 b - - 0 1");
        let lost = moves(&b, "b2c1q");
        assert_eq!(verify_line(&b, &lost, MateLen::mated_in(1), &[]), Ok(()));
        assert_eq!(verify_line(&b, &lost, MateLen::mate_in(1), &[]), Err(LineError::NotMate));
        // The game is over once White has no man left: no move is played after that.
        let over = anti("8/8/8/8/8/8/8/1q6 w - - 0 1");
        assert_eq!(verify_line(&over, &[], MateLen::mate_in(1), &[]), Err(LineError::Length { want: 1, got: 0 }));
    }

    #[test]
    fn a_mate_in_one_at_clock_100_stands() {
        // The defender never gets a turn on which to claim.
        let p = pos("k7/8/1K6/8/8/8/8/7R w - - 100 80");
        assert_eq!(verify_line(&p, &moves(&p, "h1h8"), MateLen::mate_in(1), &[]), Ok(()));
    }

    #[test]
    fn rejects_fifty_move_claims() {
        // White mates in 2 (Rh2, Kb8, Rh8#), but Black to move at clock 99 may claim.
        let p = pos("k7/8/1K6/8/8/8/8/7R w - - 98 80");
        let line = moves(&p, "h1h2 a8b8 h2h8");
        assert_eq!(verify_line(&p, &line, MateLen::mate_in(2), &[]), Err(LineError::FiftyMoveClaim(1)));
        let fresh = pos("k7/8/1K6/8/8/8/8/7R w - - 0 80");
        assert_eq!(verify_line(&fresh, &line, MateLen::mate_in(2), &[]), Ok(()));
    }
}
