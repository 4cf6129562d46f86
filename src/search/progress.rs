//! Progress knowledge for quiet endgame mates: initial proof numbers in the spirit of
//! df-pn+ (Nagai), where a check is not at hand and df-pn would otherwise treat every
//! quiet move alike.
//!
//! In positions with few men, most mates are driven by the attacking king and pieces
//! pushing the defending king to the edge and into a corner. A child whose defending
//! king stands nearer the centre, or whose kings stand further apart, starts with a
//! larger proof number, so the search tries the moves that make progress first. These
//! numbers only order the search: proofs and disproofs are exactly what they were.

use shakmaty::{Color, Move, Position, Role, Square};

use super::node::Node;

/// Positions with at most this many men (kings included) use the progress numbers.
pub const MAX_MEN: usize = 6;

/// The kings after a move, as the progress numbers see them.
#[derive(Clone, Copy, Debug)]
pub struct Kings {
    /// The attacker's king.
    pub attacker: Square,
    /// The defender's king.
    pub defender: Square,
}

impl Kings {
    /// The kings of `node`, when it is a few-men position in which both sides have a king.
    pub fn of(node: &Node, attacker: Color) -> Option<Kings> {
        let board = node.pos.board();
        if board.occupied().count() > MAX_MEN {
            return None;
        }
        Some(Kings { attacker: board.king_of(attacker)?, defender: board.king_of(!attacker)? })
    }

    /// The kings after `m` is played.
    #[inline]
    pub fn after(self, m: Move) -> Kings {
        if m.role() != Role::King {
            return self;
        }
        // Castling moves the king too, but never in the endgames this serves.
        let to = m.to();
        if m.from() == Some(self.attacker) { Kings { attacker: to, ..self } } else { Kings { defender: to, ..self } }
    }

    /// How far the defending king is from being mated, in rough units: its distance from
    /// the nearest corner plus how far the attacking king stands from it.
    #[inline]
    pub fn distance(self) -> u32 {
        corner_distance(self.defender) + self.attacker.distance(self.defender)
    }
}

/// Steps from `sq` to the nearest corner along the board's edge (0 in a corner, 6 in
/// the centre).
#[inline]
fn corner_distance(sq: Square) -> u32 {
    let file = u32::from(sq.file());
    let rank = u32::from(sq.rank());
    file.min(7 - file) + rank.min(7 - rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_edges_and_centre() {
        assert_eq!(corner_distance(Square::A1), 0);
        assert_eq!(corner_distance(Square::H8), 0);
        assert_eq!(corner_distance(Square::A4), 3);
        assert_eq!(corner_distance(Square::E4), 6);
        let kings = Kings { attacker: Square::C3, defender: Square::A1 };
        assert_eq!(kings.distance(), 2);
    }
}
