//! A chess problem as a game of the prover: a chess position under a stipulation.
//!
//! The stipulation changes only what the prover's [`Game`] and [`Expand`] say, never the
//! prover: which moves a side may make (a reflex side must mate in one when it can; the
//! side that waits out a series passes), when the game is won (the victim mated or
//! stalemated, on the last ply in help and series play), and whose nodes are OR nodes
//! (every node in help play). The prover's "attacker" is the side that moves first.
//!
//! A pass is written as a drop of the passing side's king on its own square
//! (`Move::Put`), a move orthodox chess never has. As in Popeye, a stipulation of n moves
//! is met in n moves or fewer (short solutions count), so the prover's bound "within r
//! plies" is the stipulation's length, and a position's value holds for every bound.

use std::num::NonZeroU32;

use shakmaty::variant::Variant;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    Bitboard, Board, ByColor, ByRole, Castles, Chess, Color, EnPassantMode, Move, MoveList, Outcome, Position,
    RemainingChecks, Role, Square,
};

use crate::chess::checks::{CheckInfo, legal_checks, mates_by};
use crate::chess::game::{Game, Standing};
use crate::chess::mate_len::Plies;
use crate::chess::movecode::MoveCode;
use crate::chess::movegen::legal_moves;
use crate::chess::node::Node;
use crate::chess::rules::clock_after;
use crate::dfpn::children::{Child, Expansion, MoveClass};
use crate::dfpn::expand::{Expand, Expander};
use crate::dfpn::pndn::PnDn;
use crate::dfpn::tree::{RootMoves, Tree};
use crate::dfpn::value::Value;
use crate::knowledge::{CHESS_REACH, Know, Reach, SearchLimits};
use crate::problem::reach::{self, Final, Moves};
use crate::problem::stipulation::{Goal, Play, Stipulation};
use crate::tt::Record;

/// What a pass changes in a position's key, for the bound's answers kept by key.
const PASS_KEY: u64 = 0x5a17_c0de_9e37_79b9;

/// The bound's steps after a pass: the test pays only where it fails soon.
const PASS_STEPS: u32 = 40;

/// A chess position under a stipulation.
#[derive(Clone, Debug)]
pub struct Problem {
    pub pos: Chess,
    pub stip: Stipulation,
    /// Where the victim's king must end, when the search is split by that square: a
    /// line that ends elsewhere is left to the search of its own square.
    pub target: Option<Square>,
}

/// The pass of `side`, whose king is on `king`.
pub fn pass_of(king: Square) -> Move {
    Move::Put { role: Role::King, to: king }
}

/// Whether `m` is a pass.
pub fn is_pass(m: Move) -> bool {
    matches!(m, Move::Put { .. })
}

impl Problem {
    pub fn new(pos: Chess, stip: Stipulation) -> Problem {
        Problem { pos, stip, target: None }
    }

    /// Whether the game has ended in the stipulation's goal, given the legal moves `real`.
    fn met(&self, real: &MoveList) -> bool {
        real.is_empty()
            && self.pos.turn() == self.stip.victim()
            && match self.stip.goal {
                Goal::Mate => self.pos.is_check(),
                Goal::Stalemate => !self.pos.is_check(),
            }
    }

    /// Whether `m`, legal here, ends the game in the stipulation's goal. A mate is read
    /// off the board; a stalemate needs the position played.
    fn reaches_goal(&self, m: Move) -> bool {
        if self.stip.goal == Goal::Mate {
            return self.pos.turn() != self.stip.victim() && mates_by(&self.pos, m);
        }
        let mut after = self.pos.clone();
        after.play_unchecked(m);
        let mut real = MoveList::new();
        legal_moves(&after, &mut real);
        Problem { pos: after, ..*self }.met(&real)
    }

    /// How the problem stands: won once the stipulation is met, over once it can no
    /// longer be (the game ended otherwise, or a side has no move the stipulation
    /// allows), open otherwise. A stalemate of the side that waits out a series does not
    /// end it (that side only passes), unless stalemate is the goal: then the wrong side
    /// is stalemated and the series is over.
    pub fn stands(&self) -> Standing {
        self.stands_with_moves(&mut MoveList::new())
    }

