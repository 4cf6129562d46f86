//! A search node: a position with its Zobrist hash.
//!
//! Inside the search, moves are played through [`Node`], which keeps the hash current
//! (incrementally where that is simple). Three places play moves without it, on purpose:
//! the mate-in-1 test and the evasion count of a check (`chess::checks`: they need no
//! hash and mostly only the board after the move), and the check detector, which plays
//! castling and en passant moves to test them. The replay of finished lines
//! (`verify`) hashes with shakmaty alone, independently of this code.

use crate::chess::checks::mates_by;
use crate::chess::game::{Game, Standing};
use crate::chess::movegen::legal_moves;
use shakmaty::{
    CastlingSide, Chess, Color, EnPassantMode, Move, MoveList, Position, Role, Square,
    zobrist::{Zobrist64, ZobristValue},
};

/// A position of game `G` (chess unless named) together with its Zobrist hash.
#[derive(Clone, Debug)]
pub struct Node<G: Game = Chess> {
    /// The position.
    pub pos: G,
    /// Zobrist hash of `pos` (shakmaty's, en passant square only when legal).
    pub hash: u64,
}

impl<G: Game> Node<G> {
    /// Wraps a position, hashing it from scratch.
    pub fn new(pos: G) -> Node<G> {
        let hash = pos.full_hash();
        Node { pos, hash }
    }

    /// The halfmove clock.
    #[inline]
    pub fn clock(&self) -> u32 {
        self.pos.halfmoves()
    }

    /// The hash of the position after `m` (from the move alone where that is simple, else
    /// after playing it).
    #[inline]
    pub fn child_hash(&self, m: Move) -> u64 {
        match self.pos.hash_after(self.hash, m) {
            Some(h) => h,
            None => self.play(m).hash,
        }
    }

    /// The node after legal move `m`.
    #[inline]
    pub fn play(&self, m: Move) -> Node<G> {
        let mut child = self.clone();
        child.apply(m);
        child
    }

    /// The node after legal move `m`, whose hash `hash` is known ([`Node::child_hash`]).
    #[inline]
    pub fn play_hashed_as(&self, m: Move, hash: u64) -> Node<G> {
        let mut child = self.clone();
        child.pos.play_unchecked(m);
        child.hash = hash;
        child
    }

    /// Plays legal move `m` on this node, in place. The search copies a node where it
    /// keeps the child: a node returned by value was copied once more, by a call of
    /// `memcpy` (a `Chess` is larger than the copies the compiler writes out inline).
    #[inline(always)]
    pub fn apply(&mut self, m: Move) {
        self.pos.play_hashed(&mut self.hash, m);
    }
}

impl Game for Chess {
    fn game_variant(&self) -> shakmaty::variant::Variant {
        shakmaty::variant::Variant::Chess
    }

    /// The hash after `m` computed incrementally, when that is simple: a normal move (king
    /// moves included, which shakmaty's own update leaves out) that touches no castling
    /// right and no en passant square. None otherwise.
    #[inline(always)]
    fn hash_after(&self, hash: u64, m: Move) -> Option<u64> {
        let Move::Normal { role, from, to, .. } = m else {
            return None;
        };
        let castles = self.castles();
        let turn = self.turn();
        if self.maybe_ep_square().is_some()
            || (role == Role::Pawn && from.distance(to) == 2)
            || castles.castling_rights().contains(from)
            || castles.castling_rights().contains(to)
            || (role == Role::King && castles.has_color(turn))
        {
            return None;
        }
        Some((Zobrist64(hash) ^ moved(turn, m)?).0)
    }

    #[inline(always)]
    fn play_hashed(&mut self, hash: &mut u64, m: Move) {
        match self.hash_after(*hash, m) {
            Some(h) => {
                self.play_unchecked(m);
                *hash = h;
            }
            None => play_slow(self, hash, m),
        }
    }

    #[inline]
    fn moves_into(&self, moves: &mut MoveList) {
        legal_moves(self, moves);
    }

    #[inline]
    fn resets_history(&self, m: Move) -> bool {
        m.is_zeroing()
    }

    #[inline]
    fn wins_by(&self, m: Move, _attacker: Color) -> bool {
        mates_by(self, m)
    }

    #[inline]
    fn standing(&self, moves: &MoveList, attacker: Color) -> Standing {
        if !moves.is_empty() {
            Standing::Open
        } else if self.is_check() && self.turn() != attacker {
            Standing::Won
        } else {
            Standing::Over
        }
    }
}

/// [`Game::play_hashed`] for the chess moves whose hash changes castling rights or the en
/// passant square: rare in a search, and kept out of its loop.
#[inline(never)]
fn play_slow(pos: &mut Chess, hash: &mut u64, m: Move) {
    let before = pos.clone();
    pos.play_unchecked(m);
    *hash = hash_after_slow(&before, *hash, m, pos);
}

/// The hash of `child`, the position after legal move `m` from `parent` (hashed `hash`):
/// the men the move takes away and puts down, and the castling rights and the legal en
/// passant square that differ (shakmaty recomputes every man for these moves).
fn hash_after_slow(parent: &Chess, hash: u64, m: Move, child: &Chess) -> u64 {
    let Some(moved) = moved(parent.turn(), m) else {
        return child.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
    };
    let mut h = Zobrist64(hash) ^ moved;
    let (before, after) = (parent.castles(), child.castles());
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if before.has(color, side) != after.has(color, side) {
                h ^= Zobrist64::zobrist_for_castling_right(color, side);
            }
        }
    }
    for ep in [parent.ep_square(EnPassantMode::Legal), child.ep_square(EnPassantMode::Legal)].into_iter().flatten() {
        h ^= Zobrist64::zobrist_for_en_passant_file(ep.file());
    }
    h.0
}

/// The change of the hash that `m`, played by `us`, makes to the men and the turn: the
/// men it takes from their squares and puts down (None for a drop, which chess has not).
#[inline(always)]
fn moved(us: Color, m: Move) -> Option<Zobrist64> {
    let piece = |sq, role: Role, color| Zobrist64::zobrist_for_piece(sq, role.of(color));
    let mut h = Zobrist64::zobrist_for_white_turn();
    match m {
        Move::Normal { role, from, capture, to, promotion } => {
            h ^= piece(from, role, us) ^ piece(to, promotion.unwrap_or(role), us);
            if let Some(captured) = capture {
                h ^= piece(to, captured, !us);
            }
        }
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            h ^= piece(from, Role::Pawn, us) ^ piece(to, Role::Pawn, us) ^ piece(captured, Role::Pawn, !us);
        }
        Move::Castle { king, rook } => {
            let side = if rook > king { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            h ^= piece(king, Role::King, us) ^ piece(rook, Role::Rook, us);
            h ^= piece(side.king_to(us), Role::King, us) ^ piece(side.rook_to(us), Role::Rook, us);
        }
        Move::Put { .. } => return None,
    }
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn check_walk(node: &Node, depth: u32) {
        for m in node.pos.legal_moves() {
            let child = node.play(m);
            assert_eq!(child.hash, Node::new(child.pos.clone()).hash, "{m:?}");
            assert_eq!(node.child_hash(m), child.hash);
            if depth > 1 {
                check_walk(&child, depth - 1);
            }
        }
    }

    #[test]
    fn incremental_hash_matches_full_hash() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "1r2k1r1/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        ] {
            for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
                // The Chess960 setups are not positions of standard chess.
                if let Ok(pos) = fen.parse::<Fen>().unwrap().into_position::<Chess>(mode) {
                    check_walk(&Node::new(pos), 3);
                }
            }
        }
    }
}
