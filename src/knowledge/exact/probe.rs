//! What one df-pn call reads of the exact tables, and which builds it may ask for.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Duration;

use shakmaty::{Board, Chess, Color, EnPassantMode, Position, Role};

use super::index::arrange;
use super::material::{DTM_MEN, Material, closure};
use super::store::{Fetched, estimate, store};
use super::table::{Dtm, DtmTable};
use crate::chess::game::Game;
use crate::chess::rules::Repetitions;
use crate::knowledge::SearchLimits;

/// The share of a search's time left (or of its node limit, at [`node_time`]) that
/// building a table met below its root may take (by [`super::DtmStore::estimate`]).
pub const BELOW_ROOT_SHARE: u32 = 4;

/// The node limit an analysis without limits is weighed as: it must stay responsive, its
/// progress lines every second, so it asks below its root only for the smallest tables.
const UNLIMITED_NODES: u64 = 1_000_000;

/// What `nodes` search nodes are taken to cost (a microsecond each), to weigh a build
/// against a node limit.
fn node_time(nodes: u64) -> Duration {
    Duration::from_micros(nodes)
}

/// The exact values one df-pn call reads: the tables it has, kept at hand.
///
/// The call asks for the tables of its root's material (and all it leads to) always, and
/// for a table met below the root unless the search's limits cannot afford its build
/// (more than [`BELOW_ROOT_SHARE`] of the time left, or of the node limit); without
/// limits (analysis) it is weighed as [`UNLIMITED_NODES`]. A table that is not ready is
/// no value: the node is searched, and the table used once it is built. Only a search of
/// fixed nodes and no time waits for what it asks for, so that what it covers never
/// depends on what is stored or how fast the machine builds.
#[derive(Default)]
pub struct Exact {
    tables: RefCell<Vec<Arc<DtmTable>>>,
    /// Materials this call does without.
    refused: RefCell<Vec<Material>>,
    /// Materials asked for and not yet ready, and the store's count of ready tables then.
    pending: RefCell<Vec<Material>>,
    seen: Cell<u64>,
    /// The call root's material and all it leads to.
    root: Vec<Material>,
    limits: SearchLimits,
}

impl Exact {
    /// A call starts at `root`, within the search's `limits`.
    pub fn begin_call(&mut self, root: &Board, limits: SearchLimits) {
        self.root.clear();
        if let Some((material, _)) = Material::of_board(root) {
            self.root = closure(material);
        }
        self.limits = limits;
        self.refused.get_mut().clear();
        self.pending.get_mut().clear();
    }