    /// How the problem stands, with the moves the stipulation allows put in `allowed`
    /// where it is open (filled in place: a move list is large to copy).
    fn stands_with_moves(&self, allowed: &mut MoveList) -> Standing {
        allowed.clear();
        legal_moves(&self.pos, allowed);
        // A side that waits out a series passes even where it has no move (stalemated),
        // unless a stalemate is the goal: then it was reached by the wrong side.
        let passing = self.stip.series_side().is_some_and(|s| s != self.pos.turn())
            && !self.pos.is_check()
            && !(allowed.is_empty() && self.stip.goal == Goal::Stalemate);
        if allowed.is_empty() && !passing {
            return if self.met(allowed) { Standing::Won } else { Standing::Over };
        }
        if self.stip.series_side().is_none() && !self.stip.reflex() {
            // Every legal move is allowed.
            return Standing::Open;
        }
        let real = allowed.clone();
        self.allowed_moves(&real, allowed);
        if allowed.is_empty() { Standing::Over } else { Standing::Open }
    }

    /// The exact value of an open position with one ply left, whose allowed moves are
    /// `moves`: won when one of them (an OR node) or every one (an AND node) meets the
    /// stipulation, with the move that settles it. Judged here, the last ply costs no
    /// node of its own.
    fn last_ply(&self, moves: &MoveList, or: bool) -> (Value, MoveCode) {
        // A pass never mates; a pass before a stalemate is judged by the rules.
        let meets = |m: Move| match self.stip.goal {
            Goal::Mate => !is_pass(m) && self.reaches_goal(m),
            Goal::Stalemate => {
                let mut after = self.clone();
                after.play_unchecked(m);
                after.stands() == Standing::Won
            }
        };
        let settles = moves.iter().copied().find(|&m| meets(m) == or);
        let won = settles.is_some() == or;
        let value = if won { Value::proven(Plies::new(1)) } else { Value::disproven(Plies::new(2)) };
        (value, settles.map_or(MoveCode::NONE, MoveCode::of))
    }

    /// Whether `turn`, to move, meets the goal only with a legal move that mates, any of
    /// its legal moves allowed: then only its checks need be looked at.
    fn mates_only_by_checks(&self, turn: Color) -> bool {
        self.stip.goal == Goal::Mate
            && !self.stip.reflex()
            && turn != self.stip.victim()
            && self.stip.series_side().is_none_or(|s| s == turn)
    }

    /// The moves the stipulation allows, from the legal moves `real`: in a series the
    /// other side passes (it cannot in check), and in a series helpmate it may instead
    /// end the series with a move that meets the goal; a reflex side that can mate in one
    /// must. Where stalemate is the goal, a pass that leaves the series side without a
    /// move is no move: the stalemate would come from no move of the other side.
    fn allowed_moves(&self, real: &MoveList, out: &mut MoveList) {
        out.clear();
        if let Some(series) = self.stip.series_side()
            && self.pos.turn() != series
        {
            if !self.pos.is_check()
                && let Some(king) = self.pos.board().king_of(self.pos.turn())
                && (self.stip.goal == Goal::Mate || self.series_side_moves_after_a_pass())
            {
                out.push(pass_of(king));
            }
            if self.stip.cooperative() {
                out.extend(real.iter().copied().filter(|&m| self.reaches_goal(m)));
            }
            return;
        }
        if self.stip.reflex() && real.iter().any(|&m| mates_by(&self.pos, m)) {
            out.extend(real.iter().copied().filter(|&m| mates_by(&self.pos, m)));
            return;
        }
        out.extend(real.iter().copied());
    }

    /// The moves each side may still make in `plies` plies from here (the other side's
    /// passes in a series are no moves), for the bound on the goal ([`reach`]).
    fn moves_left(&self, plies: u32) -> Moves {
        self.moves_left_with(self.pos.turn(), plies)
    }

    /// [`Problem::moves_left`] with `turn` to move.
    fn moves_left_with(&self, turn: Color, plies: u32) -> Moves {
        let (now, then) = (plies.div_ceil(2), plies / 2);
        let victim = self.stip.victim();
        let (mut mater, mut victims) = if turn == victim { (then, now) } else { (now, then) };
        match self.stip.play {
            Play::Series => victims = 0,
            Play::SeriesHelp => mater = mater.min(1),
            _ => {}
        }
        let clamp = |n: u32| n.min(u32::from(u8::MAX / 4)) as u8;
        Moves { mater: clamp(mater), victim: clamp(victims) }
    }

    /// Whether the goal may still be reached within `plies` plies: false only where no
    /// final position fits the moves left ([`reach`]).
    fn goal_in_reach(&self, plies: u32) -> bool {
        let goal = Final { victim: self.stip.victim(), mate: self.stip.goal == Goal::Mate, king: self.target };
        reach::reachable(&self.pos, goal, self.moves_left(plies))
    }

