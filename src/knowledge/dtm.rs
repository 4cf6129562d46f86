//! Exact distance to mate (DTM) of every position with at most four men, by retrograde
//! analysis, built in the process the first time a search meets the material.
//!
//! A table holds, for each placement of its men and each side to move, the plies to
//! mate with best play on both sides (odd: the side to move mates; even: it is mated), or
//! nothing (a draw: no side can force mate). DTM ignores the 50-move rule and
//! repetitions; the prover applies those (docs/design.md, "Exact small endings").
//!
//! The build works backwards from the mates: a position is lost in n plies once every
//! move leads to a win of at most n-1, won in n+1 once some move leads to a loss in n.
//! Moves that capture or promote leave the material for a smaller one, built first and
//! read as a fixed value. Placements are reduced by the board's symmetries: eight
//! without pawns (the white king in the a1-d1-d4 triangle), the mirror with pawns (the
//! white king on files a-d). En passant positions (a double push the opponent can take)
//! are nodes of their own, kept apart from the placement array. Castling rights are
//! outside the tables.

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use crate::chess::game::Game;
use crate::chess::rules::Repetitions;
use shakmaty::attacks::attacks;
use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role, Square};

/// The most men (kings included) a table holds.
pub const DTM_MEN: usize = 4;

/// The most memory the kept tables take together between searches: as a search begins,
/// the tables used longest ago are dropped down to it (see [`Store::trim`]).
pub const BUDGET_BYTES: usize = 48 << 20;

/// A build that takes longer than this is reported (`info string`).
pub const REPORT_BUILD: Duration = Duration::from_millis(100);

/// One man of a material: its colour and role.
type Man = (Color, Role);

/// The men of an ending, kings first (white, black), then white's other men and black's,
/// each by role from the queen down. The side with more (or, if as many, stronger) men
/// is white: a position of the other colouring is read with its colours swapped.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Material {
    men: [Man; DTM_MEN],
    n: usize,
}

impl Material {
    /// The material of the non-king men `others`, and whether a position of it is read
    /// with its colours swapped. None beyond [`DTM_MEN`] men.
    fn of(others: &[Man]) -> Option<(Material, bool)> {
        if others.len() + 2 > DTM_MEN {
            return None;
        }
        // Each side's roles, the strongest first (no allocation: this runs per node).
        let side = |c: Color| {
            let mut roles = [Role::King; DTM_MEN - 2];
            let mut k = 0;
            for &(_, r) in others.iter().filter(|m| m.0 == c) {
                roles[k] = r;
                k += 1;
            }
            roles[..k].sort_unstable_by(|a, b| b.cmp(a));
            (k, roles)
        };
        let (mut white, mut black) = (side(Color::White), side(Color::Black));
        let flip = (black.0, &black.1[..black.0]) > (white.0, &white.1[..white.0]);
        if flip {
            std::mem::swap(&mut white, &mut black);
        }
        let mut men = [
            (Color::White, Role::King),
            (Color::Black, Role::King),
            (Color::White, Role::King),
            (Color::White, Role::King),
        ];
        let mut n = 2;
        for (c, (k, roles)) in [(Color::White, white), (Color::Black, black)] {
            for r in roles.into_iter().take(k) {
                men[n] = (c, r);
                n += 1;
            }
        }
        Some((Material { men, n }, flip))
    }

    /// The material of `board`, and whether it is read with colours swapped.
    pub fn of_board(board: &Board) -> Option<(Material, bool)> {
        if board.occupied().count() > DTM_MEN {
            return None;
        }
        let mut others = [(Color::White, Role::King); DTM_MEN];
        let mut k = 0;
        for sq in board.occupied() & !board.kings() {
            let p = board.piece_at(sq)?;
            others[k] = (p.color, p.role);
            k += 1;
        }
        Material::of(&others[..k])
    }

    /// The material by name, as `KQvKR` (either side first).
    pub fn named(name: &str) -> Option<Material> {
        let (w, b) = name.split_once('v')?;
        let mut others = Vec::new();
        for (c, s) in [(Color::White, w), (Color::Black, b)] {
            let mut chars = s.chars();
            if chars.next()? != 'K' {
                return None;
            }
            for ch in chars {
                others.push((c, Role::from_char(ch.to_ascii_lowercase())?));
            }
        }
        Material::of(&others).map(|(m, _)| m)
    }

    /// Its name, as `KQvKR`.
    pub fn name(&self) -> String {
        let mut s = String::from("K");
        for c in [Color::White, Color::Black] {
            if c == Color::Black {
                s.push_str("vK");
            }
            for &(mc, r) in &self.men[2..self.n] {
                if mc == c {
                    s.push(r.upper_char());
                }
            }
        }
        s
    }

    fn has_pawns(&self) -> bool {
        self.men[..self.n].iter().any(|m| m.1 == Role::Pawn)
    }

    /// The materials a capture or a promotion leads to, each once.
    fn successors(&self) -> Vec<Material> {
        let others = &self.men[2..self.n];
        let mut out = Vec::new();
        let mut push = |men: Vec<Man>| {
            if let Some((m, _)) = Material::of(&men)
                && !out.contains(&m)
            {
                out.push(m);
            }
        };
        for i in 0..others.len() {
            let mut rest = others.to_vec();
            let (c, r) = rest.remove(i);
            push(rest.clone());
            if r == Role::Pawn {
                for promoted in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                    let mut p = rest.clone();
                    p.push((c, promoted));
                    push(p.clone());
                    // A promotion that captures.
                    for (j, man) in rest.iter().enumerate() {
                        if man.0 != c {
                            let mut q = p.clone();
                            q.remove(j);
                            push(q);
                        }
                    }
                }
            }
        }
        out
    }
}

/// A symmetry of the board without pawns: bit 0 mirrors the files, bit 1 the ranks, and
/// bit 2 then swaps files and ranks (the a1-h8 diagonal).
#[inline]
const fn transform(t: u8, sq: u8) -> u8 {
    let mut x = sq;
    if t & 1 != 0 {
        x ^= 7;
    }
    if t & 2 != 0 {
        x ^= 56;
    }
    if t & 4 != 0 {
        x = (x >> 3) | ((x & 7) << 3);
    }
    x
}

