//! The df-pn solver for variants: the chess solver's MID over a variant's positions.
//!
//! It shares the core's pieces: the table and its keys, proof and disproof numbers with
//! depth-aware values ([`Value`]), the aggregation of children and the node counting of
//! [`Monitor`]. What differs is the rules: a node's end comes from the variant
//! ([`standing`]), so a win may fall on either side's move (in antichess the defender
//! takes the attacker's last man), and the first numbers come from the variant's
//! knowledge ([`VariantGuide`]). Every child is played when its node is expanded: its
//! standing needs its legal moves, which also give its number of replies.
//!
//! A node carries `r`, the plies left in which the attacker must win. A proof records the
//! length of the win it found, a disproof the length below which there is none.

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Color, EnPassantMode, Move, Position};

use crate::chess::mate_len::Plies;
use crate::chess::movecode::MoveCode;
use crate::chess::rules::{Repetitions, clock_after};
use crate::dfpn::children::{Aggregate, Child, Expansion, MoveClass, aggregate, best_move};
use crate::dfpn::monitor::Monitor;
use crate::dfpn::path::Path;
use crate::dfpn::pndn::PnDn;
use crate::dfpn::query::Keys;
use crate::dfpn::tree::Cycles;
use crate::dfpn::value::Value;
use crate::knowledge::variants::VariantGuide;
use crate::tt::{Record, Table};
use crate::variant::game::{Standing, end_without_moves, hash, least_plies_to_win, rule_draws, rule_end, standing};

/// A variant position with its Zobrist hash.
#[derive(Clone, Debug)]
pub struct VNode {
    /// The position.
    pub pos: VariantPosition,
    /// Its hash (see [`hash`]).
    pub hash: u64,
}

impl VNode {
    /// Wraps a position, hashing it.
    pub fn new(pos: VariantPosition) -> VNode {
        let hash = hash(&pos);
        VNode { pos, hash }
    }

    /// The hash after legal move `m` from the move alone, where shakmaty can update it.
    #[inline]
    fn incremental_hash(&self, m: Move) -> Option<u64> {
        self.pos.update_zobrist_hash(Zobrist64(self.hash), m, EnPassantMode::Legal).map(|z| z.0)
    }

    /// The hash of the position after legal move `m` (from the move alone where shakmaty
    /// can, else after playing it).
    pub fn child_hash(&self, m: Move) -> u64 {
        self.incremental_hash(m).unwrap_or_else(|| self.play(m).hash)
    }

    /// The node after legal move `m`, its hash updated from the move where shakmaty can.
    pub fn play(&self, m: Move) -> VNode {
        let incremental = self.incremental_hash(m);
        let mut pos = self.pos.clone();
        pos.play_unchecked(m);
        let hash = incremental.unwrap_or_else(|| hash(&pos));
        debug_assert_eq!(hash, crate::variant::game::hash(&pos), "incremental hash after {m:?}");
        VNode { pos, hash }
    }
}

/// A salt per variant for the table's keys: a position means something else in each.
fn variant_salt(variant: Variant) -> u64 {
    let index = Variant::ALL.iter().position(|&v| v == variant).unwrap_or(0) as u64;
    index.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
}

/// The solver of one question ("does `attacker` win within r plies?") in one variant.
pub struct VSolver<'a> {
    tt: &'a Table,
    keys: Keys,
    attacker: Color,
    guide: VariantGuide,
    /// Antichess: a child's end needs its moves.
    antichess: bool,
    repetitions: Option<&'a Repetitions>,
    /// Node counting and limits.
    pub monitor: &'a mut Monitor,
    /// How the current call treats a repetition on its path.
    cycles: Cycles,
    /// Whether the current call's root is the game's position (its repetition claim
    /// counts its own occurrence).
    at_game_root: bool,
    /// The positions on the current path (kept in calls that cut cycles).
    path: Path,
    stack: Vec<Vec<Child>>,
    /// Deepest ply reached.
    pub seldepth: usize,
}

