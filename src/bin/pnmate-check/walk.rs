//! One section, checked top-down by the rules of its game: every node's position is
//! played from the root, each node is judged by the rules, and the values are then
//! computed children first (FORMAT.md, "Sections").

use shakmaty::{CastlingMode, EnPassantMode, Move, MoveList, Position, Setup, fen::Fen, zobrist::Zobrist64};

use crate::Invalid;
use crate::broken::Broken;
use crate::reader::{Nodes, Reader, read_nodes};
use crate::shape::Shape;

/// A disproof value: the attacker never wins from here.
pub const NEVER: u32 = u32::MAX;

/// How a node's value starts, before its children.
#[derive(Clone, Copy)]
pub enum Base {
    /// Proof: the goal is met here (0 plies to it).
    Met,
    /// Proof: one plus the child's plies (one move given) or the largest child's (all).
    Inner,
    /// Disproof: the attacker can never win from here.
    Never,
    /// Disproof: a tablebase leaf, probed by the rules.
    Table,
    /// Disproof: a leaf, the attacker cannot win within this many plies.
    Leaf(u32),
    /// Disproof: one plus the smallest child's value (all moves answered) or the one
    /// listed reply's.
    Min,
}

/// What the rules say of one node: how its value starts, and the moves its edges may
/// list (each at most once).
pub struct Judged {
    pub base: Base,
    pub moves: MoveList,
}

/// The rules a section is checked by.
pub trait Rules {
    type Pos: Position + Clone;

    /// Judges a node at `pos` that lists `listed` edges (`table_leaf`: announced as a
    /// tablebase leaf); Err says why the node breaks the rules.
    fn judge(&self, pos: &Self::Pos, listed: usize, table_leaf: bool) -> Result<Judged, Broken>;

    /// The position after `m`, one of the moves the node was judged to allow.
    fn play(&self, pos: &Self::Pos, m: Move) -> Self::Pos;

    /// What the allowed moves are called in a reason ("legal", "allowed").
    fn moves_are(&self) -> &'static str;
}

/// A position as the rules see it: everything but the move number (board, side to
/// move, castling rights, en passant square when legal, halfmove clock, and a variant's
/// pockets, promoted men and check counters).
fn identity<P: Position + Clone>(pos: &P) -> Setup {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.fullmoves = std::num::NonZeroU32::MIN;
    setup
}

/// Checks one section read from `r` by `rules` from `root` and returns its root's value:
/// plies to the goal (proof) or plies within which the attacker cannot reach it
/// (disproof). `tablebases`: the header announces tablebase leaves.
pub fn walk<R: Rules>(
    r: &mut Reader,
    root: &R::Pos,
    shape: &Shape,
    rules: &R,
    tablebases: bool,
) -> Result<u32, Invalid> {
    let n = shape.nodes;
    let Nodes { hashes, starts, edges, table_leaves } = read_nodes(r, shape, tablebases)?;
    // Top-down: every node's position from its parents (all of which come after it).
    let mut positions: Vec<Option<R::Pos>> = vec![None; n];
    positions[n - 1] = Some(root.clone());
    let mut bases = vec![Base::Inner; n];
    for i in (0..n).rev() {
        let pos = positions[i].take().ok_or_else(|| Invalid::Node { node: i, fen: None, why: Broken::Unreached })?;
        if pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0 != hashes[i] {
            return Err(Invalid::Node { node: i, fen: None, why: Broken::HashMismatch });
        }
        let at = |why: Broken| Invalid::Node {
            node: i,
            fen: Some(Fen::from_position(&pos, EnPassantMode::Legal).to_string()),
            why,
        };
        let mine = &edges[starts[i]..starts[i + 1]];
        let judged = rules.judge(&pos, mine.len(), table_leaves.binary_search(&i).is_ok()).map_err(at)?;
        bases[i] = judged.base;
        if matches!(judged.base, Base::Met | Base::Never | Base::Table) && !mine.is_empty() {
            return Err(at(Broken::FinalListsMoves));
        }
        for (m, child) in listed_moves(mine, &judged.moves, rules.moves_are(), i).map_err(at)? {
            let after = rules.play(&pos, m);
            match &positions[child] {
                None => positions[child] = Some(after),
                Some(known) if identity(known) == identity(&after) => {}
                Some(_) => return Err(at(Broken::TwoPositions { child })),
            }
        }
    }
    Ok(values_of(&bases, &starts, &edges)[n - 1])
}

/// The values of a section's nodes, children first, from each one's base.
fn values_of(bases: &[Base], starts: &[usize], edges: &[(u16, u32)]) -> Vec<u32> {
    let mut values = vec![0u32; bases.len()];
    for i in 0..bases.len() {
        let children = edges[starts[i]..starts[i + 1]].iter().map(|&(_, c)| values[c as usize]);
        values[i] = match bases[i] {
            Base::Met => 0,
            Base::Never | Base::Table => NEVER,
            Base::Leaf(v) => v,
            Base::Inner => children.max().expect("inner nodes have children").saturating_add(1),
            Base::Min => children.min().expect("inner nodes have children").saturating_add(1),
        };
    }
    values
}

/// Node `i`'s listed edges as (move, child): each code one of `moves` (the `what` ones:
/// legal or allowed), none twice, and each child listed before the node.
fn listed_moves(
    mine: &[(u16, u32)],
    moves: &[Move],
    what: &'static str,
    i: usize,
) -> Result<Vec<(Move, usize)>, Broken> {
    let mut out: Vec<(Move, usize)> = Vec::with_capacity(mine.len());
    for &(c, child) in mine {
        let m = *moves.iter().find(|m| code(m) == c).ok_or(Broken::NotAMove { code: c, what })?;
        if out.iter().any(|(seen, _)| code(seen) == c) {
            return Err(Broken::ListedTwice { uci: m.to_uci(CastlingMode::Standard).to_string() });
        }
        let child = child as usize;
        if child >= i {
            return Err(Broken::ChildNotBefore { child });
        }
        out.push((m, child));
    }
    Ok(out)
}

/// The code of a move (FORMAT.md, "Moves").
fn code(m: &Move) -> u16 {
    let (from, to, promotion) = match *m {
        Move::Normal { from, to, promotion, .. } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        Move::Castle { king, rook } => (king, rook, None),
        Move::Put { role, to } => (to, to, Some(role)),
    };
    u16::from(from) | (u16::from(to) << 6) | (promotion.map_or(0, |r| r as u16) << 12)
}
