//! The tree of one question as the search and expansion read it: the table and its keys,
//! the question's rules (the attacker, a restricted root, the game's repetitions) and the
//! current call's settings.

use shakmaty::{Color, Move, MoveList};

use crate::chess::game::Game;
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::chess::rules::Repetitions;
use crate::dfpn::query::Keys;
use crate::dfpn::value::Value;
use crate::tt::TranspositionTable;

/// Whether a call's root moves are restricted to the caller's list (UCI `searchmoves`).
/// A restricted node's value answers a narrower question, so it is never stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootMoves {
    /// All legal moves.
    All,
    /// Only the solver's root move list (when it has one).
    Restricted,
}

/// How a call treats a position that repeats one earlier on the search path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cycles {
    /// Searched like any position: the bound ends the cycle. Every disproof is general.
    Search,
    /// Ended as a draw ([`Value::repetition`]): sound for proofs, since a shortest mate
    /// never repeats a position, and it spares long bounds from chasing perpetual checks
    /// to the end of the bound. Disproofs that rest on such a cut hold only on their path,
    /// so they are neither stored nor reported: a call that must disprove searches.
    Cut,
}

/// The question's tree.
pub struct Tree<'a> {
    /// The transposition table.
    pub tt: &'a TranspositionTable,
    /// Which table entry answers the question at a node.
    pub keys: Keys,
    /// The side that tries to mate.
    pub attacker: Color,
    /// Repetitions the defender may claim against the game history, if any.
    pub repetitions: Option<&'a Repetitions>,
    /// The moves of a restricted root (UCI searchmoves).
    pub root_moves: Option<&'a [Move]>,
    /// Whether the current call's root is the game's current position.
    pub at_game_root: bool,
    /// How the current call treats cycles.
    pub cycles: Cycles,
}

impl Tree<'_> {
    /// What the table knows of the entry `key` read with `bound` plies left.
    #[inline]
    pub fn known(&self, key: u64, bound: Plies) -> Option<Value> {
        self.tt.probe(key).and_then(|e| Value::from_entry(&e, bound))
    }

    /// Legal moves of a node into `moves`, restricted at a restricted root.
    #[inline]
    pub fn node_moves<G: Game>(&self, node: &Node<G>, root: RootMoves, moves: &mut MoveList) {
        node.pos.moves_into(moves);
        if root == RootMoves::Restricted
            && let Some(allowed) = self.root_moves
        {
            moves.retain(|m| allowed.contains(m));
        }
    }
}
