//! How far a defending king is from mate in an ending of few men: the progress distance
//! that sets the initial proof numbers of quiet moves and replies (df-pn+), so that the
//! search tries the moves that drive the king first. Twice the king's distance from where
//! it can be mated plus the kings' distance. These numbers only order the search; the
//! endings of four men and fewer are decided by their exact values ([`super::dtm`]), so
//! this guides the larger ones.

use shakmaty::{Bitboard, Board, Color, Move, Piece, Position, Role, Square, attacks};

use crate::chess::node::Node;
use crate::knowledge::material::{MAX_MEN, armed_defender};

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
    /// [`Kings::distance`] of the position [`Kings::of`] read, which every move of
    /// another man keeps.
    pub base: u32,
}

impl Kings {
    /// The kings of `node`, when it is a few-men position in which both sides have a king.
    pub fn of(node: &Node, attacker: Color) -> Option<Kings> {
        let board = node.pos.board();
        if board.occupied().count() > MAX_MEN {
            return None;
        }
        let zone = MateZone::of(board, attacker);
        let armed = armed_defender(board, attacker);
        let (attacker, defender) = (board.king_of(attacker)?, board.king_of(!attacker)?);
        let kings = Kings { attacker, defender, zone, armed, base: 0 };
        Some(Kings { base: kings.distance(), ..kings })
    }

    /// [`Kings::distance`] after `m`, a move that captures nothing: the node's own
    /// distance when `m` moves no king.
    #[inline]
    pub fn distance_after(self, m: Move) -> u32 {
        let Move::Normal { role, from, to, .. } = m else { return self.after(m).distance() };
        if role != Role::King {
            return self.base;
        }
        let (attacker, defender) = if from == self.attacker { (to, self.defender) } else { (self.attacker, to) };
        self.zone.kings_distance(attacker, defender)
    }

    /// The kings after `m`, a move that captures nothing, is played.
    #[inline]
    pub fn after(self, m: Move) -> Kings {
        if m.role() != Role::King {
            return self;
        }
        // Castling moves the king too, but never in the endgames this serves.
        let to = m.to();
        if m.from() == Some(self.attacker) { Kings { attacker: to, ..self } } else { Kings { defender: to, ..self } }
    }

    /// How far the defending king is from being mated, in rough units: twice its distance
    /// from its [`MateZone`] plus the kings' distance.
    #[inline]
    pub fn distance(self) -> u32 {
        self.zone.kings_distance(self.attacker, self.defender)
    }
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

    /// The progress distance of the kings on `attacker` and `defender` in this zone
    /// ([`Kings::distance`]).
    #[inline]
    fn kings_distance(self, attacker: Square, defender: Square) -> u32 {
        2 * self.distance(defender) + attacker.distance(defender)
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
    fn corners(self) -> &'static [Square] {
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
            let kings = Kings::of(&node, Color::White).unwrap();
            for m in node.pos.legal_moves().into_iter().filter(|m| !m.is_capture()) {
                assert_eq!(kings.distance_after(m), kings.after(m).distance(), "{fen} {m}");
            }
        }
    }

    #[test]
    fn corners_edges_and_centre() {
        assert_eq!(corner_distance(Square::A1), 0);
        assert_eq!(corner_distance(Square::H8), 0);
        assert_eq!(corner_distance(Square::A4), 3);
        assert_eq!(corner_distance(Square::E4), 6);
        let kings = Kings { attacker: Square::C3, defender: Square::A1, zone: MateZone::Corner, armed: false, base: 0 };
        assert_eq!(kings.distance(), 2);
        assert_eq!((edge_distance(Square::A4), edge_distance(Square::E4), edge_distance(Square::B7)), (0, 3, 1));
        // With a queen or rook, a king on the edge is as near mate as one in the corner.
        let on_edge = Kings { attacker: Square::D6, defender: Square::D8, zone: MateZone::Edge, armed: false, base: 0 };
        assert_eq!(on_edge.distance(), 2);
        assert_eq!(Kings { zone: MateZone::Corner, ..on_edge }.distance(), 8);
    }

    #[test]
    fn the_distances_are_least_in_the_mating_net() {
        let kings = |attacker, defender, zone| Kings { attacker, defender, zone, armed: false, base: 0 }.distance();
        // Two bishops: king in the corner, the other a knight's jump away, two steps from it.
        assert_eq!(kings(Square::C2, Square::A1, MateZone::Bishops), 2);
        assert_eq!(kings(Square::H8, Square::A1, MateZone::Bishops), 7);
        assert_eq!(kings(Square::A1, Square::D4, MateZone::Bishops), 9);
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
        // Two bishops mate in any corner, two knights too, a rook on any edge; a defender's pawn keeps the corners all alike.
        assert_eq!(zone("8/8/8/4k3/8/8/8/KBB5"), MateZone::Bishops);
        assert_eq!(MateZone::Bishops.distance(Square::D5), 3);
        assert_eq!(zone("8/8/8/4k3/8/8/8/KNN5"), MateZone::Corner);
        assert_eq!(zone("8/8/8/4k3/8/8/8/KRN5"), MateZone::Edge);
        assert_eq!(zone("8/p7/8/4k3/8/8/8/KBN5"), MateZone::Corner);
    }

    #[test]
    fn a_defender_with_a_piece_against_no_queen_is_armed() {
        let armed = |fen: &str, attacker: Color| Kings::of(&node(fen), attacker).unwrap().armed;
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
        let kings = Kings::of(&node, Color::White).unwrap();
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
