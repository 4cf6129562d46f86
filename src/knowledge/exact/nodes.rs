//! The node-by-node retrograde build of one ending's table, for the endings with en
//! passant (pawns of both colours), where the bit-parallel build ([`super::sweep`]) does
//! not go.
//!
//! The build works backwards from the mates: a position is lost in n plies once every
//! move leads to a win of at most n-1, won in n+1 once some move leads to a loss in n.
//! Moves that capture or promote leave the material for a smaller one, built first and
//! read as a fixed value. En passant positions (a double push the opponent can take) are
//! nodes of their own, kept apart from the placement array. Castling rights are outside
//! the tables.

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use rustc_hash::FxHashMap;
use shakmaty::attacks::attacks;
use shakmaty::{Bitboard, Color, Piece, Role, Square};

use super::index::{Layout, Squares, key, on_long_diagonal};
use super::mapped::Bytes;
use super::material::Material;
use super::moves::{Built, Exits, Placement, Step, count, ep_capture_legal, hits, moves};
use super::progress::Progress;
use super::table::{Code, DtmTable, Origin, before};

/// Lists one node's first state is worked out with, kept for their allocations.
#[derive(Default)]
struct Scratch {
    children: Vec<u32>,
    eps: Vec<u32>,
}

/// A node's state during a build: no legal position.
const BROKEN: u8 = 255;
/// A node's floor during a build: it is never lost (a move draws or wins).
const NEVER: u8 = 255;

/// A node's state during a build, packed in one word that both threads of the
/// retrograde pass update at once: the value code (bits 0-7); the moves that stay in the
/// material and are not yet known to lose (bits 8-15; BROKEN: no position); the value
/// code of the longest loss by a capture or promotion (bits 16-23; NEVER where one draws
/// or wins), as a node lost inside the material is lost no sooner.
type State = AtomicU32;

#[inline]
fn pack(value: Code, count: u8, floor: u8) -> u32 {
    u32::from(value) | u32::from(count) << 8 | u32::from(floor) << 16
}

#[inline]
fn unpack(state: u32) -> (Code, u8, u8) {
    (state as u8, (state >> 8) as u8, (state >> 16) as u8)
}

/// A table under construction. Nodes are the placements with each side to move (ids
/// below `2 * size`), then the en passant positions met, each once.
struct Builder<'p> {
    layout: Layout,
    progress: &'p Progress,
    exits: Exits,
    /// Each node's state, in one array: the retrograde pass reads a node's state at
    /// random, and one cache line serves it all.
    nodes: Vec<State>,
    /// Nodes by the plies of their value, to be spread to their predecessors in order.
    buckets: Vec<Vec<u32>>,
    /// En passant nodes by the id of the same placement without the right.
    ep_ids: FxHashMap<u32, u32>,
    /// Whether both sides have pawns (en passant can occur).
    both_pawns: bool,
    /// Each en passant node's placement and side to move, from id `2 * size` on.
    ep_nodes: Vec<(Squares, Color)>,
}

