//! Table keys: which table entry answers the question asked at a node.
//!
//! A verdict depends on more than the position:
//! - the attacker: "can White mate?" and "can Black mate?" are different questions about
//!   the same position, so the key of a search where Black attacks is xored with a
//!   constant;
//! - the halfmove clock, but only near the 50-move rule: a node with clock `c` and
//!   remaining bound `r` can meet the rule inside its subtree only when `c + r >= 99`
//!   (the defender may claim at clock 99 with a non-zeroing move, and any node at 100 is
//!   a draw). Such "clock-sensitive" nodes xor the exact clock into their key; all others
//!   share one clock-free key, and every node below a clock-free node is clock-free too.
//!
//! - the game history, when it holds positions the defender may claim as repetitions
//!   (see `repetition`): every key of such a search is xored with a salt of those
//!   positions.
//!
//! Results stored under any key are therefore true for every node that looks them up.
//! Every key the search uses is built here, by [`Keys`].

use shakmaty::{Color, Move};

use crate::chess::game::Game;
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::chess::rules::{CLAIM_CLOCK, clock_after};

const BLACK_ATTACKS: u64 = 0x6A09_E667_F3BC_C908;

#[inline]
fn clock_key(clock: u32) -> u64 {
    // splitmix64 of the clock: independent of the Zobrist tables.
    let mut z = u64::from(clock.min(200)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Builds the table keys of one search (one attacker).
#[derive(Clone, Copy, Debug)]
pub struct Keys {
    salt: u64,
}

impl Keys {
    /// The keys of a search in which `attacker` tries to mate, under a salt of the game
    /// and its history's repetitions (0: chess, none).
    pub fn new(attacker: Color, history_salt: u64) -> Keys {
        Keys { salt: history_salt ^ if attacker == Color::Black { BLACK_ATTACKS } else { 0 } }
    }

    /// The key for a position with Zobrist hash `hash` and halfmove clock `clock`, asked
    /// with `bound` plies left.
    #[inline]
    pub fn key(&self, hash: u64, clock: u32, bound: Plies) -> u64 {
        let mut key = hash ^ self.salt;
        if clock.saturating_add(u32::from(bound.get())) >= CLAIM_CLOCK {
            key ^= clock_key(clock);
        }
        key
    }

    /// The key of `node` asked with `bound` plies left.
    #[inline]
    pub fn of<G: Game>(&self, node: &Node<G>, bound: Plies) -> u64 {
        self.key(node.hash, node.clock(), bound)
    }

    /// The key of the child of `node` after legal move `m`, asked with `bound` plies left,
    /// without playing the move where the hash can be updated incrementally.
    #[inline(always)]
    pub fn of_child<G: Game>(&self, node: &Node<G>, m: Move, bound: Plies) -> u64 {
        self.key(node.child_hash(m), clock_after(node.clock(), m), bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    #[test]
    fn keys_separate_attackers_and_clock_contexts() {
        let n = Node::new(Chess::default());
        let (white, black) = (Keys::new(Color::White, 0), Keys::new(Color::Black, 0));
        assert_ne!(white.of(&n, Plies::new(5)), black.of(&n, Plies::new(5)));
        assert_eq!(white.of(&n, Plies::new(5)), white.of(&n, Plies::new(98)), "clock 0 + 98 < 99");
        assert_ne!(white.of(&n, Plies::new(5)), white.of(&n, Plies::new(99)));
        assert_ne!(white.of(&n, Plies::new(5)), Keys::new(Color::White, 12345).of(&n, Plies::new(5)));
    }

    #[test]
    fn child_keys_match_the_played_child() {
        let n = Node::new(Chess::default());
        let keys = Keys::new(Color::White, 0);
        for m in shakmaty::Position::legal_moves(&n.pos) {
            assert_eq!(keys.of_child(&n, m, Plies::new(120)), keys.of(&n.play(m), Plies::new(120)));
        }
    }
}