    /// The table of `material` for this call, where it may have it now.
    fn admit(&self, material: Material) -> Option<Arc<DtmTable>> {
        if self.refused.borrow().contains(&material) {
            return None;
        }
        let store = store();
        let ready = store.ready_count();
        if self.pending.borrow().contains(&material) && ready == self.seen.get() {
            return None;
        }
        // A node limit weighs the whole build, stored or not, so that what a search of
        // fixed nodes covers never depends on what ran before it.
        let affordable = |nodes: u64| estimate(material, |_| true) * BELOW_ROOT_SHARE <= node_time(nodes);
        let limits = &self.limits;
        let asked = self.root.contains(&material)
            || match limits.time_left {
                Some(left) => store.get(material).is_some() || store.estimate(material) * BELOW_ROOT_SHARE <= left,
                None => affordable(limits.nodes.unwrap_or(UNLIMITED_NODES)),
            };
        if !asked {
            self.refused.borrow_mut().push(material);
            return None;
        }
        let table = if limits.waits() {
            let stop = limits.stop.clone();
            let table =
                store.wait(material, &|| stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)));
            if table.is_none() {
                // Stopped: the call is ending.
                self.refused.borrow_mut().push(material);
            }
            table
        } else {
            match store.fetch(material) {
                Fetched::Ready(t) => Some(t),
                Fetched::Pending => {
                    let mut pending = self.pending.borrow_mut();
                    if !pending.contains(&material) {
                        pending.push(material);
                    }
                    self.seen.set(ready);
                    None
                }
            }
        };
        if table.is_some() {
            self.pending.borrow_mut().retain(|&m| m != material);
        }
        table
    }

    /// The exact value of `pos` for its side to move, where it has at most [`DTM_MEN`] men,
    /// no castling rights, and its table is ready (see [`Exact`]).
    pub fn value(&self, pos: &Chess) -> Option<Dtm> {
        let board = pos.board();
        if board.occupied().count() > DTM_MEN || !pos.castles().is_empty() {
            return None;
        }
        let (material, flip) = Material::of_board(board)?;
        if material.n == 2 {
            return Some(Dtm::Draw);
        }
        let mut men = [((Color::White, Role::King), 0u8); DTM_MEN];
        for (slot, sq) in men.iter_mut().zip(board.occupied()) {
            let p = board.piece_at(sq)?;
            *slot = ((p.color, p.role), sq as u8);
        }
        let s = arrange(&material, flip, &men[..material.n]);
        let side = if flip { !pos.turn() } else { pos.turn() };
        let ep = pos.ep_square(EnPassantMode::Legal).is_some();
        // Read in place: cloning the shared table per node would touch its count, a
        // line every thread writes.
        let mut tables = self.tables.borrow_mut();
        let i = match tables.iter().position(|t| t.layout.material == material) {
            Some(i) => i,
            None => {
                tables.push(self.admit(material)?);
                tables.len() - 1
            }
        };
        Some(Dtm::of(tables[i].code(s, side, ep)))
    }
}

/// The longest mate of the ending on `board` (moves), where it has three or four men and
/// its table is ready.
pub fn longest_mate(board: &Board) -> Option<u32> {
    if !(3..=DTM_MEN).contains(&board.occupied().count()) {
        return None;
    }
    let (material, _) = Material::of_board(board)?;
    Some(store().get(material)?.longest.div_ceil(2))
}

/// A search of `root` begins: its tables go to the front of the builder's queue, and a
/// search that waits for its tables (`limits`, see [`Exact`]) waits for its root's here,
/// so that the driver knows the ending's longest mate from its first call.
pub fn begin_search(root: &Board, limits: &SearchLimits) {
    let material = (root.occupied().count() <= DTM_MEN).then(|| Material::of_board(root).map(|m| m.0)).flatten();
    let store = store();
    store.begin_search(material);
    if let Some(m) = material.filter(|m| m.n > 2) {
        if limits.waits() {
            let stop = limits.stop.clone();
            let _ = store.wait(m, &|| stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)));
        } else {
            let _ = store.fetch(m);
        }
    }
}

/// The exact tables' floor of a game history (see [`Repetitions::with_exact_floor`]),
/// from `repeated`, the positions it lets the defender claim on their next occurrence:
/// per attacker, the fewest plies to mate of one it wins. A claimable position without
/// its position given, or whose table is not ready, makes the floor 0 (the tables decide
/// nothing); one of more men, or with castling rights, is never met below a node the
/// tables cover.
pub fn exact_floor(reps: &Repetitions, repeated: &[Chess]) -> [u32; 2] {
    let mut floor = [u32::MAX; 2];
    for h in reps.claimable() {
        let Some(pos) = repeated.iter().find(|p| p.full_hash() == h) else { return [0, 0] };
        let covered = pos.board().occupied().count() <= DTM_MEN && pos.castles().is_empty();
        let table = Material::of_board(pos.board()).and_then(|(m, _)| store().get(m));
        if covered && table.is_none() && pos.board().occupied().count() > 2 {
            return [0, 0];
        }
        let mut exact = Exact::default();
        exact.begin_call(pos.board(), SearchLimits::default());
        let (winner, plies) = match exact.value(pos) {
            Some(Dtm::Wins(d)) => (pos.turn(), d),
            Some(Dtm::Loses(d)) => (!pos.turn(), d),
            _ => continue,
        };
        let slot = &mut floor[usize::from(winner == Color::Black)];
        *slot = (*slot).min(plies);
    }
    floor
}
