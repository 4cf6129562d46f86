//! How far a defending king is from mate in an ending of few men: the progress distance
//! that sets the initial proof numbers of quiet moves and replies (df-pn+), so that the
//! search tries the moves that drive the king first. Twice the king's distance from where
//! it can be mated plus the kings' distance; fitted models of the kings' placement for
//! bishop and knight and for two bishops; the fitted K+R v K and K+Q v K+R models where
//! their heavy pieces are on the board. These numbers only order the search.

use shakmaty::{Bitboard, Board, Color, Move, Piece, Position, Role, Square, attacks};

use crate::chess::node::Node;
use crate::knowledge::material::{MAX_MEN, armed_defender};
use crate::knowledge::queen_rook::{self, Frame, QueenRook};
use crate::knowledge::rook_mate;

/// The kings after a move, as the progress numbers see them.
#[derive(Clone, Copy, Debug)]
pub struct Kings {
    /// The attacker's king.
    pub attacker: Square,
    /// The defender's king.
    pub defender: Square,
    /// Where the defending king can be mated, which its distance is counted to.
    pub zone: MateZone,
    /// Whether the position has an [`armed_defender`].
    pub armed: bool,
    /// The heavy pieces of an ending with a fitted model (K+R v K, K+Q v K+R): then
    /// [`Kings::distance`] is that model, and their moves change it.
    pub heavy: Option<Heavy>,
    /// [`Kings::distance`] of the position [`Kings::with_frame`] read, which every move of
    /// another man keeps ([`Kings::after`] leaves it as it was).
    pub base: u32,
}

impl Kings {
    /// [`Kings::with_frame`] without the model's terms.
    #[cfg(test)]
    pub fn of(node: &Node, attacker: Color, models: bool) -> Option<Kings> {
        Kings::with_frame(node, attacker, models).map(|(kings, _)| kings)
    }

    /// The kings of `node`, when it is a few-men position in which both sides have a king;
    /// with its [`Heavy`] pieces only when `models` (the df-pn call's root is one of those
    /// endings): a model's numbers dwarf the plain distances of sibling subtrees with other
    /// material, so df-pn would shun the lines that reach the modelled ending. In K+Q v
    /// K+R, with the model's terms at `node` (see [`Kings::distance_after_in`]).
    pub fn with_frame(node: &Node, attacker: Color, models: bool) -> Option<(Kings, Option<Frame>)> {
        let board = node.pos.board();
        if board.occupied().count() > MAX_MEN {
            return None;
        }
        let zone = MateZone::of(board, attacker);
        let armed = armed_defender(board, attacker);
        let heavy = if models { Heavy::of(board, attacker) } else { None };
        let (attacker, defender) = (board.king_of(attacker)?, board.king_of(!attacker)?);
        let kings = Kings { attacker, defender, zone, armed, heavy, base: 0 };
        Some(match heavy {
            Some(Heavy::QueenRook(duel)) => {
                let frame = Frame::new(attacker, defender, duel.queen, duel.rook);
                let base = units(frame.here(duel.flights(attacker, defender)));
                (Kings { base, ..kings }, Some(frame))
            }
            _ => (Kings { base: kings.distance(), ..kings }, None),
        })
    }

    /// [`Kings::distance`] after `m`, a move that captures nothing: the node's own
    /// distance when `m` moves neither a king nor a heavy piece (a bishop's or knight's
    /// step leaves the distances of their endings as they are).
    ///
    /// The normal moves of the endings without a heavy piece and of K+R v K, nearly all
    /// the moves asked, go straight to their tables.
    #[inline]
    pub fn distance_after(self, m: Move) -> u32 {
        let Move::Normal { role, from, to, .. } = m else { return self.after(m).distance() };
        let (attacker, defender) = match (role, from) {
            (Role::King, from) if from == self.attacker => (to, self.defender),
            (Role::King, _) => (self.attacker, to),
            _ => (self.attacker, self.defender),
        };
        match self.heavy {
            None if role == Role::King => self.zone.kings_distance(attacker, defender),
            None => self.base,
            Some(Heavy::Rook(rook)) => {
                let rook = if from == rook { to } else { rook };
                u32::from(ROOK_DISTANCES[placement(attacker, defender, rook)])
            }
            Some(heavy) if role == Role::King || heavy.moves(m) => self.after(m).distance(),
            Some(_) => self.base,
        }
    }

