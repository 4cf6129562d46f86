//! The variant fallback: when nothing is proven, a legal and sensible move from a small
//! alpha-beta search (iterative deepening, captures searched out at the leaves) with
//! each variant's material and goal. Antichess values material inverted (giving men away
//! is the goal), crazyhouse counts the men in hand, king of the hill and racing kings
//! reward the king's way to its goal, three-check the checks given.

use std::time::{Duration, Instant};

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{Bitboard, Color, Move, MoveList, Position, Role};

use crate::chess::game::{Game, Standing};
use crate::dfpn::monitor::Control;

/// A score above every evaluation: a win in `n` plies scores `WIN - n`.
const WIN: i32 = 1_000_000;

/// The deepest iteration.
const MAX_DEPTH: u32 = 64;

/// How deep captures are searched out below the nominal depth.
const QUIESCENCE_PLIES: u32 = 8;

/// What the fallback chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantChoice {
    /// The move to play.
    pub best: Move,
    /// Its score from the side to move's view, in centipawns.
    pub score: i32,
    /// The deepest completed iteration.
    pub depth: u32,
}

/// Chooses a move for `pos` within `time` (and `max_depth`, if given), stopping early
/// when `control` says stop; None only when there is no legal move.
pub fn choose_variant_move(
    pos: &VariantPosition,
    allowed: &[Move],
    time: Duration,
    max_depth: Option<u32>,
    control: Option<&Control>,
) -> Option<VariantChoice> {
    let mut moves = pos.legal_moves();
    if !allowed.is_empty() {
        moves.retain(|m| allowed.contains(m));
    }
    let first = *moves.first()?;
    let mut searcher =
        Searcher { variant: pos.variant(), deadline: Instant::now() + time, control, nodes: 0, out_of_time: false };
    let mut choice = VariantChoice { best: first, score: 0, depth: 0 };
    let mut order: Vec<Move> = ordered(&moves, None);
    for depth in 1..=max_depth.unwrap_or(MAX_DEPTH).min(MAX_DEPTH) {
        let mut best: Option<(Move, i32)> = None;
        let mut alpha = -WIN - 1;
        for &m in &order {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let score = -searcher.negamax(&child, depth - 1, 1, -WIN - 1, -alpha);
            if searcher.out_of_time {
                break;
            }
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((m, score));
                alpha = alpha.max(score);
            }
        }
        if searcher.out_of_time {
            // A partial iteration counts only when its first move (the last best) was
            // searched and another beat it.
            if let Some((m, s)) = best.filter(|&(m, s)| m != choice.best && s > choice.score) {
                choice = VariantChoice { best: m, score: s, depth: choice.depth };
            }
            break;
        }
        let (m, s) = best.expect("a legal move was searched");
        choice = VariantChoice { best: m, score: s, depth };
        order = ordered(&moves, Some(m));
        if s.abs() >= WIN - MAX_DEPTH as i32 * 2 {
            break;
        }
    }
    Some(choice)
}

struct Searcher<'c> {
    variant: Variant,
    deadline: Instant,
    control: Option<&'c Control>,
    nodes: u64,
    out_of_time: bool,
}

