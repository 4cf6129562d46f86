//! The fallback's search: iterative deepening principal variation search over its table,
//! with a quiescence of captures.

use std::time::{Duration, Instant};

use rustc_hash::FxHashSet;
use shakmaty::{Color, Move, MoveList};

use super::game::AlphaBeta;
use super::table::{Bound, MATE, MATE_BOUND, ScoreTable, Slot, from_table, to_table};
use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use crate::chess::rules::FIFTY_MOVES;
use crate::dfpn::monitor::Control;
use crate::knowledge::piece_value;
use crate::limits::DEFAULT_FALLBACK_DEPTH;

/// Sorts `moves` by ascending `key`, stably, without allocating: the keys are computed
/// once each into a stack array, and the lists are short (an insertion sort).
fn sort_moves(moves: &mut MoveList, mut key: impl FnMut(Move) -> i32) {
    let mut keys = [0i32; 256];
    for (k, &m) in keys.iter_mut().zip(moves.iter()) {
        *k = key(m);
    }
    for i in 1..moves.len() {
        let mut j = i;
        while j > 0 && keys[j - 1] > keys[j] {
            keys.swap(j - 1, j);
            moves.swap(j - 1, j);
            j -= 1;
        }
    }
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
    table: &'a mut ScoreTable,
    deadline: Instant,
    control: Option<&'a Control>,
    /// Nodes the search had counted before the fallback started (for progress reports).
    base_nodes: u64,
    nodes: u64,
    /// Nodes below which neither the deadline nor `stop` ends the search: the first pass
    /// gets to finish (see [`FIRST_PASS_NODES`]).
    floor: u64,
    out_of_time: bool,
    /// Hashes of the game's positions before the root.
    game: FxHashSet<u64>,
    /// Hashes of the positions on the current path, the root first.
    path: Vec<u64>,
    /// Two quiet moves per ply that caused cut-offs, newest first (from, to, promotion).
    killers: Vec<[MoveCode; 2]>,
    /// The ply of the null move on the current path, if any.
    last_null: Option<usize>,
    /// Quiet moves that caused cut-offs, by side, from and to square (more for deeper cuts).
    history: Box<[[[i32; 64]; 64]; 2]>,
    pv: Vec<Vec<Move>>,
    /// The principal variation of the last completed depth, searched first.
    prev_pv: Vec<Move>,
}

