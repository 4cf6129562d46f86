//! The moves of a placement as a table's build needs them: the legal moves of the side to
//! move, each either staying in the material (a new placement) or leaving it by a capture
//! or a promotion (the value read from the smaller table it leads to).

use std::sync::Arc;

use rustc_hash::FxHashMap;
use shakmaty::attacks::attacks;
use shakmaty::{Bitboard, Color, Piece, Role, Square};

use super::index::Squares;
use super::material::{DTM_MEN, Man, Material};
use super::table::{Code, DtmTable};

/// A placement of a table's men: their squares, in the material's order (a capture or
/// promotion leaves the table, see [`Exits`]).
#[derive(Clone, Copy)]
pub(crate) struct Placement<'m> {
    pub material: &'m Material,
    pub s: Squares,
}

impl Placement<'_> {
    pub fn occupied(&self) -> Bitboard {
        self.s[..self.material.n].iter().fold(Bitboard::EMPTY, |b, &q| b | Bitboard::from(Square::new(q.into())))
    }

    pub fn by(&self, c: Color) -> Bitboard {
        (0..self.material.n)
            .filter(|&i| self.material.men[i].0 == c)
            .fold(Bitboard::EMPTY, |b, i| b | Bitboard::from(Square::new(self.s[i].into())))
    }

    pub fn king(&self, c: Color) -> u8 {
        self.s[usize::from(c == Color::Black)]
    }

    /// Whether men of `by`, other than man `gone`, attack `target` with `occ` occupied.
    #[inline]
    pub fn attacked(&self, target: u8, by: Color, occ: Bitboard, gone: usize) -> bool {
        (0..self.material.n).any(|i| {
            let (c, role) = self.material.men[i];
            i != gone && c == by && hits(role, c, self.s[i], target, occ)
        })
    }

    /// Whether the placement is a position with `side` to move: men on distinct squares
    /// and the other side's king not in check.
    pub fn legal(&self, side: Color) -> bool {
        let n = self.material.n;
        let occ = self.occupied();
        occ.count() == n && !self.attacked(self.king(!side), side, occ, usize::MAX)
    }
}