impl Searcher<'_> {
    fn tick(&mut self) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024)
            && (Instant::now() >= self.deadline || self.control.is_some_and(|c| c.stopped()))
        {
            self.out_of_time = true;
        }
    }

    /// The score of a game that is over at `pos`, `ply` plies below the root.
    fn ended(&self, pos: &VariantPosition, moves: &MoveList, ply: u32) -> Option<i32> {
        let turn = pos.turn();
        match pos.standing(moves, turn) {
            Standing::Won => Some(WIN - ply as i32),
            Standing::Over if pos.standing(moves, !turn) == Standing::Won => Some(-WIN + ply as i32),
            Standing::Over => Some(0),
            Standing::Open => None,
        }
    }

    fn negamax(&mut self, pos: &VariantPosition, depth: u32, ply: u32, mut alpha: i32, beta: i32) -> i32 {
        self.tick();
        if self.out_of_time {
            return 0;
        }
        let moves = pos.legal_moves();
        if let Some(score) = self.ended(pos, &moves, ply) {
            return score;
        }
        if depth == 0 {
            return self.quiesce(pos, &moves, ply, QUIESCENCE_PLIES, alpha, beta);
        }
        let mut best = -WIN - 1;
        for m in ordered(&moves, None) {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let score = -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta || self.out_of_time {
                break;
            }
        }
        best
    }

    /// Captures searched out; the side to move may stand pat, except in antichess
    /// while it must capture.
    fn quiesce(
        &mut self,
        pos: &VariantPosition,
        moves: &MoveList,
        ply: u32,
        left: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let forced = self.variant == Variant::Antichess && moves.iter().any(|m| m.is_capture());
        let mut best = -WIN - 1;
        if !forced {
            let stand = evaluate(pos);
            if stand >= beta || left == 0 {
                return stand;
            }
            best = stand;
            alpha = alpha.max(stand);
        } else if left == 0 {
            return evaluate(pos);
        }
        for m in ordered(moves, None).into_iter().filter(|m| m.is_capture() || m.is_promotion()) {
            self.tick();
            if self.out_of_time {
                return 0;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let replies = child.legal_moves();
            let score = match self.ended(&child, &replies, ply + 1) {
                Some(s) => -s,
                None => -self.quiesce(&child, &replies, ply + 1, left - 1, -beta, -alpha),
            };
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Moves in search order: `first`, then captures of the most valuable men by the least
/// valuable, promotions and drops, then the rest.
fn ordered(moves: &MoveList, first: Option<Move>) -> Vec<Move> {
    let mut order: Vec<Move> = moves.to_vec();
    let key = |m: &Move| {
        if Some(*m) == first {
            return i32::MIN;
        }
        let victim = m.capture().map_or(0, value);
        let promo = m.promotion().map_or(0, value);
        let drop = i32::from(matches!(m, Move::Put { .. })) * 50;
        -(10 * (victim + promo) - value(m.role()) / 10 + drop)
    };
    order.sort_by_key(key);
    order
}

/// A man's value in centipawns (the king's is not counted).
fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 300,
        Role::Bishop => 320,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// The material of `side` on the board and in hand.
fn material(pos: &VariantPosition, side: Color) -> i32 {
    let board = pos.board();
    let on_board: i32 = Role::ALL.iter().map(|&r| value(r) * (board.by_piece(r.of(side))).count() as i32).sum();
    let in_hand = pos.pockets().map_or(0, |p| Role::ALL.iter().map(|&r| value(r) * i32::from(p[side][r])).sum());
    on_board + in_hand
}

/// A static score of `pos` from the side to move's view, in centipawns.
pub fn evaluate(pos: &VariantPosition) -> i32 {
    let us = pos.turn();
    let board = pos.board();
    let balance = |f: &dyn Fn(Color) -> i32| f(us) - f(!us);
    let king_steps = |side: Color, goal: Bitboard| {
        board.king_of(side).map_or(8, |k| goal.into_iter().map(|s| k.distance(s)).min().unwrap_or(8) as i32)
    };
    match pos.variant() {
        // Fewer men is better: each man costs the same, whatever it is.
        Variant::Antichess => -balance(&|side| 100 * board.by_color(side).count() as i32),
        Variant::KingOfTheHill => balance(&|side| material(pos, side) - 60 * king_steps(side, Bitboard::CENTER)),
        Variant::RacingKings => balance(&|side| {
            let rank = board.king_of(side).map_or(0, |k| u32::from(k.rank()) as i32);
            material(pos, side) / 4 + 150 * rank
        }),
        Variant::ThreeCheck => balance(&|side| {
            let given = pos.remaining_checks().map_or(0, |r| 3 - i32::from(r[!side]));
            material(pos, side) + 400 * given * given
        }),
        _ => balance(&|side| material(pos, side)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::game::{VARIANT_NAMES, parse_variant_fen, variant_named};

    #[test]
    fn every_variant_gets_a_legal_move_from_its_start() {
        for variant in VARIANT_NAMES.map(|name| variant_named(name).unwrap()) {
            let pos = VariantPosition::new(variant);
            let c = choose_variant_move(&pos, &[], Duration::from_millis(200), Some(3), None).unwrap();
            assert!(pos.is_legal(c.best), "{variant:?}");
        }
    }

    #[test]
    fn the_fallback_takes_a_win_in_one_and_gives_men_away_in_antichess() {
        let koth = parse_variant_fen(Variant::KingOfTheHill, "7k/8/8/8/8/2K5/8/8 w - - 0 1").unwrap();
        let c = choose_variant_move(&koth, &[], Duration::from_secs(5), Some(2), None).unwrap();
        assert_eq!(c.best.to(), shakmaty::Square::D4);
        // Antichess: White's rook can be taken on a1 or c1 only.
        let anti = parse_variant_fen(Variant::Antichess, "8/8/8/8/8/8/1p6/7R w - - 0 1").unwrap();
        let c = choose_variant_move(&anti, &[], Duration::from_secs(5), Some(3), None).unwrap();
        assert!([shakmaty::Square::A1, shakmaty::Square::C1].contains(&c.best.to()), "{c:?}");
    }
}
