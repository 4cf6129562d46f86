//! The fallback move chooser: a small alpha-beta search used when no mate is proven, so
//! that a game goes on sensibly and in time. It claims nothing: its scores are
//! evaluations, never reported as mates.
//!
//! What it knows: material, a little mobility, and how to win basic endings: with a
//! large material edge and no enemy pawns it drives the enemy king to the edge (to a
//! corner of the bishop's colour with bishop and knight) and brings its own king close.
//! It scores any repetition of a game position, or of one on its own path, as a draw, and
//! a position where the 50-move rule applies as a draw, so a winning side keeps making
//! progress instead of repeating. It polls the stop flag and its deadline every few
//! hundred nodes.

use std::time::{Duration, Instant};

use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Move, Position, Role, Square, zobrist::Zobrist64};

use crate::search::monitor::Control;

/// The score of a mate in 0 (from the mated side's view, negated).
const MATE: i32 = 100_000;

/// Scores beyond this are mates found by the fallback (never reported as proven).
pub const MATE_BOUND: i32 = MATE - 1000;

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

/// How far `sq` is from the centre, 0 (centre) to 3 (edge).
fn edge_closeness(sq: Square) -> i32 {
    let f = i32::from(sq.file() as u8);
    let r = i32::from(sq.rank() as u8);
    (f - 3).max(4 - f).max((r - 3).max(4 - r)) - 1
}

fn distance(a: Square, b: Square) -> i32 {
    a.distance(b) as i32
}

/// The mop-up term for `strong`: push the lone (or outgunned, pawnless) enemy king to the
/// edge, or with bishop and knight to a corner of the bishop's colour, and bring the own
/// king close. Zero when the ending is not of that kind.
fn mop_up(pos: &Chess, strong: Color, material_edge: i32) -> i32 {
    let board = pos.board();
    let weak = !strong;
    if material_edge < 400 || (board.pawns() & board.by_color(weak)).any() || pos.has_insufficient_material(strong) {
        return 0;
    }
    let (Some(sk), Some(wk)) = (board.king_of(strong), board.king_of(weak)) else { return 0 };
    let ours = board.by_color(strong);
    let bishops = board.bishops() & ours;
    let knights = board.knights() & ours;
    let lone_bn = bishops.count() == 1 && knights.count() == 1 && (ours & !board.kings()).count() == 2;
    let push = if lone_bn {
        // The corners the bishop's colour can mate in.
        let dark = bishops.first().is_some_and(|b| Bitboard::DARK_SQUARES.contains(b));
        let corners: [Square; 2] = if dark { [Square::A1, Square::H8] } else { [Square::H1, Square::A8] };
        let d = corners.iter().map(|&c| distance(wk, c)).min().unwrap_or(7);
        10 * edge_closeness(wk) + 25 * (7 - d)
    } else {
        30 * edge_closeness(wk)
    };
    200 + push + 10 * (7 - distance(sk, wk))
}

/// Static evaluation from the side to move's view: material, a little mobility, mop-up.
fn evaluate(pos: &Chess, mobility: usize) -> i32 {
    let board = pos.board();
    let mut white = 0;
    for (_, piece) in board.iter() {
        let v = piece_value(piece.role);
        white += if piece.color == Color::White { v } else { -v };
    }
    let mut score = white + mop_up(pos, Color::White, white) - mop_up(pos, Color::Black, -white);
    if pos.turn() == Color::Black {
        score = -score;
    }
    score + 2 * mobility as i32
}

fn hash(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// What the fallback found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The move to play.
    pub best: Move,
    /// The expected reply, when the last completed depth had one.
    pub ponder: Option<Move>,
    /// The evaluation in centipawns from the side to move's view (beyond
    /// [`MATE_BOUND`]: a mate the fallback saw, unproven).
    pub score: i32,
    /// The last completed depth (plies).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
}

struct Fallback<'a> {
    deadline: Instant,
    control: Option<&'a Control>,
    /// Nodes the search had counted before the fallback started (for progress reports).
    base_nodes: u64,
    nodes: u64,
    out_of_time: bool,
    /// Hashes of the game before the root and of the current path (root included).
    seen: Vec<u64>,
    killers: Vec<[Option<Move>; 2]>,
    pv: Vec<Vec<Move>>,
    /// The principal variation of the last completed depth, searched first.
    prev_pv: Vec<Move>,
}

