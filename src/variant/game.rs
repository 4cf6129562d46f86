//! A variant game as the engine holds it: the variant's name, its positions read from
//! FEN (crazyhouse pockets `[...]` and promoted pieces `~`, three-check counters as
//! `+N+M` checks given or `3+3` checks remaining), UCI move lists, and how a game ends.

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Color, EnPassantMode, Move, MoveList, Position, Setup, fen::Fen};

use crate::chess::game::{Game, Standing};
use crate::chess::position::MAX_HALFMOVES;
use crate::error::SetupError;

/// Every variant the `UCI_Variant` combo offers, chess first, by the names python-chess
/// sends.
pub const VARIANT_NAMES: [&str; 8] =
    ["chess", "antichess", "atomic", "crazyhouse", "horde", "kingofthehill", "racingkings", "3check"];

/// The variant called `name`: its UCI name or a common alias (lichess's `threeCheck`,
/// `standard`, ...), case-insensitive.
pub fn variant_named(name: &str) -> Option<Variant> {
    let name = name.trim().to_ascii_lowercase();
    let alias = match name.as_str() {
        "standard" | "chess960" | "fromposition" => "chess",
        "threecheck" | "three-check" => "3check",
        "giveaway" | "suicide" => "antichess",
        "koth" | "king of the hill" => "kingofthehill",
        "racing kings" => "racingkings",
        other => other,
    };
    Variant::from_uci(alias).ok()
}

/// Reads a FEN as a position of `variant`. Castling rights that only Chess960 allows are
/// read as Chess960's; a clock above [`MAX_HALFMOVES`] is clamped to it.
pub fn parse_variant_fen(variant: Variant, text: &str) -> Result<VariantPosition, SetupError> {
    let text = text.trim();
    let fen: Fen = text.parse().map_err(|e| SetupError::Fen { fen: text.to_string(), reason: format!("{e}") })?;
    let mut setup = Setup::from(fen);
    setup.halfmoves = setup.halfmoves.min(MAX_HALFMOVES);
    if variant == Variant::ThreeCheck && setup.remaining_checks.is_none() {
        // A three-check FEN without counters: nobody has checked yet.
        setup.remaining_checks = Some(Default::default());
    }
    let read = |mode| {
        VariantPosition::from_setup(variant, setup.clone(), mode)
            .or_else(shakmaty::PositionError::ignore_impossible_check)
            .map_err(|e| SetupError::Illegal { fen: text.to_string(), reason: format!("{e}") })
    };
    read(CastlingMode::Standard).or_else(|standard| read(CastlingMode::Chess960).map_err(|_| standard))
}

impl Game for VariantPosition {
    fn game_variant(&self) -> Variant {
        self.variant()
    }

    #[inline]
    fn hash_after(&self, hash: u64, m: Move) -> Option<u64> {
        self.update_zobrist_hash(Zobrist64(hash), m, EnPassantMode::Legal).map(|z| z.0)
    }

    /// A pawn move or a capture, except in crazyhouse, where captured men return
    /// through the pockets and any position may recur.
    fn resets_history(&self, m: Move) -> bool {
        m.is_zeroing() && !matches!(self, VariantPosition::Crazyhouse(_))
    }

    /// The variant's own end first, then mate and stalemate (antichess's stalemate is its
    /// own end: the stalemated side wins).
    fn standing(&self, moves: &MoveList, attacker: Color) -> Standing {
        if let VariantPosition::Antichess(_) = self {
            // shakmaty's own test generates the moves again: the side with no man left or
            // no move wins.
            let out = self.board().by_color(self.turn()).is_empty() || moves.is_empty();
            return if out { Standing::of_winner(Some(self.turn()), attacker) } else { Standing::Open };
        }
        match end_without_moves(self, attacker) {
            Standing::Open if moves.is_empty() => {
                Standing::of_winner(self.is_check().then_some(!self.turn()), attacker)
            }
            end => end,
        }
    }

    fn wins_on_either_move(&self) -> bool {
        matches!(self, VariantPosition::Antichess(_) | VariantPosition::RacingKings(_))
    }

    fn certified_on_either_move(&self) -> bool {
        self.variant() != Variant::Chess
    }

    /// Racing kings is won only on the eighth rank, which the attacker's king nears by at
    /// most one rank a move: d ranks take 2d-1 plies from the attacker's turn and 2d from
    /// the defender's.
    fn least_plies_to_win(&self, attacker: Color) -> u16 {
        let king = self.board().king_of(attacker).filter(|_| self.variant() == Variant::RacingKings);
        let Some(king) = king else { return 0 };
        let ranks = 7 - u16::from(king.rank());
        if ranks == 0 {
            0
        } else if self.turn() == attacker {
            2 * ranks - 1
        } else {
            2 * ranks
        }
    }
}

