//! Chess on the prover: the df-pn core's [`Expand`] for orthodox chess, one game among
//! the three (chess, lichess's variants, chess problems).
//!
//! A node's children come with their first values from the knowledge interface
//! ([`crate::knowledge::Guide`]): df-pn+ numbers, where a check starts at its number of
//! evasions (found by playing it, which also finds mates in one). At the last attacker
//! ply only checks can mate, so only checks are tried. In a call that only looks for
//! mates, an attacker node the knowledge allows keeps only its most promising quiet
//! moves ([`SetAside`]). A node of four men or fewer is decided by its exact value where
//! its table is ready.

use shakmaty::{Chess, Color, Move, MoveList, Position};

use crate::chess::checks::{CheckInfo, evasion_count_after, legal_checks, mates_by};
use crate::chess::mate_len::Plies;
use crate::chess::movecode::MoveCode;
use crate::chess::movegen::{has_legal_move, legal_moves};
use crate::chess::node::Node;
use crate::chess::rules::{AUTOMATIC_DRAW_CLOCK, FIFTY_MOVES, can_claim_fifty, cannot_mate};
use crate::dfpn::children::{Child, Expansion, MoveClass};
use crate::dfpn::expand::{Expand, Expander};
use crate::dfpn::pndn::PnDn;
use crate::dfpn::tree::{Cycles, RootMoves};
use crate::dfpn::value::Value;
use crate::knowledge::exact::Dtm;
use crate::knowledge::oracle::ChessOracle;
use crate::knowledge::{Exact, Knowledge, NARROW_QUIET, Narrowing};

impl Expand for Chess {
    type Knowledge<'t> = Knowledge<'t>;
    type Oracle = ChessOracle;
    const DEFENDER_LEAF: u32 = 1;

    #[inline]
    fn knowledge<'t>(_root: &Chess, attacker: Color, oracle: &'t ChessOracle) -> Knowledge<'t> {
        Knowledge::new(attacker, oracle.syzygy.as_deref())
    }

    #[inline(always)]
    fn expand(
        e: &mut Expander<'_, '_, Chess>,
        node: &Node,
        r: Plies,
        or: bool,
        ply: usize,
        root: RootMoves,
        children: &mut Vec<Child>,
    ) -> Expansion {
        if or { e.or(node, r, ply, root, children) } else { e.and(node, r, ply, root, children) }
    }
}

impl Expander<'_, '_, Chess> {
    /// Pushes one child per move (an AND node's replies, all of class
    /// [`MoveClass::Check`]) with its table key. Every reply is probed next, so every
    /// bucket is asked for here: the cache misses overlap.
    fn push_children(&self, node: &Node, moves: &[Move], bound: Plies, children: &mut Vec<Child>) {
        for &m in moves {
            self.push_probed(node, m, MoveClass::Check, bound, children);
        }
    }

    /// Pushes a child to probe at once (an attacker's check or capture, a defender's
    /// reply) with its table key and a neutral value, its bucket asked for. Inlined: as
    /// a call from the replies' loop it cost 2% of the bench's instructions.
    #[inline(always)]
    fn push_probed(&self, node: &Node, mv: Move, class: MoveClass, bound: Plies, children: &mut Vec<Child>) {
        let key = self.tree.keys.of_child(node, mv, bound);
        self.tree.tt.prefetch(key);
        children.push(Child { mv, key, value: Value::open(PnDn::ONE, PnDn::ONE), class, probed: true });
    }

