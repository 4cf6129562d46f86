//! What pnmate knows about particular material, behind one interface.
//!
//! The search is generic: the df-pn core, the driver and its schedule never test which
//! pieces stand on the board. They ask this module instead:
//! - [`Knowledge`] and [`Guide`]: the initial proof numbers of a node's moves (df-pn+),
//!   and which quiet moves a call that only looks for mates may set aside ([`Narrowing`]);
//! - [`ending`]: how far the driver's bounds go in an ending of few men, and
//!   [`tables_win`]: whether the tablebases call the root won, so the driver asks its
//!   long bound first;
//! - [`tablebase`]: exact values from Syzygy tables, which end a node the attacker cannot
//!   win ([`Knowledge::no_win`]) and rank a won node's moves by DTZ ([`Guide::exact`]);
//! - [`evaluate`] (with [`material_edge`] and [`piece_value`]): a static score for the
//!   fallback and the order of MultiPV's moves.
//!
//! Knowledge only orders the search and sets its first numbers: no answer here proves
//! or disproves anything, so a wrong answer costs nodes, never soundness. A source of
//! exact values (tablebases) or another game's rules (variants) enters through this same
//! door.
//!
//! Inside: [`material`] says which ending a position is, [`progress`] measures how far a
//! defending king is from mate, [`exact`] holds the exact values of the endings of four men
//! and fewer (computed in the process), [`mating`] remembers the moves that mated in the
//! current call.

pub(crate) mod eval;
pub mod exact;
pub(crate) mod material;
pub(crate) mod mating;
pub mod oracle;
pub(crate) mod progress;
pub mod tablebase;
pub(crate) mod variants;

use std::cell::Cell;

use shakmaty::{Board, Color, Move, Position};

pub(crate) use eval::{evaluate, material_edge, piece_value};

use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use material::{MAX_MEN, armed_defender, bishops_mate, quiet_mate};
use mating::MatingMoves;
use progress::{Flights, Kings};
use tablebase::SyzygyTables;

/// Initial proof number of a quiet attacker move where nothing more is known: the
/// defender is unconstrained, so such a move is much harder to prove than a check.
const QUIET_PN: u32 = 8;

/// Initial proof number of a defender's capture: taking attacker material usually makes
/// the mate harder than a quiet reply does.
const DEFENDER_CAPTURE_PN: u32 = 2;

/// How many times its progress number a quiet attacker move starts at against an armed
/// defender ([`Kings::armed`]): once expanded, the defender's node sums a
/// dozen replies where a bare king has a few, so the attacker's node should expand every
/// quiet move once before it goes deeper.
const ARMED_QUIET_SCALE: u32 = 4;

/// How many times its number of evasions a check starts at against an armed defender:
/// each evasion is a reply with its own progress number.
const ARMED_CHECK_SCALE: u32 = 2;

/// How far the driver's bounds reach in a game: the bounds (moves) its near bound climbs,
/// the rungs above the near bound it asks as far bounds, and whether an analysis asks its
/// longest bound (the cap) in every round (docs/design.md, "The driver").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// The ladder of the near bound, in moves, ascending.
    pub ladder: &'static [u32],
    /// The far bounds: the first and last rung above the near one.
    pub far: (usize, usize),
    /// Whether an analysis asks the cap in every round.
    pub cap: bool,
}

/// Chess's reach: long forcing mates are found a little above their length, and the cap
/// finds the longest (Krabbé's mate in 38).
pub const CHESS_REACH: Reach = Reach {
    ladder: &[3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 90, 128, 181, 256, 362, 512, 724, 1000],
    far: (2, 5),
    cap: true,
};

/// How many quiet moves an attacker node keeps where [`Guide::narrowing`] allows it.
pub const NARROW_QUIET: usize = 10;

/// How an attacker move is ordered: checks first, then captures and promotions, then
/// quiet moves. Selection breaks ties by this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MoveClass {
    /// Gives check.
    Check,
    /// A capture or promotion that does not check.
    Tactical,
    /// Anything else.
    Quiet,
}

/// What a solver tells its knowledge as it searches, in every game: a call starts, a
/// move proved an attacker node. Each game's knowledge reads the nodes its own way (the
/// chess expansion asks [`Knowledge::at`], a variant's asks its [`variants::VariantGuide`]).
pub trait Know<G> {
    /// How far the driver's bounds reach in the game of `root`.
    fn reach(root: &G) -> Reach;
    /// A df-pn call starts at `root`, within the search's `limits`.
    fn begin_call(&mut self, root: &Board, limits: SearchLimits);
    /// `best` proved an attacker node.
    fn learn_mate(&mut self, best: MoveCode);
}