/// Every square under every symmetry.
const TRANSFORMED: [[u8; 64]; 8] = {
    let mut out = [[0u8; 64]; 8];
    let mut t = 0;
    while t < 8 {
        let mut sq = 0;
        while sq < 64 {
            out[t][sq] = transform(t as u8, sq as u8);
            sq += 1;
        }
        t += 1;
    }
    out
};

/// The symmetry that brings the kings of a placement without pawns to their canonical
/// squares: the white king in the a1-d1-d4 triangle and, with it on the diagonal, the
/// black king on or below it. AMBIGUOUS is added where both kings end on the diagonal,
/// so that the diagonal swap (bit 2) may be applied as well.
const KK_TRANSFORM: [[u8; 64]; 64] = {
    let mut out = [[0u8; 64]; 64];
    let mut wk = 0;
    while wk < 64 {
        let mut t = 0u8;
        if wk & 7 > 3 {
            t |= 1;
        }
        if wk >> 3 > 3 {
            t |= 2;
        }
        let w = transform(t, wk as u8);
        if w >> 3 > w & 7 {
            t |= 4;
        }
        let mut bk = 0;
        while bk < 64 {
            let w = transform(t, wk as u8);
            let b = transform(t, bk as u8);
            out[wk][bk] = if w >> 3 != w & 7 {
                t
            } else if b >> 3 > b & 7 {
                t | 4
            } else if b >> 3 == b & 7 {
                t | AMBIGUOUS
            } else {
                t
            };
            bk += 1;
        }
        wk += 1;
    }
    out
};

/// Flag of [`KK_TRANSFORM`]: the kings are symmetric in the a1-h8 diagonal.
const AMBIGUOUS: u8 = 8;

/// Canonical king pairs without pawns: the white king in the triangle, the black king on
/// another square not next to it, and on or below the diagonal when the white king is on it.
const KK_PAIRS: usize = 462;

/// The index of each canonical king pair (by white, black king), NO_PAIR elsewhere.
const KK_INDEX: [[u16; 64]; 64] = {
    let mut out = [[NO_PAIR; 64]; 64];
    let mut i = 0;
    let mut wk: usize = 0;
    while wk < 64 {
        let (wf, wr) = (wk & 7, wk >> 3);
        if wf <= 3 && wr <= wf {
            let mut bk: usize = 0;
            while bk < 64 {
                let (bf, br) = (bk & 7, bk >> 3);
                let near = wf.abs_diff(bf) <= 1 && wr.abs_diff(br) <= 1;
                if !near && !(wr == wf && br > bf) {
                    out[wk][bk] = i;
                    i += 1;
                }
                bk += 1;
            }
        }
        wk += 1;
    }
    assert!(i as usize == KK_PAIRS);
    out
};

/// No canonical king pair.
const NO_PAIR: u16 = u16::MAX;

/// The kings of each canonical pair, by index.
const KK_SQUARES: [(u8, u8); KK_PAIRS] = {
    let mut out = [(0u8, 0u8); KK_PAIRS];
    let mut wk = 0;
    while wk < 64 {
        let mut bk = 0;
        while bk < 64 {
            if KK_INDEX[wk][bk] != NO_PAIR {
                out[KK_INDEX[wk][bk] as usize] = (wk as u8, bk as u8);
            }
            bk += 1;
        }
        wk += 1;
    }
    out
};

/// Whether a square is on one of the long diagonals, the only squares a symmetry of the
/// board without pawns can fix.
#[inline]
fn on_long_diagonal(sq: u8) -> bool {
    let (f, r) = (sq & 7, sq >> 3);
    f == r || f + r == 7
}

/// The value code of a position: 0 for a draw (or no legal position), else one more than
/// the plies to mate (odd plies: the side to move mates; even: it is mated).
pub type Code = u8;

/// What a value code means for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtm {
    /// The side to move mates in this many plies (odd).
    Wins(u32),
    /// The side to move is mated in this many plies (even; 0: it is mated now).
    Loses(u32),
    /// Neither side can force mate.
    Draw,
}

impl Dtm {
    /// The value a code stands for.
    pub fn of(code: Code) -> Dtm {
        match code {
            0 => Dtm::Draw,
            c if c % 2 == 0 => Dtm::Wins(u32::from(c) - 1),
            c => Dtm::Loses(u32::from(c) - 1),
        }
    }
}

/// The value for the mover of a move into a position of value `child` (the opponent to
/// move there).
#[inline]
fn before(child: Code) -> Code {
    if child == 0 { 0 } else { child + 1 }
}

/// One ending's values.
pub struct Table {
    material: Material,
    pawnless: bool,
    /// Each man's number of slots in the index. Without pawns the kings share one slot
    /// of [`KK_PAIRS`] (and the black king's is 1); with pawns the white king has 32
    /// (files a-d) and the black king 64. A pawn has 48, any other man 64.
    dims: [usize; DTM_MEN],
    /// Placements; values are at `2 * index + side` (white 0).
    size: usize,
    values: Vec<Code>,
    /// En passant positions, by the key of their placement without the right.
    ep: FxHashMap<u32, Code>,
    /// Time the build took.
    pub built_in: Duration,
    /// The longest mate found, in plies.
    pub longest: u32,
}

/// The squares of a table's men, in its material's order.
type Squares = [u8; DTM_MEN];

impl Table {
    fn empty(material: Material) -> Table {
        let pawnless = !material.has_pawns();
        let mut dims = [1; DTM_MEN];
        for (i, &(_, r)) in material.men[..material.n].iter().enumerate() {
            dims[i] = match (i, r) {
                (0, _) if pawnless => KK_PAIRS,
                (0, _) => 32,
                (1, _) if pawnless => 1,
                (_, Role::Pawn) => 48,
                _ => 64,
            };
        }
        let size = dims.iter().product();
        Table {
            material,
            pawnless,
            dims,
            size,
            values: Vec::new(),
            ep: FxHashMap::default(),
            built_in: Duration::ZERO,
            longest: 0,
        }
    }

