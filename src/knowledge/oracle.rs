//! A game's oracle: what its endgame tables know exactly of its positions, beyond the
//! rules. Chess has one (the Syzygy tables when loaded, the exact tables of four men
//! always); a game without tables has `()`, which knows nothing.
//!
//! The prover asks the oracle at a handful of places, always through this trait, so that
//! no caller tests which game it runs: as a search begins (the tables of its root are
//! asked for), for the floor the exact tables keep under a repeated game history, whether
//! the tables call a root won (the driver then asks its long bound first), how far the
//! bounds of an ending go, and, for a certificate, where a disproof may end on a
//! tablebase leaf or rests on exact values the search left no tree of.

use std::sync::Arc;

use shakmaty::{Chess, Color, Position};

use super::exact::{self, DTM_MEN};
use super::tablebase::SyzygyTables;
use super::{Ending, SearchLimits};
use crate::chess::game::Game;
use crate::chess::node::Node;
use crate::chess::rules::Repetitions;

/// What a game's tables know of its positions (see the module documentation). Every
/// method has the answer of a game without tables.
pub trait Oracle<G: Game>: Clone + Default + Send + Sync + 'static {
    /// A search of `root` within `limits` begins.
    #[inline]
    fn begin_search(&self, _root: &G, _limits: &SearchLimits) {}

    /// The exact tables' floor of the game history `reps` (see
    /// [`Repetitions::with_exact_floor`]): 0 where they decide nothing under it.
    #[inline]
    fn exact_floor(&self, _reps: &Repetitions) -> [u32; 2] {
        [0, 0]
    }

    /// Whether the tables say `attacker` can force a mate from `node`.
    #[inline]
    fn wins(&self, _node: &Node<G>, _attacker: Color) -> bool {
        false
    }

    /// Whether the tables say `attacker` cannot win from `node`: a disproof may end there
    /// on a tablebase leaf, which the certificate's checker probes itself.
    #[inline]
    fn refutes(&self, _node: &Node<G>, _attacker: Color) -> bool {
        false
    }

    /// Whether exact values decide `node` on expansion, leaving no search tree of a
    /// disproof to certify.
    #[inline]
    fn decides(&self, _node: &Node<G>) -> bool {
        false
    }

    /// How far the driver's bounds go when `attacker` plays for a win from `root`, in an
    /// ending whose tables or knowledge say so.
    #[inline]
    fn ending(&self, _root: &G, _attacker: Color) -> Option<Ending> {
        None
    }

    /// Tablebase probes that found a value, since the tables were loaded.
    #[inline]
    fn hits(&self) -> u64 {
        0
    }

    /// The Syzygy tables, where the game reads them: its solvers' knowledge and the
    /// tablebase leaves of its certificates.
    #[inline]
    fn syzygy(&self) -> Option<&SyzygyTables> {
        None
    }
}

impl<G: Game> Oracle<G> for () {}

/// Chess's oracle: the Syzygy tables when loaded, the exact tables of positions of four
/// men or fewer, and the positions of the game's history that a defender may claim as a
/// repetition, under which the exact tables decide only what their mate cannot repeat.
#[derive(Clone, Default)]
pub struct ChessOracle {
    /// The Syzygy tables, when loaded.
    pub syzygy: Option<Arc<SyzygyTables>>,
    /// The positions of the game's history (the root's included) that occurred twice or
    /// more (see [`exact::exact_floor`]).
    pub repeated: Arc<[Chess]>,
}

impl ChessOracle {
    /// The oracle of `syzygy`'s tables and no repeated position.
    pub fn with_syzygy(syzygy: Option<Arc<SyzygyTables>>) -> ChessOracle {
        ChessOracle { syzygy, ..ChessOracle::default() }
    }
}

impl Oracle<Chess> for ChessOracle {
    fn begin_search(&self, root: &Chess, limits: &SearchLimits) {
        exact::begin_search(root.board(), limits);
    }

    fn exact_floor(&self, reps: &Repetitions) -> [u32; 2] {
        exact::exact_floor(reps, &self.repeated)
    }

    #[inline]
    fn wins(&self, node: &Node, attacker: Color) -> bool {
        self.syzygy.as_ref().is_some_and(|t| t.wins(node, attacker) == Some(true))
    }

    #[inline]
    fn refutes(&self, node: &Node, attacker: Color) -> bool {
        self.syzygy.as_ref().is_some_and(|t| t.wins(node, attacker) == Some(false))
    }

    #[inline]
    fn decides(&self, node: &Node) -> bool {
        node.pos.board().occupied().count() <= DTM_MEN && node.pos.castles().is_empty()
    }

    fn ending(&self, root: &Chess, attacker: Color) -> Option<Ending> {
        super::ending(root.board(), attacker)
    }

    #[inline]
    fn hits(&self) -> u64 {
        self.syzygy.as_ref().map_or(0, |t| t.hits())
    }

    #[inline]
    fn syzygy(&self) -> Option<&SyzygyTables> {
        self.syzygy.as_deref()
    }
}