/// The limits of the search a df-pn call belongs to, which decide which tables it may
/// ask to be built and whether it waits for them (see [`exact::Exact`]).
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    /// Time left before the deadline.
    pub time_left: Option<std::time::Duration>,
    /// The search's node limit.
    pub nodes: Option<u64>,
    /// The search's stop flag, which ends a wait for a table.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl SearchLimits {
    /// Whether a search within these limits waits for the tables it asks for: one of
    /// fixed nodes and no time, whose result must not depend on the machine's speed or on
    /// what is stored.
    pub fn waits(&self) -> bool {
        self.nodes.is_some() && self.time_left.is_none()
    }

    /// SearchLimits that wait for every table asked for (tests and tools).
    pub fn waiting() -> SearchLimits {
        SearchLimits { nodes: Some(u64::MAX), ..SearchLimits::default() }
    }
}

/// What one df-pn solver knows beyond the rules: the attacker, the moves that mated in
/// this solver's calls, the exact values of small endings, and the tablebases when they
/// are loaded.
pub struct Knowledge<'t> {
    attacker: Color,
    mating: MatingMoves,
    tables: Option<&'t SyzygyTables>,
    /// The exact values of positions of at most [`exact::DTM_MEN`] men.
    exact: exact::Exact,
}

impl<'t> Knowledge<'t> {
    /// Knowledge for a solver of `attacker`'s mates, with `tables` when loaded.
    pub fn new(attacker: Color, tables: Option<&'t SyzygyTables>) -> Knowledge<'t> {
        Knowledge { attacker, mating: MatingMoves::new(), tables, exact: exact::Exact::default() }
    }

    /// The exact distance to mate of `node` for its side to move, where it has at most
    /// [`exact::DTM_MEN`] men and no castling rights. The table is built when first needed.
    #[inline]
    pub fn exact(&self, node: &Node) -> Option<exact::Dtm> {
        if node.pos.board().occupied().count() > exact::DTM_MEN {
            return None;
        }
        self.exact.value(&node.pos)
    }

    /// Whether the tables say the attacker cannot force a mate from `node` at all (a
    /// draw, a loss or a win only beyond the 50-move rule): the node is disproven for
    /// every bound. False where the tables are silent.
    #[inline]
    pub fn no_win(&self, node: &Node) -> bool {
        self.tables.is_some_and(|t| t.wins(node, self.attacker) == Some(false))
    }

    /// What is known at `node`, for the moves of one expansion.
    #[inline]
    pub fn at(&self, node: &Node) -> Guide<'_> {
        let exact = self.tables.and_then(|t| Some((t, t.won(node, self.attacker)?)));
        let kings = Kings::of(node, self.attacker);
        Guide { kings, mating: &self.mating, attacker: self.attacker, exact, on_line: Cell::new(false) }
    }
}

impl Know<shakmaty::Chess> for Knowledge<'_> {
    fn reach(_root: &shakmaty::Chess) -> Reach {
        CHESS_REACH
    }

    fn begin_call(&mut self, root: &Board, limits: SearchLimits) {
        self.exact.begin_call(root, limits);
    }

    #[inline]
    fn learn_mate(&mut self, best: MoveCode) {
        self.mating.insert(best);
    }
}

/// What the tables say of the position after a move, at a node they cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
    /// The attacker cannot force a mate there: the move is disproven for every bound.
    NoWin,
    /// The attacker wins there; the initial proof number of an attacker's move (None for
    /// a defender's reply: [`Guide::reply`] gives it).
    Win(Option<u32>),
}

/// What is known at one node: the first proof numbers of its moves.
#[derive(Clone)]
pub struct Guide<'k> {
    /// The kings and the ending, in a position of at most [`MAX_MEN`] men.
    kings: Option<Kings>,
    mating: &'k MatingMoves,
    attacker: Color,
    /// The tables, at a node they cover and call won for the attacker, with the node's
    /// DTZ.
    exact: Option<(&'k SyzygyTables, u32)>,
    /// Whether a move of this node was found on the tables' line (see [`SyzygyTables::after`]).
    on_line: Cell<bool>,
}