    /// [`Kings::distance_after`] in K+Q v K+R, with the model's terms at this node
    /// ([`Kings::with_frame`]): a queen's or rook's move, or a step of the attacking king
    /// that keeps the board's turn, changes only its own terms.
    #[inline]
    pub fn distance_after_in(self, frame: &Frame, m: Move) -> u32 {
        if let (Some(Heavy::QueenRook(duel)), Move::Normal { role, from, to, .. }) = (self.heavy, m) {
            if role == Role::King {
                if from == self.attacker
                    && let Some(d) = frame.attacker_to(to, self.defender, duel.flights(to, self.defender))
                {
                    return units(d);
                }
            } else if from == duel.queen {
                return units(frame.queen_to(to, duel.after(m).flights(self.attacker, self.defender)));
            } else if from == duel.rook {
                return units(frame.rook_to(to, duel.after(m).flights(self.attacker, self.defender)));
            }
        }
        self.distance_after(m)
    }

    /// Whether this is K+Q v K+R with its fitted model ([`Heavy::QueenRook`]).
    #[inline]
    pub fn queen_v_rook(self) -> bool {
        matches!(self.heavy, Some(Heavy::QueenRook(_)))
    }

    /// The kings (and the [`Heavy`] pieces) after `m`, a move that captures nothing, is
    /// played.
    #[inline]
    pub fn after(self, m: Move) -> Kings {
        if m.role() != Role::King {
            return Kings { heavy: self.heavy.map(|heavy| heavy.after(m)), ..self };
        }
        // Castling moves the king too, but never in the endgames this serves.
        let to = m.to();
        if m.from() == Some(self.attacker) { Kings { attacker: to, ..self } } else { Kings { defender: to, ..self } }
    }

    /// How far the defending king is from being mated, in rough units: twice its distance
    /// from its [`MateZone`] plus the kings' distance; a fitted measure with bishop and
    /// knight, two bishops, and the [`Heavy`] endings.
    #[inline]
    pub fn distance(self) -> u32 {
        if let Some(heavy) = self.heavy {
            return heavy.distance(self.attacker, self.defender);
        }
        self.zone.kings_distance(self.attacker, self.defender)
    }
}

/// The heavy pieces of an ending that has a fitted model of its distance to mate: K+R v
/// K ([`rook_mate`]) and K+Q v K+R ([`queen_rook`]). Each model scores the placement of
/// every man and explains far more of the mate distance on held-out tablebase lines than
/// the plain edge and kings' distances do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heavy {
    /// The attacker's rook against a bare king.
    Rook(Square),
    /// The attacker's queen against the defender's rook.
    QueenRook(QueenRook),
}

impl Heavy {
    /// The heavy pieces of `board` with `attacker` to mate, when it is one of those
    /// endings.
    pub fn of(board: &Board, attacker: Color) -> Option<Heavy> {
        rook_mate::rook_of(board, attacker)
            .map(Heavy::Rook)
            .or_else(|| QueenRook::of(board, attacker).map(Heavy::QueenRook))
    }

    /// Whether `m` moves one of the pieces.
    #[inline]
    fn moves(self, m: Move) -> bool {
        match self {
            Heavy::Rook(rook) => m.from() == Some(rook),
            Heavy::QueenRook(duel) => m.from() == Some(duel.queen) || m.from() == Some(duel.rook),
        }
    }

    /// The pieces after `m`, a move that captures nothing.
    #[inline]
    fn after(self, m: Move) -> Heavy {
        match self {
            Heavy::Rook(rook) if m.from() == Some(rook) => Heavy::Rook(m.to()),
            Heavy::Rook(_) => self,
            Heavy::QueenRook(duel) => Heavy::QueenRook(duel.after(m)),
        }
    }

