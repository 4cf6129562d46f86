//! The fallback move chooser: a small alpha-beta search used when no mate is proven, so
//! that a game goes on sensibly and in time. It claims nothing: its scores are
//! evaluations, never reported as mates. It is written once over the game: each game
//! gives its evaluation ([`Expand::evaluate`]) and the few rules of [`AlphaBeta`] (how a
//! position ends, when standing pat is no option, when a pass is safe), and chess its
//! fast leaf capture generator.
//!
//! It scores any repetition of a game position, or of one on its own path, as a draw, and
//! a position where the 50-move rule applies as a draw, so a winning side keeps making
//! progress instead of shuffling between positions it may legally repeat until the
//! 50-move rule ends the game (docs/design.md, "Fallback repetitions"). It polls the stop
//! flag and its deadline every few hundred nodes.
//!
//! How it searches: iterative deepening principal variation search with a table of its
//! own (best move and bounds per position, kept by the engine between a game's moves),
//! late quiet moves reduced by about ln(depth) ln(index) / 2 and the latest ones pruned
//! near the leaves, reverse futility near the leaves, null move for the side not behind in
//! material, one extra ply for a check with at most two replies, table move, killer and
//! history ordering, and a quiescence search of captures (of every evasion when in check).

use std::time::{Duration, Instant};

use rustc_hash::FxHashSet;
use shakmaty::variant::VariantPosition;
use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Role};

use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use crate::chess::rules::FIFTY_MOVES;
use crate::dfpn::Expand;
use crate::dfpn::monitor::Control;
use crate::knowledge::{material_edge, piece_value};
use crate::limits::DEFAULT_FALLBACK_DEPTH;
use crate::variant::eval::material;

/// The reverse futility margin per ply of depth, where a game allows one.
const FUTILITY_STEP: i32 = 90;

/// What the fallback's alpha-beta needs from a game beyond the prover's rules.
pub trait AlphaBeta: Expand {
    /// A leaf's captures, when the leaf needs no full list of legal moves (it is taken to
    /// go on, and to be free to stand pat); None where every legal move must be generated.
    #[inline]
    fn leaf_captures(&self) -> Option<MoveList> {
        None
    }

    /// Whether the side to move, with legal `moves`, must play one of them in the
    /// quiescence instead of standing pat (in check; in antichess, a capture pending).
    #[inline]
    fn must_move(&self, _moves: &MoveList) -> bool {
        self.is_check()
    }

    /// Whether the quiescence's first ply searches quiet checks too (three-check, where a
    /// check is worth more than most men).
    #[inline]
    fn quiescence_checks(&self) -> bool {
        false
    }

    /// The reverse futility margin per ply of depth, None where no evaluation margin is
    /// safe (three-check, where a check swings more than a queen).
    #[inline]
    fn futility_step(&self) -> Option<i32> {
        Some(FUTILITY_STEP)
    }

    /// The side to move's material edge in centipawns: the side behind is the one whose
    /// late quiet moves hold its draws, and they are never pruned.
    fn material_edge(&self) -> i32;

    /// The position after a pass, when the null move may prune here (never in check, and
    /// never where a pass is no test of the position, as in zugzwang-ridden endings).
    fn passed(&self) -> Option<Self>;
}

impl AlphaBeta for Chess {
    #[inline]
    fn leaf_captures(&self) -> Option<MoveList> {
        (!self.is_check() && !needs_full_moves(self)).then(|| captures(self))
    }

    #[inline]
    fn material_edge(&self) -> i32 {
        material_edge(self, self.turn())
    }

    fn passed(&self) -> Option<Chess> {
        if !has_piece(self) || material_edge(self, self.turn()) < 0 {
            return None;
        }
        self.clone().swap_turn().ok()
    }
}

/// The score of a mate in 0 (from the mated side's view, negated).
const MATE: i32 = 100_000;

/// Scores beyond this are mates found by the fallback (never reported as proven).
pub const MATE_BOUND: i32 = MATE - 1000;

/// The variants, whose evaluation is [`crate::variant::eval`]'s.
impl AlphaBeta for VariantPosition {
    /// In antichess a pending capture must be played: every legal move is one.
    fn must_move(&self, moves: &MoveList) -> bool {
        match self {
            VariantPosition::Antichess(_) => moves.iter().any(|m| m.is_capture()),
            _ => self.is_check(),
        }
    }

    fn quiescence_checks(&self) -> bool {
        matches!(self, VariantPosition::ThreeCheck(_))
    }