impl Guide<'_> {
    /// Whether the tables cover this node (else [`Guide::exact`] is None for every move).
    #[inline]
    pub fn has_exact(&self) -> bool {
        self.exact.is_some()
    }

    /// What the tables say of the position after `m` at `node`, where they cover `node`
    /// (see [`SyzygyTables::after`]); None elsewhere.
    #[inline]
    pub fn exact(&self, node: &Node, m: Move) -> Option<Exact> {
        self.exact.and_then(|(tables, dtz)| tables.after(node, m, dtz, self.attacker, &self.on_line))
    }

    /// Initial proof number of an attacker's quiet move: [`QUIET_PN`], or in a few-men
    /// position one more than a defender's reply to it starts with (see [`Guide::reply`]),
    /// one less when the move already mated in this call.
    #[inline]
    pub fn quiet(&self, m: Move) -> u32 {
        self.kings.map_or(QUIET_PN, |k| {
            let pn = 2 + k.distance_after(m) - u32::from(self.mating.contains(m));
            if k.armed { ARMED_QUIET_SCALE * pn } else { pn }
        })
    }

    /// Initial proof number of an attacker's capture or promotion that does not check.
    #[inline]
    pub fn tactical(&self) -> u32 {
        QUIET_PN
    }

    /// Initial proof number of an attacker's check that leaves `evasions` replies: the
    /// evasions (df-pn+), more against an armed defender.
    #[inline]
    pub fn check(&self, evasions: u32) -> u32 {
        match self.kings {
            Some(k) if k.armed => ARMED_CHECK_SCALE * evasions,
            _ => evasions,
        }
    }

    /// Initial proof number of a defender's reply `m`: a capture starts higher; in a
    /// few-men position, the further the reply leaves the defending king from mate, the
    /// larger.
    #[inline]
    pub fn reply(&self, m: Move) -> u32 {
        if m.is_capture() { DEFENDER_CAPTURE_PN } else { self.kings.map_or(1, |k| 1 + k.distance_after(m)) }
    }

    /// Whether an attacker node at `node` may keep only its [`NARROW_QUIET`] most
    /// promising quiet moves in a call that only looks for mates: in a quiet mate of a
    /// lone king, and in K+Q v K+R, whose model ranks the queen's moves. Elsewhere the
    /// move that stops a pawn or wins a piece can be a quiet one ranked low.
    #[inline]
    pub fn narrowing(&self, node: &Node) -> Option<Narrowing> {
        if self.exact.is_some() {
            return None;
        }
        let kings = self.kings?;
        quiet_mate(node.pos.board(), self.attacker).then_some(Narrowing { kings, attacker: self.attacker })
    }
}

/// How the quiet moves of a narrowed node are ranked: by their proof number, then by the
/// defending king's flights they leave (fewer first), which are also added to the kept
/// moves' proof numbers.
#[derive(Clone, Copy)]
pub struct Narrowing {
    kings: Kings,
    attacker: Color,
}

impl Narrowing {
    /// The defending king's flights at `node`, to count after each quiet move.
    pub fn flights(&self, node: &Node) -> Flights {
        Flights::new(node, self.attacker, self.kings)
    }
}

/// How far the driver's bounds go in an ending of few men.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The longest mate the ending can have (moves), where it is known.
    pub longest_mate: Option<u32>,
    /// The long call's budget in multiples of one ladder call's: high where the ladder's
    /// short bounds hardly ever prove a mate (quiet mates, an armed defender).
    pub long_share: u64,
    /// Which far bounds are worth asking beside the long call.
    pub far: FarBounds,
}

/// Which far bounds a round asks beside its long call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FarBounds {
    /// None: the long call proves these mates sooner with every far bound's budget
    /// (two bishops, whose mates take at most 19 moves).
    None,
    /// Up to the long call's bound: a longer mate needs a pawn move or capture to beat the
    /// 50-move claim (quiet mates of a lone king).
    UpToLong,
    /// Up to the ending's longest mate, where it is known; else all.
    UpToLongestMate,
}

/// Long call share where the ladder proves mates in its later rounds.
pub const LONG_SHARE: u64 = 16;

/// Long call share for quiet mates and an armed defender.
pub const QUIET_LONG_SHARE: u64 = 64;