    /// Expands an OR node (attacker to move, `r` plies left, `ply` plies below the search
    /// root) into `children`.
    pub fn or(&mut self, node: &Node, r: Plies, ply: usize, root: RootMoves, children: &mut Vec<Child>) -> Expansion {
        if root == RootMoves::All
            && let Some(decided) = self.exactly(node, r, true)
        {
            return decided;
        }
        if r == Plies::new(1) && root == RootMoves::All {
            return self.mate_in_one(node);
        }
        let mut moves = MoveList::new();
        self.tree.node_moves(node, root, &mut moves);
        if moves.is_empty() || self.hopeless(node) {
            return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE);
        }
        if r == Plies::ZERO {
            return Expansion::Decided(Value::disproven(Plies::new(1)), MoveCode::NONE);
        }
        let info = CheckInfo::new(&node.pos);
        if r == Plies::new(1) {
            return self.first_mate(node, moves.iter().copied().filter(|&m| info.gives_check(&node.pos, m)));
        }
        // Children in the order selection breaks ties by: checks, then captures and
        // promotions, then quiet moves. Checks and captures are probed at once (their
        // buckets prefetched together); quiet moves, the bulk of an OR node's moves and
        // rarely selected, get their key and probe only when selected.
        children.reserve(moves.len());
        let (mut tactical, mut quiet) = (MoveList::new(), MoveList::new());
        for &m in &moves {
            if info.gives_check(&node.pos, m) {
                self.push_probed(node, m, MoveClass::Check, r.pred(), children);
            } else if m.is_capture() || m.is_promotion() {
                tactical.push(m);
            } else {
                quiet.push(m);
            }
        }
        for &m in &tactical {
            self.push_probed(node, m, MoveClass::Tactical, r.pred(), children);
        }
        // Where the tables are silent, a quiet move's first number needs nothing from the
        // table: it is worked out now, while the buckets asked for arrive. Else the
        // tables are asked in move order, which their line's bookkeeping follows.
        let guide = self.knowledge.at(node);
        let tables = guide.has_exact();
        let probed = children.len();
        children.extend(quiet.iter().map(|&mv| Child {
            mv,
            key: 0,
            value: Value::open(PnDn(if tables { 1 } else { guide.quiet(mv) }), PnDn::ONE),
            class: MoveClass::Quiet,
            probed: false,
        }));
        // The quiet move likeliest to be searched first is probed as soon as it is picked:
        // its bucket is asked for now.
        if !tables && let Some(first) = children[probed..].iter_mut().min_by_key(|c| c.value.pn) {
            self.tree.tt.prefetch(first.keyed(&self.tree.keys, node, r.pred()));
        }
        let mut shortest: Option<(Plies, Move)> = None;
        for c in &mut children[..probed] {
            let m = c.mv;
            let value = match self.tree.known(c.key, r.pred()) {
                Some(v) => v,
                None if c.class == MoveClass::Check => {
                    self.monitor.count(1);
                    let evasions = evasion_count_after(&node.pos, m);
                    if evasions == 0 {
                        return Expansion::Decided(Value::proven(Plies::new(1)), MoveCode::of(m));
                    }
                    start(guide.exact(node, m)).unwrap_or_else(|| Value::open(PnDn(guide.check(evasions)), PnDn::ONE))
                }
                None => start(guide.exact(node, m)).unwrap_or_else(|| Value::open(PnDn(guide.tactical()), PnDn::ONE)),
            };
            if value.is_proven() && shortest.is_none_or(|(p, _)| value.mate.at_most < p) {
                shortest = Some((value.mate.at_most, m));
            }
            c.value = value;
        }
        if tables {
            for c in &mut children[probed..] {
                c.value =
                    start(guide.exact(node, c.mv)).unwrap_or_else(|| Value::open(PnDn(guide.quiet(c.mv)), PnDn::ONE));
            }
        }
        if let Some((p, m)) = shortest {
            return Expansion::Decided(Value::proven(p.succ()), MoveCode::of(m));
        }
        if self.tree.cycles == Cycles::Cut
            && ply >= self.set_aside.from
            && let Some(narrowing) = guide.narrowing(node)
        {
            let narrowed = self.narrow_quiet_moves(node, narrowing, children);
            self.set_aside.below_root |= narrowed && ply == 1;
        }
        Expansion::Open
    }

    /// Decides `node` (`or`: the attacker to move; `r` plies left) from its exact
    /// distance to mate, where it has one: a mate within `r` is proven (with the table's
    /// move at an attacker node), a longer one or none disproven. A mate is proven only
    /// where neither the 50-move rule nor the game's repetitions can interfere: the
    /// halfmove clock plus the mate's length at most 100, and no position of the history
    /// repeated. Elsewhere the node is searched (docs/design.md, "Exact small endings").
    #[inline]
    fn exactly(&mut self, node: &Node, r: Plies, or: bool) -> Option<Expansion> {
        let dtm = self.knowledge.exact(node)?;
        let plies = match (dtm, or) {
            (Dtm::Wins(d), true) | (Dtm::Loses(d), false) => d,
            _ => return Some(Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE)),
        };
        let plies16 = u16::try_from(plies).ok()?;
        if plies16 > r.get() {
            return Some(Expansion::Decided(Value::disproven(Plies::new(plies16)), MoveCode::NONE));
        }
        // Every position of the tables' mate lies nearer mate than this node: it repeats no
        // claimable position nearer than the history's floor.
        let repeats = self.tree.repetitions.is_some_and(|reps| plies > reps.exact_floor(self.tree.attacker));
        if repeats || node.clock() + plies > FIFTY_MOVES {
            return None;
        }
        let best = if or {
            let m = (node.pos.legal_moves().into_iter())
                .find(|&m| self.knowledge.exact(&node.play(m)) == Some(Dtm::Loses(plies - 1)))?;
            MoveCode::of(m)
        } else {
            MoveCode::NONE
        };
        Some(Expansion::Decided(Value::proven(Plies::new(plies16)), best))
    }

    /// Whether the attacker, to move at `node`, cannot mate at any bound whatever its
    /// moves. The 50-move rule is the defender's claim, made on its own turn (see `and`);
    /// at the attacker's turn only the automatic 75-move draw ends the game. Always
    /// inlined, with the search's other small calls (docs/design.md, "The search's small
    /// calls inlined").
    #[inline(always)]
    fn hopeless(&self, node: &Node) -> bool {
        node.clock() >= AUTOMATIC_DRAW_CLOCK
            || cannot_mate(&node.pos, self.tree.attacker)
            || self.knowledge.no_win(node)
    }

    /// Expands an OR node with one ply left (all its moves allowed): only a check can
    /// mate, so only the checks are generated; the other moves matter only when there are
    /// none, and then only whether there are any (no legal move: no mate at any bound).
    fn mate_in_one(&mut self, node: &Node) -> Expansion {
        if self.hopeless(node) {
            return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE);
        }
        let info = CheckInfo::new(&node.pos);
        let mut checks = MoveList::new();
        legal_checks(&node.pos, &info, &mut checks);
        if checks.is_empty() && !has_legal_move(&node.pos) {
            return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE);
        }
        self.first_mate(node, checks.iter().copied())
    }

    /// The mate-in-one test over `checks`, in their order: each check tried is a node.
    fn first_mate(&mut self, node: &Node, checks: impl Iterator<Item = Move>) -> Expansion {
        for m in checks {
            self.monitor.count(1);
            if mates_by(&node.pos, m) {
                return Expansion::Decided(Value::proven(Plies::new(1)), MoveCode::of(m));
            }
        }
        Expansion::Decided(Value::disproven(Plies::new(2)), MoveCode::NONE)
    }

    /// Keeps the [`NARROW_QUIET`] most promising quiet moves of an attacker node below the
    /// call's root, where the knowledge allows it, in a call that only looks for mates
    /// (cycles cut). The root keeps every move: a move dropped there is lost to the whole
    /// call. Kept: the smallest proof numbers, ties going to the move that leaves the
    /// defending king the fewest flights, which are then added to the kept moves' numbers.
    /// The moves left out stand for one child that fails on this path only
    /// ([`Value::repetition`]): a proof through the kept moves is a proof, and a failure of
    /// every kept move is path-dependent, so it is neither stored nor reported.
    /// Says whether it left moves out.
    fn narrow_quiet_moves(&mut self, node: &Node, narrowing: Narrowing, children: &mut Vec<Child>) -> bool {
        let start = children.iter().position(|c| c.class == MoveClass::Quiet).unwrap_or(children.len());
        let n = children.len() - start;
        if n <= NARROW_QUIET {
            return false;
        }
        // Sort keys: the proof number, the flights, the child's index (which makes every
        // key distinct, so an unstable selection keeps move order among ties).
        let flights = narrowing.flights(node);
        let mut order = std::mem::take(&mut self.set_aside.order);
        order.clear();
        order.extend(
            children[start..]
                .iter()
                .enumerate()
                .map(|(i, c)| (u64::from(c.value.pn.0) << 40) | (u64::from(flights.after(c.mv)) << 32) | i as u64),
        );
        order.select_nth_unstable(NARROW_QUIET);
        order[..NARROW_QUIET].sort_unstable();
        let index = |key: u64| (key & 0xffff_ffff) as usize;
        self.set_aside.scratch.clear();
        self.set_aside.scratch.extend_from_slice(&children[start..]);
        let left_out = self.set_aside.scratch[index(order[NARROW_QUIET])].mv;
        children.truncate(start);
        // A kept move starts at its progress number plus the flights it leaves: among the
        // bishop steps, which leave the kings alike, the flights stay the measure of
        // progress after the first choice, not only its tie-break.
        let flights_of = |key: u64| (key >> 32) as u8 as u32;
        children.extend(order[..NARROW_QUIET].iter().map(|&key| {
            let child = self.set_aside.scratch[index(key)];
            let value = Value::open(PnDn(child.value.pn.0 + flights_of(key)), child.value.dn);
            Child { value, ..child }
        }));
        children.push(Child {
            mv: left_out,
            key: 0,
            value: Value::repetition(),
            class: MoveClass::Quiet,
            probed: true,
        });
        self.set_aside.order = order;
        true
    }

    /// Expands an AND node (defender to move, `r` plies left, `ply` plies below the
    /// search root) into `children`.
    pub fn and(&mut self, node: &Node, r: Plies, ply: usize, root: RootMoves, children: &mut Vec<Child>) -> Expansion {
        let mut all = MoveList::new();
        legal_moves(&node.pos, &mut all);
        if all.is_empty() {
            let v = if node.pos.is_check() { Value::proven(Plies::ZERO) } else { Value::disproven(Plies::INFINITE) };
            return Expansion::Decided(v, MoveCode::NONE);
        }
        if can_claim_fifty(&node.pos, &all) || cannot_mate(&node.pos, self.tree.attacker) || self.knowledge.no_win(node)
        {
            return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE);
        }
        if let Some(reps) = self.tree.repetitions
            && (reps.claims_here(node.hash, ply == 0 && self.tree.at_game_root)
                || all.iter().any(|&m| reps.claims_by_moving_to(node.child_hash(m))))
        {
            return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::NONE);
        }
        if root == RootMoves::All
            && let Some(decided) = self.exactly(node, r, false)
        {
            return decided;
        }
        if r <= Plies::new(1) {
            return Expansion::Decided(Value::disproven(r.succ()), MoveCode::NONE);
        }
        // Borrowed, not moved: a move list is a 1.6 kB array.
        let mut restricted = MoveList::new();
        let moves: &[Move] = if root == RootMoves::Restricted {
            self.tree.node_moves(node, root, &mut restricted);
            &restricted
        } else {
            &all
        };
        self.push_children(node, moves, r.pred(), children);
        let guide = self.knowledge.at(node);
        for c in children.iter_mut() {
            if let Some(value) = self.tree.known(c.key, r.pred()) {
                if value.is_disproven() {
                    return Expansion::Decided(Value::disproven(value.mate.at_least.succ()), MoveCode::of(c.mv));
                }
                c.value = value;
            } else {
                if guide.exact(node, c.mv) == Some(Exact::NoWin) {
                    return Expansion::Decided(Value::disproven(Plies::INFINITE), MoveCode::of(c.mv));
                }
                c.value = Value::open(PnDn(guide.reply(c.mv)), PnDn::ONE);
            }
        }
        Expansion::Open
    }
}