    fn futility_step(&self) -> Option<i32> {
        (!matches!(self, VariantPosition::ThreeCheck(_))).then_some(FUTILITY_STEP)
    }

    fn material_edge(&self) -> i32 {
        match self {
            VariantPosition::Antichess(_) => 0,
            _ => material(self, self.turn()) - material(self, !self.turn()),
        }
    }

    /// No pass in antichess, whose forced captures make zugzwang the rule.
    fn passed(&self) -> Option<VariantPosition> {
        if matches!(self, VariantPosition::Antichess(_)) || self.material_edge() < 0 {
            return None;
        }
        self.clone().swap_turn().ok()
    }
}

/// Whether the side to move has a piece besides king and pawns.
fn has_piece(pos: &Chess) -> bool {
    let board = pos.board();
    (board.by_color(pos.turn()) & !board.pawns() & !board.kings()).any()
}

/// Whether a leaf out of check needs the full list of legal moves: when the side to move
/// has nothing but king and pawns (it may be stalemated), a pawn about to promote, or an
/// en passant capture. Otherwise its captures come from [`captures`], and it is taken to
/// have a legal move: a side with a piece is stalemated only when every one of its moves
/// is pinned or blocked and its king is boxed in, which the leaves miss and the interior
/// nodes (full move lists) see; the fallback claims nothing.
fn needs_full_moves(pos: &Chess) -> bool {
    let board = pos.board();
    let ours = board.by_color(pos.turn());
    let seventh = if pos.turn() == Color::White {
        Bitboard::from_rank(shakmaty::Rank::Seventh)
    } else {
        Bitboard::from_rank(shakmaty::Rank::Second)
    };
    !has_piece(pos) || (ours & board.pawns() & seventh).any() || pos.maybe_ep_square().is_some()
}

/// The legal captures of the side to move (no promotions, no en passant: see
/// [`needs_full_moves`]), generated per attacked enemy piece and attacking role.
fn captures(pos: &Chess) -> MoveList {
    let board = pos.board();
    let us = pos.turn();
    let mut moves = MoveList::new();
    for to in board.by_color(!us) & !board.kings() {
        let attackers = board.attacks_to(to, us, board.occupied());
        for role in Role::ALL {
            if (attackers & board.by_role(role)).any() {
                moves.extend(pos.san_candidates(role, to));
            }
        }
    }
    moves
}

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

/// How a stored score bounds the true one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Bound {
    #[default]
    Exact,
    /// The score is at least this (a cut-off).
    Lower,
    /// The score is at most this (no move reached alpha).
    Upper,
}

/// One remembered position.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: u64,
    score: i32,
    best: MoveCode,
    depth: u8,
    bound: Bound,
}

/// The fallback's own small table (best move and bounds per position, for ordering and
/// cut-offs), never shared with the prover. The engine keeps one between the moves of a
/// game, so each move starts from what the last one learned; `choose_move` without one
/// uses a fresh one.
#[derive(Default)]
pub struct ScoreTable {
    slots: Vec<Slot>,
}

impl ScoreTable {
    /// The most slots a table gets (12 MB).
    const MAX_SLOTS: usize = 1 << 19;

    /// An empty table; its slots are allocated on first use.
    pub fn new() -> ScoreTable {
        ScoreTable::default()
    }

    /// Grows the table (emptying it) when a search of `time` would want more slots: about
    /// the nodes it can visit, within 2^10..2^19 slots, so that a 5 ms look allocates
    /// little.
    fn reserve(&mut self, time: Duration) {
        let wanted = (time.as_millis() as usize).saturating_mul(2000).clamp(1 << 10, ScoreTable::MAX_SLOTS);
        let len = wanted.next_power_of_two();
        if self.slots.len() < len {
            self.slots = vec![Slot::default(); len];
        }
    }

    /// Forgets every entry (a new game).
    pub fn clear(&mut self) {
        self.slots.fill(Slot::default());
    }

    fn probe(&self, key: u64) -> Option<Slot> {
        let slot = self.slots[key as usize & (self.slots.len() - 1)];
        (slot.key == key && key != 0).then_some(slot)
    }

