//! One ending's values: a byte per placement and side to move, and the en passant
//! positions apart, held in memory or mapped from the stored file.

use std::time::Duration;

use shakmaty::{Board, Chess, Color, FromSetup, Piece, Square};

use super::index::{Layout, Squares, key};
use super::mapped::Bytes;
use super::material::Material;

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
pub(crate) fn before(child: Code) -> Code {
    if child == 0 { 0 } else { child + 1 }
}

/// Where a table came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built in this process, in this time.
    Built(Duration),
    /// Read from its stored file.
    Stored,
}

/// One ending's values. Its bytes are, in order: the value code of every placement
/// index `i` and side (white 0, black 1) at `2 * i + side`; then the keys of the en
/// passant positions (placement key without the right, 4 bytes little-endian each,
/// ascending); then their codes, one byte each. A stored file holds the same bytes.
pub struct DtmTable {
    pub(crate) layout: Layout,
    bytes: Bytes,
    /// En passant positions.
    ep: usize,
    /// The longest mate, in plies.
    pub longest: u32,
    /// Where it came from.
    pub origin: Origin,
}

impl DtmTable {
    /// A table of `layout` from its bytes, as described at [`DtmTable`]; None if they do not
    /// have that form (the wrong length, or keys out of order or range).
    pub(crate) fn from_bytes(layout: Layout, bytes: Bytes, longest: u32, origin: Origin) -> Option<DtmTable> {
        let values = 2 * layout.size;
        let rest = bytes.len().checked_sub(values)?;
        if rest % 5 != 0 {
            return None;
        }
        let table = DtmTable { layout, bytes, ep: rest / 5, longest, origin };
        let keys = (0..table.ep).map(|i| table.ep_key(i));
        let ordered = keys.clone().zip(keys.skip(1)).all(|(a, b)| a < b);
        (ordered && (table.ep == 0 || (table.ep_key(table.ep - 1) as usize) < values)).then_some(table)
    }

    /// The material it holds.
    pub fn material(&self) -> Material {
        self.layout.material
    }

    /// The bytes, as a stored file holds them.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Bytes of memory the table takes (mapped or not).
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the table is mapped from its file rather than held in memory.
    pub fn is_mapped(&self) -> bool {
        self.bytes.is_mapped()
    }

    fn ep_key(&self, i: usize) -> u32 {
        let at = 2 * self.layout.size + 4 * i;
        u32::from_le_bytes(self.bytes[at..at + 4].try_into().expect("four bytes"))
    }

    fn ep_code(&self, i: usize) -> Code {
        self.bytes[2 * self.layout.size + 4 * self.ep + i]
    }

    /// The value code of the placement `s` (in the material's order) with `side` to move,
    /// `ep` when an en passant capture is legal.
    #[inline]
    pub(crate) fn code(&self, s: Squares, side: Color, ep: bool) -> Code {
        let key = key(self.layout.canonical(s), side);
        if !ep {
            return self.bytes[key as usize];
        }
        let (mut lo, mut hi) = (0, self.ep);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.ep_key(mid).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return self.ep_code(mid),
            }
        }
        0
    }

    /// Calls `f` with every position of the table (en passant rights aside, each
    /// placement once up to symmetry) and its value.
    pub fn each(&self, mut f: impl FnMut(Chess, Dtm)) {
        let layout = &self.layout;
        let material = layout.material;
        for index in 0..layout.size {
            let s = layout.decode(index);
            if !layout.is_canonical(index, s) {
                continue;
            }
            let mut board = Board::empty();
            for (i, &(color, role)) in material.men[..material.n].iter().enumerate() {
                board.set_piece_at(Square::new(s[i].into()), Piece { color, role });
            }
            if board.occupied().count() != material.n {
                continue;
            }
            for side in [Color::White, Color::Black] {
                let mut setup = shakmaty::Setup::empty();
                setup.board = board.clone();
                setup.turn = side;
                if let Ok(pos) = Chess::from_setup(setup, shakmaty::CastlingMode::Standard) as Result<Chess, _> {
                    f(pos, Dtm::of(self.bytes[key(index, side) as usize]));
                }
            }
        }
    }
}
