//! Replaying a forced line before anyone sees it, in any game: legal moves, the claimed
//! length, the game going on until the winner's win at the end, and no draw the losing
//! side could claim on the way.
//!
//! This check hashes with shakmaty alone and shares nothing with the search but the rule
//! predicates, so a bug in the search's hashing or keys cannot hide a bad line.

use shakmaty::{Color, Move, Position};
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

/// What a replay checks of one kind of line: each move before it is played, how it is
/// played, and the position the line ends in. One loop ([`replay`]) serves a mate's line
/// and a problem's solution.
pub trait Replay<P: Position + Clone> {
    /// Why a line fails.
    type Error;

    /// Checks move `m` of ply `ply` (from 0), to be played from `pos`.
    fn check(&mut self, ply: usize, pos: &P, m: Move) -> Result<(), Self::Error>;

    /// Plays the checked move `m` on `pos`.
    fn play(&mut self, pos: &mut P, m: Move) {
        pos.play_unchecked(m);
    }

    /// Checks the position the line ends in.
    fn end(&mut self, pos: &P) -> Result<(), Self::Error>;
}

/// Replays `line` from `root` under `rules`: every move checked, then played; then the end.
pub fn replay<P: Position + Clone, R: Replay<P>>(root: &P, line: &[Move], rules: &mut R) -> Result<(), R::Error> {
    let mut pos = root.clone();
    for (ply, &m) in line.iter().enumerate() {
        rules.check(ply, &pos, m)?;
        rules.play(&mut pos, m);
    }
    rules.end(&pos)
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
    let mut seen: Vec<u64> = history.to_vec();
    seen.push(root.full_hash());
    replay(root, line, &mut MateLine { winner, seen })
}

/// The rules a mate's line is replayed by (see [`verify_line`]): the hashes of the
/// positions so far, for the repetition rule.
struct MateLine {
    winner: Color,
    seen: Vec<u64>,
}

impl<G: Game> Replay<G> for MateLine {
    type Error = LineError;

    fn check(&mut self, ply: usize, pos: &G, m: Move) -> Result<(), LineError> {
        let winner = self.winner;
        let moves = pos.legal_moves();
        if pos.standing(&moves, winner) != Standing::Open
            || pos.turn() == winner && pos.halfmoves() >= AUTOMATIC_DRAW_CLOCK
        {
            return Err(LineError::Over(ply));
        }
        if !moves.contains(&m) {
            return Err(LineError::Illegal(ply));
        }
        if pos.turn() != winner {
            if can_claim_fifty(pos, &moves) {
                return Err(LineError::FiftyMoveClaim(ply));
            }
            let here = *self.seen.last().unwrap_or(&0);
            let count = |h: u64| self.seen.iter().filter(|&&s| s == h).count();
            let repeats = count(here) >= 3
                || moves.iter().any(|&n| {
                    let mut after = pos.clone();
                    after.play_unchecked(n);
                    count(after.full_hash()) >= 2
                });
            if repeats {
                return Err(LineError::RepetitionClaim(ply));
            }
        }
        Ok(())
    }

    fn play(&mut self, pos: &mut G, m: Move) {
        pos.play_unchecked(m);
        self.seen.push(pos.full_hash());
    }

    fn end(&mut self, pos: &G) -> Result<(), LineError> {
        if pos.is_won_by(self.winner) { Ok(()) } else { Err(LineError::NotMate) }
    }
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
