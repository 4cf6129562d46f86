//! The bit-parallel build of a table (Thompson's method), for every ending in which en
//! passant cannot occur (all but those with pawns of both colours).
//!
//! Positions are kept in words of 64: one word per placement of every man but the last,
//! one bit per square of the last. The white king is numbered on the a1-d1-d4 triangle
//! without pawns and on files a-d with them; every other man on any square. A placement
//! the symmetries make equal to another (its mirror image in the diagonal, two men alike
//! swapped) is a position of its own here, with the same value: nothing needs to know which
//! of them is the canonical one until the values are copied into the table's layout.
//!
//! The build goes ply by ply. A position is won in n plies (n odd) once one of its moves
//! leads to a position lost in n-1, or a capture or promotion wins in n; lost in n (n
//! even) once every move leads to a position already won for the opponent and every
//! capture or promotion loses within n. Both tests are made for 64 positions at once:
//! the moves of the last man are shifts and fills of its word, the moves of another man
//! read the word of the placement it moves to, masked where the last man stands in its
//! way. At each ply only the words are looked at from which a move leads into a word
//! changed at the last ply (found by groups of 64 words). Captures and promotions (to
//! smaller tables, or to tables of other men) are read once, position by position, for the
//! positions that have one.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use shakmaty::attacks::{attacks, between, king_attacks, pawn_attacks};
use shakmaty::{Bitboard, Color, Piece, Role, Square};

use super::index::Layout;
use super::mapped::Bytes;
use super::material::Material;
use super::moves::{Built, Exits, Placement, count};
use super::progress::Progress;
use super::table::{Code, DtmTable, Origin, before};

/// The exit byte of a position with no capture or promotion.
const NO_EXIT: u8 = 0;
/// The exit byte of a position with a capture or promotion that draws (and none that wins):
/// it is never lost.
const DRAW_EXIT: u8 = 255;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;
const RANK_1: u64 = 0xFF;
const RANK_8: u64 = 0xFF << 56;

/// Squares of the board moved by `d` (a step of a king's or knight's move, as a change of
/// square index), the files that would wrap dropped.
#[inline(always)]
fn step(x: u64, d: i32) -> u64 {
    let file_step = d.rem_euclid(8);
    let file_step = if file_step > 4 { file_step - 8 } else { file_step };
    let moved = if d >= 0 { x << d } else { x >> -d };
    match file_step {
        1 => moved & !FILE_A,
        2 => moved & !(FILE_A | FILE_A << 1),
        -1 => moved & !FILE_H,
        -2 => moved & !(FILE_H | FILE_H >> 1),
        _ => moved,
    }
}

const KING_STEPS: [i32; 8] = [8, -8, 1, -1, 9, 7, -7, -9];
const KNIGHT_STEPS: [i32; 8] = [17, 15, 10, 6, -6, -10, -15, -17];
const ROOK_STEPS: [i32; 4] = [8, -8, 1, -1];
const BISHOP_STEPS: [i32; 4] = [9, 7, -7, -9];

/// The squares a man of `role` and `color` may have come from to reach a square of
/// `targets` by a move that takes nothing, `empty` the squares no other man stands on.
#[inline]
fn from_squares(role: Role, color: Color, targets: u64, empty: u64) -> u64 {
    let slide = |dirs: &[i32]| {
        let mut out = 0;
        for &d in dirs {
            let mut x = step(targets, -d);
            let mut r = x;
            for _ in 0..6 {
                x = step(x & empty, -d);
                r |= x;
            }
            out |= r;
        }
        out
    };
    match role {
        Role::King => KING_STEPS.iter().fold(0, |o, &d| o | step(targets, -d)),
        Role::Knight => KNIGHT_STEPS.iter().fold(0, |o, &d| o | step(targets, -d)),
        Role::Rook => slide(&ROOK_STEPS),
        Role::Bishop => slide(&BISHOP_STEPS),
        Role::Queen => slide(&ROOK_STEPS) | slide(&BISHOP_STEPS),
        Role::Pawn => {
            // A push to a square short of the last rank, or a double push from the second.
            let (up, second, fourth) =
                if color == Color::White { (8, 0xFF << 8, 0xFF << 24) } else { (-8, 0xFF << 48, 0xFF << 32) };
            let last = if color == Color::White { RANK_8 } else { RANK_1 };
            step(targets & !last, -up) | (step(targets & fourth, -2 * up) & step(empty, -up) & second)
        }
    }
}