impl Fallback<'_> {
    /// Whether the position with hash `h`, `halfmoves` plies after the last capture or
    /// pawn move, repeats one of the game or of the path (only the last `halfmoves`
    /// plies of the path, with the same side to move, can hold it).
    fn repeats(&self, h: u64, halfmoves: u32) -> bool {
        let reach = (halfmoves as usize).min(self.path.len());
        self.path[self.path.len() - reach..].iter().rev().skip(1).step_by(2).any(|&p| p == h) || self.game.contains(&h)
    }

    fn time_up(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(256) {
            if let Some(control) = self.control {
                control.publish_nodes(self.base_nodes + self.nodes);
            }
            if self.nodes >= self.floor
                && (Instant::now() >= self.deadline || self.control.is_some_and(Control::stopped))
            {
                self.out_of_time = true;
            }
        }
        self.out_of_time
    }

    /// The quiescence search: stand pat and captures (and promotions), or every evasion
    /// in check. The legal moves are generated in full only where the game's
    /// [`AlphaBeta::leaf_captures`] gives none (chess: [`needs_full_moves`]); `checks` as
    /// in [`Listed::Legal`].
    fn quiesce<G: AlphaBeta>(&mut self, pos: &G, alpha: i32, beta: i32, ply: i32, checks: bool) -> i32 {
        match pos.leaf_captures() {
            Some(mut captures) => self.quiesce_with(pos, &mut captures, Listed::Captures, alpha, beta, ply),
            None => self.quiesce_with(pos, &mut pos.legal_moves(), Listed::Legal { checks }, alpha, beta, ply),
        }
    }

    /// [`Fallback::quiesce`] with `moves`, which hold what `listed` says. The list is
    /// borrowed, not moved: a move list is a few kilobytes, and copying one at every leaf
    /// showed in profiles.
    fn quiesce_with<G: AlphaBeta>(
        &mut self,
        pos: &G,
        moves: &mut MoveList,
        listed: Listed,
        mut alpha: i32,
        beta: i32,
        ply: i32,
    ) -> i32 {
        let legal = listed != Listed::Captures;
        let checks = listed == Listed::Legal { checks: true };
        if let Some(end) = pos.end_for_mover(moves).filter(|_| legal) {
            return end_score(end, ply);
        }
        // In check (in antichess, with a capture pending), every move is searched and
        // standing pat is no option: a check at the horizon that skewers or forks (a rook
        // check that wins the queen next move) is seen.
        let in_check = legal && pos.must_move(moves) && ply <= 60;
        let stand = pos.evaluate();
        if (!in_check && (stand >= beta || ply > 60)) || self.time_up() {
            return stand;
        }
        if !in_check {
            alpha = alpha.max(stand);
        }
        if legal {
            moves.retain(|m| in_check || checks || m.is_capture() || m.is_promotion());
        }
        sort_moves(moves, |m| -(m.capture().map_or(0, piece_value) * 10 - piece_value(m.role()) / 10));
        let mut best = if in_check { -MATE + ply } else { alpha };
        for &m in moves.iter() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            if checks && !in_check && !m.is_capture() && !m.is_promotion() && !after.is_check() {
                continue;
            }
            let score = -self.quiesce(&after, -beta, -alpha, ply + 1, false);
            if score >= beta {
                return score;
            }
            alpha = alpha.max(score);
            best = best.max(score);
        }
        best
    }

    fn history_of(&self, turn: Color, m: Move) -> i32 {
        let from = m.from().map_or(0, usize::from);
        self.history[turn as usize][from][usize::from(m.to())] / 64
    }

    fn reward(&mut self, turn: Color, m: Move, depth: u32) {
        let from = m.from().map_or(0, usize::from);
        let h = &mut self.history[turn as usize][from][usize::from(m.to())];
        *h = (*h + (depth * depth) as i32).min(1 << 20);
    }

    fn order(&self, moves: &mut MoveList, ply: usize, first: Option<Move>, stored: MoveCode, turn: Color) {
        let killers = self.killers.get(ply).copied().unwrap_or_default();
        let first = first.map_or(MoveCode::NONE, MoveCode::of);
        sort_moves(moves, |m| {
            let code = MoveCode::of(m);
            if code == first {
                return i32::MIN;
            }
            if code == stored {
                return i32::MIN + 1;
            }
            let tactical = m.capture().map_or(0, piece_value) * 10 + m.promotion().map_or(0, piece_value)
                - if m.is_capture() { piece_value(m.role()) / 10 } else { 0 };
            let quiet = if m.is_capture() || m.is_promotion() {
                0
            } else if code == killers[0] || code == killers[1] {
                50
            } else {
                self.history_of(turn, m).min(40)
            };
            -(tactical + quiet)
        });
    }

    /// Null-move pruning: when the side to move, at least level in material and with a
    /// piece to move, stands at or above `beta` and still does after passing and a
    /// shallower search, the node is cut. Never twice in a row, never on the principal
    /// variation or in check, and never for the side behind in material, whose passes
    /// would hide the zugzwangs the winning side needs (K+Q v K+R). `eval` is the node's
    /// static evaluation, None on the principal variation and in check.
    fn null_move<G: AlphaBeta>(
        &mut self,
        pos: &G,
        eval: Option<i32>,
        depth: u32,
        beta: i32,
        ply: usize,
    ) -> Option<i32> {
        let eval = eval?;
        if depth < 3 || ply == 0 || self.last_null == Some(ply - 1) || beta.abs() > MATE_BOUND {
            return None;
        }
        if eval < beta {
            return None;
        }
        let passed = Node::new(pos.passed()?);
        let saved = self.last_null.replace(ply);
        let score = -self.search(&passed, depth - 3 - depth / 6, -beta, -beta + 1, ply + 1, false);
        self.last_null = saved;
        (score >= beta && !self.out_of_time).then_some(beta)
    }

    fn search<G: AlphaBeta>(
        &mut self,
        node: &Node<G>,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        on_pv: bool,
    ) -> i32 {
        let p = ply as i32;
        let pos = &node.pos;
        if self.pv.len() <= ply {
            self.pv.resize_with(ply + 1, Vec::new);
            self.killers.resize(ply + 1, [MoveCode::NONE; 2]);
        }
        self.pv[ply].clear();
        let h = node.hash;
        if ply > 0 && self.repeats(h, pos.halfmoves()) {
            return 0; // a repetition: draw
        }
        let in_check = pos.is_check();
        if depth == 0 && !in_check {
            // A leaf out of check: no mate here, and the quiescence generates only what
            // it needs.
            return if pos.halfmoves() >= FIFTY_MOVES {
                0
            } else {
                self.quiesce(pos, alpha, beta, p, pos.quiescence_checks())
            };
        }
        let mut moves = pos.legal_moves();
        if let Some(end) = pos.end_for_mover(&moves) {
            return end_score(end, p);
        }
        if pos.halfmoves() >= FIFTY_MOVES {
            return 0;
        }
        // A check with at most two replies costs no depth: such forcing lines decide
        // endings and mates, and they branch little (every check would: in an ending
        // with a queen or rook each side checks half the time).
        let forced = in_check && moves.len() <= 2;
        let depth = if forced && ply < 2 * DEFAULT_FALLBACK_DEPTH as usize { depth + 1 } else { depth };
        if depth == 0 {
            let listed = Listed::Legal { checks: pos.quiescence_checks() };
            return self.quiesce_with(pos, &mut moves, listed, alpha, beta, p);
        }
        if self.time_up() {
            return alpha;
        }
        let stored = self.table.probe(h);
        if let Some(slot) = stored.filter(|s| !on_pv && u32::from(s.depth) >= depth) {
            let score = from_table(slot.score, p);
            let usable = match slot.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return score;
            }
        }
        // The static evaluation, once, where reverse futility and the null move may use
        // it: off the principal variation and out of check.
        let eval = (!in_check && !on_pv).then(|| pos.evaluate());
        // Reverse futility: such a node whose evaluation stands far enough above beta is
        // cut without a search.
        if let Some(eval) = eval
            && let Some(step) = pos.futility_step()
            && depth <= 5
            && beta.abs() < MATE_BOUND
            && eval - step * depth as i32 >= beta
        {
            return eval;
        }
        self.path.push(h);
        if let Some(score) = self.null_move(pos, eval, depth, beta, ply) {
            self.path.pop();
            return score;
        }
        // Late quiet moves near the leaves are pruned only for a side not behind in
        // material: the side behind is the one whose late quiet moves hold its draws
        // (the move that repeats a position, the rook that leaves its king).
        let may_prune = !on_pv && depth <= 4 && pos.material_edge() >= 0;
        let first = if on_pv { self.prev_pv.get(ply).copied() } else { None };
        self.order(&mut moves, ply, first, stored.map_or(MoveCode::NONE, |s| s.best), pos.turn());
        let alpha_in = alpha;
        let mut best = -MATE - 1;
        let mut best_move = MoveCode::NONE;
        for (i, &m) in moves.iter().enumerate() {
            let after = node.play(m);
            let child_on_pv = on_pv && Some(m) == first;
            // Principal variation search: the first move with the full window, the others
            // with a null window (late quiet moves also a ply shallower), re-searched in
            // full only when they beat alpha.
            let score = if i == 0 {
                -self.search(&after, depth - 1, -beta, -alpha, ply + 1, child_on_pv)
            } else {
                let quiet = !m.is_capture() && !m.is_promotion() && !in_check && !after.pos.is_check();
                // Pruned only once a searched move escapes a mate: a node whose pruned
                // moves were its only defence would score as a mate it is not.
                if quiet && may_prune && i as u32 >= 3 + depth * depth && best > -MATE_BOUND {
                    continue;
                }
                let reduction =
                    if quiet && depth >= 3 && i >= 2 { late_move_reduction(depth, i).min(depth - 2) } else { 0 };
                let mut score = -self.search(&after, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, child_on_pv);
                if score > alpha && reduction > 0 && !self.out_of_time {
                    score = -self.search(&after, depth - 1, -alpha - 1, -alpha, ply + 1, child_on_pv);
                }
                if score > alpha && score < beta && !self.out_of_time {
                    score = -self.search(&after, depth - 1, -beta, -alpha, ply + 1, child_on_pv);
                }
                score
            };
            if self.out_of_time {
                break;
            }
            if score > best {
                best = score;
                best_move = MoveCode::of(m);
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
                    self.reward(pos.turn(), m, depth);
                    let (code, k) = (MoveCode::of(m), &mut self.killers[ply]);
                    if k[0] != code {
                        k[1] = k[0];
                        k[0] = code;
                    }
                }
                break;
            }
        }
        self.path.pop();
        if !self.out_of_time {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_in {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let depth = depth.min(u32::from(u8::MAX)) as u8;
            self.table.store(h, Slot { key: h, score: to_table(best, p), best: best_move, depth, bound });
        }
        best
    }
}

