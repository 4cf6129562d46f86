//! How a table's positions are numbered: the board's symmetries, and the index of a
//! placement of a material's men.
//!
//! Placements are reduced by the board's symmetries: eight without pawns (the white king
//! in the a1-d1-d4 triangle, 462 king pairs), the mirror with pawns (the white king on
//! files a-d). A position's key is twice its placement's index plus the side to move.

use shakmaty::{Color, Role};

use super::material::{DTM_MEN, Man, Material};

/// The squares of a table's men, in its material's order.
pub(crate) type Squares = [u8; DTM_MEN];

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
pub(crate) fn on_long_diagonal(sq: u8) -> bool {
    let (f, r) = (sq & 7, sq >> 3);
    f == r || f + r == 7
}

/// The numbering of one material's placements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub material: Material,
    pub pawnless: bool,
    /// Each man's number of slots in the index. Without pawns the kings share one slot
    /// of [`KK_PAIRS`] (and the black king's is 1); with pawns the white king has 32
    /// (files a-d) and the black king 64. A pawn has 48, any other man 64.
    pub dims: [usize; DTM_MEN],
    /// Placements.
    pub size: usize,
}

impl Layout {
    pub fn of(material: Material) -> Layout {
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
        Layout { material, pawnless, dims, size: dims.iter().product() }
    }

    /// The index of squares `s` in the table's orientation (the white king wherever).
    #[inline]
    pub fn canonical(&self, s: Squares) -> usize {
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

    /// Whether `index`, whose squares are `s` (its [`Layout::decode`]), is the index of its
    /// placement's class, [`Layout::canonical`]`(s)`: a decoded placement already has its
    /// kings in place, so only two men alike out of order, or both kings on the diagonal
    /// with the other men's mirror image numbered lower, make it another's.
    #[inline]
    pub fn is_canonical(&self, index: usize, s: Squares) -> bool {
        if self.sorted(s) != s {
            return false;
        }
        if self.pawnless && KK_TRANSFORM[s[0] as usize][s[1] as usize] & AMBIGUOUS != 0 {
            return self.canonical(s) == index;
        }
        true
    }

    /// Whether the kings of `s` are both on the a1-h8 diagonal (without pawns), where a
    /// placement and its mirror image in the diagonal share a king pair.
    #[inline]
    pub fn ambiguous(&self, s: Squares) -> bool {
        KK_TRANSFORM[s[0] as usize][s[1] as usize] & AMBIGUOUS != 0
    }

    /// Squares with two men alike in ascending order (they may only be the last two).
    #[inline]
    pub fn sorted(&self, mut s: Squares) -> Squares {
        if self.material.n == 4 && self.material.men[2] == self.material.men[3] && s[2] > s[3] {
            s.swap(2, 3);
        }
        s
    }

    /// The index of a canonical placement.
    #[inline]
    pub fn encode(&self, s: Squares) -> usize {
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

    pub fn decode(&self, mut index: usize) -> Squares {
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
    pub fn shifted(&self, index: usize, s: &Squares, i: usize, to: u8) -> Option<usize> {
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
    pub fn after_move(&self, index: usize, from: &Squares, i: usize, s: Squares) -> usize {
        self.shifted(index, from, i, s[i]).unwrap_or_else(|| self.canonical(s))
    }
}

/// The key of placement `index` with `side` to move: white 0, black 1.
#[inline]
pub(crate) fn key(index: usize, side: Color) -> u32 {
    (2 * index + usize::from(side == Color::Black)) as u32
}

/// The squares of `men` (any order, colours as on the board) in the order of
/// `material`, read with colours swapped where `flip` says so.
pub(crate) fn arrange(material: &Material, flip: bool, men: &[(Man, u8)]) -> Squares {
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