impl<'a> VSolver<'a> {
    /// A solver of `attacker`'s wins in `variant` over `tt`, with the game's claimable
    /// `repetitions`.
    pub fn new(
        tt: &'a Table,
        monitor: &'a mut Monitor,
        variant: Variant,
        attacker: Color,
        repetitions: Option<&'a Repetitions>,
    ) -> Self {
        let salt = repetitions.map_or(0, Repetitions::salt) ^ variant_salt(variant);
        VSolver {
            tt,
            keys: Keys::new(attacker, salt),
            attacker,
            guide: VariantGuide::new(variant, attacker),
            antichess: variant == Variant::Antichess,
            repetitions,
            monitor,
            cycles: Cycles::Search,
            at_game_root: false,
            path: Path::default(),
            stack: Vec::new(),
            seldepth: 0,
        }
    }

    /// The attacking side.
    pub fn attacker(&self) -> Color {
        self.attacker
    }

    fn key(&self, node: &VNode, bound: Plies) -> u64 {
        self.keys.key(node.hash, node.pos.halfmoves(), bound)
    }

    /// What the table knows of `node` with `bound` plies left.
    pub fn lookup(&self, node: &VNode, bound: Plies) -> Option<Value> {
        self.tt.probe(self.key(node, bound)).and_then(|e| Value::from_entry(&e, bound))
    }

    /// The best move the table records for `node` with `bound` plies left, if any.
    pub fn tt_best(&self, node: &VNode, bound: Plies) -> Option<Move> {
        self.tt.probe(self.key(node, bound)).and_then(|e| e.best.decode(&node.pos))
    }

    /// Solves `node` with `bound` plies left, spending at most `budget` nodes (None: until
    /// a hard limit), with `cycles` for repetitions on the path. `game_root`: `node` is the
    /// game's current position. The root's value: a disproof that rests on a cut cycle is
    /// path-dependent.
    pub fn solve(&mut self, node: &VNode, bound: Plies, budget: Option<u64>, cycles: Cycles, game_root: bool) -> Value {
        self.cycles = cycles;
        self.at_game_root = game_root;
        if let Some(v) = self.lookup(node, bound).filter(Value::is_solved) {
            return v;
        }
        self.monitor.begin(budget);
        let or = node.pos.turn() == self.attacker;
        self.mid(node, bound, or, PnDn::INFINITE, PnDn::INFINITE, 0)
    }

    /// Nagai's MID, as in the chess solver.
    fn mid(&mut self, node: &VNode, r: Plies, or: bool, th_pn: PnDn, th_dn: PnDn, ply: usize) -> Value {
        let start_nodes = self.monitor.nodes();
        self.monitor.count(1);
        self.seldepth = self.seldepth.max(ply);
        if self.stack.len() <= ply {
            self.stack.resize_with(ply + 1, Vec::new);
        }
        if self.cycles == Cycles::Cut {
            self.path.enter(ply, node.hash);
            if self.path.repeats(ply, ply.min(node.pos.halfmoves() as usize)) {
                return Value::repetition();
            }
        }
        let mut children = std::mem::take(&mut self.stack[ply]);
        children.clear();
        let (value, best) = match self.expand(node, r, or, ply, &mut children) {
            Expansion::Decided(value, best) => (value, best),
            Expansion::Open => loop {
                let Aggregate { value: v, best, second, .. } = aggregate(or, &children);
                if v.is_solved() || v.pn >= th_pn || v.dn >= th_dn || self.monitor.aborted() {
                    break (v, best_move(or, &v, &children, best));
                }
                let c = children[best];
                let (child_th_pn, child_th_dn) = if or {
                    (PnDn::epsilon_threshold(th_pn, second), th_dn - (v.dn - c.value.dn))
                } else {
                    (th_pn - (v.pn - c.value.pn), PnDn::epsilon_threshold(th_dn, second))
                };
                let child = node.play(c.mv);
                children[best].value = self.mid(&child, r.pred(), !or, child_th_pn, child_th_dn, ply + 1);
            },
        };
        if !value.path_dependent {
            let work = (self.monitor.nodes() - start_nodes).min(u64::from(u32::MAX)) as u32;
            let record = Record { bound: r, pn: value.pn.0, dn: value.dn.0, mate: value.mate, work, best };
            self.tt.store(self.key(node, r), &record);
        }
        self.stack[ply] = children;
        value
    }