    /// The model's distance to mate with the kings on `attacker` and `defender`, in units
    /// of the progress distance (the model's divided by [`HEAVY_UNITS`]).
    #[inline]
    fn distance(self, attacker: Square, defender: Square) -> u32 {
        match self {
            Heavy::Rook(rook) => u32::from(ROOK_DISTANCES[placement(attacker, defender, rook)]),
            Heavy::QueenRook(duel) => {
                let flights = duel.flights(attacker, defender);
                units(queen_rook::distance_to_mate(attacker, defender, duel.queen, duel.rook, flights))
            }
        }
    }
}

/// A model's distance in units of the progress distance.
#[inline]
fn units(model: i32) -> u32 {
    model.max(0) as u32 / HEAVY_UNITS
}

/// The index of a K+R v K placement in [`ROOK_DISTANCES`].
#[inline]
fn placement(attacker: Square, defender: Square, rook: Square) -> usize {
    (attacker as usize) << 12 | (defender as usize) << 6 | rook as usize
}

/// The K+R v K model's distance ([`Heavy::distance`]) of every placement of the three men
/// (256 kB, made at its first use in a few milliseconds): the search asks for it at every
/// quiet move and reply of that ending, and working it out there took a twentieth of
/// `pnmate bench`'s instructions.
static ROOK_DISTANCES: std::sync::LazyLock<Box<[u8]>> = std::sync::LazyLock::new(|| {
    let mut table = vec![0; 1 << 18].into_boxed_slice();
    for attacker in Square::ALL {
        for defender in Square::ALL {
            for rook in Square::ALL {
                let distance = units(rook_mate::distance_to_mate(attacker, defender, rook));
                table[placement(attacker, defender, rook)] = u8::try_from(distance).expect("a distance below 256");
            }
        }
    }
    table
});

/// The units of the [`Heavy`] models (20 a move) to one unit of the progress distance:
/// 4 a move, where the edge and kings' distances they replace count 2 an edge step and 1
/// a kings' step.
const HEAVY_UNITS: u32 = 5;

/// The progress distance of a K+B+N v K position from its kings alone: twice the mate
/// distance an additive model of the kings' placement predicts. Each table holds the mean
/// mate distance (20 a move) that goes with one feature: the defending king's distance to
/// the nearer corner of the bishop's colour, to the nearer other corner and to the edge,
/// the kings' distance, and the attacking king's distance to the mating corner. Fitted to
/// the tablebase lines of `epd/public/endgames/KBNvK500pv.epd` by `tools/fit_progress.py kbn`.
const fn bishop_and_knight_distance(attacker: usize, defender: usize, dark: bool) -> u8 {
    use crate::knowledge::fitted::kbn::{CORNER, EDGE, KINGS, OTHER_CORNER, OWN_KING_CORNER};
    let corner = nearest_corner(MateZone::BishopCorner { dark }.corners(), defender, attacker);
    let other = nearest_corner(MateZone::BishopCorner { dark: !dark }.corners(), defender, attacker);
    let sum = CORNER[steps(defender, corner)]
        + OTHER_CORNER[steps(defender, other)]
        + EDGE[steps_to_edge(defender)]
        + KINGS[steps(attacker, defender)]
        + OWN_KING_CORNER[steps(attacker, corner)];
    (sum / 10) as u8
}

/// The progress distance of a K+B+B v K position from its kings alone, as
/// [`bishop_and_knight_distance`] does it: the defending king's distance to the nearest
/// corner and to the edge, the kings' distance, and the attacking king's distance to that
/// corner. Fitted by `tools/fit_progress.py kbb` to the first half of the lines of
/// `epd/public/endgames/KBBvK500pv.epd`.
const fn bishops_distance(attacker: usize, defender: usize) -> u8 {
    use crate::knowledge::fitted::kbb::{CORNER, EDGE, KINGS, OWN_KING_CORNER};
    let corner = nearest_corner(MateZone::Bishops.corners(), defender, attacker);
    let near = steps(defender, corner);
    let sum = CORNER[if near < 3 { near } else { 3 }]
        + EDGE[steps_to_edge(defender)]
        + KINGS[steps(attacker, defender)]
        + OWN_KING_CORNER[steps(attacker, corner)];
    (sum / 10) as u8
}

