//! What the variant prover knows of each variant: the class an attacker's move is
//! ordered by and the first proof numbers of a node's children (df-pn+). As for chess,
//! nothing here proves anything: a poor number costs nodes, never soundness.
//!
//! Every child is played when its parent is expanded (its standing needs its legal
//! moves), so its number of replies is known: the measure of how forcing a move is. A
//! check starts at its number of evasions, as in chess; in antichess, where captures are
//! compulsory, every move starts at its number of replies. The rest is each variant's
//! goal: the king's distance to the centre (king of the hill) or to the eighth rank
//! (racing kings), the checks still to give (three-check), men next to the defending
//! king (atomic, where a capture there explodes it). Where the goal is one move away, the
//! guide also names the moves that may reach it, which the solver plays to confirm.

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{Bitboard, Color, Move, Position, Square, attacks};

use crate::chess::movecode::MoveCode;
use crate::knowledge::{Know, MoveClass, Reach};

/// A variant's ladder (moves): fine, since wins are short and both sides' lengths occur.
const LADDER: &[u32] =
    &[1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 32, 40, 50, 64, 80, 100, 128, 181, 256, 362, 512, 724, 1000];

/// How far the driver's bounds reach in `variant`: far bounds five and six rungs up
/// (about three times the near bound), where a forcing run of drops, checks or captures
/// is found soonest; in racing kings three rungs up, since its wins are races whose
/// length the kings' ranks bound, and a far bound there lets the kings wander. No cap in
/// every round: its long cut lines cost the short wins their budget.
pub fn reach(variant: Variant) -> Reach {
    let far = if variant == Variant::RacingKings { (3, 3) } else { (5, 6) };
    Reach { ladder: LADDER, far, cap: false }
}

/// First proof number of a quiet attacker move where the variant knows nothing more.
const QUIET_PN: u32 = 8;

/// First proof number of a capture or promotion that does not check.
const TACTICAL_PN: u32 = 4;

/// First proof number of a defender's capture (other replies start at 1): taking the
/// attacker's material usually makes the win harder.
const DEFENDER_CAPTURE_PN: u32 = 2;

/// The four centre squares of king of the hill.
const CENTRE: Bitboard = Bitboard::CENTER;

/// Knowledge of one variant for one attacker.
#[derive(Clone, Copy, Debug)]
pub struct VariantGuide {
    variant: Variant,
    attacker: Color,
}

impl VariantGuide {
    /// The guide of `attacker`'s wins in `variant`.
    pub fn new(variant: Variant, attacker: Color) -> VariantGuide {
        VariantGuide { variant, attacker }
    }

    /// The side that tries to win.
    pub fn attacker(&self) -> Color {
        self.attacker
    }

    /// The class and first proof number of the attacker's move `m` from `parent`, which
    /// leads to `child` where the defender has `replies` legal moves.
    pub fn attacker_move(
        &self,
        parent: &VariantPosition,
        m: Move,
        child: &VariantPosition,
        replies: usize,
    ) -> (MoveClass, u32) {
        let replies = replies.min(1 << 16) as u32;
        let checks = child.is_check() && self.variant != Variant::Antichess;
        let class = if checks {
            MoveClass::Check
        } else if m.is_capture()
            || m.is_promotion()
            || matches!(m, Move::Put { .. }) && gives_threat(child, self.attacker)
        {
            MoveClass::Tactical
        } else {
            MoveClass::Quiet
        };
        let base = match class {
            MoveClass::Check => replies.max(1),
            MoveClass::Tactical => TACTICAL_PN,
            MoveClass::Quiet => QUIET_PN,
        };
        let pn = match self.variant {
            // Compulsory captures: a move that leaves one reply is nearly forcing.
            Variant::Antichess => replies,
            Variant::KingOfTheHill => match king_steps_to(child, self.attacker, CENTRE) {
                Some(d) if m.role() == shakmaty::Role::King => base.min(1 + 2 * d),
                _ => base,
            },
            Variant::RacingKings => match child.board().king_of(self.attacker) {
                Some(k) if m.role() == shakmaty::Role::King => {
                    let to_go = 7 - u32::from(k.rank());
                    let from_go = parent.board().king_of(self.attacker).map_or(8, |f| 7 - u32::from(f.rank()));
                    if to_go < from_go { 1 + 2 * to_go } else { base + 2 * to_go }
                }
                _ => base,
            },
            Variant::ThreeCheck if checks => {
                // Each check is a third of the goal: the fewer left, the closer the win.
                let left = child.remaining_checks().map_or(3, |r| u32::from(r[self.attacker]));
                base.min(1 + left * replies.max(1) / 2)
            }
            Variant::Atomic if m.is_capture() => {
                let near_king = defender_king_zone(child, self.attacker);
                if near_king.contains(m.to()) { 2 } else { base }
            }
            _ => base,
        };
        (class, pn.max(1))
    }

    /// The first proof number of the defender's move `m`.
    pub fn defender_move(&self, m: Move) -> u32 {
        match self.variant {
            // In antichess a capture is forced on the other side too: no reply is special.
            Variant::Antichess => 1,
            _ if m.is_capture() => DEFENDER_CAPTURE_PN,
            _ => 1,
        }
    }