/// Whether a `role` of colour `color` on `from` attacks `target` with `occ` occupied:
/// sliders by their line and the squares between, the others by their tables.
#[inline]
pub(crate) fn hits(role: Role, color: Color, from: u8, target: u8, occ: Bitboard) -> bool {
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
pub(crate) enum Step {
    /// A move that stays in the material, to placement `s` (the ep flag: the opponent
    /// may take en passant there).
    Inside(Squares, bool, usize),
    /// A capture or promotion, whose position has value code `code` for the opponent.
    Exit(Code),
}

/// The tables built so far, by material, that a build reads its sub-endings from.
pub(crate) type Built = FxHashMap<Material, Arc<DtmTable>>;

/// Where each capture or promotion of a material leads: the table, whether it is read
/// with colours swapped, and which man of the material stands on each of its slots.
pub(crate) struct Exits {
    /// By [`Exits::slot`]: the table (None: two kings, or no table), the flip, the men.
    to: Vec<Option<(Arc<DtmTable>, bool, Squares)>>,
}

impl Exits {
    /// The slot of a move that takes man `captured` (if any) and promotes man `pawn` (if
    /// any) to the `promoted`-th of knight, bishop, rook, queen.
    #[inline]
    pub fn slot(captured: Option<usize>, promotion: Option<(usize, usize)>) -> usize {
        let c = captured.map_or(0, |c| c + 1);
        let p = promotion.map_or(0, |(i, r)| 1 + i * 4 + r);
        c * (1 + DTM_MEN * 4) + p
    }

    pub fn new(material: &Material, built: &Built) -> Exits {
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
    pub fn code(&self, slot: usize, s: &Squares, side: Color) -> Code {
        let Some((table, flip, order)) = &self.to[slot] else { return 0 };
        let mut t = [0u8; DTM_MEN];
        for i in 0..table.layout.material.n {
            let sq = s[order[i] as usize];
            t[i] = if *flip { sq ^ 56 } else { sq };
        }
        table.code(t, if *flip { !side } else { side }, false)
    }
}

/// The legal moves of placement `p` with `side` to move (`ep`: the last move was the
/// opponent pawn's double push, so en passant may be legal), passed to `f`.
pub(crate) fn moves(exits: &Exits, p: &Placement, side: Color, ep: bool, mut f: impl FnMut(Step)) {
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
pub(crate) fn ep_capture_legal(p: &Placement, side: Color) -> bool {
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

/// The legal moves of placement `p` with `side` to move, where neither en passant nor a
/// double push that allows it can occur (no pawns of both colours): the number of moves
/// that stay in the material, counted from bitboards of each man's targets cut by check
/// and pins, and the value code (for the opponent) of each capture and promotion, passed
/// to `exit`. The same moves [`moves`] lists, without making each one.
pub(crate) fn count(exits: &Exits, p: &Placement, side: Color, mut exit: impl FnMut(Code)) -> u32 {
    let m = p.material;
    let occ = p.occupied();
    let own = p.by(side);
    let theirs = occ & !own;
    let king_index = usize::from(side == Color::Black);
    let k = Square::new(p.s[king_index].into());
    let last_rank = if side == Color::White {
        Bitboard::from_rank(shakmaty::Rank::Eighth)
    } else {
        Bitboard::from_rank(shakmaty::Rank::First)
    };
    // Checkers, pins (by each opponent slider in line with the king), and every square the
    // opponent attacks with the king gone (where the king may not step).
    let (mut checkers, mut attacked) = (Bitboard::EMPTY, Bitboard::EMPTY);
    let mut pins = [Bitboard::FULL; DTM_MEN];
    let without_king = occ ^ Bitboard::from(k);
    for j in (0..m.n).filter(|&j| m.men[j].0 != side) {
        let role = m.men[j].1;
        let sq = Square::new(p.s[j].into());
        let piece = Piece { color: !side, role };
        attacked |= attacks(sq, piece, without_king);
        if attacks(sq, piece, occ).contains(k) {
            checkers |= Bitboard::from(sq);
        } else if matches!(role, Role::Queen | Role::Rook | Role::Bishop)
            && attacks(sq, piece, Bitboard::EMPTY).contains(k)
        {
            let between = shakmaty::attacks::between(sq, k);
            let blockers = between & occ;
            if blockers.count() == 1 && (blockers & own).any() {
                let pinned = (0..m.n).find(|&i| Bitboard::from(Square::new(p.s[i].into())) == blockers);
                if let Some(i) = pinned {
                    pins[i] = between | Bitboard::from(sq);
                }
            }
        }
    }
    let man_at = |sq: Square| (2..m.n).find(|&j| p.s[j] == sq as u8);
    let mut inside = 0;
    // The king: steps to squares the opponent does not attack.
    let steps = shakmaty::attacks::king_attacks(k) & !own & !attacked;
    inside += (steps & !theirs).count() as u32;
    for t in steps & theirs {
        let mut after = *p;
        after.s[king_index] = t as u8;
        exit(exits.code(Exits::slot(man_at(t), None), &after.s, !side));
    }
    if checkers.count() >= 2 {
        return inside;
    }
    // A single check is met by taking the checker or stepping between.
    let block = match checkers.first() {
        Some(c) => shakmaty::attacks::between(k, c) | checkers,
        None => Bitboard::FULL,
    };
    let up: i8 = if side == Color::White { 8 } else { -8 };
    for i in (2..m.n).filter(|&i| m.men[i].0 == side) {
        let role = m.men[i].1;
        let from = Square::new(p.s[i].into());
        let piece = Piece { color: side, role };
        let mut targets = if role == Role::Pawn {
            let mut t = attacks(from, piece, occ) & theirs;
            let one = Square::new((p.s[i] as i8 + up) as u32);
            if !occ.contains(one) {
                t |= Bitboard::from(one);
                let start = if side == Color::White { 1 } else { 6 };
                if p.s[i] >> 3 == start {
                    let two = Square::new((p.s[i] as i8 + 2 * up) as u32);
                    if !occ.contains(two) {
                        t |= Bitboard::from(two);
                    }
                }
            }
            t
        } else {
            attacks(from, piece, occ) & !own
        };
        targets &= block & pins[i];
        let promotions = if role == Role::Pawn { targets & last_rank } else { Bitboard::EMPTY };
        inside += (targets & !theirs & !promotions).count() as u32;
        for t in targets & (theirs | promotions) {
            let mut after = *p;
            after.s[i] = t as u8;
            let captured = man_at(t).filter(|&j| m.men[j].0 != side);
            if promotions.contains(t) {
                for r in 0..4 {
                    exit(exits.code(Exits::slot(captured, Some((i, r))), &after.s, !side));
                }
            } else {
                exit(exits.code(Exits::slot(captured, None), &after.s, !side));
            }
        }
    }
    inside
}