/// What a quiescence node's move list holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listed {
    /// Only the captures of the game's [`AlphaBeta::leaf_captures`]: the node is taken to
    /// go on, and to be free to stand pat.
    Captures,
    /// Every legal move; with `checks`, quiet checks are searched beside the captures
    /// (the game's [`AlphaBeta::quiescence_checks`], at the quiescence's first ply).
    Legal { checks: bool },
}

/// The score of a game that ended `ply` plies below the root, from the side to move's
/// view: `end` is 1 won, -1 lost, 0 drawn.
fn end_score(end: i32, ply: i32) -> i32 {
    end * (MATE - ply)
}

/// How many plies a late quiet move is searched shallower: about ln(depth) ln(index) / 2.
fn late_move_reduction(depth: u32, index: usize) -> u32 {
    let r = 0.5 + (depth as f64).ln() * (index as f64).ln() / 2.0;
    r as u32
}

/// Nodes the first pass (one ply and its quiescence) may take whatever the deadline or a
/// `stop` say: cut off, it scored the moves after its first few hundred nodes by their
/// static evaluation alone, blind to a mate in one or a piece left en prise (the test
/// `the_first_pass_ends_whatever_the_clock_says`). A pass takes a few hundred nodes,
/// well under a millisecond; the cap keeps a pathological one within about 20 ms.
const FIRST_PASS_NODES: u64 = 20_000;

