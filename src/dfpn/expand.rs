//! What a game gives the df-pn core to expand a node: the [`Expand`] trait, and the
//! [`Expander`] an expansion reads and writes. A node's children come in the order
//! selection breaks ties by (checks, then captures and promotions, then quiet moves),
//! with their first values; each game's expansion is its own (`crate::orthodox`,
//! `crate::variant`, `crate::problem`).

use shakmaty::{Chess, Color};

use crate::chess::game::Game;
use crate::chess::mate_len::Plies;
use crate::chess::node::Node;
use crate::dfpn::children::{Child, Expansion};
use crate::dfpn::monitor::Monitor;
use crate::dfpn::tree::{RootMoves, Tree};
use crate::knowledge::Know;
use crate::knowledge::oracle::Oracle;

/// Where a call sets quiet moves aside, and what it did.
#[derive(Default)]
pub struct SetAside {
    /// The first ply whose attacker nodes may be narrowed in this call.
    pub from: usize,
    /// Whether an attacker node one ply below the root was narrowed in this call.
    pub below_root: bool,
    /// A copy of a node's quiet children while they are narrowed (kept for its allocation).
    pub(crate) scratch: Vec<Child>,
    /// The sort keys of the quiet children being narrowed (kept for its allocation).
    pub(crate) order: Vec<u64>,
}

impl SetAside {
    /// A new call: narrow from the first ply below the root, nothing narrowed yet.
    pub fn begin(&mut self) {
        self.from = 1;
        self.below_root = false;
    }
}

/// What a game gives the df-pn core beyond its rules: its knowledge, its oracle, and the
/// local expansion of an attacker's (OR) and a defender's (AND) node, with the game's
/// fast paths. Chess's expansion is in `crate::orthodox`, each variant's in
/// `crate::variant`, a problem's in `crate::problem`.
pub trait Expand: Game {
    /// What the solver knows of this game beyond the rules.
    type Knowledge<'t>: Know<Self>;

    /// What the game's tables know exactly ([`Oracle`]; `()` for a game without).
    type Oracle: Oracle<Self>;

    /// What a defender's node of a disproof shows when its section ends there, as
    /// `pnmate-check` reads the game: 1 in chess (within one ply only the defender moves,
    /// and it cannot lose by moving), 0 in a variant (a defender may lose on its own
    /// move: antichess's last man taken).
    const DEFENDER_LEAF: u32;

    /// The knowledge of a solver of `attacker`'s wins from `root`, with the game's
    /// `oracle`.
    fn knowledge<'t>(root: &Self, attacker: Color, oracle: &'t Self::Oracle) -> Self::Knowledge<'t>;

    /// Expands a node (`or`: the attacker's to move, else the defender's; `r` plies left,
    /// `ply` plies below the search root) into `children`, or decides it.
    fn expand(
        e: &mut Expander<'_, '_, Self>,
        node: &Node<Self>,
        r: Plies,
        or: bool,
        ply: usize,
        root: RootMoves,
        children: &mut Vec<Child>,
    ) -> Expansion;
}

/// What one expansion reads and writes: the tree, the node counter, the knowledge and
/// the narrowing state of the call.
pub struct Expander<'e, 'a, G: Expand = Chess> {
    pub tree: &'e Tree<'a>,
    pub monitor: &'e mut Monitor,
    pub knowledge: &'e G::Knowledge<'a>,
    pub set_aside: &'e mut SetAside,
}
