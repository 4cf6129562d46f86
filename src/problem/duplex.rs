//! Duplex: a problem solved again for the other side (`option duplex`, `halfduplex`).
//! The board is turned upside down with the colours exchanged, which gives the other side
//! the stipulation's part; the solution found there is turned back, so that it is written
//! on the diagram's squares.

use shakmaty::{Bitboard, CastlingMode, Chess, FromSetup, Move, Piece, Position};

use super::solve::Solved;
use super::tree::{Attack, Defence, Play, Tree};

/// The diagram turned upside down with the colours exchanged, the other side to move:
/// the same problem for the other side. None if it is no legal position.
pub fn exchanged(pos: &Chess) -> Option<Chess> {
    let setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
    let mut out = setup.clone();
    out.board = shakmaty::Board::empty();
    for (sq, p) in setup.board.clone() {
        out.board.set_piece_at(sq.flip_vertical(), Piece { color: !p.color, role: p.role });
    }
    out.turn = !setup.turn;
    out.castling_rights = Bitboard(setup.castling_rights.0.swap_bytes());
    out.ep_square = setup.ep_square.map(|sq| sq.flip_vertical());
    Chess::from_setup(out, CastlingMode::Standard).ok()
}

/// A move of the exchanged board on the diagram's squares.
pub fn turned_back(m: Move) -> Move {
    match m {
        Move::Normal { role, from, capture, to, promotion } => {
            Move::Normal { role, from: from.flip_vertical(), capture, to: to.flip_vertical(), promotion }
        }
        Move::EnPassant { from, to } => Move::EnPassant { from: from.flip_vertical(), to: to.flip_vertical() },
        Move::Castle { king, rook } => Move::Castle { king: king.flip_vertical(), rook: rook.flip_vertical() },
        Move::Put { role, to } => Move::Put { role, to: to.flip_vertical() },
    }
}

/// A solution found on the exchanged board, written on the diagram's squares.
pub fn solved_back(mut solved: Solved) -> Solved {
    solved.keys = solved.keys.into_iter().map(turned_back).collect();
    for line in solved.solutions.iter_mut().chain(solved.set_play.iter_mut().flatten()) {
        for m in line.iter_mut() {
            *m = turned_back(*m);
        }
    }
    solved.tree = solved.tree.map(|t| Tree {
        set_play: t.set_play.map(|d| defences_back(&d)),
        first: t
            .first
            .into_iter()
            .map(|mut f| {
                f.attack = attack_back(&f.attack);
                f.refutations = f.refutations.into_iter().map(turned_back).collect();
                f
            })
            .collect(),
        postkey: t.postkey.map(|p| play_back(&p)),
    });
    // A certificate speaks of the exchanged board: it is left out.
    solved.certificate = None;
    solved
}

fn attack_back(a: &Attack) -> Attack {
    Attack { mv: a.mv.map(turned_back), play: play_back(&a.play) }
}

fn play_back(p: &Play) -> Play {
    Play {
        threat: p.threat.as_ref().map(|t| t.iter().map(attack_back).collect()),
        defences: defences_back(&p.defences),
    }
}

fn defences_back(d: &[Defence]) -> Vec<Defence> {
    d.iter()
        .map(|d| Defence {
            mv: turned_back(d.mv),
            continuations: d.continuations.iter().map(attack_back).collect(),
            refutes: d.refutes,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    #[test]
    fn the_exchanged_board_is_the_same_problem_for_the_other_side() {
        let pos: Chess = "r3k3/8/8/3pP3/8/8/8/4K2R w Kq d6 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let other = exchanged(&pos).unwrap();
        let fen = Fen::from_position(&other, shakmaty::EnPassantMode::Legal).to_string();
        assert_eq!(fen, "4k2r/8/8/8/3Pp3/8/8/R3K3 b Qk d3 0 1");
        // Back on the diagram's squares: White's e5 pawn is Black's e4 pawn there.
        let m = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: shakmaty::Square::E4,
            capture: None,
            to: shakmaty::Square::E3,
            promotion: None,
        };
        assert_eq!(turned_back(m).to_uci(CastlingMode::Standard).to_string(), "e5e6");
    }
}