/// Chooses a legal move by iterative deepening within `time` and `max_depth` plies (at
/// least one full depth-1 pass, so the result is always a considered legal move), ending
/// early when `control` says stop. `history` holds the game's earlier positions (hashes,
/// oldest first, since the last pawn move or capture): repeating one scores as a draw.
/// `allowed`, when not empty, restricts the root moves. None only when there is no legal
/// (allowed) move.
pub fn choose_move<G: AlphaBeta>(
    pos: &G,
    allowed: &[Move],
    history: &[u64],
    time: Duration,
    max_depth: u32,
    control: Option<&Control>,
    table: Option<&mut ScoreTable>,
) -> Option<Choice> {
    let mut fresh = ScoreTable::new();
    let table = table.unwrap_or(&mut fresh);
    table.reserve(time);
    let mut root: Vec<Move> =
        pos.legal_moves().into_iter().filter(|m| allowed.is_empty() || allowed.contains(m)).collect();
    if root.is_empty() {
        return None;
    }
    let root_node = Node::new(pos.clone());
    // The best move a kept table knows for this position (the last move's search saw it
    // as a grandchild, or the same position was searched before) goes first.
    if let Some(known) = table.probe(root_node.hash).and_then(|s| s.best.decode(pos))
        && let Some(i) = root.iter().position(|&m| m == known)
    {
        root[..=i].rotate_right(1);
    }
    let mut f = Fallback {
        table,
        deadline: Instant::now() + time,
        control,
        base_nodes: control.map_or(0, |c| c.progress().nodes),
        nodes: 0,
        floor: FIRST_PASS_NODES,
        out_of_time: false,
        game: history.iter().copied().collect(),
        path: vec![root_node.hash],
        killers: Vec::new(),
        last_null: None,
        history: Box::new([[[0; 64]; 64]; 2]),
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
            let after = root_node.play(m);
            let on_pv = f.prev_pv.first() == Some(&m);
            let mut score =
                if alpha > -MATE - 1 { -f.search(&after, depth - 1, -alpha - 1, -alpha, 1, on_pv) } else { alpha + 1 };
            if score > alpha && !f.out_of_time {
                score = -f.search(&after, depth - 1, -MATE - 1, -alpha, 1, on_pv);
            }
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
        f.floor = 0;
        if let Some((m, score, line)) = depth_best {
            choice = Choice { best: m, ponder: line.get(1).copied(), score, depth, nodes: f.nodes };
            let slot = Slot {
                key: root_node.hash,
                score,
                best: MoveCode::of(m),
                depth: depth.min(u32::from(u8::MAX)) as u8,
                bound: Bound::Exact,
            };
            f.table.store(root_node.hash, slot);
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