    /// Stores `slot` for `key`: over another position always, over the same position
    /// unless that entry is deeper and the new one only a bound. A deeper entry of an
    /// earlier search (the game's last move) stays: when a shallower iteration's window
    /// cannot use it, it is searched again but not forgotten, and the iteration of its own
    /// depth cuts on it.
    fn store(&mut self, key: u64, slot: Slot) {
        let i = key as usize & (self.slots.len() - 1);
        let old = &mut self.slots[i];
        if old.key != key || slot.depth >= old.depth || slot.bound == Bound::Exact {
            *old = Slot { key, ..slot };
        }
    }
}

/// A mate score as stored: counted from the stored position instead of the root.
fn to_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score + ply
    } else if score < -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

/// A stored score, counted from the root again.
fn from_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score - ply
    } else if score < -MATE_BOUND {
        score + ply
    } else {
        score
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::{parse_fen, uci};
    use crate::variant::game::{VARIANT_NAMES, parse_variant_fen, variant_named};
    use shakmaty::variant::Variant;

    fn best(fen: &str, history: &[u64], ms: u64, depth: u32) -> String {
        let pos = parse_fen(fen).unwrap();
        uci(choose_move(&pos, &[], history, Duration::from_millis(ms), depth, None, None).unwrap().best)
    }

    #[test]
    fn the_first_pass_ends_whatever_the_clock_says() {
        // With no time left (after `stop`, or a prover that used the move's time), the
        // move still comes from a whole one-ply pass with its captures searched: cut off
        // after its first nodes, the pass scored the later moves by their static
        // evaluation alone, blind to the piece they leave en prise.
        let fens = [
            // Nf6 mates; cut off, the pass took the bishop on d1.
            "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/R7/4k3/8/5K2/8/8/6q1 b - - 55 28",
        ];
        for fen in fens {
            let pos = parse_fen(fen).unwrap();
            let pass = |time| choose_move(&pos, &[], &[], time, 1, None, None).unwrap();
            let (whole, cut) = (pass(Duration::from_secs(60)), pass(Duration::ZERO));
            assert_eq!((uci(cut.best), cut.score), (uci(whole.best), whole.score), "{fen}");
        }
    }

    #[test]
    fn takes_a_free_queen_and_respects_searchmoves() {
        assert_eq!(best("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", &[], 200, 4), "d1d5");
        let pos = parse_fen("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1").unwrap();
        let only: Vec<Move> = pos.legal_moves().into_iter().filter(|m| uci(*m) == "e1f2").collect();
        let c = choose_move(&pos, &only, &[], Duration::from_millis(50), 4, None, None).unwrap();
        assert_eq!(uci(c.best), "e1f2");
    }

    #[test]
    fn does_not_box_in_a_king_whose_rook_checks_to_stalemate() {
        // 11 plies deep the fallback once played Qc7 (+890): a draw by rook checks and
        // stalemate, the desperado's trap that the evaluation scores as a near-draw.
        assert_ne!(best("k7/8/8/8/1r6/8/7Q/7K w - - 0 1", &[], 60_000, 11), "h2c7");
    }

    #[test]
    fn the_leaf_capture_generator_finds_every_legal_capture() {
        // Random games from an opening, a middlegame and an ending: wherever the leaves
        // use `captures` (out of check, no promotion or en passant pending), it must give
        // exactly the legal captures.
        let starts = [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2Q1RK1 w - - 0 10",
            "8/8/1r6/2k5/8/7K/4Q3/8 w - - 0 1",
        ];
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut checked = 0;
        for fen in starts {
            for _ in 0..20 {
                let mut pos = parse_fen(fen).unwrap();
                for _ in 0..40 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    if !pos.is_check() && !needs_full_moves(&pos) {
                        let mut want: Vec<String> = legal.iter().filter(|m| m.is_capture()).map(|&m| uci(m)).collect();
                        let mut got: Vec<String> = captures(&pos).iter().map(|&m| uci(m)).collect();
                        want.sort();
                        got.sort();
                        assert_eq!(
                            got,
                            want,
                            "{}",
                            shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                        );
                        checked += 1;
                    }
                    pos.play_unchecked(legal[rng.below(legal.len())]);
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn no_move_when_mated() {
        let pos = parse_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1").unwrap();
        assert_eq!(choose_move(&pos, &[], &[], Duration::from_millis(10), 3, None, None), None);
    }

    #[test]
    fn a_stop_ends_it_at_once() {
        let pos = parse_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
        let control = Control::new();
        control.stop();
        let started = Instant::now();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(30), 64, Some(&control), None).unwrap();
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        assert!(pos.legal_moves().contains(&c.best));
    }

    #[test]
    fn a_winning_side_does_not_repeat_the_game() {
        // KQ v K. Whatever the fallback plays here, put the position after that move into
        // the game's history: asked again, it must find another move that still wins.
        let pos = parse_fen("4k3/8/8/8/8/8/8/3QK3 w - - 6 20").unwrap();
        let first = choose_move(&pos, &[], &[], Duration::from_secs(10), 3, None, None).unwrap();
        let mut after = pos.clone();
        after.play_unchecked(first.best);
        let again = choose_move(&pos, &[], &[Node::new(after).hash], Duration::from_secs(10), 3, None, None).unwrap();
        assert_ne!(again.best, first.best, "repeats a game position");
        assert!(again.score > 500, "{again:?}");
    }

    #[test]
    fn wins_the_rook_with_a_queen_fork() {
        // K+Q v K+R: Qc3+ or Qe5+ checks the king on g7 and attacks the rook on b2.
        let pos = parse_fen("8/6k1/8/8/8/8/1r6/4Q1K1 w - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(10), 6, None, None).unwrap();
        assert!(["e1c3", "e1e5"].contains(&uci(c.best).as_str()), "{c:?}");
        assert!(c.score > 900, "{c:?}");
    }

    #[test]
    fn a_rook_check_that_skewers_the_queen_is_seen_at_the_horizon() {
        // Rh2+ drives the king off the second rank and Rxa2 takes the queen behind it.
        // One ply deep, the check is the last move searched: the replies to it must still
        // be searched (in check, no standing pat), or the check looks like nothing. (Six
        // replies and a small material edge for White: no check extension applies.)
        let pos = parse_fen("1n5k/7r/8/8/8/8/Q3K3/8 b - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(10), 1, None, None).unwrap();
        assert_eq!(uci(c.best), "h7h2", "{c:?}");
        assert!(c.score > 300, "{c:?}");
    }

    #[test]
    fn a_mate_keeps_its_length_through_the_table() {
        // Kg6 and Ra8 mate: three plies, whatever depth the table stored it at.
        let pos = parse_fen("7k/8/5K2/8/8/8/8/R7 w - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(10), 8, None, None).unwrap();
        assert_eq!((uci(c.best).as_str(), c.score), ("f6g6", MATE - 3), "{c:?}");
        for score in [MATE - 7, -MATE + 4, 250, -30] {
            assert_eq!(from_table(to_table(score, 5), 5), score);
        }
    }

    #[test]
    fn a_kept_table_makes_the_next_search_cheaper() {
        // The same fixed-depth search twice: the second one starts from the first one's
        // table and needs far fewer nodes (a game's next move profits the same way).
        let pos = parse_fen("8/8/1r6/2k5/8/7K/4Q3/8 w - - 0 1").unwrap();
        let mut table = ScoreTable::new();
        let search =
            |t: &mut ScoreTable| choose_move(&pos, &[], &[], Duration::from_secs(60), 8, None, Some(t)).unwrap();
        let first = search(&mut table);
        let second = search(&mut table);
        assert_eq!(first.depth, 8);
        assert!(second.nodes * 2 < first.nodes, "{} then {}", first.nodes, second.nodes);
        table.clear();
        assert_eq!(search(&mut table).nodes, first.nodes);
    }

    /// Plays the fallback against itself from `fen` for at most `plies` plies at fixed
    /// depths (the attacker `deep`, the defender 4), with the game's positions as
    /// history; the positions reached.
    fn self_play(fen: &str, deep: u32, plies: usize) -> Vec<Chess> {
        let mut pos = parse_fen(fen).unwrap();
        let attacker = pos.turn();
        let mut history = Vec::new();
        let mut seen = vec![pos.clone()];
        for _ in 0..plies {
            let depth = if pos.turn() == attacker { deep } else { 4 };
            let Some(c) = choose_move(&pos, &[], &history, Duration::from_secs(60), depth, None, None) else { break };
            history.push(Node::new(pos.clone()).hash);
            pos.play_unchecked(c.best);
            seen.push(pos.clone());
        }
        seen
    }

    #[test]
    fn bishop_and_knight_drive_the_king_to_the_mating_corner() {
        // From the centre, searching 8 plies a move against a defender searching 4, the
        // fallback brings the king next to a corner of the bishop's colour (where the
        // prover's mates are short) within 40 moves: a1 or h8 with the dark-squared
        // bishop, a8 or h1 with the light one. With a corner step worth 25, as before,
        // the last start never got there (and at 6 plies a move, four of the six).
        use shakmaty::Square;
        let dark = [Square::A1, Square::H8];
        let light = [Square::A8, Square::H1];
        for (fen, corners) in [
            ("8/8/2k5/8/8/2N5/3B4/4K3 w - - 0 1", dark),
            ("8/8/2k5/8/8/2N5/2B5/4K3 w - - 0 1", light),
            ("8/8/4k3/8/8/2N5/3B4/4K3 w - - 0 1", dark),
            ("8/8/4k3/8/8/2N5/2B5/4K3 w - - 0 1", light),
            ("8/8/8/4k3/8/2N5/3B4/4K3 w - - 0 1", dark),
            ("8/8/8/4k3/8/2N5/2B5/4K3 w - - 0 1", light),
        ] {
            let games = self_play(fen, 8, 80);
            let near_corner = |p: &Chess| {
                let k = p.board().king_of(Color::Black).unwrap();
                corners.iter().any(|&c| k.distance(c) <= 1)
            };
            let last = shakmaty::fen::Fen::from_position(games.last().unwrap(), shakmaty::EnPassantMode::Legal);
            assert!(games.iter().any(near_corner), "from {fen}, never near {corners:?}: {last}");
        }
    }

    #[test]
    fn drives_a_lone_king_to_the_edge() {
        let pos = parse_fen("8/8/8/3k4/8/8/8/R3K3 w - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_millis(300), 4, None, None).unwrap();
        assert!(c.score > 500, "{c:?}");
        let mut after = pos.clone();
        after.play_unchecked(c.best);
        let push = |p: &Chess| crate::knowledge::eval::mop_up(p, Color::White, 500);
        assert!(push(&after) >= push(&pos) - 30, "{} lets the king escape", uci(c.best));
    }

    /// The variants' fallback, at a fixed depth with a generous clock.
    fn choose_in(pos: &VariantPosition, history: &[u64], ms: u64, depth: u32) -> Choice {
        choose_move(pos, &[], history, Duration::from_millis(ms), depth, None, None).unwrap()
    }

    #[test]
    fn every_variant_gets_a_legal_move_from_its_start() {
        for variant in VARIANT_NAMES.map(|name| variant_named(name).unwrap()) {
            let pos = VariantPosition::new(variant);
            let c = choose_in(&pos, &[], 200, 3);
            assert!(pos.is_legal(c.best), "{variant:?}");
        }
    }

    #[test]
    fn the_fallback_takes_a_win_in_one_and_gives_men_away_in_antichess() {
        let koth = parse_variant_fen(Variant::KingOfTheHill, "7k/8/8/8/8/2K5/8/8 w - - 0 1").unwrap();
        let c = choose_in(&koth, &[], 5000, 2);
        assert_eq!(c.best.to(), shakmaty::Square::D4);
        // Antichess: White's rook can be taken on a1 or c1 only.
        let anti = parse_variant_fen(Variant::Antichess, "8/8/8/8/8/8/1p6/7R w - - 0 1").unwrap();
        let c = choose_in(&anti, &[], 5000, 3);
        assert!([shakmaty::Square::A1, shakmaty::Square::C1].contains(&c.best.to()), "{c:?}");
    }

    #[test]
    fn a_winning_side_does_not_repeat_the_game_in_a_variant() {
        // Crazyhouse K+Q v K: whatever the fallback plays, put the position after it into
        // the game's history; asked again, it must find another move that still wins.
        let pos = parse_variant_fen(Variant::Crazyhouse, "4k3/8/8/8/8/8/8/3QK3[] w - - 6 20").unwrap();
        let first = choose_in(&pos, &[], 10_000, 3);
        let mut after = pos.clone();
        after.play_unchecked(first.best);
        let again = choose_in(&pos, &[crate::chess::node::Node::new(after).hash], 10_000, 3);
        assert_ne!(again.best, first.best, "repeats a game position");
        assert!(again.score > 500, "{again:?}");
    }

    #[test]
    fn three_check_sees_the_third_check_at_the_horizon() {
        // White has given two checks; Bb5+ is the third, and one ply deep only the
        // quiescence's checks see that it wins.
        let pos = parse_variant_fen(Variant::ThreeCheck, "4k3/8/8/8/8/3B4/8/4K3 w - - 1+3 0 1").unwrap();
        let c = choose_in(&pos, &[], 10_000, 1);
        assert!(c.score > MATE_BOUND, "{c:?}");
    }
}