    /// Bytes of memory the table takes.
    pub fn bytes(&self) -> usize {
        self.values.len() + self.ep.len() * 8
    }

    /// Calls `f` with every position of the table (en passant rights aside, each
    /// placement once up to symmetry) and its value.
    pub fn each(&self, mut f: impl FnMut(Chess, Dtm)) {
        for index in 0..self.size {
            let s = self.decode(index);
            if self.canonical(s) != index {
                continue;
            }
            let mut board = Board::empty();
            for (i, &(color, role)) in self.material.men[..self.material.n].iter().enumerate() {
                board.set_piece_at(Square::new(s[i].into()), Piece { color, role });
            }
            if board.occupied().count() != self.material.n {
                continue;
            }
            for side in [Color::White, Color::Black] {
                let mut setup = shakmaty::Setup::empty();
                setup.board = board.clone();
                setup.turn = side;
                if let Ok(pos) = Chess::from_setup(setup, shakmaty::CastlingMode::Standard) as Result<Chess, _> {
                    f(pos, Dtm::of(self.values[key(index, side) as usize]));
                }
            }
        }
    }

    /// The index of squares `s` in the table's orientation (the white king wherever).
    #[inline]
    fn canonical(&self, s: Squares) -> usize {
        let n = self.material.n;
        if !self.pawnless {
            let mut s = s;
            if s[0] & 7 > 3 {
                s[..n].iter_mut().for_each(|x| *x ^= 7);
            }
            return self.encode(self.sorted(s));
        }
        let t = KK_TRANSFORM[s[0] as usize][s[1] as usize];
        let apply = |t: u8| {
            let mut u = s;
            let map = &TRANSFORMED[usize::from(t & 7)];
            u[..n].iter_mut().for_each(|x| *x = map[usize::from(*x)]);
            self.encode(self.sorted(u))
        };
        let a = apply(t);
        if t & AMBIGUOUS != 0 { a.min(apply(t | 4)) } else { a }
    }

    /// Squares with two men alike in ascending order (they may only be the last two).
    #[inline]
    fn sorted(&self, mut s: Squares) -> Squares {
        if self.material.n == 4 && self.material.men[2] == self.material.men[3] && s[2] > s[3] {
            s.swap(2, 3);
        }
        s
    }

    /// The index of a canonical placement.
    #[inline]
    fn encode(&self, s: Squares) -> usize {
        let mut index = if self.pawnless {
            let pair = KK_INDEX[s[0] as usize][s[1] as usize];
            debug_assert!(pair != NO_PAIR, "kings not in canonical squares");
            usize::from(pair)
        } else {
            ((s[0] >> 3) * 4 + (s[0] & 7)) as usize * 64 + s[1] as usize
        };
        for (i, &sq) in s.iter().enumerate().take(self.material.n).skip(2) {
            let slot = if self.material.men[i].1 == Role::Pawn { sq as usize - 8 } else { sq as usize };
            index = index * self.dims[i] + slot;
        }
        index
    }

    fn decode(&self, mut index: usize) -> Squares {
        let mut s = [0u8; DTM_MEN];
        for i in (2..self.material.n).rev() {
            let (slot, rest) = if self.dims[i] == 64 { (index & 63, index >> 6) } else { (index % 48, index / 48) };
            index = rest;
            s[i] = if self.material.men[i].1 == Role::Pawn { slot as u8 + 8 } else { slot as u8 };
        }
        (s[0], s[1]) = if self.pawnless {
            KK_SQUARES[index]
        } else {
            let (w, b) = (index / 64, index % 64);
            (((w / 4) * 8 + w % 4) as u8, b as u8)
        };
        s
    }

    /// The index after man `i` of the canonical placement `s` (index `index`) moves to
    /// `to`, found from the index alone where no symmetry can change: not a king without
    /// pawns (nor the white king with them), not one of two men alike, and not with both
    /// kings on the diagonal.
    #[inline]
    fn shifted(&self, index: usize, s: &Squares, i: usize, to: u8) -> Option<usize> {
        let alike = self.material.n == 4 && i >= 2 && self.material.men[2] == self.material.men[3];
        let kings = if self.pawnless { i < 2 || KK_TRANSFORM[s[0] as usize][s[1] as usize] != 0 } else { i == 0 };
        if kings || alike {
            return None;
        }
        let stride: usize = self.dims[i + 1..self.material.n].iter().product();
        Some((index as isize + (isize::from(to) - isize::from(s[i])) * stride as isize) as usize)
    }

    /// The index of placement `s` after man `i` of placement `from` (index `index`) moved.
    #[inline]
    fn after_move(&self, index: usize, from: &Squares, i: usize, s: Squares) -> usize {
        self.shifted(index, from, i, s[i]).unwrap_or_else(|| self.canonical(s))
    }

    /// The value code of the placement `s` (in the material's order) with `side` to move,
    /// `ep` when an en passant capture is legal.
    #[inline]
    fn code(&self, s: Squares, side: Color, ep: bool) -> Code {
        let key = key(self.canonical(s), side);
        if ep { self.ep.get(&key).copied().unwrap_or(0) } else { self.values[key as usize] }
    }
}

/// The key of placement `index` with `side` to move: white 0, black 1.
#[inline]
fn key(index: usize, side: Color) -> u32 {
    (2 * index + usize::from(side == Color::Black)) as u32
}

/// A placement of a table's men: their squares, in the material's order (a capture or
/// promotion leaves the table, see [`Exits`]).
#[derive(Clone, Copy)]
struct Placement<'m> {
    material: &'m Material,
    s: Squares,
}