/// The fitted distances of every placement of the two kings, `[attacker][defender]` by
/// square index, made when the program is compiled: the search asks for one at every
/// quiet move and reply it starts, and working the model out there took a tenth of a
/// K+B+B v K proof's time (`perf`).
static BISHOPS: [[u8; 64]; 64] = fitted_table(MateZone::Bishops);

/// [`bishop_and_knight_distance`] by the bishop's colour (light, dark), as [`BISHOPS`].
static BISHOP_AND_KNIGHT: [[[u8; 64]; 64]; 2] =
    [fitted_table(MateZone::BishopCorner { dark: false }), fitted_table(MateZone::BishopCorner { dark: true })];

/// The fitted distance of `zone` for every placement of the kings (zeros for the zones
/// measured without a fit).
const fn fitted_table(zone: MateZone) -> [[u8; 64]; 64] {
    let mut table = [[0; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 64 {
            table[a][d] = match zone {
                MateZone::Bishops => bishops_distance(a, d),
                MateZone::BishopCorner { dark } => bishop_and_knight_distance(a, d, dark),
                MateZone::Edge | MateZone::Corner => 0,
            };
            d += 1;
        }
        a += 1;
    }
    table
}

/// King steps between the squares of indices `a` and `b`: `Square::distance` on indices.
/// (`Square::distance` is a `const fn` too, but its range checks made the tables' 12,288
/// evaluations trip the compiler's long-running const evaluation lint.)
const fn steps(a: usize, b: usize) -> usize {
    let files = (a % 8).abs_diff(b % 8);
    let ranks = (a / 8).abs_diff(b / 8);
    if files > ranks { files } else { ranks }
}

/// King steps from the square of index `sq` to the nearest edge ([`edge_distance`]).
const fn steps_to_edge(sq: usize) -> usize {
    let (file, rank) = (sq % 8, sq / 8);
    let f = if file < 7 - file { file } else { 7 - file };
    let r = if rank < 7 - rank { rank } else { 7 - rank };
    if f < r { f } else { r }
}

/// Of `corners`, the one nearest the defending king on `defender`; of two alike, the one
/// nearer the attacking king on `attacker` (the corner the fitted distances measure the
/// attacking king's distance to); of those, the first.
const fn nearest_corner(corners: &[Square], defender: usize, attacker: usize) -> usize {
    let mut best = corners[0] as usize;
    let mut i = 1;
    while i < corners.len() {
        let c = corners[i] as usize;
        let (d, a) = (steps(defender, c), steps(attacker, c));
        let (best_d, best_a) = (steps(defender, best), steps(attacker, best));
        if d < best_d || (d == best_d && a < best_a) {
            best = c;
        }
        i += 1;
    }
    best
}

/// Where the attacker's men can mate the defending king, as the progress numbers see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateZone {
    /// Any edge square: the attacker has a queen or rook.
    Edge,
    /// Any corner: minor pieces and pawns (two knights, a bishop and pawns, ...).
    Corner,
    /// A corner of the colour of the attacker's bishop, where one bishop and one knight
    /// face a lone king: they mate only there.
    BishopCorner { dark: bool },
    /// Any corner, where two bishops (pawns beside them or not) face a lone king, counted
    /// as king steps to the nearest.
    Bishops,
}

impl MateZone {
    /// The zone of `board` with `attacker` to mate.
    pub fn of(board: &Board, attacker: Color) -> MateZone {
        let ours = board.by_color(attacker);
        if ((board.queens() | board.rooks()) & ours).any() {
            return MateZone::Edge;
        }
        let bishops = board.bishops() & ours;
        let knights = (board.knights() & ours).count();
        let lone_king = board.by_color(!attacker).count() == 1;
        if lone_king && bishops.count() == 1 && knights == 1 {
            return MateZone::BishopCorner { dark: (bishops & Bitboard::DARK_SQUARES).any() };
        }
        if lone_king && bishops.count() >= 2 && knights == 0 {
            return MateZone::Bishops;
        }
        MateZone::Corner
    }

