//! The fallback move chooser: a small alpha-beta search on material and mobility, used
//! when no mate is proven so that a game goes on sensibly and in time. It claims
//! nothing: its scores are never reported as mates.

use std::time::{Duration, Instant};

use shakmaty::{Chess, Move, Position, Role};

const MATE: i32 = 100_000;

fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 310,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King => 0,
    }
}

/// Static evaluation from the side to move's view: material plus a little mobility.
fn evaluate(pos: &Chess, mobility: usize) -> i32 {
    let board = pos.board();
    let mut score = 0;
    for (_, piece) in board.iter() {
        let v = piece_value(piece.role);
        score += if piece.color == pos.turn() { v } else { -v };
    }
    score + 2 * mobility as i32
}

struct Fallback {
    deadline: Instant,
    nodes: u64,
    out_of_time: bool,
}

impl Fallback {
    fn time_up(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024) && Instant::now() >= self.deadline {
            self.out_of_time = true;
        }
        self.out_of_time
    }

    fn quiesce(&mut self, pos: &Chess, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() { -MATE + ply } else { 0 };
        }
        let stand = evaluate(pos, moves.len());
        if stand >= beta || ply > 40 || self.time_up() {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut captures: Vec<Move> = moves.into_iter().filter(|m| m.is_capture() || m.is_promotion()).collect();
        captures.sort_by_key(|m| -(m.capture().map_or(0, piece_value) * 10 - piece_value(m.role()) / 10));
        for m in captures {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let score = -self.quiesce(&after, -beta, -alpha, ply + 1);
            if score >= beta {
                return score;
            }
            alpha = alpha.max(score);
        }
        alpha
    }

    fn search(&mut self, pos: &Chess, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        if depth == 0 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        if moves.is_empty() {
            return if pos.is_check() { -MATE + ply } else { 0 };
        }
        if pos.halfmoves() >= 100 || self.time_up() {
            return 0;
        }
        moves.sort_by_key(|m| -(m.capture().map_or(0, piece_value) + m.promotion().map_or(0, piece_value)));
        let mut best = -MATE - 1;
        for m in moves {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let score = -self.search(&after, depth - 1, -beta, -alpha, ply + 1);
            if self.out_of_time {
                return best.max(score);
            }
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Chooses a legal move by iterative deepening within `time` (at least one full
/// depth-1 pass, so the result is always a considered legal move). `allowed`, when not
/// empty, restricts the root moves. None only when there is no legal (allowed) move.
pub fn choose_move(pos: &Chess, allowed: &[Move], time: Duration, max_depth: u32) -> Option<Move> {
    let mut root: Vec<Move> =
        pos.legal_moves().into_iter().filter(|m| allowed.is_empty() || allowed.contains(m)).collect();
    if root.is_empty() {
        return None;
    }
    let mut f = Fallback { deadline: Instant::now() + time, nodes: 0, out_of_time: false };
    let mut best = root[0];
    for depth in 1..=max_depth.max(1) {
        let mut alpha = -MATE - 1;
        let mut depth_best = None;
        for &m in &root {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let score = -f.search(&after, depth - 1, -MATE - 1, -alpha, 1);
            if f.out_of_time && depth > 1 {
                break;
            }
            if score > alpha {
                alpha = score;
                depth_best = Some(m);
            }
        }
        if f.out_of_time && depth > 1 {
            break;
        }
        if let Some(m) = depth_best {
            best = m;
            // Search the best move first next time.
            if let Some(i) = root.iter().position(|&r| r == m) {
                root[..=i].rotate_right(1);
            }
        }
        if f.out_of_time {
            break;
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{parse_fen, uci};

    #[test]
    fn takes_a_free_queen_and_respects_searchmoves() {
        let pos = parse_fen("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1").unwrap();
        let m = choose_move(&pos, &[], Duration::from_millis(200), 4).unwrap();
        assert_eq!(uci(m), "d1d5");
        let only: Vec<Move> = pos.legal_moves().into_iter().filter(|m| uci(*m) == "e1f2").collect();
        assert_eq!(uci(choose_move(&pos, &only, Duration::from_millis(50), 4).unwrap()), "e1f2");
    }

    #[test]
    fn no_move_when_mated() {
        let pos = parse_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1").unwrap();
        assert_eq!(choose_move(&pos, &[], Duration::from_millis(10), 3), None);
    }
}