/// The bitboard of the squares `x` moved back by the board symmetry `t` (bit 0: files
/// mirrored, bit 1: ranks mirrored, bit 2: then the a1-h8 diagonal, as
/// [`transform_square`] moves a square): each square `y` of `x` becomes `t`'s preimage.
#[inline]
fn untransform_bits(x: u64, t: u8) -> u64 {
    let mut b = Bitboard(x);
    if t & 4 != 0 {
        b = b.flip_diagonal();
    }
    if t & 2 != 0 {
        b = b.flip_vertical();
    }
    if t & 1 != 0 {
        b = b.flip_horizontal();
    }
    b.0
}

/// A square moved by the symmetry `t`.
#[inline]
fn transform_square(sq: u8, t: u8) -> u8 {
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

/// What one side's ply works with, kept for its allocations.
struct Scratch {
    /// The ply that last marked each group (twice the ply, plus the side).
    marked: Vec<u32>,
    /// The groups marked at this ply.
    groups: Vec<usize>,
    sources: Vec<u32>,
    /// The positions of this ply's captures and promotions, by word.
    exit_now: Vec<u64>,
}

/// The side of index `k` and the other.
fn pair(sides: &[Side; 2], k: usize) -> (&Side, &Side) {
    (&sides[k], &sides[1 - k])
}

/// The build of one material.
struct Sweep<'a> {
    material: Material,
    n: usize,
    pawnless: bool,
    /// The white king's squares, and each square's slot among them (None: elsewhere).
    wk_squares: Vec<u8>,
    wk_slot: [Option<u16>; 64],
    /// Words per white king square: 64 for each other prefix man.
    per_wk: usize,
    words: usize,
    exits: Exits,
    progress: &'a Progress,
}

/// What a side's positions are known to be.
struct Side {
    /// Legal with this side to move.
    legal: Vec<u64>,
    /// Decided (won, lost, or a draw known at once).
    done: Vec<u64>,
    /// Won for the side to move.
    won: Vec<u64>,
    /// Decided at the last ply.
    fresh: Vec<u64>,
    /// Positions with a capture or promotion that keeps them from being lost (a draw or a win).
    unlosable: Vec<u64>,
    /// Positions whose captures and promotions all lose, later than the current ply.
    floor_ahead: Vec<u64>,
    /// Each position's value code.
    code: Vec<Code>,
}

impl Side {
    fn new(words: usize) -> Side {
        Side {
            legal: vec![0; words],
            done: vec![0; words],
            won: vec![0; words],
            fresh: vec![0; words],
            unlosable: vec![0; words],
            floor_ahead: vec![0; words],
            code: vec![0; words * 64],
        }
    }
}