    /// The progress distance of the kings on `attacker` and `defender` in this zone,
    /// without heavy pieces ([`Kings::distance`]).
    #[inline]
    fn kings_distance(self, attacker: Square, defender: Square) -> u32 {
        match self {
            MateZone::BishopCorner { dark } => {
                u32::from(BISHOP_AND_KNIGHT[usize::from(dark)][attacker as usize][defender as usize])
            }
            MateZone::Bishops => u32::from(BISHOPS[attacker as usize][defender as usize]),
            MateZone::Edge | MateZone::Corner => 2 * self.distance(defender) + attacker.distance(defender),
        }
    }

    /// Steps of the defending king on `sq` from the zone.
    #[inline]
    pub fn distance(self, sq: Square) -> u32 {
        match self {
            MateZone::Edge => edge_distance(sq),
            MateZone::Corner => corner_distance(sq),
            MateZone::BishopCorner { .. } | MateZone::Bishops => {
                self.corners().iter().map(|&c| sq.distance(c)).min().unwrap_or(0)
            }
        }
    }

    /// The corners the zone counts king steps to: those of the bishop's colour (a1 and h8
    /// are dark, a8 and h1 light), or all four for two bishops. None for the zones
    /// measured otherwise.
    const fn corners(self) -> &'static [Square] {
        match self {
            MateZone::BishopCorner { dark: true } => &[Square::A1, Square::H8],
            MateZone::BishopCorner { dark: false } => &[Square::A8, Square::H1],
            MateZone::Bishops => &[Square::A1, Square::A8, Square::H1, Square::H8],
            MateZone::Edge | MateZone::Corner => &[],
        }
    }
}

/// The defending king's flight squares after an attacker's quiet move, counted without
/// playing the move. In an ending the attacker wins by taking squares from the king one
/// at a time, so among moves that leave the kings alike (a bishop's steps), the one that
/// leaves fewer flights is usually the one that makes progress. Counted roughly, for
/// speed: the men that do not move keep the attacks they have before the move (a line
/// the move opens or closes is missed). It only orders moves.
pub struct Flights {
    /// Each attacking man's square, and the squares every other man attacks.
    men: [(Square, Bitboard); MAX_MEN],
    len: usize,
    /// The squares the defending king could step to, if unattacked.
    zone: Bitboard,
    /// Every man but the defending king, which does not block attacks on its own flights.
    occupied: Bitboard,
    attacker: Color,
}

impl Flights {
    /// The defending king's flights in `node` (a few-men position, see [`Kings::with_frame`]).
    pub fn new(node: &Node, attacker: Color, kings: Kings) -> Flights {
        let board = node.pos.board();
        let occupied = board.occupied() ^ Bitboard::from(kings.defender);
        let mut own = [(Square::A1, Bitboard::EMPTY); MAX_MEN];
        let mut len = 0;
        for sq in board.by_color(attacker).into_iter().take(MAX_MEN) {
            own[len] = (sq, attacks_through(board, sq, occupied));
            len += 1;
        }
        let mut men = own;
        for (i, man) in men[..len].iter_mut().enumerate() {
            man.1 = own[..len].iter().enumerate().filter(|&(j, _)| j != i).fold(Bitboard::EMPTY, |a, (_, o)| a | o.1);
        }
        Flights {
            men,
            len,
            zone: attacks::king_attacks(kings.defender) & !board.by_color(!attacker),
            occupied,
            attacker,
        }
    }

    /// The flights left after the attacker's quiet move `m` (no capture, no promotion).
    #[inline]
    pub fn after(&self, m: Move) -> u32 {
        let (role, from, to) = match m {
            Move::Normal { role, from, to, .. } => (role, from, to),
            _ => match m.from() {
                Some(from) => (m.role(), from, m.to()),
                None => return self.zone.count() as u32,
            },
        };
        let Some(&(_, others)) = self.men[..self.len].iter().find(|man| man.0 == from) else {
            return self.zone.count() as u32;
        };
        let occupied = (self.occupied ^ Bitboard::from(from)) | Bitboard::from(to);
        let moved = attacks::attacks(to, Piece { color: self.attacker, role }, occupied);
        (self.zone & !(others | moved)).count() as u32
    }
}

/// The squares the man on `sq` attacks once the defending king is out of the way (a
/// slider's ray through the king's square goes on: the king cannot step back along it).
fn attacks_through(board: &Board, sq: Square, occupied: Bitboard) -> Bitboard {
    board.piece_at(sq).map_or(Bitboard::EMPTY, |piece| attacks::attacks(sq, piece, occupied))
}