impl Fallback<'_> {
    fn time_up(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(256) {
            if let Some(control) = self.control {
                control.publish_nodes(self.base_nodes + self.nodes);
            }
            if Instant::now() >= self.deadline || self.control.is_some_and(Control::stopped) {
                self.out_of_time = true;
            }
        }
        self.out_of_time
    }

    fn quiesce(&mut self, pos: &Chess, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() { -MATE + ply } else { 0 };
        }
        let stand = evaluate(pos, moves.len());
        if stand >= beta || ply > 60 || self.time_up() {
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

    fn order(&self, moves: &mut [Move], ply: usize, first: Option<Move>) {
        let killers = self.killers.get(ply).copied().unwrap_or_default();
        moves.sort_by_key(|&m| {
            if Some(m) == first {
                return i32::MIN;
            }
            let tactical = m.capture().map_or(0, piece_value) * 10 + m.promotion().map_or(0, piece_value)
                - if m.is_capture() { piece_value(m.role()) / 10 } else { 0 };
            let killer = if killers.contains(&Some(m)) { 50 } else { 0 };
            -(tactical + killer)
        });
    }

    fn search(&mut self, pos: &Chess, depth: u32, mut alpha: i32, beta: i32, ply: usize, on_pv: bool) -> i32 {
        let p = ply as i32;
        if self.pv.len() <= ply {
            self.pv.resize_with(ply + 1, Vec::new);
            self.killers.resize(ply + 1, [None; 2]);
        }
        self.pv[ply].clear();
        let h = hash(pos);
        if ply > 0 && self.seen.contains(&h) {
            return 0; // a repetition: draw
        }
        let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        if moves.is_empty() {
            return if pos.is_check() { -MATE + p } else { 0 };
        }
        if pos.halfmoves() >= 100 {
            return 0;
        }
        if depth == 0 {
            return self.quiesce(pos, alpha, beta, p);
        }
        if self.time_up() {
            return alpha;
        }
        let first = if on_pv { self.prev_pv.get(ply).copied() } else { None };
        self.order(&mut moves, ply, first);
        self.seen.push(h);
        let mut best = -MATE - 1;
        for m in moves {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let score = -self.search(&after, depth - 1, -beta, -alpha, ply + 1, on_pv && Some(m) == first);
            if self.out_of_time {
                break;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                let tail = std::mem::take(&mut self.pv[ply + 1]);
                self.pv[ply].clear();
                self.pv[ply].push(m);
                self.pv[ply].extend_from_slice(&tail);
                self.pv[ply + 1] = tail;
            }
            if alpha >= beta {
                if !m.is_capture() {
                    let k = &mut self.killers[ply];
                    if k[0] != Some(m) {
                        k[1] = k[0];
                        k[0] = Some(m);
                    }
                }
                break;
            }
        }
        self.seen.pop();
        best
    }
}