    /// The attacker's moves that may win on the spot from `pos` (the attacker to move),
    /// as the variant's goal picks them out; None where no move can.
    pub fn on_the_spot(&self, pos: &VariantPosition) -> Option<OnTheSpot> {
        match self.variant {
            Variant::KingOfTheHill if king_steps_to(pos, self.attacker, CENTRE) == Some(1) => Some(OnTheSpot::Hill),
            Variant::Atomic => Some(OnTheSpot::Beside(defender_king_zone(pos, self.attacker))),
            Variant::ThreeCheck if pos.remaining_checks().is_some_and(|r| u32::from(r[self.attacker]) == 1) => {
                Some(OnTheSpot::Check)
            }
            _ => None,
        }
    }
}

/// A variant's numbers depend on the position alone: nothing is learned as it searches.
impl Know<shakmaty::variant::VariantPosition> for VariantGuide {
    fn reach(root: &shakmaty::variant::VariantPosition) -> Reach {
        reach(root.variant())
    }

    fn begin_call(&mut self, _root: &shakmaty::Board, _limits: super::SearchLimits) {}

    fn learn_mate(&mut self, _best: MoveCode) {}
}

/// The attacker's moves that may win on the spot in one position ([`VariantGuide::on_the_spot`]).
#[derive(Clone, Copy, Debug)]
pub enum OnTheSpot {
    /// A king step onto the hill (king of the hill).
    Hill,
    /// A capture on one of these squares, the defending king's and its neighbours'
    /// (atomic: the explosion takes the king).
    Beside(Bitboard),
    /// A check, the last one three-check needs.
    Check,
}

impl OnTheSpot {
    /// Whether the attacker's legal move `m` from `pos` may win on the spot. A filter
    /// only: the solver plays a candidate to confirm its win.
    pub fn admits(self, pos: &VariantPosition, m: Move) -> bool {
        match self {
            OnTheSpot::Hill => m.role() == shakmaty::Role::King && CENTRE.contains(m.to()),
            OnTheSpot::Beside(zone) => m.is_capture() && zone.contains(m.to()),
            OnTheSpot::Check => may_check(pos, m),
        }
    }
}

/// Whether the mover's legal move `m` may give check: the moved (or dropped, or promoted)
/// man attacks the king from its square, or it leaves a line through the king (a
/// discovered check); castling and en passant always qualify.
fn may_check(pos: &VariantPosition, m: Move) -> bool {
    let mover = pos.turn();
    let Some(king) = pos.board().king_of(!mover) else { return false };
    let occupied = pos.board().occupied();
    match m {
        Move::Normal { role, from, to, promotion, .. } => {
            let piece = shakmaty::Piece { color: mover, role: promotion.unwrap_or(role) };
            attacks::attacks(to, piece, occupied.without(from).with(to)).contains(king)
                || attacks::queen_attacks(king, Bitboard::EMPTY).contains(from)
        }
        Move::Put { role, to } => {
            attacks::attacks(to, shakmaty::Piece { color: mover, role }, occupied.with(to)).contains(king)
        }
        Move::EnPassant { .. } | Move::Castle { .. } => true,
    }
}

/// King steps from `side`'s king to the nearest square of `goal` (None without a king).
fn king_steps_to(pos: &VariantPosition, side: Color, goal: Bitboard) -> Option<u32> {
    let king = pos.board().king_of(side)?;
    goal.into_iter().map(|sq: Square| king.distance(sq)).min()
}

/// The defending king's square and its neighbours: where a capture by `attacker` in
/// atomic explodes the king.
fn defender_king_zone(pos: &VariantPosition, attacker: Color) -> Bitboard {
    pos.board().king_of(!attacker).map_or(Bitboard::EMPTY, |k| attacks::king_attacks(k).with(k))
}

/// Whether the man that `attacker` dropped or moved attacks the defending king's zone
/// (a drop next to the king prepares a check).
fn gives_threat(pos: &VariantPosition, attacker: Color) -> bool {
    let zone = defender_king_zone(pos, attacker);
    let board = pos.board();
    board.by_color(attacker).into_iter().any(|sq| (board.attacks_from(sq) & zone).any())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::game::parse_variant_fen;

    #[test]
    fn a_king_step_towards_the_goal_starts_lower_than_one_away() {
        let guide = VariantGuide::new(Variant::KingOfTheHill, Color::White);
        let p = parse_variant_fen(Variant::KingOfTheHill, "7k/8/8/8/8/2K5/8/8 w - - 0 1").unwrap();
        let number = |uci: &str| {
            let m = uci.parse::<shakmaty::uci::UciMove>().unwrap().to_move(&p).unwrap();
            let mut child = p.clone();
            child.play_unchecked(m);
            guide.attacker_move(&p, m, &child, child.legal_moves().len()).1
        };
        assert!(number("c3d3") < number("c3b3"));
        let racing = VariantGuide::new(Variant::RacingKings, Color::White);
        let p = parse_variant_fen(Variant::RacingKings, "8/8/8/8/8/8/k7/6K1 w - - 0 1").unwrap();
        let up = "g1g2".parse::<shakmaty::uci::UciMove>().unwrap().to_move(&p).unwrap();
        let side = "g1f1".parse::<shakmaty::uci::UciMove>().unwrap().to_move(&p).unwrap();
        let after = |m| {
            let mut c = p.clone();
            c.play_unchecked(m);
            c
        };
        let (cu, cs) = (after(up), after(side));
        assert!(
            racing.attacker_move(&p, up, &cu, cu.legal_moves().len()).1
                < racing.attacker_move(&p, side, &cs, cs.legal_moves().len()).1
        );
    }
}
