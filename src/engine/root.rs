//! The position a search starts from: a position of chess or of one of lichess's
//! variants, each answered by its own prover.

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{Chess, Color, Move, Position};

use crate::chess::movecode::MoveCode;
use crate::chess::position::{parse_fen, play_moves, repeated_positions};
use crate::error::SetupError;
use crate::variant::parse_variant_fen;

/// The position a search starts from.
#[derive(Clone, Debug)]
pub(super) enum Root {
    /// Standard chess (and Chess960): the chess prover's.
    Chess(Chess),
    /// A variant's position: the variant prover's.
    Variant(VariantPosition),
}

/// `$body` with `$pos` bound to the root's position, whichever game it is in: the one
/// place a root is taken apart by game.
macro_rules! with_position {
    ($root:expr, $pos:ident => $body:expr) => {
        match $root {
            Root::Chess($pos) => $body,
            Root::Variant($pos) => $body,
        }
    };
}

/// A root set by `position`: where the search starts, the hashes of the game's
/// positions before it, and (chess) those that occurred twice or more.
pub(super) struct SetUp {
    pub root: Root,
    pub history: Vec<u64>,
    pub repeated: Vec<Chess>,
}

impl Root {
    /// The starting position of `variant`.
    pub fn start(variant: Variant) -> Root {
        match variant {
            Variant::Chess => Root::Chess(Chess::default()),
            v => Root::Variant(VariantPosition::new(v)),
        }
    }

    /// The position `moves` lead to from `fen` (None: the start) in `variant`.
    pub fn set_up(variant: Variant, fen: Option<&str>, moves: &[&str]) -> Result<SetUp, SetupError> {
        let moves = || moves.iter().copied();
        match variant {
            Variant::Chess => {
                let start = fen.map_or(Ok(Chess::default()), parse_fen)?;
                let repeated = repeated_positions(start.clone(), moves());
                let (pos, history) = play_moves(start, moves())?;
                Ok(SetUp { root: Root::Chess(pos), history, repeated })
            }
            variant => {
                let start = fen.map_or_else(|| Ok(VariantPosition::new(variant)), |f| parse_variant_fen(variant, f))?;
                let (pos, history) = play_moves(start, moves())?;
                Ok(SetUp { root: Root::Variant(pos), history, repeated: Vec::new() })
            }
        }
    }

    pub fn turn(&self) -> Color {
        with_position!(self, pos => pos.turn())
    }

    /// The legal move `code` stands for here, if any.
    pub fn decode(&self, code: MoveCode) -> Option<Move> {
        with_position!(self, pos => code.decode(pos))
    }

    /// The first legal move, if any: the answer when everything else failed.
    pub fn first_legal(&self) -> Option<Move> {
        with_position!(self, pos => pos.legal_moves().first().copied())
    }

    /// `ponder` where it is a legal reply to `best` in a game that goes on after it (a
    /// racing kings win ends the game: no move follows it).
    pub fn ponder_after(&self, best: Move, ponder: Move) -> Option<Move> {
        let legal = with_position!(self, pos => {
            let mut after = pos.clone();
            after.play_unchecked(best);
            !after.is_game_over() && after.is_legal(ponder)
        });
        legal.then_some(ponder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Role, Square};

    #[test]
    fn no_ponder_move_follows_the_end_of_the_game() {
        let normal = |role, from, to| Move::Normal { role, from, capture: None, to, promotion: None };
        // Racing kings: White's king reaches the eighth rank out of the black king's reach,
        // which ends the game; the knight's move after it is no reply.
        let setup = "8/6K1/8/1b6/k7/8/n7/8 w - - 0 1".parse::<shakmaty::fen::Fen>().unwrap().into_setup();
        let rk = VariantPosition::from_setup(Variant::RacingKings, setup, CastlingMode::Standard).unwrap();
        let best = normal(Role::King, Square::G7, Square::G8);
        assert!(rk.is_legal(best));
        let root = Root::Variant(rk);
        assert_eq!(root.ponder_after(best, normal(Role::Knight, Square::A2, Square::C3)), None);
        // Chess: a legal reply stays, an illegal one goes.
        let chess = Root::Chess(Chess::default());
        let (e4, e5) = (normal(Role::Pawn, Square::E2, Square::E4), normal(Role::Pawn, Square::E7, Square::E5));
        assert_eq!(chess.ponder_after(e4, e5), Some(e5));
        assert_eq!(chess.ponder_after(e4, e4), None);
    }
}