impl Placement<'_> {
    fn occupied(&self) -> Bitboard {
        self.s[..self.material.n].iter().fold(Bitboard::EMPTY, |b, &q| b | Bitboard::from(Square::new(q.into())))
    }

    fn by(&self, c: Color) -> Bitboard {
        (0..self.material.n)
            .filter(|&i| self.material.men[i].0 == c)
            .fold(Bitboard::EMPTY, |b, i| b | Bitboard::from(Square::new(self.s[i].into())))
    }

    fn king(&self, c: Color) -> u8 {
        self.s[usize::from(c == Color::Black)]
    }

    /// Whether men of `by`, other than man `gone`, attack `target` with `occ` occupied.
    #[inline]
    fn attacked(&self, target: u8, by: Color, occ: Bitboard, gone: usize) -> bool {
        (0..self.material.n).any(|i| {
            let (c, role) = self.material.men[i];
            i != gone && c == by && hits(role, c, self.s[i], target, occ)
        })
    }

    /// Whether the placement is a position with `side` to move: men on distinct squares
    /// and the other side's king not in check.
    fn legal(&self, side: Color) -> bool {
        let n = self.material.n;
        let occ = self.occupied();
        occ.count() == n && !self.attacked(self.king(!side), side, occ, usize::MAX)
    }
}

/// Whether a `role` of colour `color` on `from` attacks `target` with `occ` occupied:
/// sliders by their line and the squares between, the others by their tables.
#[inline]
fn hits(role: Role, color: Color, from: u8, target: u8, occ: Bitboard) -> bool {
    let (f, t) = (Square::new(from.into()), Square::new(target.into()));
    let (df, dr) = ((from & 7).abs_diff(target & 7), (from >> 3).abs_diff(target >> 3));
    let line = match role {
        Role::King => return df <= 1 && dr <= 1 && from != target,
        Role::Knight => return df * dr == 2,
        Role::Pawn => return shakmaty::attacks::pawn_attacks(color, f).contains(t),
        Role::Rook => (df == 0) != (dr == 0),
        Role::Bishop => df == dr && df != 0,
        Role::Queen => ((df == 0) != (dr == 0)) || (df == dr && df != 0),
    };
    line && (shakmaty::attacks::between(f, t) & occ).is_empty()
}

/// A move of a table being built, as the build needs it.
enum Step {
    /// A move that stays in the material, to placement `s` (the ep flag: the opponent
    /// may take en passant there).
    Inside(Squares, bool, usize),
    /// A capture or promotion, whose position has value code `code` for the opponent.
    Exit(Code),
}

/// The tables built so far, by material, that a build reads its sub-endings from.
type Built = FxHashMap<Material, Arc<Table>>;

/// The squares of `men` (any order, colours as on the board) in the order of
/// `material`, read with colours swapped where `flip` says so.
fn arrange(material: &Material, flip: bool, men: &[(Man, u8)]) -> Squares {
    let mut s = [0u8; DTM_MEN];
    let mut used = [false; DTM_MEN];
    for (i, &want) in material.men[..material.n].iter().enumerate() {
        for (j, &((c, r), sq)) in men.iter().enumerate() {
            let (c, sq) = if flip { (!c, sq ^ 56) } else { (c, sq) };
            if !used[j] && (c, r) == want {
                used[j] = true;
                s[i] = sq;
                break;
            }
        }
    }
    s
}

/// Where each capture or promotion of a material leads: the table, whether it is read
/// with colours swapped, and which man of the material stands on each of its slots.
struct Exits {
    /// By [`Exits::slot`]: the table (None: two kings, or no table), the flip, the men.
    to: Vec<Option<(Arc<Table>, bool, Squares)>>,
}

impl Exits {
    /// The slot of a move that takes man `captured` (if any) and promotes man `pawn` (if
    /// any) to the `promoted`-th of knight, bishop, rook, queen.
    #[inline]
    fn slot(captured: Option<usize>, promotion: Option<(usize, usize)>) -> usize {
        let c = captured.map_or(0, |c| c + 1);
        let p = promotion.map_or(0, |(i, r)| 1 + i * 4 + r);
        c * (1 + DTM_MEN * 4) + p
    }

    fn new(material: &Material, built: &Built) -> Exits {
        const PROMOTED: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
        let mut to = vec![None; (DTM_MEN + 1) * (1 + DTM_MEN * 4)];
        let n = material.n;
        let captures = std::iter::once(None).chain((2..n).map(Some));
        for captured in captures {
            let pawns = (0..n).filter(|&i| material.men[i].1 == Role::Pawn && Some(i) != captured);
            let promotions = std::iter::once(None).chain(pawns.flat_map(|i| (0..4).map(move |r| Some((i, r)))));
            for promotion in promotions.collect::<Vec<_>>() {
                if captured.is_none() && promotion.is_none() {
                    continue;
                }
                let men: Vec<(usize, Man)> = (0..n)
                    .filter(|&i| Some(i) != captured)
                    .map(|i| match promotion {
                        Some((p, r)) if p == i => (i, (material.men[i].0, PROMOTED[r])),
                        _ => (i, material.men[i]),
                    })
                    .collect();
                let others: Vec<Man> = men.iter().map(|m| m.1).filter(|m| m.1 != Role::King).collect();
                let Some((sub, flip)) = Material::of(&others) else { continue };
                let Some(table) = built.get(&sub) else { continue };
                let mut order = [0u8; DTM_MEN];
                let mut used = [false; DTM_MEN];
                for (slot, &want) in sub.men[..sub.n].iter().enumerate() {
                    let found = men
                        .iter()
                        .enumerate()
                        .find(|&(j, &(_, (c, r)))| !used[j] && (if flip { !c } else { c }, r) == want);
                    let (j, &(i, _)) = found.expect("every man of the smaller material");
                    used[j] = true;
                    order[slot] = i as u8;
                }
                to[Exits::slot(captured, promotion)] = Some((table.clone(), flip, order));
            }
        }
        Exits { to }
    }

    /// The value code, for `side` to move, of the position after a capture or promotion:
    /// the men on `s` (the captured one's square ignored).
    #[inline]
    fn code(&self, slot: usize, s: &Squares, side: Color) -> Code {
        let Some((table, flip, order)) = &self.to[slot] else { return 0 };
        let mut t = [0u8; DTM_MEN];
        for i in 0..table.material.n {
            let sq = s[order[i] as usize];
            t[i] = if *flip { sq ^ 56 } else { sq };
        }
        table.code(t, if *flip { !side } else { side }, false)
    }
}