/// How far the bounds go when `attacker` mates on `board`: None above [`MAX_MEN`] men,
/// where the driver asks no long call.
pub fn ending(board: &Board, attacker: Color) -> Option<Ending> {
    if board.occupied().count() > MAX_MEN {
        return None;
    }
    let quiet = quiet_mate(board, attacker);
    let long_share = if quiet || armed_defender(board, attacker) { QUIET_LONG_SHARE } else { LONG_SHARE };
    let far = if quiet && bishops_mate(board, attacker) {
        FarBounds::None
    } else if quiet {
        FarBounds::UpToLong
    } else {
        FarBounds::UpToLongestMate
    };
    Some(Ending { longest_mate: material::longest_mate(board), long_share, far })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::{parse_fen, uci};
    use tablebase::STRAY_PN;

    fn node(fen: &str) -> Node {
        Node::new(parse_fen(fen).unwrap())
    }

    fn find(node: &Node, text: &str) -> Move {
        node.pos.legal_moves().into_iter().find(|&m| uci(m) == text).unwrap()
    }

    #[test]
    fn outside_endings_the_numbers_are_df_pn_plus() {
        let n = node("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let k = Knowledge::new(Color::White, None);
        let guide = k.at(&n);
        assert_eq!(guide.quiet(find(&n, "a2a3")), QUIET_PN);
        assert_eq!(guide.tactical(), QUIET_PN);
        assert_eq!(guide.check(7), 7, "a check starts at its evasions");
        assert_eq!(guide.reply(find(&n, "f3e5")), DEFENDER_CAPTURE_PN);
        assert!(guide.narrowing(&n).is_none());
        assert_eq!(ending(n.pos.board(), Color::White), None, "no long bound with 32 men");
    }

    #[test]
    fn in_a_quiet_mate_moves_that_drive_the_king_start_lower() {
        // K+B+B v K: the king's step towards the lone king against one away from it.
        let n = node("8/8/8/3k4/8/8/8/1BB1K3 w - - 0 1");
        let mut k = Knowledge::new(Color::White, None);
        k.begin_call(n.pos.board(), SearchLimits::default());
        let guide = k.at(&n);
        assert!(guide.quiet(find(&n, "e1e2")) < guide.quiet(find(&n, "e1f1")));
        assert!(guide.narrowing(&n).is_some(), "a lone king against minor pieces");
        let e = ending(n.pos.board(), Color::White).unwrap();
        assert_eq!((e.long_share, e.far), (QUIET_LONG_SHARE, FarBounds::None));
        // A move that mated before starts one lower.
        let before = guide.quiet(find(&n, "c1g5"));
        k.learn_mate(MoveCode::of(find(&n, "c1g5")));
        assert_eq!(k.at(&n).quiet(find(&n, "c1g5")), before - 1);
    }

    #[test]
    fn an_ending_of_four_men_has_its_longest_mate_from_its_exact_table() {
        // Once its table is ready (a search that waits for its tables waits for it first).
        let ready = |n: &Node| exact::begin_search(n.pos.board(), &SearchLimits::waiting());
        let n = node("1k6/4K3/8/1r6/8/5Q2/8/8 w - - 0 1");
        ready(&n);
        let e = ending(n.pos.board(), Color::White).unwrap();
        assert_eq!((e.long_share, e.far, e.longest_mate), (LONG_SHARE, FarBounds::UpToLongestMate, Some(35)));
        let kbbk = node("8/8/8/3k4/8/8/8/1BB1K3 w - - 0 1");
        ready(&kbbk);
        assert_eq!(ending(kbbk.pos.board(), Color::White).unwrap().longest_mate, Some(19));
        let five = node("8/8/8/3k4/8/8/7P/1BB1K3 w - - 0 1");
        assert_eq!(ending(five.pos.board(), Color::White).unwrap().longest_mate, None);
    }

    fn test_tables() -> std::sync::Arc<SyzygyTables> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
        SyzygyTables::load(dir, 7).0.expect("the test tables")
    }

    #[test]
    fn tables_end_a_node_the_attacker_cannot_win_and_rank_a_won_nodes_moves() {
        let tables = test_tables();
        // K+R v K, the rook attacked by the black king: Rb3+ loses it, Rb1 keeps the win.
        let n = node("8/8/8/8/8/2k5/1R6/K7 w - - 0 1");
        let k = Knowledge::new(Color::White, Some(&tables));
        assert!(!k.no_win(&n));
        assert_eq!(tables.wins(&n, Color::White), Some(true));
        let guide = k.at(&n);
        assert_eq!(guide.exact(&n, find(&n, "b2b3")), Some(Exact::NoWin), "the king takes the rook");
        let kept: Vec<(Move, u32)> = n
            .pos
            .legal_moves()
            .into_iter()
            .filter_map(|m| match guide.exact(&n, m) {
                Some(Exact::Win(Some(pn))) => Some((m, pn)),
                _ => None,
            })
            .collect();
        assert!(kept.len() >= 5, "{kept:?}");
        // The tables' line (a move one ply nearer the next mate) starts lowest; every
        // slower move starts at least one stray ply above it.
        let best = kept.iter().map(|&(_, pn)| pn).min().unwrap();
        assert!(best < STRAY_PN);
        assert!(kept.iter().any(|&(_, pn)| pn >= STRAY_PN), "{kept:?}");
        assert!(guide.narrowing(&n).is_none(), "a table node keeps all its moves");

        // The defender's node of the same ending: its replies are all still lost.
        let reply = node("8/8/8/8/8/2k5/8/KR6 b - - 1 1");
        let guide = k.at(&reply);
        assert!(reply.pos.legal_moves().iter().all(|&m| guide.exact(&reply, m) == Some(Exact::Win(None))));

        // K+B v K+B: a draw; no node of it is worth a child.
        let drawn = node("8/8/2b1k3/8/8/2B1K3/8/8 w - - 0 1");
        assert!(k.no_win(&drawn) && Knowledge::new(Color::Black, Some(&tables)).no_win(&drawn));
        // Without tables nothing is known.
        assert!(!Knowledge::new(Color::White, None).no_win(&drawn));
    }
}