    /// A node's children with their first values, or its value when it is decided
    /// without a search: over, won, out of plies, drawn by a claim, or settled by a child.
    fn expand(&mut self, node: &VNode, r: Plies, or: bool, ply: usize, children: &mut Vec<Child>) -> Expansion {
        let decided = |v| Expansion::Decided(v, MoveCode::NONE);
        let moves = node.pos.legal_moves();
        match rule_end(&node.pos, &moves, self.attacker) {
            Standing::Won => return decided(Value::proven(Plies::ZERO)),
            Standing::Over => return decided(Value::disproven(Plies::INFINITE)),
            Standing::Open => {}
        }
        // The defender claims a repetition on its own turn.
        if !or
            && self.repetitions.is_some_and(|reps| {
                reps.claims_here(node.hash, ply == 0 && self.at_game_root)
                    || moves.iter().any(|&m| reps.claims_by_moving_to(node.child_hash(m)))
            })
        {
            return decided(Value::disproven(Plies::INFINITE));
        }
        if r == Plies::ZERO {
            return decided(Value::disproven(Plies::new(1)));
        }
        let least = least_plies_to_win(&node.pos, self.attacker);
        if r < least {
            return decided(Value::disproven(least));
        }
        let within = r.pred();
        children.reserve(moves.len());
        // Every child is probed below: its bucket is asked for first, from the hash the
        // move gives without playing it, so that the misses overlap the children's work.
        for &m in &moves {
            if let Some(h) = node.incremental_hash(m) {
                self.tt.prefetch(self.keys.key(h, clock_after(node.pos.halfmoves(), m), within));
            }
        }
        for &m in &moves {
            let child = node.play(m);
            self.monitor.count(1);
            // A child's moves are generated where they are needed now: a check's evasions
            // (and its mate), an attacker's mobility after a reply, antichess's ends and
            // replies. Elsewhere the variant's own end is read alone; a stalemate then
            // shows when the child is expanded.
            let needs_moves = !or || self.antichess || child.pos.is_check();
            let mut wins_next = false;
            let (end, replies) = if needs_moves {
                let replies = child.pos.legal_moves();
                let end = standing(&child.pos, &replies, self.attacker);
                wins_next = !or && within > Plies::ZERO && end == Standing::Open && self.wins_at_once(&child, &replies);
                (end, replies.len())
            } else {
                (end_without_moves(&child.pos, self.attacker), 0)
            };
            let (class, pn) = if or {
                self.guide.attacker_move(&node.pos, m, &child.pos, replies)
            } else {
                (MoveClass::Check, self.guide.defender_move(m))
            };
            let child_least = least_plies_to_win(&child.pos, self.attacker);
            let value = match end {
                Standing::Won => Value::proven(Plies::ZERO),
                Standing::Open if wins_next => Value::proven(Plies::new(1)),
                Standing::Over => Value::disproven(Plies::INFINITE),
                // Too far from the goal for the plies left: no need to ask the table.
                Standing::Open if within < child_least => Value::disproven(child_least),
                Standing::Open => self.lookup(&child, within).unwrap_or_else(|| {
                    // An attacker's node is disproven only when every move fails: its
                    // first disproof number is its number of moves (mobility).
                    let dn = if or { 1 } else { replies.max(1) as u32 };
                    Value::open(PnDn(pn), PnDn(dn))
                }),
            };
            // A win at once decides an attacker's node, a refutation a defender's.
            if or && value.is_proven() && value.mate.at_most == Plies::ZERO {
                return Expansion::Decided(Value::proven(Plies::new(1)), MoveCode::of(m));
            }
            if !or && value.is_disproven() && !value.path_dependent {
                return Expansion::Decided(Value::disproven(value.mate.at_least.succ()), MoveCode::of(m));
            }
            if !or && within == Plies::ZERO && !value.is_proven() {
                // A reply that does not lose at once, and no ply left to win after it.
                return Expansion::Decided(Value::disproven(Plies::new(2)), MoveCode::of(m));
            }
            children.push(Child { mv: m, key: self.key(&child, within), value, class, probed: true });
        }
        if or && within == Plies::ZERO {
            // No move wins at once, and no ply is left after it.
            return decided(Value::disproven(Plies::new(2)));
        }
        children.sort_by_key(|c| c.class);
        Expansion::Open
    }