/// The legal moves of placement `p` with `side` to move (`ep`: the last move was the
/// opponent pawn's double push, so en passant may be legal), passed to `f`.
fn moves(exits: &Exits, p: &Placement, side: Color, ep: bool, mut f: impl FnMut(Step)) {
    let m = p.material;
    let occ = p.occupied();
    let own = p.by(side);
    let theirs = occ & !own;
    let king_index = usize::from(side == Color::Black);
    let ksq = p.s[king_index];
    let in_check = p.attacked(ksq, !side, occ, usize::MAX);
    let up: i8 = if side == Color::White { 8 } else { -8 };
    // The opponent pawn that just moved two squares, when `ep`.
    let ep_target = if ep {
        (0..m.n).find(|&i| m.men[i] == (!side, Role::Pawn) && p.s[i] >> 3 == if side == Color::White { 4 } else { 3 })
    } else {
        None
    };
    for i in 0..m.n {
        let (c, role) = m.men[i];
        if c != side {
            continue;
        }
        let from = p.s[i];
        let fsq = Square::new(from.into());
        let piece = Piece { color: side, role };
        // Targets: a bitboard of ordinary moves, and a pawn's double push.
        let (targets, double) = if role == Role::Pawn {
            let one = (from as i8 + up) as u8;
            let mut t = attacks(fsq, piece, occ) & theirs;
            let mut double = None;
            if !occ.contains(Square::new(one.into())) {
                t |= Bitboard::from(Square::new(one.into()));
                let two = (one as i8 + up) as u8;
                let start = if side == Color::White { 1 } else { 6 };
                if from >> 3 == start && !occ.contains(Square::new(two.into())) {
                    double = Some(two);
                }
            }
            if let Some(j) = ep_target {
                let behind = Square::new((p.s[j] as i8 + up) as u32);
                t |= attacks(fsq, piece, occ) & Bitboard::from(behind);
            }
            (t, double)
        } else {
            (attacks(fsq, piece, occ) & !own, None)
        };
        let aligned = shakmaty::attacks::ray(Square::new(ksq.into()), fsq).any();
        for (to, is_double) in targets.into_iter().map(|t| (t as u8, false)).chain(double.map(|t| (t, true))) {
            let tsq = Square::new(to.into());
            let mut captured = if theirs.contains(tsq) { (2..m.n).find(|&j| p.s[j] == to) } else { None };
            let is_ep = role == Role::Pawn && captured.is_none() && (to & 7) != (from & 7);
            if is_ep {
                captured = ep_target;
            }
            let gone = captured.unwrap_or(usize::MAX);
            let mut after = *p;
            after.s[i] = to;
            let mut new_occ = (occ ^ Bitboard::from(fsq)) | Bitboard::from(tsq);
            if is_ep && let Some(j) = captured {
                new_occ ^= Bitboard::from(Square::new(p.s[j].into()));
            }
            let king = if i == king_index { to } else { ksq };
            // Only a king move, an evasion, en passant or a move of a man in line with
            // the king can leave the king in check.
            let risky = i == king_index || in_check || is_ep || aligned;
            if risky && after.attacked(king, !side, new_occ, gone) {
                continue;
            }
            let promotes = role == Role::Pawn && (to >> 3 == 7 || to >> 3 == 0);
            if captured.is_none() && !promotes {
                f(Step::Inside(after.s, is_double && ep_capture_legal(&after, !side), i));
            } else if promotes {
                for r in 0..4 {
                    f(Step::Exit(exits.code(Exits::slot(captured, Some((i, r))), &after.s, !side)));
                }
            } else {
                f(Step::Exit(exits.code(Exits::slot(captured, None), &after.s, !side)));
            }
        }
    }
}

/// Whether `side` has a legal en passant capture in `p`, the opponent pawn having just
/// moved two squares.
fn ep_capture_legal(p: &Placement, side: Color) -> bool {
    let m = p.material;
    let rank = if side == Color::White { 4 } else { 3 };
    let Some(j) = (0..m.n).find(|&i| m.men[i] == (!side, Role::Pawn) && p.s[i] >> 3 == rank) else { return false };
    let target = p.s[j];
    let behind = if side == Color::White { target + 8 } else { target - 8 };
    let occ = p.occupied();
    let ksq = p.king(side);
    (0..m.n).any(|i| {
        if m.men[i] != (side, Role::Pawn) || p.s[i] >> 3 != rank || (p.s[i] as i8 - target as i8).abs() != 1 {
            return false;
        }
        let new_occ = occ ^ Bitboard::from(Square::new(p.s[i].into())) ^ Bitboard::from(Square::new(target.into()))
            | Bitboard::from(Square::new(behind.into()));
        let mut after = *p;
        after.s[i] = behind;
        !after.attacked(ksq, !side, new_occ, j)
    })
}

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
struct Builder {
    table: Table,
    exits: Exits,
    /// Each node's state, in one array: the retrograde pass reads a node's state at
    /// random, and one cache line serves it all.
    nodes: Vec<State>,
    /// Nodes by the plies of their value, to be spread to their predecessors in order.
    buckets: Vec<Vec<u32>>,
    /// En passant nodes by the id of the same placement without the right.
    ep_ids: FxHashMap<u32, u32>,
    /// Each en passant node's placement and side to move, from id `2 * size` on.
    ep_nodes: Vec<(Squares, Color)>,
}