    /// Whether the victim's king, where the search is split by its final square, can still
    /// get there within `plies` after the legal move `m`: a king step covers one square,
    /// castling is left to the full bound ([`reach`]). Asked before `m` is played, so that
    /// a move that takes the king out of reach costs no node.
    fn king_in_reach_after(&self, m: Move, plies: u32) -> bool {
        let Some(k) = self.target else { return true };
        let victim = self.stip.victim();
        let Some(king) = self.pos.board().king_of(victim) else { return true };
        if self.pos.castles().has_color(victim) {
            return true;
        }
        let moved = self.pos.turn() == victim && !is_pass(m) && m.role() == Role::King;
        let king = if moved { m.to() } else { king };
        // Every move, a pass included, hands the turn over.
        king == k || king.distance(k) <= u32::from(self.moves_left_with(!self.pos.turn(), plies).victim)
    }

    /// Whether, the victim to move in a search split by its king's final square, no final
    /// position is in reach after a pass ([`reach`], with the moves left after the
    /// victim's move): then only a move of the king, or one that brings its man nearer to
    /// holding a flight ([`reach::nearer_to_hold`]), may lead to the goal. Returns the
    /// square and the victim's moves left after its move, where that holds.
    fn pass_out_of_reach(&self, hash: u64, plies: u32) -> Option<(Square, u8)> {
        let k = self.target?;
        let victim = self.stip.victim();
        let applies = plies >= 2
            && self.stip.goal == Goal::Mate
            && matches!(self.stip.play, Play::Help | Play::SeriesHelp)
            && self.pos.turn() == victim
            && !self.pos.is_check();
        if !applies {
            return None;
        }
        let moves = self.moves_left_with(!victim, plies - 1);
        // A king with no move to spare must move: the king test leaves nothing else.
        let king = self.pos.board().king_of(victim)?;
        if king.distance(k) > u32::from(moves.victim) && !self.pos.castles().has_color(victim) {
            return None;
        }
        let goal = Final { victim, mate: true, king: Some(k) };
        // Asked again at each visit of the node: kept under the key of the pass.
        let fits = reach::recent(hash ^ PASS_KEY, goal, moves, || {
            self.pos
                .clone()
                .swap_turn()
                .is_ok_and(|passed| reach::reachable_after_pass(&passed, goal, moves, PASS_STEPS))
        });
        (!fits).then_some((k, moves.victim))
    }

    /// The squares where the victim's king may end a line that meets the goal within
    /// `plies` ([`reach`]); all of them where the bound gives up.
    pub fn final_king_squares(&self, plies: u32) -> Vec<Square> {
        let (victim, mate) = (self.stip.victim(), self.stip.goal == Goal::Mate);
        Square::ALL
            .into_iter()
            .filter(|&k| reach::reachable(&self.pos, Final { victim, mate, king: Some(k) }, self.moves_left(plies)))
            .collect()
    }

    /// Whether the series side has a legal move once the side to move (out of check)
    /// passes.
    fn series_side_moves_after_a_pass(&self) -> bool {
        let Ok(after) = self.pos.clone().swap_turn() else { return false };
        let mut moves = MoveList::new();
        legal_moves(&after, &mut moves);
        !moves.is_empty()
    }
}

impl Position for Problem {
    fn board(&self) -> &Board {
        self.pos.board()
    }
    fn promoted(&self) -> Bitboard {
        self.pos.promoted()
    }
    fn pockets(&self) -> Option<&ByColor<ByRole<u8>>> {
        None
    }
    fn turn(&self) -> Color {
        self.pos.turn()
    }
    fn castles(&self) -> &Castles {
        self.pos.castles()
    }
    fn maybe_ep_square(&self) -> Option<Square> {
        self.pos.maybe_ep_square()
    }
    fn remaining_checks(&self) -> Option<&ByColor<RemainingChecks>> {
        None
    }
    fn halfmoves(&self) -> u32 {
        self.pos.halfmoves()
    }
    fn fullmoves(&self) -> NonZeroU32 {
        self.pos.fullmoves()
    }
    fn legal_moves(&self) -> MoveList {
        let mut real = MoveList::new();
        legal_moves(&self.pos, &mut real);
        let mut out = MoveList::new();
        self.allowed_moves(&real, &mut out);
        out
    }
    fn is_variant_end(&self) -> bool {
        false
    }
    fn has_insufficient_material(&self, color: Color) -> bool {
        self.pos.has_insufficient_material(color)
    }
    fn variant_outcome(&self) -> Outcome {
        Outcome::Unknown
    }
    fn play_unchecked(&mut self, m: Move) {
        if is_pass(m) {
            let pos = std::mem::take(&mut self.pos);
            self.pos = pos.swap_turn().expect("a pass is allowed only out of check");
        } else {
            self.pos.play_unchecked(m);
        }
    }
}