impl Sweep<'_> {
    /// The prefix men's squares of word `w` (the last man's slot left 0).
    #[inline]
    fn prefix(&self, w: usize) -> [u8; 4] {
        let mut s = [0u8; 4];
        s[0] = self.wk_squares[w / self.per_wk];
        if self.n == 4 {
            s[1] = ((w / 64) % 64) as u8;
            s[2] = (w % 64) as u8;
        } else {
            s[1] = (w % 64) as u8;
        }
        s
    }

    /// The word of the prefix men on `s` (the white king on one of its squares).
    #[inline]
    fn word(&self, s: &[u8; 4]) -> Option<usize> {
        let slot = usize::from(self.wk_slot[s[0] as usize]?);
        Some(if self.n == 4 {
            slot * self.per_wk + usize::from(s[1]) * 64 + usize::from(s[2])
        } else {
            slot * self.per_wk + usize::from(s[1])
        })
    }

    /// The symmetry that brings a white king on `sq` to one of its squares.
    #[inline]
    fn symmetry(&self, sq: u8) -> u8 {
        if !self.pawnless {
            return u8::from(sq & 7 > 3);
        }
        let mut t = 0;
        if sq & 7 > 3 {
            t |= 1;
        }
        if sq >> 3 > 3 {
            t |= 2;
        }
        let w = transform_square(sq, t);
        if w >> 3 > w & 7 {
            t |= 4;
        }
        t
    }

    #[inline]
    fn occupied(&self, s: &[u8; 4]) -> u64 {
        (0..self.n - 1).fold(0, |o, i| o | 1u64 << s[i])
    }

    /// The bits of word `w` (positions with `side` to move) where it has a move that takes
    /// nothing into a position of `target` (positions with the other side to move).
    #[inline]
    fn gather(&self, side: Color, w: usize, target: impl Fn(usize) -> u64) -> u64 {
        let s = self.prefix(w);
        let occ = self.occupied(&s);
        let last = self.n - 1;
        let mut out = 0;
        for i in (0..self.n).filter(|&i| self.material.men[i].0 == side) {
            let role = self.material.men[i].1;
            if i == last {
                out |= from_squares(role, side, target(w) & !occ, !occ);
                continue;
            }
            let from = Square::new(s[i].into());
            let (targets, pawn_path) = if role == Role::Pawn {
                let up: i8 = if side == Color::White { 8 } else { -8 };
                let one = (s[i] as i8 + up) as u8;
                let mut t = 0u64;
                if occ & (1 << one) == 0 {
                    t |= 1 << one;
                    let start = if side == Color::White { 1 } else { 6 };
                    let two = (one as i8 + up) as u8;
                    if s[i] >> 3 == start && occ & (1 << two) == 0 {
                        t |= 1 << two;
                    }
                }
                let last_rank = if side == Color::White { RANK_8 } else { RANK_1 };
                (t & !last_rank, Some(one))
            } else {
                (attacks(from, Piece { color: side, role }, Bitboard(occ)).0 & !occ, None)
            };
            let mut bits = targets;
            while bits != 0 {
                let to = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                // The last man may stand on the square (a capture) or in the way.
                let mut mask = !(1u64 << to) & !between(from, Square::new(to.into())).0;
                if let Some(one) = pawn_path {
                    mask &= !(1u64 << one);
                }
                let mut u = s;
                u[i] = to;
                match self.word(&u) {
                    Some(w2) => out |= target(w2) & mask,
                    None => {
                        // The white king left its squares: the position is read in its image.
                        let t = self.symmetry(to);
                        let mut v = u;
                        for x in v.iter_mut().take(self.n - 1) {
                            *x = transform_square(*x, t);
                        }
                        let w2 = self.word(&v).expect("the image of the white king is on its squares");
                        out |= untransform_bits(target(w2), t) & mask;
                    }
                }
            }
        }
        out
    }

    /// The group of word `w`: the words that differ in the square of the last man before
    /// the bit (four men: 64 words each; three men: the word alone).
    #[inline]
    fn group(&self, w: usize) -> usize {
        if self.n == 4 { w / 64 } else { w }
    }

    /// The groups of the words some position of which has a move (by `side`) into word
    /// `w`: a superset, for the words to look at after `w` changed.
    fn sources(&self, side: Color, w: usize, out: &mut Vec<u32>) {
        let s = self.prefix(w);
        let occ = self.occupied(&s);
        let last = self.n - 1;
        for i in (0..self.n - 1).filter(|&i| self.material.men[i].0 == side) {
            let role = self.material.men[i].1;
            if i == 2 {
                // Its moves keep the group.
                out.push(self.group(w) as u32);
                continue;
            }
            if i == 0 {
                // The white king came from a square next to its own, in the frame the move
                // was made in: the word's image `v` that the move's own symmetry brings back
                // to the word (the word itself where the king stays on its squares).
                let images: &[u8] = if self.pawnless { &[0, 1, 2, 3, 4, 5, 6, 7] } else { &[0, 1] };
                for &t in images {
                    let mut v = s;
                    for x in v.iter_mut().take(self.n - 1) {
                        *x = transform_square(*x, t);
                    }
                    let back = if self.wk_slot[v[0] as usize].is_some() { 0 } else { self.symmetry(v[0]) };
                    if (0..self.n - 1).any(|j| transform_square(v[j], back) != s[j]) {
                        continue;
                    }
                    let mut froms = king_attacks(Square::new(v[0].into())).0 & !self.occupied(&v);
                    while froms != 0 {
                        let from = froms.trailing_zeros() as u8;
                        froms &= froms - 1;
                        let mut u = v;
                        u[0] = from;
                        if let Some(w2) = self.word(&u) {
                            out.push(self.group(w2) as u32);
                        }
                    }
                }
                continue;
            }
            let sq = Square::new(s[i].into());
            let froms = if role == Role::Pawn {
                let up: i8 = if side == Color::White { 8 } else { -8 };
                let mut f = 0u64;
                let one = s[i] as i8 - up;
                if (8..56).contains(&one) && occ & (1 << one) == 0 {
                    f |= 1 << one;
                    let two = one - up;
                    let fourth = if side == Color::White { 3 } else { 4 };
                    if s[i] >> 3 == fourth && (8..56).contains(&two) && occ & (1 << two) == 0 {
                        f |= 1 << two;
                    }
                }
                f
            } else {
                attacks(sq, Piece { color: side, role }, Bitboard(occ)).0 & !occ
            };
            let mut bits = froms;
            while bits != 0 {
                let from = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                let mut u = s;
                u[i] = from;
                if let Some(w2) = self.word(&u) {
                    out.push(self.group(w2) as u32);
                }
            }
        }
        if self.material.men[last].0 == side {
            out.push(self.group(w) as u32);
        }
    }

    /// The legal positions of word `w` with `side` to move (the other king not attacked),
    /// and those of them where `side`'s king is in check.
    fn legality(&self, side: Color, w: usize) -> (u64, u64) {
        let s = self.prefix(w);
        let occ = self.occupied(&s);
        let last = self.n - 1;
        if occ.count_ones() as usize != self.n - 1 {
            return (0, 0);
        }
        let back_ranks = RANK_1 | RANK_8;
        let pawn_ok = (0..last).all(|i| self.material.men[i].1 != Role::Pawn || (1u64 << s[i]) & back_ranks == 0);
        if !pawn_ok {
            return (0, 0);
        }
        let mut legal = !occ;
        if self.material.men[last].1 == Role::Pawn {
            legal &= !back_ranks;
        }
        // The king of `by`'s opponent attacked: the bits where the last man does not save it.
        let attacked = |by: Color| {
            let king = Square::new(s[usize::from(by == Color::White)].into());
            let mut bits = 0u64;
            for i in (0..last).filter(|&i| self.material.men[i].0 == by) {
                let piece = Piece { color: by, role: self.material.men[i].1 };
                let from = Square::new(s[i].into());
                if attacks(from, piece, Bitboard(occ)).contains(king) {
                    bits |= !between(from, king).0;
                }
            }
            let (lc, lr) = self.material.men[last];
            if lc == by {
                bits |= match lr {
                    Role::Pawn => pawn_attacks(!by, king).0,
                    _ => attacks(king, Piece { color: by, role: lr }, Bitboard(occ)).0,
                };
            }
            bits
        };
        (legal & !attacked(side), legal & attacked(!side))
    }

    /// The positions of word `w` with `side` to move that may have a capture or a
    /// promotion (a superset).
    fn exit_candidates(&self, side: Color, w: usize) -> u64 {
        let s = self.prefix(w);
        let occ = self.occupied(&s);
        let last = self.n - 1;
        let (lc, lr) = self.material.men[last];
        let theirs: u64 = (2..last).filter(|&j| self.material.men[j].0 != side).fold(0, |o, j| o | 1 << s[j]);
        let seventh = if side == Color::White { 0xFFu64 << 48 } else { 0xFFu64 << 8 };
        let mut out = 0;
        for i in (0..last).filter(|&i| self.material.men[i].0 == side) {
            let role = self.material.men[i].1;
            let from = Square::new(s[i].into());
            let att = match role {
                Role::Pawn => pawn_attacks(side, from).0,
                _ => attacks(from, Piece { color: side, role }, Bitboard(occ)).0,
            };
            if att & theirs != 0 || (role == Role::Pawn && (1u64 << s[i]) & seventh != 0) {
                return !0;
            }
            if lc != side {
                out |= att;
            }
        }
        if lc == side {
            for j in (2..last).filter(|&j| self.material.men[j].0 != side) {
                let at = Square::new(s[j].into());
                out |= match lr {
                    Role::Pawn => pawn_attacks(!side, at).0,
                    _ => attacks(at, Piece { color: side, role: lr }, Bitboard(occ)).0,
                };
            }
            if lr == Role::Pawn {
                out |= seventh;
            }
        }
        out
    }

    /// The exit byte of a position: 0 without a capture or promotion; else the best of
    /// them for the side to move: a win's code (even), a draw ([`DRAW_EXIT`]), or the
    /// longest loss's code (odd).
    fn exit_byte(&self, s: &[u8; 4], side: Color) -> u8 {
        let (mut win, mut draw, mut loss, mut any) = (0u8, false, 0u8, false);
        let p = Placement { material: &self.material, s: *s };
        count(&self.exits, &p, side, |code| {
            any = true;
            match before(code) {
                0 => draw = true,
                v if v % 2 == 0 => win = if win == 0 { v } else { win.min(v) },
                v => loss = loss.max(v),
            }
        });
        if !any {
            NO_EXIT
        } else if win > 0 {
            win
        } else if draw {
            DRAW_EXIT
        } else {
            loss
        }
    }

    /// The positions of side `k` decided at ply `plies`: won (odd plies) through a move into
    /// a position of the other side's `fresh` words, or a capture or promotion of this ply
    /// (`exits`); lost (even plies) where every move leads to a win of the other side.
    fn ply(
        &self,
        k: usize,
        plies: usize,
        sides: &[Side; 2],
        fresh: &[usize],
        exits: &[u32],
        sc: &mut Scratch,
    ) -> Vec<(usize, u64)> {
        let side = if k == 0 { Color::White } else { Color::Black };
        let win = plies % 2 == 1;
        let stamp = 2 * plies as u32 + k as u32;
        sc.groups.clear();
        for &w in fresh {
            sc.sources.clear();
            self.sources(side, w, &mut sc.sources);
            for &g in &sc.sources {
                if sc.marked[g as usize] != stamp {
                    sc.marked[g as usize] = stamp;
                    sc.groups.push(g as usize);
                }
            }
        }
        for &pos in exits {
            let pos = pos as usize;
            sc.exit_now[pos / 64] |= 1 << (pos % 64);
            let g = self.group(pos / 64);
            if sc.marked[g] != stamp {
                sc.marked[g] = stamp;
                sc.groups.push(g);
            }
        }
        let per_group = if self.n == 4 { 64 } else { 1 };
        let (me, them) = pair(sides, k);
        let fresh = |x: usize| them.fresh[x];
        let not_won = |x: usize| them.legal[x] & !them.won[x];
        let mut decided = Vec::new();
        for w in sc.groups.iter().flat_map(|&g| g * per_group..(g + 1) * per_group) {
            let open = me.legal[w] & !me.done[w];
            if open == 0 {
                continue;
            }
            let bits = if win {
                open & (self.gather(side, w, fresh) | sc.exit_now[w])
            } else {
                let held = me.unlosable[w] | me.floor_ahead[w];
                let cand = open & !held & (self.gather(side, w, fresh) | sc.exit_now[w]);
                if cand == 0 { 0 } else { cand & !self.gather(side, w, not_won) }
            };
            if bits != 0 {
                decided.push((w, bits));
            }
        }
        for &pos in exits {
            sc.exit_now[pos as usize / 64] = 0;
        }
        decided
    }

    fn run(&self) -> (Side, Side) {
        let words = self.words;
        let colors = [Color::White, Color::Black];
        let mut sides = [Side::new(words), Side::new(words)];
        // Which positions are legal, and in check (`fresh` holds the checks until the
        // positions mated at ply 0 are known).
        for (k, &side) in colors.iter().enumerate() {
            let (legal, check) = (0..words).map(|w| self.legality(side, w)).unzip();
            sides[k].legal = legal;
            sides[k].fresh = check;
        }
        // Which can move, and the captures and promotions: a win or a loss at the ply of
        // its code, each side's positions listed there.
        // By side and code: the positions (word and bit, as `64 * word + square`).
        let mut pending_exits: [Vec<Vec<u32>>; 2] = [vec![Vec::new(); 256], vec![Vec::new(); 256]];
        for (k, &side) in colors.iter().enumerate() {
            let (me, them) = pair(&sides, k);
            let work = |range: std::ops::Range<usize>| {
                let (mut exits, mut stuck) = (Vec::new(), Vec::new());
                for w in range {
                    let legal = me.legal[w];
                    if legal == 0 {
                        continue;
                    }
                    let mut cand = self.exit_candidates(side, w) & legal;
                    while cand != 0 {
                        let b = cand.trailing_zeros() as usize;
                        cand &= cand - 1;
                        let mut s = self.prefix(w);
                        s[self.n - 1] = b as u8;
                        let byte = self.exit_byte(&s, side);
                        if byte != NO_EXIT {
                            exits.push(((w * 64 + b) as u32, byte));
                        }
                    }
                    let mobile = self.gather(side, w, |x| them.legal[x]);
                    if legal & !mobile != 0 {
                        stuck.push((w, legal & !mobile));
                    }
                    if w % 1024 == 0 {
                        let done = self.progress.done.fetch_add(1024, Relaxed) + 1024;
                        self.progress.first.store((1000 * done / (2 * words)).min(1000) as u32, Relaxed);
                    }
                }
                (exits, stuck)
            };
            let half = words.div_ceil(2);
            let (low, high) = std::thread::scope(|scope| {
                let high = scope.spawn(|| work(half..words));
                (work(0..half), high.join().expect("the sweep's second half"))
            });
            let me = &mut sides[k];
            let mut has_exit = vec![0u64; words];
            for &(pos, byte) in low.0.iter().chain(&high.0) {
                let (w, bit) = (pos as usize / 64, 1u64 << (pos % 64));
                has_exit[w] |= bit;
                match byte {
                    DRAW_EXIT => me.unlosable[w] |= bit,
                    b if b % 2 == 0 => {
                        me.unlosable[w] |= bit;
                        pending_exits[k][b as usize].push(pos);
                    }
                    b => {
                        me.floor_ahead[w] |= bit;
                        pending_exits[k][b as usize].push(pos);
                    }
                }
            }
            // Positions without any move: mated (in check) or stalemated.
            for &(w, bits) in low.1.iter().chain(&high.1) {
                me.done[w] |= bits & !has_exit[w];
            }
            for w in 0..words {
                me.fresh[w] &= me.done[w];
                let mut mated = me.fresh[w];
                while mated != 0 {
                    me.code[w * 64 + mated.trailing_zeros() as usize] = 1;
                    mated &= mated - 1;
                }
            }
        }
        // Ply by ply: the words to look at are those a move leads from into a word that
        // changed at the last ply, and those with a capture or promotion of this ply.
        let mut fresh_words: [Vec<usize>; 2] = [0, 1].map(|k| (0..words).filter(|&w| sides[k].fresh[w] != 0).collect());
        let groups = self.group(words - 1) + 1;
        let mut scratch = [0, 1].map(|_| Scratch {
            marked: vec![u32::MAX; groups],
            groups: Vec::new(),
            sources: Vec::new(),
            exit_now: vec![0; words],
        });
        for plies in 1..255usize {
            self.progress.plies.store(plies as u32, Relaxed);
            let code = (plies + 1) as Code;
            let win = plies % 2 == 1;
            let exits: [Vec<u32>; 2] = [0, 1].map(|k| std::mem::take(&mut pending_exits[k][code as usize]));
            if !win {
                // Captures and promotions that lose by this ply no longer hold a loss back.
                for (k, positions) in exits.iter().enumerate() {
                    for &pos in positions {
                        sides[k].floor_ahead[pos as usize / 64] &= !(1 << (pos % 64));
                    }
                }
            }
            // Each side's positions on a thread of their own.
            let (sides_ref, fresh_ref, exits_ref) = (&sides, &fresh_words, &exits);
            let decided: [Vec<(usize, u64)>; 2] = {
                let [first, second] = &mut scratch;
                let ply =
                    |k: usize, sc: &mut Scratch| self.ply(k, plies, sides_ref, &fresh_ref[1 - k], &exits_ref[k], sc);
                std::thread::scope(|scope| {
                    let black = scope.spawn(|| ply(1, second));
                    [ply(0, first), black.join().expect("a side's ply")]
                })
            };
            let changed = decided.iter().any(|d| !d.is_empty());
            for (k, found) in decided.into_iter().enumerate() {
                let side = &mut sides[k];
                for &w in &fresh_words[k] {
                    side.fresh[w] = 0;
                }
                fresh_words[k].clear();
                for (w, bits) in found {
                    side.done[w] |= bits;
                    if win {
                        side.won[w] |= bits;
                    }
                    side.fresh[w] = bits;
                    fresh_words[k].push(w);
                    let mut b = bits;
                    while b != 0 {
                        let bit = b.trailing_zeros() as usize;
                        b &= b - 1;
                        side.code[w * 64 + bit] = code;
                    }
                }
            }
            let later = pending_exits.iter().any(|side| side[code as usize + 1..].iter().any(|p| !p.is_empty()));
            if !changed && !later && plies > 1 {
                break;
            }
        }
        let [white, black] = sides;
        (white, black)
    }
}