/// Steps from `sq` to the nearest corner along the board's edge (0 in a corner, 6 in
/// the centre).
#[inline]
fn corner_distance(sq: Square) -> u32 {
    let file = u32::from(sq.file());
    let rank = u32::from(sq.rank());
    file.min(7 - file) + rank.min(7 - rank)
}

/// How many king steps `sq` is from the nearest edge: 0 on the edge, 3 in the centre.
#[inline]
pub fn edge_distance(sq: Square) -> u32 {
    let file = u32::from(sq.file());
    let rank = u32::from(sq.rank());
    file.min(7 - file).min(rank).min(7 - rank)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::parse_fen;

    /// The node of a test position.
    fn node(fen: &str) -> Node {
        Node::new(parse_fen(fen).unwrap())
    }

    #[test]
    fn the_distance_after_a_move_is_the_distance_of_the_kings_after_it() {
        use shakmaty::Position;
        let fens = [
            "8/8/8/3k4/8/8/8/4K2R w - - 0 1",
            "8/8/8/3k4/8/8/8/4K2R b - - 0 1",
            "1k6/4K3/8/1r6/8/5Q2/8/8 w - - 0 1",
            "1k6/4K3/8/1r6/8/5Q2/8/8 b - - 0 1",
            "8/8/8/3k4/8/8/8/1BB1K3 w - - 0 1",
            "8/8/2k5/8/8/4N3/5BK1/8 w - - 0 1",
            "8/8/2k5/8/8/4NN2/6K1/8 w - - 0 1",
            "8/1r6/2k5/8/8/4R3/5BK1/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        ];
        for fen in fens {
            let node = node(fen);
            for models in [false, true] {
                let kings = Kings::of(&node, Color::White, models).unwrap();
                for m in node.pos.legal_moves().into_iter().filter(|m| !m.is_capture()) {
                    assert_eq!(kings.distance_after(m), kings.after(m).distance(), "{fen} {m} {models}");
                }
            }
        }
    }

    #[test]
    fn in_k_q_v_k_r_the_frame_gives_the_distance_after_every_move() {
        use shakmaty::Position;
        let fens = [
            "1k6/4K3/8/1r6/8/5Q2/8/8 w - - 0 1",
            "1k6/4K3/8/1r6/8/5Q2/8/8 b - - 0 1",
            "3k4/2r5/3K4/8/8/8/8/7Q w - - 0 1",
            "8/8/8/3k4/4r3/8/2K5/6Q1 b - - 0 1",
            "7k/8/5K2/8/8/8/r7/6Q1 w - - 0 1",
        ];
        for fen in fens {
            let node = node(fen);
            let (kings, frame) = Kings::with_frame(&node, Color::White, true).unwrap();
            let frame = frame.expect("K+Q v K+R has a frame");
            for m in node.pos.legal_moves().into_iter().filter(|m| !m.is_capture()) {
                assert_eq!(kings.distance_after_in(&frame, m), kings.after(m).distance(), "{fen} {m}");
            }
        }
        let rook_ending = node("8/8/8/3k4/8/8/8/4K2R w - - 0 1");
        assert_eq!(Kings::with_frame(&rook_ending, Color::White, true).unwrap().1, None);
    }

    #[test]
    fn the_rook_table_holds_the_rook_model() {
        for (i, (attacker, defender, rook)) in Square::ALL
            .into_iter()
            .flat_map(|a| Square::ALL.into_iter().flat_map(move |d| Square::ALL.into_iter().map(move |r| (a, d, r))))
            .enumerate()
            .filter(|(i, _)| i % 5 == 0)
        {
            let model = units(rook_mate::distance_to_mate(attacker, defender, rook));
            assert_eq!(Heavy::Rook(rook).distance(attacker, defender), model, "placement {i}");
        }
    }

    #[test]
    fn corners_edges_and_centre() {
        assert_eq!(corner_distance(Square::A1), 0);
        assert_eq!(corner_distance(Square::H8), 0);
        assert_eq!(corner_distance(Square::A4), 3);
        assert_eq!(corner_distance(Square::E4), 6);
        let kings = Kings {
            attacker: Square::C3,
            defender: Square::A1,
            zone: MateZone::Corner,
            armed: false,
            heavy: None,
            base: 0,
        };
        assert_eq!(kings.distance(), 2);
        assert_eq!((edge_distance(Square::A4), edge_distance(Square::E4), edge_distance(Square::B7)), (0, 3, 1));
        // With a queen or rook, a king on the edge is as near mate as one in the corner.
        let on_edge = Kings {
            attacker: Square::D6,
            defender: Square::D8,
            zone: MateZone::Edge,
            armed: false,
            heavy: None,
            base: 0,
        };
        assert_eq!(on_edge.distance(), 2);
        assert_eq!(Kings { zone: MateZone::Corner, ..on_edge }.distance(), 8);
    }

    #[test]
    fn the_fitted_distances_are_least_in_the_mating_net() {
        let kings = |attacker, defender, zone| {
            Kings { attacker, defender, zone, armed: false, heavy: None, base: 0 }.distance()
        };
        // Two bishops: king in the corner, the other a knight's jump away, two steps from it.
        assert_eq!(kings(Square::C2, Square::A1, MateZone::Bishops), 0);
        assert_eq!(kings(Square::F7, Square::H8, MateZone::Bishops), 0);
        // Far from it: the kings at opposite corners, the defending king in the centre.
        assert_eq!(kings(Square::H8, Square::A1, MateZone::Bishops), 16);
        assert_eq!(kings(Square::A1, Square::D4, MateZone::Bishops), 27);
        // Bishop and knight: the right corner against the wrong one.
        let dark = MateZone::BishopCorner { dark: true };
        assert!(kings(Square::C3, Square::A1, dark) < kings(Square::C6, Square::A8, dark));
        assert_eq!(kings(Square::C3, Square::A1, dark), kings(Square::F6, Square::H8, dark));
    }

    #[test]
    fn bishop_and_knight_drive_the_king_to_a_corner_of_the_bishops_colour() {
        let zone = |fen: &str| {
            let board: Board = fen.parse().unwrap();
            MateZone::of(&board, Color::White)
        };
        // Dark-squared bishop (e3): a1 and h8; light-squared (f3): a8 and h1.
        let dark = zone("8/2N5/8/8/8/1k2B3/8/2K5");
        let light = zone("8/8/1kN5/8/8/1K3B2/8/8");
        assert_eq!((dark, light), (MateZone::BishopCorner { dark: true }, MateZone::BishopCorner { dark: false }));
        let steps = |z: MateZone| {
            [Square::A1, Square::H8, Square::A8, Square::H1, Square::B3, Square::D5].map(|sq| z.distance(sq))
        };
        assert_eq!(steps(dark), [0, 0, 7, 7, 2, 4]);
        assert_eq!(steps(light), [7, 7, 0, 0, 5, 3]);
        // Two bishops mate in any corner (their own zone, for the fitted distance), two
        // knights too, a rook on any edge; a defender's pawn keeps the corners all alike.
        assert_eq!(zone("8/8/8/4k3/8/8/8/KBB5"), MateZone::Bishops);
        assert_eq!(MateZone::Bishops.distance(Square::D5), 3);
        assert_eq!(zone("8/8/8/4k3/8/8/8/KNN5"), MateZone::Corner);
        assert_eq!(zone("8/8/8/4k3/8/8/8/KRN5"), MateZone::Edge);
        assert_eq!(zone("8/p7/8/4k3/8/8/8/KBN5"), MateZone::Corner);
    }

    #[test]
    fn heavy_endings_are_measured_by_their_models_and_follow_the_heavy_pieces() {
        let kings = |fen: &str| Kings::of(&node(fen), Color::White, true).unwrap();
        // Philidor's shape (the defending king on the back rank, its rook beside it, the
        // kings in opposition) is nearer mate than the same men in the centre.
        let philidor = kings("3k4/2r5/3K4/8/8/8/8/7Q w - - 0 1");
        let central = kings("8/8/8/3k4/4r3/8/2K5/6Q1 w - - 0 1");
        assert!(philidor.distance() + 20 < central.distance(), "{} {}", philidor.distance(), central.distance());
        // The queen's and the rook's moves change the measure as playing them does.
        let queen_move =
            Move::Normal { role: Role::Queen, from: Square::H1, capture: None, to: Square::E4, promotion: None };
        let rook_move =
            Move::Normal { role: Role::Rook, from: Square::C7, capture: None, to: Square::C1, promotion: None };
        let king_move =
            Move::Normal { role: Role::King, from: Square::D6, capture: None, to: Square::E6, promotion: None };
        assert_eq!(philidor.after(queen_move).distance(), kings("3k4/2r5/3K4/8/4Q3/8/8/8 b - - 0 1").distance());
        assert_eq!(philidor.after(rook_move).distance(), kings("3k4/8/3K4/8/8/8/8/2r4Q w - - 0 1").distance());
        assert_eq!(philidor.after(king_move).heavy, philidor.heavy);
        // K+R v K has its own model, which the rook's moves change: Rh7 to h8 mates.
        let box_mate = kings("3k4/7R/3K4/8/8/8/8/8 w - - 0 1");
        assert_eq!(box_mate.heavy, Some(Heavy::Rook(Square::H7)));
        let rook_move =
            Move::Normal { role: Role::Rook, from: Square::H7, capture: None, to: Square::H8, promotion: None };
        assert_eq!(box_mate.after(rook_move).heavy, Some(Heavy::Rook(Square::H8)));
        assert!(box_mate.distance() < kings("8/8/8/3k4/8/8/8/K6R w - - 0 1").distance());
        // Only that ending: with a second rook for the attacker, or a bishop for the
        // defender, the edge and kings' distances measure it.
        assert_eq!(kings("3k4/2r5/3K4/8/8/8/8/6RQ w - - 0 1").heavy, None);
        assert_eq!(kings("3k4/2b5/3K4/8/8/8/8/7Q w - - 0 1").heavy, None);
    }

    #[test]
    fn a_defender_with_a_piece_against_no_queen_is_armed() {
        let armed = |fen: &str, attacker: Color| Kings::of(&node(fen), attacker, false).unwrap().armed;
        assert!(armed("8/5r2/7R/8/5BK1/8/6k1/8 w - - 0 1", Color::White)); // K+R+B v K+R
        assert!(armed("8/5r2/7R/8/5BK1/8/6k1/8 b - - 0 1", Color::White)); // either side to move
        assert!(!armed("8/5r2/7Q/8/6K1/8/6k1/8 w - - 0 1", Color::White)); // K+Q v K+R
        assert!(!armed("8/8/8/8/5BK1/8/6k1/1B6 w - - 0 1", Color::White)); // K+B+B v K
        assert!(armed("8/5R2/7r/8/5bk1/8/6K1/8 b - - 0 1", Color::Black)); // Black attacks
        assert!(!armed("8/5p2/8/8/6N1/8/6K1/k5N1 w - - 0 1", Color::White)); // K+N+N v K+P
    }

    #[test]
    fn flights_after_a_quiet_move_are_the_king_moves_the_defender_then_has() {
        // K+B+B v K, the defender's king on b3 with five flights (b1 takes a2 and c2, c1
        // takes b2); no quiet move here opens or closes a line of a man that stays, so
        // the rough count is exact: 4 to 6 flights after the 20 quiet moves.
        let node = node("8/6K1/8/8/8/1k6/8/1BB5 w - - 0 1");
        let pos = node.pos.clone();
        let kings = Kings::of(&node, Color::White, false).unwrap();
        let flights = Flights::new(&node, Color::White, kings);
        let mut counts = Vec::new();
        for m in pos.legal_moves() {
            let after = pos.clone().play(m).unwrap();
            if after.is_check() {
                continue;
            }
            assert_eq!(flights.after(m), after.legal_moves().len() as u32, "{m}");
            counts.push(flights.after(m));
        }
        // Bishop steps that take flights away are told apart from those that do not.
        assert_eq!(counts.len(), 20);
        assert_eq!(counts.iter().min(), Some(&4));
        assert_eq!(counts.iter().max(), Some(&6));
    }
}