impl Builder {
    fn new(material: Material, built: &Built) -> Builder {
        let table = Table::empty(material);
        let n = 2 * table.size;
        Builder {
            table,
            exits: Exits::new(&material, built),
            nodes: (0..n).map(|_| State::new(pack(0, BROKEN, 0))).collect(),
            buckets: vec![Vec::new(); 256],
            ep_ids: FxHashMap::default(),
            ep_nodes: Vec::new(),
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
        self.ep_nodes.push((self.table.decode(plain as usize / 2), side));
        self.ep_ids.insert(plain, id);
        id
    }

    /// A node's first state from its moves (count, floor, value code): mated or
    /// stalemated, the values of its captures and promotions, and how many moves stay in
    /// the material. The placement keys of its en passant children go to `eps`; `children`
    /// is a scratch list.
    fn first(&self, index: usize, s: Squares, side: Color, ep: bool, scratch: &mut Scratch) -> (u8, u8, Code) {
        let material = self.table.material;
        let p = Placement { material: &material, s };
        scratch.children.clear();
        // Where no two moves can join, the moves inside are only counted.
        let joins = self.joins(!side, &s);
        let t = &self.table;
        let (mut win, mut draw, mut loss, mut any, mut inside) = (0u8, false, 0u8, false, 0usize);
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
                Step::Exit(code) => match before(code) {
                    0 => draw = true,
                    v if v % 2 == 0 => win = if win == 0 { v } else { win.min(v) },
                    v => loss = loss.max(v),
                },
            }
        });
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
        let n2 = 2 * self.table.size as u32;
        let (s, side, ep, index) = if id < n2 {
            let side = if id & 1 == 0 { Color::White } else { Color::Black };
            // Nodes are canonical placements: the index is the id's.
            (self.table.decode(id as usize / 2), side, false, id as usize / 2)
        } else {
            let (s, side) = self.ep_nodes[(id - n2) as usize];
            (s, side, true, self.table.canonical(s))
        };
        let material = self.table.material;
        let n = material.n;
        let p = Placement { material: &material, s };
        let mover = !side;
        let occ = p.occupied();
        let ksq = Square::new(p.king(side).into());
        let up: i8 = if mover == Color::White { 8 } else { -8 };
        let with_ep = !self.ep_ids.is_empty();
        let t = &self.table;
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
        self.table.pawnless && on_long_diagonal(s[usize::from(still == Color::Black)])
    }

    fn run(mut self) -> Table {
        let start = Instant::now();
        let material = self.table.material;
        // The first states, in two halves at once; en passant nodes after them.
        let size = self.table.size;
        let half = size.div_ceil(2);
        // Each thread stores its nodes' first states in place (the nodes are atomic words).
        let mut eps = {
            let this = &self;
            let work = |range: std::ops::Range<usize>| {
                let mut scratch = Scratch::default();
                for index in range {
                    let s = this.table.decode(index);
                    if this.table.canonical(s) != index {
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
            let plain_index = self.table.canonical(s);
            let id = 2 * self.table.size as u32 + next_ep as u32;
            scratch.eps.clear();
            let state = self.first(plain_index, s, side, true, &mut scratch);
            self.set_first(id, state);
            for plain in std::mem::take(&mut scratch.eps) {
                self.ep_id(plain);
            }
            next_ep += 1;
        }
        for plies in 0..254usize {
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
        let n2 = 2 * self.table.size;
        let mut table = self.table;
        for (&plain, &id) in &self.ep_ids {
            table.ep.insert(plain, self.nodes[id as usize].load(Relaxed) as u8);
        }
        table.values = self.nodes[..n2].iter().map(|n| n.load(Relaxed) as u8).collect();
        let codes = table.values.iter().chain(table.ep.values());
        table.longest = codes.map(|&v| u32::from(v).saturating_sub(1)).max().unwrap_or(0);
        table.built_in = start.elapsed();
        table
    }

    /// Spreads the values of `list`'s nodes, settled at `plies + 1`, to their
    /// predecessors: the nodes given a value, with it.
    fn spread(&self, plies: usize, list: &[u32]) -> Vec<(Code, u32)> {
        let mut found = Vec::new();
        let mut preds = Vec::with_capacity(64);
        for &id in list {
            if usize::from(self.nodes[id as usize].load(Relaxed) as u8) != plies + 1 {
                continue;
            }
            self.predecessors(id, &mut preds);
            for &pred in &preds {
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

/// Builds the table of `material` from the built tables of the materials its captures
/// and promotions lead to.
fn build(material: Material, built: &Built) -> Table {
    Builder::new(material, built).run()
}

/// Builds the tables of `material` and of every material it leads to, from nothing and
/// apart from the process's store, smallest first: what a first request costs.
pub fn build_fresh(material: Material) -> Vec<Arc<Table>> {
    let mut order = Vec::new();
    closure(material, &mut order);
    // A capture leaves fewer men, a promotion fewer pawns.
    order.sort_by_key(|m| (m.n, m.men[..m.n].iter().filter(|x| x.1 == Role::Pawn).count()));
    let mut built = Built::default();
    let mut out = Vec::new();
    for &m in &order {
        let table = Arc::new(build(m, &built));
        built.insert(m, Arc::clone(&table));
        out.push(table);
    }
    out
}

/// The tables of the process, shared by every search thread and kept across games.
pub struct Store {
    inner: Mutex<Inner>,
    /// Microseconds spent building tables in this process, for benches.
    building: std::sync::atomic::AtomicU64,
    /// Builds to report, as lines for `info string`: apart from the tables, whose lock
    /// a build holds, so that reporting never waits for a build.
    reports: Mutex<Vec<String>>,
}

#[derive(Default)]
struct Inner {
    tables: Built,
    /// When each table was last asked for (a count of requests).
    used: FxHashMap<Material, u64>,
    clock: u64,
}

/// The process's tables.
pub fn store() -> &'static Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    STORE.get_or_init(|| Store {
        inner: Mutex::new(Inner::default()),
        building: std::sync::atomic::AtomicU64::new(0),
        reports: Mutex::new(Vec::new()),
    })
}

impl Inner {
    /// Builds the table of `material` and every table it reads, where missing (one of
    /// them may have been dropped while `material`'s stayed); a slow build is added to
    /// `reports`. Every material met is added to `closure`.
    fn ensure(&mut self, material: Material, store: &Store, closure: &mut Vec<Material>) {
        if closure.contains(&material) {
            return;
        }
        closure.push(material);
        for sub in material.successors() {
            if sub.n > 2 {
                self.ensure(sub, store, closure);
            }
        }
        if self.tables.contains_key(&material) {
            return;
        }
        let table = build(material, &self.tables);
        let (took, bytes) = (table.built_in, table.bytes());
        store.building.fetch_add(took.as_micros() as u64, Relaxed);
        if took > REPORT_BUILD {
            store.reports.lock().unwrap_or_else(|e| e.into_inner()).push(format!(
                "built the {} distance-to-mate table in {} ms ({:.1} MB)",
                material.name(),
                took.as_millis(),
                bytes as f64 / f64::from(1 << 20)
            ));
        }
        self.tables.insert(material, Arc::new(table));
    }

    fn bytes(&self) -> usize {
        self.tables.values().map(|t| t.bytes()).sum()
    }
}

impl Store {
    /// The table of `material`, built (with every table it reads) when missing. Every
    /// request is answered, so what a search covers never depends on what earlier
    /// searches built or dropped; memory is trimmed only as a search begins
    /// ([`Store::trim`]).
    pub fn table(&self, material: Material) -> Arc<Table> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut closure = Vec::new();
        inner.ensure(material, self, &mut closure);
        inner.clock += 1;
        let now = inner.clock;
        for &m in &closure {
            inner.used.insert(m, now);
        }
        Arc::clone(&inner.tables[&material])
    }

    /// Drops tables beyond [`BUDGET_BYTES`], the longest unused first, sparing those of
    /// `board`'s material and every material its positions lead to: called as a search of
    /// `board` begins, so a search never rebuilds a table it has read.
    pub fn trim(&self, board: &Board) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.bytes() <= BUDGET_BYTES {
            return;
        }
        let mut spared = Vec::new();
        if board.occupied().count() <= DTM_MEN
            && let Some((material, _)) = Material::of_board(board)
        {
            closure(material, &mut spared);
        }
        while inner.bytes() > BUDGET_BYTES {
            let oldest = inner
                .tables
                .keys()
                .filter(|m| !spared.contains(m))
                .min_by_key(|m| inner.used.get(m).copied().unwrap_or(0))
                .copied();
            let Some(m) = oldest else { break };
            inner.tables.remove(&m);
        }
    }

    /// The table of `material` if it is built, without building anything.
    fn get(&self, material: Material) -> Option<Arc<Table>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).tables.get(&material).cloned()
    }

    /// A rough time to build what `material`'s table needs and the store lacks.
    fn estimate(&self, material: Material) -> Duration {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        estimate(material, |m| !inner.tables.contains_key(m))
    }

    /// The time spent building tables in this process so far.
    pub fn building(&self) -> Duration {
        Duration::from_micros(self.building.load(Relaxed))
    }

    /// The builds to report since the last call.
    pub fn take_reports(&self) -> Vec<String> {
        std::mem::take(&mut self.reports.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// `material` and every material of three men or more its positions lead to.
fn closure(material: Material, out: &mut Vec<Material>) {
    if material.n > 2 && !out.contains(&material) {
        out.push(material);
        for sub in material.successors() {
            closure(sub, out);
        }
    }
}

/// The exact values one df-pn call reads: the tables it has asked for, kept at hand.
///
/// The tables of the call root's material (and all it leads to) are always built. A
/// table met below the root is built too, unless the search's limits cannot afford it
/// (more than [`BELOW_ROOT_SHARE`] of the time left, or of the node limit): a search of
/// five men never stalls for seconds on a capture it may never play. Without limits
/// (analysis) it is weighed as [`UNLIMITED_NODES`].
#[derive(Default)]
pub struct Exact {
    tables: std::cell::RefCell<Vec<Arc<Table>>>,
    /// Materials this call does without.
    refused: std::cell::RefCell<Vec<Material>>,
    /// The call root's material and all it leads to.
    root: Vec<Material>,
    limits: crate::knowledge::Limits,
}

/// The share of a search's time left (or of its node limit, at [`node_time`])
/// that building a table met below its root may take (by [`Store::estimate`]).
pub const BELOW_ROOT_SHARE: u32 = 4;

/// A rough time to build the tables of `material`'s closure that are `missing`.
fn estimate(material: Material, missing: impl Fn(&Material) -> bool) -> Duration {
    let mut all = Vec::new();
    closure(material, &mut all);
    let nodes: usize = all.iter().filter(|m| missing(m)).map(|&m| 2 * Table::empty(m).size).sum();
    BUILD_PER_NODE * nodes as u32
}

/// The node limit an analysis without limits is weighed as: it must stay responsive, its
/// progress lines every second, so it builds below its root only the smallest tables.
const UNLIMITED_NODES: u64 = 1_000_000;

/// What `nodes` search nodes are taken to cost (a microsecond each), to weigh a build
/// against a node limit.
fn node_time(nodes: u64) -> Duration {
    Duration::from_micros(nodes)
}

/// The build time per node [`Store::estimate`] counts (about what this 2-core machine
/// takes: 1.7 s for K+Q v K+R's 3.8 M nodes).
const BUILD_PER_NODE: Duration = Duration::from_nanos(450);

impl Exact {
    /// A call starts at `root`, within the search's `limits`.
    pub fn begin_call(&mut self, root: &Board, limits: crate::knowledge::Limits) {
        self.root.clear();
        if let Some((material, _)) = Material::of_board(root) {
            closure(material, &mut self.root);
        }
        self.limits = limits;
        self.refused.get_mut().clear();
    }

    /// The table of `material` for this call, where it may have it.
    fn admit(&self, material: Material) -> Option<Arc<Table>> {
        if self.refused.borrow().contains(&material) {
            return None;
        }
        let store = store();
        // A node limit weighs the whole build, built or not, so that what a search of
        // fixed nodes covers never depends on what ran before it.
        let affordable = |nodes: u64| estimate(material, |_| true) * BELOW_ROOT_SHARE <= node_time(nodes);
        let admitted = if self.root.contains(&material) {
            Some(store.table(material))
        } else if let Some(left) = self.limits.time_left {
            let cheap = || store.estimate(material) * BELOW_ROOT_SHARE <= left;
            store.get(material).or_else(|| cheap().then(|| store.table(material)))
        } else if affordable(self.limits.nodes.unwrap_or(UNLIMITED_NODES)) {
            Some(store.table(material))
        } else {
            None
        };
        if admitted.is_none() {
            self.refused.borrow_mut().push(material);
        }
        admitted
    }

    /// The exact value of `pos` for its side to move, where it has at most [`DTM_MEN`] men
    /// and no castling rights (building its table if need be, see [`Exact`]).
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
        let i = match tables.iter().position(|t| t.material == material) {
            Some(i) => i,
            None => {
                tables.push(self.admit(material)?);
                tables.len() - 1
            }
        };
        Some(Dtm::of(tables[i].code(s, side, ep)))
    }
}

/// The exact tables' floor of a game history (see [`Repetitions::with_exact_floor`]),
/// from `repeated`, the positions it lets the defender claim on their next occurrence:
/// per attacker, the fewest plies to mate of one it wins. A claimable position without
/// its position given makes the floor 0 (the tables decide nothing); one of more men, or
/// with castling rights, is never met below a node the tables cover.
pub fn exact_floor(reps: &Repetitions, repeated: &[Chess]) -> [u32; 2] {
    let mut floor = [u32::MAX; 2];
    for h in reps.claimable() {
        let Some(pos) = repeated.iter().find(|p| p.full_hash() == h) else { return [0, 0] };
        let mut exact = Exact::default();
        exact.begin_call(pos.board(), crate::knowledge::Limits::default());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::parse_fen;

    fn dtm(fen: &str) -> Dtm {
        let pos = parse_fen(fen).unwrap();
        let mut exact = Exact::default();
        exact.begin_call(pos.board(), crate::knowledge::Limits::default());
        exact.value(&pos).unwrap()
    }

    #[test]
    fn materials_are_named_and_oriented() {
        let (m, flip) = Material::of(&[(Color::Black, Role::Queen), (Color::White, Role::Rook)]).unwrap();
        assert!(flip);
        assert_eq!(m.name(), "KQvKR");
        assert_eq!(Material::named("KRvKQ"), Some(m));
        assert_eq!(Material::named("KBNvK").unwrap().name(), "KBNvK");
    }

    #[test]
    fn known_mate_lengths() {
        // K+Q v K: mated, mate in one, and the longest (10 moves).
        assert_eq!(dtm("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), Dtm::Loses(0));
        assert_eq!(dtm("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"), Dtm::Wins(1));
        assert_eq!(dtm("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"), Dtm::Draw, "stalemate");
        assert_eq!(dtm("8/8/8/8/8/8/2k5/K1q5 w - - 0 1"), Dtm::Loses(2), "Ka2 Qb2#");
        assert_eq!(dtm("8/8/8/4k3/8/8/8/K1N5 w - - 0 1"), Dtm::Draw);
        // The longest mates: K+Q v K in 10, K+R v K in 16 (Syzygy's lines agree).
        let longest = |name: &str| store().table(Material::named(name).unwrap()).longest;
        assert_eq!(longest("KQvK"), 20, "mated in 20 plies with the lone king to move");
        assert_eq!(longest("KRvK"), 32);
        // En passant: the position with the right is worth the better for black of the
        // position without it and of the capture.
        let rank = |d: Dtm| match d {
            Dtm::Wins(n) => 1000 - n as i32,
            Dtm::Draw => 0,
            Dtm::Loses(n) => n as i32 - 1000,
        };
        let with = dtm("8/8/8/8/1pP5/8/8/K6k b - c3 0 1");
        let without = dtm("8/8/8/8/1pP5/8/8/K6k b - - 0 1");
        let capture = match dtm("8/8/8/8/8/2p5/8/K6k w - - 0 1") {
            Dtm::Wins(n) => Dtm::Loses(n + 1),
            Dtm::Loses(n) => Dtm::Wins(n + 1),
            Dtm::Draw => Dtm::Draw,
        };
        assert_eq!(rank(with), rank(without).max(rank(capture)), "{with:?} {without:?} {capture:?}");
    }

    /// Every `step`-th placement of each ending of the test tables (3-4 men, tests/syzygy)
    /// agrees with Syzygy's WDL, a cursed win counted as a win.
    #[test]
    fn agrees_with_the_syzygy_tables() {
        use shakmaty_syzygy::{Tablebase, Wdl};
        let mut tb = Tablebase::<Chess>::new();
        tb.add_directory(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy")).unwrap();
        for (name, step) in [("KQvK", 1), ("KRvK", 1), ("KBvK", 1), ("KNvK", 1), ("KBvKB", 7), ("KNNvK", 7)] {
            let table = store().table(Material::named(name).unwrap());
            let (mut n, mut seen, mut wins) = (0u64, 0u64, 0u64);
            table.each(|pos, dtm| {
                n += 1;
                if n % step != 0 {
                    return;
                }
                let wdl = tb.probe_wdl_after_zeroing(&pos).unwrap();
                let agrees = match dtm {
                    Dtm::Wins(d) => d % 2 == 1 && matches!(wdl, Wdl::Win | Wdl::CursedWin),
                    Dtm::Loses(d) => d % 2 == 0 && matches!(wdl, Wdl::Loss | Wdl::BlessedLoss),
                    Dtm::Draw => wdl == Wdl::Draw,
                };
                assert!(
                    agrees,
                    "{name}: {:?} {dtm:?} {wdl:?}",
                    shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal).to_string()
                );
                seen += 1;
                wins += u64::from(dtm != Dtm::Draw);
            });
            assert!(seen > 5_000, "{name}: {seen} positions");
            // The two rook and queen endings are won almost everywhere (K+B v K+B and
            // K+N+N v K have only the few mates their helpmate-like corners allow).
            if name == "KQvK" || name == "KRvK" {
                assert!(wins * 10 > seen * 9, "{name}: {wins} of {seen} won");
            }
        }
    }
}
