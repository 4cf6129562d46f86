//! Materials: which men an ending has, how it is named, and which endings its captures
//! and promotions lead to.

use shakmaty::{Board, Color, Role};

/// The most men (kings included) a table holds.
pub const DTM_MEN: usize = 4;

/// One man of a material: its colour and role.
pub(crate) type Man = (Color, Role);

/// The men of an ending, kings first (white, black), then white's other men and black's,
/// each by role from the queen down. The side with more (or, if as many, stronger) men
/// is white: a position of the other colouring is read with its colours swapped.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Material {
    pub(crate) men: [Man; DTM_MEN],
    pub(crate) n: usize,
}

impl Material {
    /// The material of the non-king men `others`, and whether a position of it is read
    /// with its colours swapped. None beyond [`DTM_MEN`] men.
    pub(crate) fn of(others: &[Man]) -> Option<(Material, bool)> {
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
        let name = name.to_ascii_uppercase();
        let (w, b) = name.split_once('V')?;
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

    pub(crate) fn has_pawns(&self) -> bool {
        self.pawns() > 0
    }

    /// How many pawns it has.
    pub fn pawns(&self) -> usize {
        self.men[..self.n].iter().filter(|m| m.1 == Role::Pawn).count()
    }

    /// How many men it has, kings included.
    pub fn men(&self) -> usize {
        self.n
    }

    /// The materials a capture or a promotion leads to, each once.
    pub(crate) fn successors(&self) -> Vec<Material> {
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

impl std::fmt::Display for Material {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// `material` and every material of three men or more its positions lead to, each once,
/// in an order where every material comes after those it leads to: fewer men first,
/// then fewer pawns (a promotion keeps the men but loses a pawn).
pub fn closure(material: Material) -> Vec<Material> {
    fn walk(m: Material, out: &mut Vec<Material>) {
        if m.n > 2 && !out.contains(&m) {
            out.push(m);
            for sub in m.successors() {
                walk(sub, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(material, &mut out);
    out.sort_by_key(|m| (m.n, m.pawns()));
    out
}

/// Every material of three to `men` men (at most [`DTM_MEN`]), in the order of [`closure`].
pub fn all_materials(men: usize) -> Vec<Material> {
    const ROLES: [Role; 5] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];
    let mut out: Vec<Material> = Vec::new();
    let mut add = |others: &[Man]| {
        if others.len() + 2 <= men
            && let Some((m, _)) = Material::of(others)
            && !out.contains(&m)
        {
            out.push(m);
        }
    };
    for (i, &a) in ROLES.iter().enumerate() {
        add(&[(Color::White, a)]);
        for &b in &ROLES[i..] {
            add(&[(Color::White, a), (Color::White, b)]);
        }
        for &b in &ROLES {
            add(&[(Color::White, a), (Color::Black, b)]);
        }
    }
    out.sort_by_key(|m| (m.n, m.pawns()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn materials_are_named_and_oriented() {
        let (m, flip) = Material::of(&[(Color::Black, Role::Queen), (Color::White, Role::Rook)]).unwrap();
        assert!(flip);
        assert_eq!(m.name(), "KQvKR");
        assert_eq!(Material::named("KRvKQ"), Some(m));
        assert_eq!(Material::named("KBNvK").unwrap().name(), "KBNvK");
        assert_eq!(Material::named("KQvKQR"), None, "five men");
    }

    #[test]
    fn every_ending_comes_after_those_it_leads_to() {
        let all = all_materials(DTM_MEN);
        // Syzygy's 3-4-men set: 5 of three men, 30 of four.
        assert_eq!(all.len(), 35);
        for (i, m) in all.iter().enumerate() {
            for sub in m.successors().into_iter().filter(|s| s.n > 2) {
                assert!(all[..i].contains(&sub), "{m} before {sub}");
            }
        }
        let names: Vec<String> = closure(Material::named("KQvKP").unwrap()).iter().map(Material::name).collect();
        assert_eq!(names.last().map(String::as_str), Some("KQvKP"));
        assert_eq!(names.len(), 10, "{names:?}");
    }
}
