//! A search node: a position with its Zobrist hash, and the table keys built from it.
//!
//! This is the only place inside the search that plays moves or hashes positions.
//!
//! Table keys. A verdict depends on more than the position:
//! - the attacker: "can White mate?" and "can Black mate?" are different questions about
//!   the same position, so the key of a search where Black attacks is xored with a constant;
//! - the halfmove clock, but only near the 50-move rule: a node with clock `c` and
//!   remaining bound `r` can meet the rule inside its subtree only when `c + r >= 99`
//!   (the defender may claim at clock 99 with a non-zeroing move, and any node at 100 is a
//!   draw). Such "clock-sensitive" nodes xor the exact clock into their key; all others
//!   share one clock-free key, and every node below a clock-free node is clock-free too.
//!   Results stored under either key are therefore true for every node that looks them up.
//!
//! Repetitions are not scored inside the bounded search: every path is at most `r` plies
//! long, so the search terminates, and a shortest mate never repeats a position (its
//! distance to mate strictly falls along the line). No path-dependent result exists, so
//! none can enter the table.

use shakmaty::{
    Chess, Color, EnPassantMode, Move, Position, Role,
    zobrist::{Zobrist64, ZobristValue},
};

use super::pndn::Plies;

const BLACK_ATTACKS: u64 = 0x6A09_E667_F3BC_C908;

/// The halfmove clock at which a defender to move may claim a draw with a non-zeroing move.
pub const CLAIM_CLOCK: u32 = 99;

#[inline]
fn clock_key(clock: u32) -> u64 {
    // splitmix64 of the clock: independent of the Zobrist tables.
    let mut z = u64::from(clock.min(200)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A position together with its Zobrist hash.
#[derive(Clone, Debug)]
pub struct Node {
    /// The position.
    pub pos: Chess,
    /// Zobrist hash of `pos` (shakmaty's, en passant square only when legal).
    pub hash: u64,
}

impl Node {
    /// Wraps a position, hashing it from scratch.
    pub fn new(pos: Chess) -> Node {
        let hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        Node { pos, hash }
    }

    /// The halfmove clock.
    #[inline]
    pub fn clock(&self) -> u32 {
        self.pos.halfmoves()
    }

    /// The hash after `m` computed incrementally, when that is simple: a normal move (king
    /// moves included, which shakmaty's own update leaves out) that touches no castling
    /// right and no en passant square. None otherwise.
    #[inline]
    fn incremental_hash(&self, m: Move) -> Option<u64> {
        let Move::Normal { role, from, capture, to, promotion } = m else {
            return None;
        };
        let castles = self.pos.castles();
        let turn = self.pos.turn();
        if self.pos.maybe_ep_square().is_some()
            || (role == Role::Pawn && from.distance(to) == 2)
            || castles.castling_rights().contains(from)
            || castles.castling_rights().contains(to)
            || (role == Role::King && castles.has_color(turn))
        {
            return None;
        }
        let mut h = Zobrist64(self.hash);
        h ^= Zobrist64::zobrist_for_white_turn();
        h ^= Zobrist64::zobrist_for_piece(from, role.of(turn));
        h ^= Zobrist64::zobrist_for_piece(to, promotion.unwrap_or(role).of(turn));
        if let Some(captured) = capture {
            h ^= Zobrist64::zobrist_for_piece(to, captured.of(!turn));
        }
        Some(h.0)
    }

    /// The hash of the position after `m` (incremental where simple, else from scratch
    /// after playing).
    #[inline]
    pub fn child_hash(&self, m: Move) -> u64 {
        match self.incremental_hash(m) {
            Some(h) => h,
            None => self.play(m).hash,
        }
    }

    /// The node after legal move `m`.
    #[inline]
    pub fn play(&self, m: Move) -> Node {
        let mut pos = self.pos.clone();
        let incremental = self.incremental_hash(m);
        pos.play_unchecked(m);
        let hash = match incremental {
            Some(h) => h,
            None => pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0,
        };
        Node { pos, hash }
    }

    /// The table key of this node in a search where `attacker` attacks with `bound` plies
    /// left. See the module documentation.
    #[inline]
    pub fn key(&self, attacker: Color, bound: Plies) -> u64 {
        table_key(self.hash, self.clock(), attacker, bound)
    }
}

/// The table key for a position hash, its halfmove clock, the attacker and the bound.
#[inline]
pub fn table_key(hash: u64, clock: u32, attacker: Color, bound: Plies) -> u64 {
    let mut key = hash;
    if attacker == Color::Black {
        key ^= BLACK_ATTACKS;
    }
    if clock + u32::from(bound) >= CLAIM_CLOCK {
        key ^= clock_key(clock);
    }
    key
}

/// The halfmove clock after `m` from a position with clock `clock`.
#[inline]
pub fn clock_after(clock: u32, m: Move) -> u32 {
    if m.is_zeroing() { 0 } else { clock + 1 }
}

/// Encodes a move in 16 bits: from (6), to (6), promotion role (3), castle flag (1).
/// 0 never encodes a legal move's code, so it means "none".
pub fn encode_move(m: Move) -> u16 {
    let (from, to) = match m {
        Move::Castle { king, rook } => (king, rook),
        Move::EnPassant { from, to } => (from, to),
        Move::Normal { from, to, .. } => (from, to),
        Move::Put { to, .. } => (to, to),
    };
    let promo = m.promotion().map_or(0u16, |r| r as u16);
    let castle = u16::from(m.is_castle());
    (u16::from(from) | (u16::from(to) << 6) | (promo << 12) | (castle << 15)).max(1)
}

/// Finds the legal move of `pos` with code `code`, if any.
pub fn decode_move(pos: &Chess, code: u16) -> Option<Move> {
    if code == 0 {
        return None;
    }
    pos.legal_moves().into_iter().find(|&m| encode_move(m) == code)
}

/// True when the side to move may claim a 50-move draw before moving: clock at 100, or
/// at 99 with a legal move that does not reset it (the claim python-chess and FIDE allow).
pub fn can_claim_fifty(pos: &Chess, moves: &[Move]) -> bool {
    let clock = pos.halfmoves();
    clock >= 100 || (clock >= CLAIM_CLOCK && moves.iter().any(|m| !m.is_zeroing()))
}

/// True when the side to move could never mate: shakmaty's insufficient material for
/// that colour (permanent: the attacker's material can only shrink).
pub fn cannot_mate(pos: &Chess, attacker: Color) -> bool {
    pos.has_insufficient_material(attacker)
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
        ] {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            check_walk(&Node::new(pos), 3);
        }
    }

    #[test]
    fn move_codes_round_trip() {
        let pos = Chess::default();
        for m in pos.legal_moves() {
            assert_eq!(decode_move(&pos, encode_move(m)), Some(m));
        }
    }

    #[test]
    fn keys_separate_attackers_and_clock_contexts() {
        let n = Node::new(Chess::default());
        assert_ne!(n.key(Color::White, 5), n.key(Color::Black, 5));
        assert_eq!(n.key(Color::White, 5), n.key(Color::White, 98), "clock 0 + 98 < 99");
        assert_ne!(n.key(Color::White, 5), n.key(Color::White, 99));
    }
}