impl Game for Problem {
    fn game_variant(&self) -> Variant {
        Variant::Chess
    }

    /// The stipulation's play and goal: one position asks another question under each.
    fn salt(&self) -> u64 {
        let target = self.target.map_or(0, |k| u64::from(k) + 1);
        let code = (self.stip.play as u64 * 2 + self.stip.goal as u64 + 1) | target << 8;
        code.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
    }

    fn full_hash(&self) -> u64 {
        self.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
    }

    fn hash_after(&self, hash: u64, m: Move) -> Option<u64> {
        if is_pass(m) { None } else { self.pos.hash_after(hash, m) }
    }

    fn play_hashed(&mut self, hash: &mut u64, m: Move) {
        match self.hash_after(*hash, m) {
            Some(h) => {
                self.play_unchecked(m);
                *hash = h;
            }
            None => {
                self.play_unchecked(m);
                *hash = self.full_hash();
            }
        }
    }

    fn resets_history(&self, m: Move) -> bool {
        !is_pass(m) && m.is_zeroing()
    }

    fn standing(&self, _moves: &MoveList, _attacker: Color) -> Standing {
        self.stands()
    }

    /// A problem knows no draw by rule: its length is its stipulation's.
    fn rule_draws(&self, _moves: &MoveList, _attacker: Color) -> bool {
        false
    }

    fn wins_on_either_move(&self) -> bool {
        true
    }

    fn or_node(&self, attacker: Color) -> bool {
        self.stip.cooperative() || self.turn() == attacker
    }

    fn or_after(&self, or: bool) -> bool {
        self.stip.cooperative() || !or
    }
}

/// A child's value from the table, or lost within its `within` plies where no final
/// position fits the moves left ([`reach`]; stored, as the last ply's values are); None
/// where neither settles it.
fn judged_by_bound(tree: &Tree<'_>, pos: &Problem, key: u64, within: Plies) -> Option<Value> {
    if let Some(known) = tree.known(key, within) {
        return Some(known);
    }
    if pos.goal_in_reach(u32::from(within.get())) {
        return None;
    }
    Some(stored(tree, key, within, Value::disproven(within.succ()), MoveCode::NONE))
}

/// `value`, settled without a search of its own for a child of `within` plies, stored
/// under `key` (a node's children are judged again at each visit).
fn stored(tree: &Tree<'_>, key: u64, within: Plies, value: Value, best: MoveCode) -> Value {
    let record = Record { bound: within, pn: value.pn.0, dn: value.dn.0, mate: value.mate, work: 0, best };
    tree.tt.store(key, &record);
    value
}

/// A problem's solver knows nothing beyond the rules and the stipulation.
pub struct Rules;

impl Know<Problem> for Rules {
    fn reach(_root: &Problem) -> Reach {
        CHESS_REACH
    }

    fn begin_call(&mut self, _root: &Board, _limits: SearchLimits) {}
    fn learn_mate(&mut self, _best: MoveCode) {}
}

impl Expand for Problem {
    type Knowledge<'t> = Rules;
    type Oracle = ();
    const DEFENDER_LEAF: u32 = 0;

    fn knowledge(_root: &Problem, _attacker: Color, _oracle: &()) -> Rules {
        Rules
    }

