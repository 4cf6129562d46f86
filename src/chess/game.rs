//! The rules a game gives the prover: what differs between chess and its variants, as
//! one trait over shakmaty's positions.
//!
//! Every piece of the prover above this layer is written once over [`Game`] and
//! monomorphised per game, so chess compiles to chess-only code. A game says how a
//! position ends ([`Game::standing`]), which draws its rules give ([`Game::rule_draws`]),
//! how its hash follows a move, which moves are irreversible, and whether a win can fall
//! on the loser's move (which sets how lengths are counted and how far the tightening
//! steps). The expansion's fast paths belong to the core ([`crate::dfpn::Expand`]).

use std::fmt::Debug;

use shakmaty::variant::Variant;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Color, EnPassantMode, Move, MoveList, Position};

use crate::chess::rules::{AUTOMATIC_DRAW_CLOCK, can_claim_fifty};

/// How a game stands for `attacker`, the side trying to win.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// The attacker has won: mate, or the variant's own win (an exploded king, the king
    /// on the hill, the third check, every man given away, ...).
    Won,
    /// The game is over and the attacker has not won (lost or drawn).
    Over,
    /// The game goes on.
    Open,
}

impl Standing {
    /// A finished game's standing for `attacker`, given its winner (None: a draw).
    pub fn of_winner(winner: Option<Color>, attacker: Color) -> Standing {
        if winner == Some(attacker) { Standing::Won } else { Standing::Over }
    }
}

/// One game's rules, as the prover reads them.
pub trait Game: Position + Clone + Debug + Send + Sync + 'static {
    /// The game's variant, as certificates name it.
    fn game_variant(&self) -> Variant;

    /// A salt of the game for the table's keys: the same board means something else in
    /// each game. Zero for chess.
    #[inline]
    fn salt(&self) -> u64 {
        let index = Variant::ALL.iter().position(|&v| v == self.game_variant()).unwrap_or(0) as u64;
        index.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
    }

    /// The position's Zobrist hash (the en passant square only when a capture there is
    /// legal).
    #[inline]
    fn full_hash(&self) -> u64 {
        self.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
    }

    /// The hash after legal move `m` from the move alone, where that is cheap; None
    /// where the position must be played and hashed.
    fn hash_after(&self, hash: u64, m: Move) -> Option<u64>;

    /// Plays legal move `m` on `self`, whose hash is `hash`, and updates the hash.
    #[inline]
    fn play_hashed(&mut self, hash: &mut u64, m: Move) {
        let after = self.hash_after(*hash, m);
        self.play_unchecked(m);
        *hash = after.unwrap_or_else(|| self.full_hash());
    }

    /// The legal moves into `moves` (chess has a faster generator than shakmaty's).
    #[inline]
    fn moves_into(&self, moves: &mut MoveList) {
        *moves = self.legal_moves();
    }

    /// Whether no position before `m` can recur after it.
    fn resets_history(&self, m: Move) -> bool;

    /// How the game stands for `attacker` by the game's own ends (mate, stalemate, the
    /// variant's win), given the side to move's legal `moves`.
    fn standing(&self, moves: &MoveList, attacker: Color) -> Standing;

    /// Whether `attacker`'s legal move `m` wins at once (chess: mates).
    #[inline]
    fn wins_by(&self, m: Move, attacker: Color) -> bool {
        let mut after = self.clone();
        after.play_unchecked(m);
        after.is_won_by(attacker)
    }

    /// A legal move of the side to move, `attacker`, that wins at once, if there is one.
    fn winning_move(&self, attacker: Color) -> Option<Move> {
        self.legal_moves().into_iter().find(|&m| self.wins_by(m, attacker))
    }

    /// Whether the game is already won by `attacker` here.
    #[inline]
    fn is_won_by(&self, attacker: Color) -> bool {
        let mut moves = MoveList::new();
        self.moves_into(&mut moves);
        self.standing(&moves, attacker) == Standing::Won
    }

    /// Whether the rules draw a game its own ends let go on: the attacker's insufficient
    /// material, at the defender's turn the 50-move claim, at the attacker's turn the
    /// automatic 75-move draw. Repetitions depend on the game's history and are the
    /// search's.
    #[inline]
    fn rule_draws(&self, moves: &MoveList, attacker: Color) -> bool {
        let drawn = if self.turn() == attacker {
            self.halfmoves() >= AUTOMATIC_DRAW_CLOCK
        } else {
            can_claim_fifty(self, moves)
        };
        drawn || self.has_insufficient_material(attacker)
    }

    /// How the game has ended for the side to move, given its legal `moves`, by the
    /// game's own ends: Some(1) won, Some(-1) lost, Some(0) drawn, None while it goes on.
    #[inline]
    fn end_for_mover(&self, moves: &MoveList) -> Option<i32> {
        let turn = self.turn();
        match self.standing(moves, turn) {
            Standing::Won => Some(1),
            Standing::Over if self.standing(moves, !turn) == Standing::Won => Some(-1),
            Standing::Over => Some(0),
            Standing::Open => None,
        }
    }

    /// [`Game::standing`] with the rules' draws counted as over.
    #[inline]
    fn rule_end(&self, moves: &MoveList, attacker: Color) -> Standing {
        match self.standing(moves, attacker) {
            Standing::Open if self.rule_draws(moves, attacker) => Standing::Over,
            end => end,
        }
    }

    /// Whether a win can fall on the loser's own move (antichess: the loser takes the
    /// winner's last man; racing kings: the loser's move that fails to follow the king).
    /// Then a win "in M moves" of the side to move takes up to 2M plies, not 2M - 1, and
    /// the next shorter win of a side is one ply shorter, not two.
    #[inline]
    fn wins_on_either_move(&self) -> bool {
        false
    }

    /// Whether a certificate of this game reads a win as one that may fall on either side's
    /// move (src/proof/FORMAT.md, "Variants": every variant but chess is read so).
    #[inline]
    fn certified_on_either_move(&self) -> bool {
        false
    }

    /// Whether a node of this position is an OR node, `attacker` choosing its move.
    #[inline]
    fn or_node(&self, attacker: Color) -> bool {
        self.turn() == attacker
    }

    /// Whether the children of a node are OR nodes (the attacker chooses), given whether
    /// the node is: the sides alternate, except in cooperative play (a helpmate), where
    /// every node is an OR node.
    #[inline]
    fn or_after(&self, or: bool) -> bool {
        !or
    }

    /// The fewest plies in which `attacker` could still win by the rules alone (zero
    /// where they say nothing; racing kings bounds it by the king's rank). A lower bound
    /// a disproof may rest on; `pnmate-check` knows the same rule.
    #[inline]
    fn least_plies_to_win(&self, _attacker: Color) -> u16 {
        0
    }
}

/// The side that wins a line of `plies` plies from a position where `stm` moves, when
/// the winner moves last: the side to move on odd lengths, its opponent on even ones.
pub fn last_mover(stm: Color, plies: usize) -> Color {
    if plies % 2 == 1 { stm } else { !stm }
}