/// An attacker move's first value from the tables: disproven for every bound where the
/// attacker cannot win, else open with the tables' proof number.
#[inline]
fn start(exact: Option<Exact>) -> Option<Value> {
    match exact? {
        Exact::NoWin => Some(Value::disproven(Plies::INFINITE)),
        Exact::Win(pn) => pn.map(|pn| Value::open(PnDn(pn), PnDn::ONE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::parse_fen;
    use crate::dfpn::children::aggregate;
    use crate::dfpn::expand::SetAside;
    use crate::dfpn::monitor::Control;
    use crate::dfpn::monitor::Monitor;
    use crate::dfpn::query::Keys;
    use crate::dfpn::tree::Tree;
    use crate::dfpn::value::Verdict;
    use crate::knowledge::Know;
    use crate::tt::TranspositionTable;
    use shakmaty::Color;

    #[test]
    fn a_call_that_only_looks_for_mates_narrows_a_few_men_node_to_its_best_quiet_moves() {
        // K+B+B+P v K (five men: no exact table decides it): two bishop checks and 22
        // quiet moves.
        let n = Node::new(parse_fen("8/6K1/8/8/8/1k6/7P/1BB5 w - - 0 1").unwrap());
        let tt = TranspositionTable::new(1);
        let mut monitor = Monitor::new(Control::new(), None);
        let mut knowledge = Knowledge::new(Color::White, None);
        knowledge.begin_call(n.pos.board(), crate::knowledge::SearchLimits::waiting());
        let mut set_aside = SetAside::default();
        set_aside.begin();
        let mut expand = |cycles, ply, children: &mut Vec<Child>| {
            let tree = Tree {
                tt: &tt,
                keys: Keys::new(Color::White, 0),
                attacker: Color::White,
                repetitions: None,
                root_moves: None,
                at_game_root: false,
                cycles,
            };
            children.clear();
            let mut e =
                Expander { tree: &tree, monitor: &mut monitor, knowledge: &knowledge, set_aside: &mut set_aside };
            matches!(e.or(&n, Plies::mate_in(20), ply, RootMoves::All, children), Expansion::Open)
        };
        let mut children = Vec::new();
        let quiet = |children: &[Child]| children.iter().filter(|c| c.class == MoveClass::Quiet).count();

        assert!(expand(Cycles::Search, 1, &mut children));
        assert_eq!(quiet(&children), 22, "a call that must disprove searches every move");
        assert!(children.iter().all(|c| !c.value.is_solved()));

        assert!(expand(Cycles::Cut, 0, &mut children));
        assert_eq!(quiet(&children), 22, "the root of a call keeps every move");

        assert!(expand(Cycles::Cut, 1, &mut children));
        let (left_out, kept) = children.split_last().unwrap();
        assert_eq!(quiet(kept), NARROW_QUIET);
        assert_eq!(kept.iter().filter(|c| c.class == MoveClass::Check).count(), 2, "checks are all kept");
        assert!(kept.windows(2).all(|w| w[0].class < w[1].class || w[0].value.pn <= w[1].value.pn));
        // The moves left out fail here only, so the node can never be disproven off this path.
        assert!(left_out.value.is_disproven() && left_out.value.path_dependent);
        let mut all: Vec<Child> = kept.to_vec();
        for c in all.iter_mut() {
            c.value = Value::disproven(Plies::mate_in(20).succ());
        }
        all.push(*left_out);
        let v = aggregate(true, &all).value;
        assert!(v.is_disproven() && v.path_dependent && v.verdict() == Verdict::Unknown);
    }
}