    /// A node's children, each played and judged by the stipulation, or the node's value
    /// when a child decides it.
    fn expand(
        e: &mut Expander<'_, '_, Self>,
        node: &Node<Self>,
        r: Plies,
        or: bool,
        _ply: usize,
        root: RootMoves,
        children: &mut Vec<Child>,
    ) -> Expansion {
        let decided = |v| Expansion::Decided(v, MoveCode::NONE);
        match node.pos.stands() {
            Standing::Won => return decided(Value::proven(Plies::ZERO)),
            Standing::Over => return decided(Value::disproven(Plies::INFINITE)),
            Standing::Open => {}
        }
        if r == Plies::ZERO {
            return decided(Value::disproven(Plies::new(1)));
        }
        let mut moves = MoveList::new();
        e.tree.node_moves(node, root, &mut moves);
        let within = r.pred();
        let keys = e.tree.keys;
        let child_or = node.pos.or_after(or);
        let mut replies = MoveList::new();
        let pass_fails = node.pos.pass_out_of_reach(node.hash, u32::from(r.get()));
        // The last ply of the side that mates: only a check can mate, and only checks are
        // generated (a side with no move at all has no mate either). Cheaper than a table
        // probe, so nothing is stored.
        let last_checks = within == Plies::new(1) && child_or && node.pos.mates_only_by_checks(!node.pos.turn());
        // The moves not played, and the keys of the others, their table entries fetched
        // ahead of their probes.
        let mut unplayed = [false; 256];
        let mut hashes = [0u64; 256];
        for (i, &m) in moves.iter().enumerate() {
            // Where a pass leaves the goal out of reach, a move that brings no man of the
            // victim nearer to a flight leaves it out of reach as well.
            let off = pass_fails.is_some_and(|(k, budget)| match m.from() {
                Some(from) if m.role() != Role::King => {
                    let role = m.promotion().unwrap_or(m.role());
                    !reach::nearer_to_hold(&node.pos.pos, k, from, m.to(), role, budget)
                }
                _ => false,
            });
            unplayed[i] = off || (within > Plies::ZERO && !node.pos.king_in_reach_after(m, u32::from(within.get())));
            if !unplayed[i] && !last_checks {
                hashes[i] = node.child_hash(m);
                e.tree.tt.prefetch(keys.key(hashes[i], clock_after(node.clock(), m), within));
            }
        }
        for (i, &m) in moves.iter().enumerate() {
            if unplayed[i] {
                // The king cannot get to the square this search is fixed to, or the move
                // leaves the goal as far out of reach as a pass: no line from here ends
                // there. The move is not played (its key is made if ever asked).
                children.push(Child {
                    mv: m,
                    key: 0,
                    value: Value::disproven(within.succ()),
                    class: MoveClass::Quiet,
                    probed: true,
                });
                continue;
            }
            // Played with its hash made above, unless the key is not needed.
            let child = if last_checks { node.play(m) } else { node.play_hashed_as(m, hashes[i]) };
            let key = keys.of(&child, within);
            e.monitor.count(1);
            // In a search fixed to a final king square most children fail the bound: it
            // is asked first there, and their moves are never generated.
            let bound_first = within > Plies::new(1) && child.pos.target.is_some();
            let judged = if bound_first { judged_by_bound(e.tree, &child.pos, key, within) } else { None };
            let value = match judged {
                Some(value) => value,
                None if last_checks => {
                    legal_checks(&child.pos.pos, &CheckInfo::new(&child.pos.pos), &mut replies);
                    child.pos.last_ply(&replies, child_or).0
                }
                None => match child.pos.stands_with_moves(&mut replies) {
                    Standing::Won => Value::proven(Plies::ZERO),
                    Standing::Over => Value::disproven(Plies::INFINITE),
                    Standing::Open if within == Plies::ZERO => Value::disproven(Plies::new(1)),
                    Standing::Open if within == Plies::new(1) => e.tree.known(key, within).unwrap_or_else(|| {
                        let (value, best) = child.pos.last_ply(&replies, child_or);
                        stored(e.tree, key, within, value, best)
                    }),
                    Standing::Open => {
                        let judged = if bound_first { None } else { judged_by_bound(e.tree, &child.pos, key, within) };
                        judged.unwrap_or_else(|| {
                            // The child's moves: all must fail where it is an OR node, all
                            // must succeed where it is an AND node.
                            let replies = replies.len().max(1) as u32;
                            if child_or {
                                Value::open(PnDn::ONE, PnDn(replies))
                            } else {
                                Value::open(PnDn(replies), PnDn::ONE)
                            }
                        })
                    }
                },
            };
            if or && value.is_proven() && value.mate.at_most == Plies::ZERO {
                return Expansion::Decided(Value::proven(Plies::new(1)), MoveCode::of(m));
            }
            if !or && value.is_disproven() && !value.path_dependent {
                return Expansion::Decided(Value::disproven(value.mate.at_least.succ()), MoveCode::of(m));
            }
            let class = if child.pos.is_check() {
                MoveClass::Check
            } else if m.is_capture() || m.is_promotion() {
                MoveClass::Tactical
            } else {
                MoveClass::Quiet
            };
            children.push(Child { mv: m, key, value, class, probed: true });
        }
        if children.is_empty() {
            return decided(Value::disproven(Plies::INFINITE));
        }
        children.sort_by_key(|c| c.class);
        Expansion::Open
    }
}