    /// Whether the attacker, to move at `node` with legal `moves`, has a move that wins on
    /// the spot by the variant's goal (see [`VariantGuide::on_the_spot`]), confirmed by
    /// playing it, where no rule has drawn the game first. `node`'s game goes on by the
    /// variant's own rules (the caller's [`standing`]). Saves expanding `node`.
    fn wins_at_once(&self, node: &VNode, moves: &shakmaty::MoveList) -> bool {
        let Some(spot) = self.guide.on_the_spot(&node.pos) else { return false };
        !rule_draws(&node.pos, moves, self.attacker)
            && moves.iter().any(|&m| {
                spot.admits(&node.pos, m) && {
                    let mut after = node.pos.clone();
                    after.play_unchecked(m);
                    end_without_moves(&after, self.attacker) == Standing::Won
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfpn::monitor::Control;
    use crate::variant::game::parse_variant_fen;

    fn solve(variant: Variant, fen: &str, plies: u16, cycles: Cycles) -> Value {
        let node = VNode::new(parse_variant_fen(variant, fen).unwrap());
        let tt = Table::new(4);
        let mut monitor = Monitor::new(Control::new(), Some(2_000_000));
        let attacker = node.pos.turn();
        let mut solver = VSolver::new(&tt, &mut monitor, variant, attacker, None);
        solver.solve(&node, Plies::new(plies), None, cycles, true)
    }

    #[test]
    fn wins_of_each_kind_are_proven_at_their_length() {
        // King of the hill: Kd4 reaches the centre at once.
        let v = solve(Variant::KingOfTheHill, "7k/8/8/8/8/2K5/8/8 w - - 0 1", 1, Cycles::Search);
        assert_eq!(v.mate.at_most, Plies::new(1));
        // Antichess: White gives its last man away; Black must take it (two plies).
        let v = solve(Variant::Antichess, "8/8/8/8/8/8/1p6/2R5 w - - 0 1", 2, Cycles::Search);
        assert!(v.is_proven(), "{v:?}");
        // Atomic: Qxf7 explodes the pawn and the king beside it.
        let v = solve(Variant::Atomic, "4k3/5p2/8/7Q/8/8/8/4K3 w - - 0 1", 1, Cycles::Search);
        assert!(v.is_proven());
    }

    #[test]
    fn racing_kings_wins_are_disproven_below_the_king_s_distance_and_proven_at_it() {
        // White's king three ranks from the goal, Black's seven: Kh6-h7-h8.
        let fen = "8/8/8/7K/8/8/8/k7 w - - 0 1";
        let v = solve(Variant::RacingKings, fen, 4, Cycles::Search);
        assert!(v.is_disproven() && v.mate.at_least == Plies::new(5), "{v:?}");
        let v = solve(Variant::RacingKings, fen, 5, Cycles::Search);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(5), "{v:?}");
    }

    #[test]
    fn a_reply_that_allows_the_last_check_is_proven_without_expanding_it() {
        // Three-check, White has given two: whatever Black's king does, a rook check wins.
        let node = VNode::new(parse_variant_fen(Variant::ThreeCheck, "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 +2+0").unwrap());
        let tt = Table::new(4);
        let mut monitor = Monitor::new(Control::new(), Some(2_000_000));
        let mut solver = VSolver::new(&tt, &mut monitor, Variant::ThreeCheck, Color::White, None);
        let v = solver.solve(&node, Plies::new(2), None, Cycles::Search, true);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(2), "{v:?}");
        // The root and its five replies: none of them is expanded.
        assert_eq!(monitor.nodes(), 6);
    }

    #[test]
    fn a_bound_too_short_is_disproven() {
        let v = solve(Variant::KingOfTheHill, "7k/8/8/8/8/8/8/K7 w - - 0 1", 3, Cycles::Search);
        assert!(v.is_disproven() && !v.path_dependent, "{v:?}");
        let v = solve(Variant::KingOfTheHill, "7k/8/8/8/8/8/8/K7 w - - 0 1", 5, Cycles::Search);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(5), "Ka1-b2-c3-d4: {v:?}");
    }
}