/// Builds the table of `material` by the bit-parallel method, from the built tables its
/// captures and promotions lead to; None where en passant can occur (pawns of both
/// colours), which the node-by-node build handles.
pub(crate) fn build(material: Material, built: &Built, progress: &Progress) -> Option<DtmTable> {
    let colours = [Color::White, Color::Black];
    if colours.iter().all(|&c| material.men[..material.n].contains(&(c, Role::Pawn))) {
        return None;
    }
    let start = Instant::now();
    let layout = Layout::of(material);
    let n = material.n;
    let pawnless = layout.pawnless;
    let wk_squares: Vec<u8> = (0..64u8)
        .filter(|&sq| {
            let (f, r) = (sq & 7, sq >> 3);
            if pawnless { f <= 3 && r <= f } else { f <= 3 }
        })
        .collect();
    let mut wk_slot = [None; 64];
    for (i, &sq) in wk_squares.iter().enumerate() {
        wk_slot[sq as usize] = Some(i as u16);
    }
    let per_wk = if n == 4 { 64 * 64 } else { 64 };
    let sweep = Sweep {
        material,
        n,
        pawnless,
        words: wk_squares.len() * per_wk,
        wk_squares,
        wk_slot,
        per_wk,
        exits: Exits::new(&material, built),
        progress,
    };
    let (white, black) = sweep.run();
    // The values, copied into the table's layout (its canonical placements only): the
    // last man's 64 squares of a word are its last dimension there as well.
    let mut bytes = vec![0u8; 2 * layout.size];
    let last = layout.dims[n - 1];
    let skip = if material.men[n - 1].1 == Role::Pawn { 8 } else { 0 };
    for (run, out) in bytes.chunks_mut(2 * last).enumerate() {
        let s = layout.decode(run * last);
        let mut prefix = [0u8; 4];
        prefix[..n - 1].copy_from_slice(&s[..n - 1]);
        let Some(w) = sweep.word(&prefix) else { continue };
        for (k, values) in [&white, &black].into_iter().enumerate() {
            let codes = &values.code[w * 64 + skip..w * 64 + skip + last];
            for (j, &code) in codes.iter().enumerate() {
                out[2 * j + k] = code;
            }
        }
        // Twins of a canonical placement (both kings on the diagonal, two men alike out of
        // order) are left empty, as the table numbers only the canonical one.
        let alike = n == 4 && material.men[2] == material.men[3];
        if alike || !layout.is_canonical(run * last, s) || layout.pawnless && layout.ambiguous(s) {
            for j in 0..last {
                let mut t = s;
                t[n - 1] = (j + skip) as u8;
                if !layout.is_canonical(run * last + j, t) {
                    out[2 * j] = 0;
                    out[2 * j + 1] = 0;
                }
            }
        }
    }
    let longest = bytes.iter().map(|&c| u32::from(c).saturating_sub(1)).max().unwrap_or(0);
    DtmTable::from_bytes(layout, Bytes::Owned(bytes), longest, Origin::Built(start.elapsed()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::exact::material::closure;
    use crate::knowledge::exact::nodes::build as build_by_nodes;
    use std::sync::Arc;

    /// The bit-parallel build gives every table byte for byte what the node-by-node build
    /// gives: pawnless endings of men alike and not, a pawn that promotes into tables of
    /// three men, and one that promotes into tables of four.
    #[test]
    fn the_sweep_builds_what_the_node_by_node_build_builds() {
        let mut built = Built::default();
        for name in ["KRvKN", "KNNvK", "KPvK", "KBvKP"] {
            for m in closure(Material::named(name).unwrap()) {
                if built.contains_key(&m) {
                    continue;
                }
                let table = build(m, &built, &Progress::default()).expect("no pawns of both colours");
                let reference = build_by_nodes(m, &built, &Progress::default());
                assert!(table.bytes() == reference.bytes(), "{m}: the two builds differ");
                assert_eq!(table.longest, reference.longest, "{m}");
                built.insert(m, Arc::new(table));
            }
        }
        assert!(build(Material::named("KPvKP").unwrap(), &built, &Progress::default()).is_none());
    }
}
