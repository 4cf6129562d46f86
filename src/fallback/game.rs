//! What the fallback's alpha-beta needs from a game: its evaluation and a few rules of
//! its own (when standing pat is no option, when a pass is safe), and chess's fast leaf
//! captures.

use shakmaty::variant::VariantPosition;
use shakmaty::{Bitboard, Chess, Color, MoveList, Position, Role};

use crate::chess::game::Game;
use crate::knowledge::material_edge;
use crate::variant::eval::material;

/// The reverse futility margin per ply of depth, where a game allows one.
const FUTILITY_STEP: i32 = 90;

/// What the fallback's alpha-beta needs from a game beyond the prover's rules.
pub trait AlphaBeta: Game {
    /// A static score of the position, in centipawns from the side to move's view: the
    /// fallback's leaves. Never a claim.
    fn evaluate(&self) -> i32;

    /// A leaf's captures, when the leaf needs no full list of legal moves (it is taken to
    /// go on, and to be free to stand pat); None where every legal move must be generated.
    #[inline]
    fn leaf_captures(&self) -> Option<MoveList> {
        None
    }

    /// Whether the side to move, with legal `moves`, must play one of them in the
    /// quiescence instead of standing pat (in check; in antichess, a capture pending).
    #[inline]
    fn must_move(&self, _moves: &MoveList) -> bool {
        self.is_check()
    }

    /// Whether the quiescence's first ply searches quiet checks too (three-check, where a
    /// check is worth more than most men).
    #[inline]
    fn quiescence_checks(&self) -> bool {
        false
    }

    /// The reverse futility margin per ply of depth, None where no evaluation margin is
    /// safe (three-check, where a check swings more than a queen).
    #[inline]
    fn futility_step(&self) -> Option<i32> {
        Some(FUTILITY_STEP)
    }

    /// The side to move's material edge in centipawns: the side behind is the one whose
    /// late quiet moves hold its draws, and they are never pruned.
    fn material_edge(&self) -> i32;

    /// The position after a pass, when the null move may prune here (never in check, and
    /// never where a pass is no test of the position, as in zugzwang-ridden endings).
    fn passed(&self) -> Option<Self>;
}

impl AlphaBeta for Chess {
    #[inline]
    fn evaluate(&self) -> i32 {
        crate::knowledge::evaluate(self)
    }

    #[inline]
    fn leaf_captures(&self) -> Option<MoveList> {
        (!self.is_check() && !needs_full_moves(self)).then(|| captures(self))
    }

    #[inline]
    fn material_edge(&self) -> i32 {
        material_edge(self, self.turn())
    }

    fn passed(&self) -> Option<Chess> {
        if !has_piece(self) || material_edge(self, self.turn()) < 0 {
            return None;
        }
        self.clone().swap_turn().ok()
    }
}

/// The variants, whose evaluation is [`crate::variant::eval`]'s.
impl AlphaBeta for VariantPosition {
    fn evaluate(&self) -> i32 {
        crate::variant::eval::evaluate(self)
    }

    /// In antichess a pending capture must be played: every legal move is one.
    fn must_move(&self, moves: &MoveList) -> bool {
        match self {
            VariantPosition::Antichess(_) => moves.iter().any(|m| m.is_capture()),
            _ => self.is_check(),
        }
    }

    fn quiescence_checks(&self) -> bool {
        matches!(self, VariantPosition::ThreeCheck(_))
    }

    fn futility_step(&self) -> Option<i32> {
        (!matches!(self, VariantPosition::ThreeCheck(_))).then_some(FUTILITY_STEP)
    }

    fn material_edge(&self) -> i32 {
        match self {
            VariantPosition::Antichess(_) => 0,
            _ => material(self, self.turn()) - material(self, !self.turn()),
        }
    }

    /// No pass in antichess, whose forced captures make zugzwang the rule.
    fn passed(&self) -> Option<VariantPosition> {
        if matches!(self, VariantPosition::Antichess(_)) || self.material_edge() < 0 {
            return None;
        }
        self.clone().swap_turn().ok()
    }
}

/// Whether the side to move has a piece besides king and pawns.
fn has_piece(pos: &Chess) -> bool {
    let board = pos.board();
    (board.by_color(pos.turn()) & !board.pawns() & !board.kings()).any()
}

/// Whether a leaf out of check needs the full list of legal moves: when the side to move
/// has nothing but king and pawns (it may be stalemated), a pawn about to promote, or an
/// en passant capture. Otherwise its captures come from [`captures`], and it is taken to
/// have a legal move: a side with a piece is stalemated only when every one of its moves
/// is pinned or blocked and its king is boxed in, which the leaves miss and the interior
/// nodes (full move lists) see; the fallback claims nothing.
pub(super) fn needs_full_moves(pos: &Chess) -> bool {
    let board = pos.board();
    let ours = board.by_color(pos.turn());
    let seventh = if pos.turn() == Color::White {
        Bitboard::from_rank(shakmaty::Rank::Seventh)
    } else {
        Bitboard::from_rank(shakmaty::Rank::Second)
    };
    !has_piece(pos) || (ours & board.pawns() & seventh).any() || pos.maybe_ep_square().is_some()
}

/// The legal captures of the side to move (no promotions, no en passant: see
/// [`needs_full_moves`]), generated per attacked enemy piece and attacking role.
pub(super) fn captures(pos: &Chess) -> MoveList {
    let board = pos.board();
    let us = pos.turn();
    let mut moves = MoveList::new();
    for to in board.by_color(!us) & !board.kings() {
        let attackers = board.attacks_to(to, us, board.occupied());
        for role in Role::ALL {
            if (attackers & board.by_role(role)).any() {
                moves.extend(pos.san_candidates(role, to));
            }
        }
    }
    moves
}