impl Builder<'_> {
    fn new<'p>(material: Material, built: &Built, progress: &'p Progress) -> Builder<'p> {
        let layout = Layout::of(material);
        let n = 2 * layout.size;
        Builder {
            layout,
            progress,
            exits: Exits::new(&material, built),
            nodes: (0..n).map(|_| State::new(pack(0, BROKEN, 0))).collect(),
            buckets: vec![Vec::new(); 256],
            ep_ids: FxHashMap::default(),
            ep_nodes: Vec::new(),
            both_pawns: [Color::White, Color::Black]
                .iter()
                .all(|&c| material.men[..material.n].contains(&(c, Role::Pawn))),
        }
    }

    /// The id of the en passant node of placement id `plain`, made if new.
    fn ep_id(&mut self, plain: u32) -> u32 {
        if let Some(&id) = self.ep_ids.get(&plain) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(State::new(pack(0, BROKEN, 0)));
        let side = if plain & 1 == 0 { Color::White } else { Color::Black };
        self.ep_nodes.push((self.layout.decode(plain as usize / 2), side));
        self.ep_ids.insert(plain, id);
        id
    }

    /// A node's first state from its moves (count, floor, value code): mated or
    /// stalemated, the values of its captures and promotions, and how many moves stay in
    /// the material. The placement keys of its en passant children go to `eps`; `children`
    /// is a scratch list.
    fn first(&self, index: usize, s: Squares, side: Color, ep: bool, scratch: &mut Scratch) -> (u8, u8, Code) {
        let material = self.layout.material;
        let p = Placement { material: &material, s };
        scratch.children.clear();
        // Where no two moves can join, the moves inside are only counted.
        let joins = self.joins(!side, &s);
        let t = &self.layout;
        let (mut win, mut draw, mut loss, mut any, mut inside) = (0u8, false, 0u8, false, 0usize);
        let mut exit = |code: Code| match before(code) {
            0 => draw = true,
            v if v % 2 == 0 => win = if win == 0 { v } else { win.min(v) },
            v => loss = loss.max(v),
        };
        if !joins && !ep && !self.both_pawns {
            // Counted from bitboards: no move is made but captures and promotions.
            inside = count(&self.exits, &p, side, |code| {
                any = true;
                exit(code);
            }) as usize;
            any |= inside > 0;
        } else {
            moves(&self.exits, &p, side, ep, |step| {
                any = true;
                match step {
                    Step::Inside(cs, ep, i) => {
                        if joins {
                            scratch.children.push(t.after_move(index, &s, i, cs) as u32);
                        } else {
                            inside += 1;
                            if ep {
                                scratch.eps.push(key(t.after_move(index, &s, i, cs), !side));
                            }
                        }
                    }
                    Step::Exit(code) => exit(code),
                }
            });
        }
        if !any {
            let mated = p.attacked(p.king(side), !side, p.occupied(), usize::MAX);
            return if mated { (0, 0, 1) } else { (0, NEVER, 0) };
        }
        let count = if joins {
            // Two moves may lead to one placement up to symmetry: counted once, as the
            // predecessors of a placement are (joins are only without pawns: no en passant).
            scratch.children.sort_unstable();
            scratch.children.dedup();
            scratch.children.len()
        } else {
            inside
        };
        let floor = if draw || win > 0 { NEVER } else { loss };
        let value = if win > 0 {
            win
        } else if count == 0 && !draw {
            loss
        } else {
            0
        };
        (count as u8, floor, value)
    }

    /// Sets node `id` to its first state, queued by its value if it has one.
    fn set_first(&mut self, id: u32, (count, floor, value): (u8, u8, Code)) {
        let i = id as usize;
        *self.nodes[i].get_mut() = pack(value, count, floor);
        if value > 0 {
            self.buckets[value as usize - 1].push(id);
        }
    }

    /// The nodes with a move to node `id` that stays in the material, each as many times
    /// as it has such moves: once where a symmetry can join two of them (see
    /// [`Builder::joins`]).
    fn predecessors(&self, id: u32, out: &mut Vec<u32>) {
        out.clear();
        let n2 = 2 * self.layout.size as u32;
        let (s, side, ep, index) = if id < n2 {
            let side = if id & 1 == 0 { Color::White } else { Color::Black };
            // Nodes are canonical placements: the index is the id's.
            (self.layout.decode(id as usize / 2), side, false, id as usize / 2)
        } else {
            let (s, side) = self.ep_nodes[(id - n2) as usize];
            (s, side, true, self.layout.canonical(s))
        };
        let material = self.layout.material;
        let n = material.n;
        let p = Placement { material: &material, s };
        let mover = !side;
        let occ = p.occupied();
        let ksq = Square::new(p.king(side).into());
        let up: i8 = if mover == Color::White { 8 } else { -8 };
        let with_ep = !self.ep_ids.is_empty();
        let t = &self.layout;
        let push = |i: usize, to: u8, out: &mut Vec<u32>| {
            let plain = match t.shifted(index, &s, i, to) {
                Some(k) => key(k, mover),
                None => {
                    let mut u = s;
                    u[i] = to;
                    key(t.canonical(u), mover)
                }
            };
            out.push(plain);
            if with_ep && let Some(&e) = self.ep_ids.get(&plain) {
                out.push(e);
            }
        };
        for i in 0..n {
            let (c, role) = material.men[i];
            // Into an en passant node only the double push of the pawn that can be taken.
            if c != mover || (ep && role != Role::Pawn) {
                continue;
            }
            let from = Square::new(s[i].into());
            let rest = occ ^ Bitboard::from(from);
            // Where man `i` may have come from with the king of `side` not attacked after:
            // not a square attacking it, and one blocking each other man that would.
            let piece = Piece { color: c, role };
            let mut allowed = !match role {
                Role::Pawn => shakmaty::attacks::pawn_attacks(side, ksq),
                _ => attacks(ksq, piece, rest),
            };
            for j in (0..n).filter(|&j| j != i && material.men[j].0 == mover) {
                let (jc, jrole) = material.men[j];
                let jsq = Square::new(s[j].into());
                if hits(jrole, jc, s[j], ksq as u8, rest) {
                    allowed &= shakmaty::attacks::between(jsq, ksq);
                }
            }
            if role == Role::Pawn {
                let sq = s[i];
                let prev = sq as i8 - up;
                let double_rank = if mover == Color::White { 3 } else { 4 };
                let on_double = sq >> 3 == double_rank;
                if ep {
                    // Only the double push of the pawn that can be taken leads here.
                    if !on_double {
                        continue;
                    }
                } else if (8..56).contains(&prev)
                    && !occ.contains(Square::new(prev as u32))
                    && allowed.contains(Square::new(prev as u32))
                {
                    push(i, prev as u8, out);
                }
                let prev2 = prev - up;
                if on_double
                    && !occ.contains(Square::new(prev as u32))
                    && !occ.contains(Square::new(prev2 as u32))
                    && allowed.contains(Square::new(prev2 as u32))
                    && ep == ep_capture_legal(&p, side)
                {
                    push(i, prev2 as u8, out);
                }
            } else {
                for to in attacks(from, piece, occ) & !occ & allowed {
                    push(i, to as u8, out);
                }
            }
        }
        if self.joins(side, &s) {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// Whether two moves (or two retractions) that leave `still`'s king on its square in
    /// `s` can lead to one node: only without pawns, where a symmetry of the board fixes
    /// that square (one on a long diagonal).
    #[inline]
    fn joins(&self, still: Color, s: &Squares) -> bool {
        self.layout.pawnless && on_long_diagonal(s[usize::from(still == Color::Black)])
    }

    fn run(mut self) -> DtmTable {
        let start = Instant::now();
        let material = self.layout.material;
        // The first states, in two halves at once; en passant nodes after them.
        let size = self.layout.size;
        let half = size.div_ceil(2);
        // Each thread stores its nodes' first states in place (the nodes are atomic words).
        let mut eps = {
            let this = &self;
            let work = |range: std::ops::Range<usize>| {
                let mut scratch = Scratch::default();
                for index in range {
                    if index % 4096 == 0 {
                        let done = this.progress.done.fetch_add(4096, Relaxed) + 4096;
                        this.progress.first.store((1000 * done / size).min(1000) as u32, Relaxed);
                    }
                    let s = this.layout.decode(index);
                    if !this.layout.is_canonical(index, s) {
                        continue;
                    }
                    let p = Placement { material: &material, s };
                    for side in [Color::White, Color::Black] {
                        if p.legal(side) {
                            let (count, floor, value) = this.first(index, s, side, false, &mut scratch);
                            this.nodes[key(index, side) as usize].store(pack(value, count, floor), Relaxed);
                        }
                    }
                }
                scratch.eps
            };
            let (mut low, high) = std::thread::scope(|scope| {
                let high = scope.spawn(|| work(half..size));
                (work(0..half), high.join().expect("the build's second half"))
            });
            low.extend(high);
            low
        };
        for id in 0..2 * size {
            let (value, count, _) = unpack(*self.nodes[id].get_mut());
            if count != BROKEN && value > 0 {
                self.buckets[value as usize - 1].push(id as u32);
            }
        }
        eps.sort_unstable();
        eps.dedup();
        for plain in eps {
            self.ep_id(plain);
        }
        let mut scratch = Scratch::default();
        let mut next_ep = 0;
        while next_ep < self.ep_nodes.len() {
            let (s, side) = self.ep_nodes[next_ep];
            let plain_index = self.layout.canonical(s);
            let id = 2 * self.layout.size as u32 + next_ep as u32;
            scratch.eps.clear();
            let state = self.first(plain_index, s, side, true, &mut scratch);
            self.set_first(id, state);
            for plain in std::mem::take(&mut scratch.eps) {
                self.ep_id(plain);
            }
            next_ep += 1;
        }
        for plies in 0..254usize {
            self.progress.plies.store(plies as u32, Relaxed);
            let mut list = std::mem::take(&mut self.buckets[plies]);
            if list.is_empty() {
                continue;
            }
            // In memory order, for the cache: the nodes' neighbours are near each other.
            list.sort_unstable();
            // Each node's value is settled: its predecessors' new values are all longer,
            // so the list may be split between two threads in any way.
            let found = if list.len() < 4096 {
                vec![self.spread(plies, &list)]
            } else {
                let (low, high) = list.split_at(list.len() / 2);
                let this = &self;
                std::thread::scope(|scope| {
                    let other = scope.spawn(move || this.spread(plies, high));
                    vec![this.spread(plies, low), other.join().expect("the retrograde pass's other half")]
                })
            };
            for found in found {
                for (code, id) in found {
                    self.buckets[code as usize - 1].push(id);
                }
            }
        }
        let n2 = 2 * self.layout.size;
        let mut ep: Vec<(u32, u32)> = self.ep_ids.iter().map(|(&plain, &id)| (plain, id)).collect();
        ep.sort_unstable();
        let mut bytes: Vec<u8> = self.nodes[..n2].iter().map(|n| n.load(Relaxed) as u8).collect();
        bytes.extend(ep.iter().flat_map(|&(plain, _)| plain.to_le_bytes()));
        bytes.extend(ep.iter().map(|&(_, id)| self.nodes[id as usize].load(Relaxed) as u8));
        let longest = bytes[..n2]
            .iter()
            .chain(&bytes[n2 + 4 * ep.len()..])
            .map(|&v| u32::from(v).saturating_sub(1))
            .max()
            .unwrap_or(0);
        let origin = Origin::Built(start.elapsed());
        DtmTable::from_bytes(self.layout, Bytes::Owned(bytes), longest, origin).expect("a built table has its form")
    }

    /// Spreads the values of `list`'s nodes, settled at `plies + 1`, to their
    /// predecessors: the nodes given a value, with it.
    fn spread(&self, plies: usize, list: &[u32]) -> Vec<(Code, u32)> {
        let mut found = Vec::new();
        let (mut preds, mut batch) = (Vec::with_capacity(64), Vec::with_capacity(1024));
        // A few nodes' predecessors at a time, their states asked for from memory first:
        // the states are read at random, and the misses then overlap.
        for chunk in list.chunks(SPREAD_BATCH) {
            batch.clear();
            for &id in chunk {
                if usize::from(self.nodes[id as usize].load(Relaxed) as u8) == plies + 1 {
                    self.predecessors(id, &mut preds);
                    batch.extend_from_slice(&preds);
                }
            }
            for &pred in &batch {
                prefetch(&self.nodes[pred as usize]);
            }
            for &pred in &batch {
                let node = &self.nodes[pred as usize];
                let mut old = node.load(Relaxed);
                loop {
                    let (v, count, floor) = unpack(old);
                    if count == BROKEN {
                        break;
                    }
                    let new = if plies.is_multiple_of(2) {
                        // A loss: the predecessor wins in one more ply, if no sooner.
                        let code = (plies + 2) as u8;
                        if v != 0 && (v % 2 == 1 || v <= code) {
                            break;
                        }
                        pack(code, count, floor)
                    } else {
                        // A win for the other side: one move fewer to escape it.
                        if v != 0 {
                            break;
                        }
                        let count = count - 1;
                        let v = if count == 0 && floor != NEVER { ((plies + 2) as u8).max(floor) } else { 0 };
                        pack(v, count, floor)
                    };
                    match node.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                        Ok(_) => {
                            if new as u8 != 0 {
                                found.push((new as u8, pred));
                            }
                            break;
                        }
                        Err(now) => old = now,
                    }
                }
            }
        }
        found
    }
}

/// How many settled nodes [`Builder::spread`] takes at a time.
const SPREAD_BATCH: usize = 16;

/// Asks for the cache line of `state` ahead of its use.
#[inline(always)]
fn prefetch(state: &State) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it reads nothing and faults on nothing.
    unsafe {
        std::arch::x86_64::_mm_prefetch(std::ptr::from_ref(state).cast::<i8>(), std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = state;
}

/// Builds the table of `material` node by node, from the built tables of the materials
/// its captures and promotions lead to (all of them must be in `built`), saying how far it
/// has got in `progress`.
pub(crate) fn build(material: Material, built: &Built, progress: &Progress) -> DtmTable {
    Builder::new(material, built, progress).run()
}