/// Chooses a legal move by iterative deepening within `time` and `max_depth` plies (at
/// least one full depth-1 pass, so the result is always a considered legal move), ending
/// early when `control` says stop. `history` holds the game's earlier positions (hashes,
/// oldest first, since the last pawn move or capture): repeating one scores as a draw.
/// `allowed`, when not empty, restricts the root moves. None only when there is no legal
/// (allowed) move.
pub fn choose_move(
    pos: &Chess,
    allowed: &[Move],
    history: &[u64],
    time: Duration,
    max_depth: u32,
    control: Option<&Control>,
) -> Option<Choice> {
    let mut root: Vec<Move> =
        pos.legal_moves().into_iter().filter(|m| allowed.is_empty() || allowed.contains(m)).collect();
    if root.is_empty() {
        return None;
    }
    let mut seen = history.to_vec();
    seen.push(hash(pos));
    let mut f = Fallback {
        deadline: Instant::now() + time,
        control,
        base_nodes: control.map_or(0, |c| c.progress().nodes),
        nodes: 0,
        out_of_time: false,
        seen,
        killers: Vec::new(),
        pv: vec![Vec::new(); 2],
        prev_pv: Vec::new(),
    };
    let mut choice = Choice { best: root[0], ponder: None, score: 0, depth: 0, nodes: 0 };
    for depth in 1..=max_depth.max(1) {
        if let Some(c) = control {
            c.publish_depth(depth, depth);
        }
        let mut alpha = -MATE - 1;
        let mut depth_best: Option<(Move, i32, Vec<Move>)> = None;
        for &m in &root {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let on_pv = f.prev_pv.first() == Some(&m);
            let score = -f.search(&after, depth - 1, -MATE - 1, -alpha, 1, on_pv);
            if f.out_of_time && depth > 1 {
                break;
            }
            if score > alpha {
                alpha = score;
                let mut line = vec![m];
                line.extend_from_slice(&f.pv[1]);
                depth_best = Some((m, score, line));
            }
        }
        if f.out_of_time && depth > 1 {
            break;
        }
        if let Some((m, score, line)) = depth_best {
            choice = Choice { best: m, ponder: line.get(1).copied(), score, depth, nodes: f.nodes };
            f.prev_pv = line;
            // Search the best move first next time.
            if let Some(i) = root.iter().position(|&r| r == m) {
                root[..=i].rotate_right(1);
            }
            if score.abs() > MATE_BOUND {
                break; // a forced mate (or loss) seen: deeper search will not change the move
            }
        }
        if f.out_of_time {
            break;
        }
    }
    choice.nodes = f.nodes;
    Some(choice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{parse_fen, uci};

    fn best(fen: &str, history: &[u64], ms: u64, depth: u32) -> String {
        let pos = parse_fen(fen).unwrap();
        uci(choose_move(&pos, &[], history, Duration::from_millis(ms), depth, None).unwrap().best)
    }

    #[test]
    fn takes_a_free_queen_and_respects_searchmoves() {
        assert_eq!(best("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", &[], 200, 4), "d1d5");
        let pos = parse_fen("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1").unwrap();
        let only: Vec<Move> = pos.legal_moves().into_iter().filter(|m| uci(*m) == "e1f2").collect();
        let c = choose_move(&pos, &only, &[], Duration::from_millis(50), 4, None).unwrap();
        assert_eq!(uci(c.best), "e1f2");
    }

    #[test]
    fn no_move_when_mated() {
        let pos = parse_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1").unwrap();
        assert_eq!(choose_move(&pos, &[], &[], Duration::from_millis(10), 3, None), None);
    }

    #[test]
    fn a_stop_ends_it_at_once() {
        let pos = parse_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
        let control = Control::new();
        control.stop();
        let started = Instant::now();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(30), 64, Some(&control)).unwrap();
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        assert!(pos.legal_moves().contains(&c.best));
    }

    #[test]
    fn a_winning_side_does_not_repeat_the_game() {
        // KQ v K. Whatever the fallback plays here, put the position after that move into
        // the game's history: asked again, it must find another move that still wins.
        let pos = parse_fen("4k3/8/8/8/8/8/8/3QK3 w - - 6 20").unwrap();
        let first = choose_move(&pos, &[], &[], Duration::from_secs(10), 3, None).unwrap();
        let mut after = pos.clone();
        after.play_unchecked(first.best);
        let again = choose_move(&pos, &[], &[hash(&after)], Duration::from_secs(10), 3, None).unwrap();
        assert_ne!(again.best, first.best, "repeats a game position");
        assert!(again.score > 500, "{again:?}");
    }

    #[test]
    fn drives_a_lone_king_to_the_edge() {
        let pos = parse_fen("8/8/8/3k4/8/8/8/R3K3 w - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_millis(300), 4, None).unwrap();
        assert!(c.score > 500, "{c:?}");
        let mut after = pos.clone();
        after.play_unchecked(c.best);
        let push = |p: &Chess| mop_up(p, Color::White, 500);
        assert!(push(&after) >= push(&pos) - 30, "{} lets the king escape", uci(c.best));
    }
}