/// The standing of `pos` for `attacker` as far as the variant's own end tells, without its
/// legal moves: a mate or stalemate shows only once its moves are generated. Not for
/// antichess, whose end needs the moves.
pub fn end_without_moves(pos: &VariantPosition, attacker: Color) -> Standing {
    match pos.variant_outcome().known() {
        Some(known) => Standing::of_winner(known.winner(), attacker),
        None => Standing::Open,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::play_moves;

    fn pos(variant: Variant, fen: &str) -> VariantPosition {
        parse_variant_fen(variant, fen).unwrap()
    }

    #[test]
    fn names_python_chess_sends_are_all_known() {
        for name in VARIANT_NAMES {
            assert_eq!(variant_named(name).map(|v| v.uci()), Some(name));
        }
        assert_eq!(variant_named("threeCheck"), Some(Variant::ThreeCheck));
        assert_eq!(variant_named("shogi"), None);
    }

    #[test]
    fn fens_carry_pockets_promotions_and_check_counters() {
        let zh = pos(Variant::Crazyhouse, "r1bqkbnr/ppp2ppp/2n5/4p3/4P3/5N2/PPP2PPP/RNBQKB1R[Pp] w KQkq - 0 5");
        assert!(zh.legal_moves().iter().any(|m| matches!(m, Move::Put { .. })), "a pawn in hand can be dropped");
        let promoted = pos(Variant::Crazyhouse, "4k3/8/8/8/8/8/8/Q~3K3[] w - - 0 1");
        assert!(promoted.promoted().any());
        // The same three-check position in both counter forms: one check given by White.
        let given = pos(Variant::ThreeCheck, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 +1+0");
        let remaining = pos(Variant::ThreeCheck, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2+3 0 2");
        assert_eq!(given.full_hash(), remaining.full_hash());
        assert_ne!(
            given.full_hash(),
            pos(Variant::ThreeCheck, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").full_hash()
        );
    }

    #[test]
    fn each_variant_ends_its_own_way() {
        let at = |variant, fen: &str, attacker| {
            let p = pos(variant, fen);
            p.standing(&p.legal_moves(), attacker)
        };
        // King of the hill: White's king on d4.
        assert_eq!(at(Variant::KingOfTheHill, "8/8/8/8/3K4/8/8/7k b - - 0 1", Color::White), Standing::Won);
        // Antichess: White has given every man away.
        assert_eq!(at(Variant::Antichess, "8/8/8/8/8/8/8/7k w - - 0 1", Color::White), Standing::Won);
        // Three-check: White has given three checks.
        assert_eq!(at(Variant::ThreeCheck, "4k3/8/8/8/8/8/8/4K3 b - - 0 1 +3+0", Color::White), Standing::Won);
        // Atomic: Black's king is gone.
        assert_eq!(at(Variant::Atomic, "8/8/8/8/8/8/8/4K3 b - - 0 1", Color::White), Standing::Won);
        // Racing kings: Black's king reached the eighth rank and White cannot follow.
        assert_eq!(at(Variant::RacingKings, "1k6/8/8/8/8/8/8/K7 w - - 0 1", Color::Black), Standing::Won);
        // Horde: White, the horde, has no men left.
        assert_eq!(at(Variant::Horde, "4k3/8/8/8/8/8/8/8 w - - 0 1", Color::Black), Standing::Won);
        // Chess rules still hold: stalemate is a draw, mate a win.
        assert_eq!(at(Variant::Crazyhouse, "k7/2Q5/1K6/8/8/8/8/8[] b - - 0 1", Color::White), Standing::Over);
        assert_eq!(at(Variant::Crazyhouse, "k7/1Q6/1K6/8/8/8/8/8[] b - - 0 1", Color::White), Standing::Won);
    }

    #[test]
    fn racing_kings_bounds_the_plies_to_a_win_by_the_king_s_rank() {
        // White's king on the first rank, Black's on the fourth.
        let white = pos(Variant::RacingKings, "8/8/8/8/k7/8/8/7K w - - 0 1");
        assert_eq!(white.least_plies_to_win(Color::White), 13, "seven ranks: plies 1, 3, ..., 13");
        assert_eq!(white.least_plies_to_win(Color::Black), 8, "four ranks after White's move");
        let chess_like = pos(Variant::KingOfTheHill, "8/8/8/8/k7/8/8/7K w - - 0 1");
        assert_eq!(chess_like.least_plies_to_win(Color::White), 0, "only racing kings has the bound");
    }

    #[test]
    fn move_lists_play_drops_and_keep_the_history_of_reversible_moves() {
        let (p, history) =
            play_moves(VariantPosition::new(Variant::Crazyhouse), ["e2e4", "d7d5", "e4d5", "d8d5", "g1f3", "g8f6"])
                .unwrap();
        assert_eq!(history.len(), 6, "in crazyhouse a capture returns through the pockets: any position may recur");
        let (_, history) =
            play_moves(VariantPosition::new(Variant::KingOfTheHill), ["e2e4", "d7d5", "e4d5", "d8d5", "g1f3", "g8f6"])
                .unwrap();
        assert_eq!(history.len(), 2, "elsewhere only the two knight moves after the last capture");
        let (after, _) = play_moves(p, ["P@e5"]).unwrap();
        assert!(after.pockets().is_some_and(|pk| pk.white.pawn == 0));
        assert!(matches!(
            play_moves(VariantPosition::new(Variant::RacingKings), ["e2e4"]),
            Err(SetupError::Move { index: 1, .. })
        ));
    }
}
