//! Moves and solutions written as Popeye's English output writes them, which problemists
//! read and YACPDB renders: `Se8-c7`, `Sd5*c7`, `e7-e8=Q`, `h5*g6 ep.`, `0-0-0`, then ` +`
//! for a check, ` #` for mate and ` =` for stalemate.

use shakmaty::{CastlingSide, Chess, Move, MoveList, Position, Role};

use crate::chess::movegen::legal_moves;
use crate::problem::game::is_pass;

/// Popeye's English letter of a piece (S for the knight, as problemists write it).
fn letter(role: Role) -> &'static str {
    match role {
        Role::King => "K",
        Role::Queen => "Q",
        Role::Rook => "R",
        Role::Bishop => "B",
        Role::Knight => "S",
        Role::Pawn => "",
    }
}

/// Legal move `m` from `pos` in Popeye's notation, with what it gives (check, mate,
/// stalemate) after it.
pub fn move_text(pos: &Chess, m: Move) -> String {
    let mut text = match m {
        Move::Normal { role, from, capture, to, promotion } => {
            let sep = if capture.is_some() { '*' } else { '-' };
            let promo = promotion.map(|p| format!("={}", letter(p))).unwrap_or_default();
            format!("{}{from}{sep}{to}{promo}", letter(role))
        }
        Move::EnPassant { from, to } => format!("{from}*{to} ep."),
        Move::Castle { king, rook } => {
            let side = if rook > king { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            if side == CastlingSide::KingSide { "0-0".into() } else { "0-0-0".into() }
        }
        Move::Put { .. } => "pass".into(),
    };
    let mut after = pos.clone();
    after.play_unchecked(m);
    let mut replies = MoveList::new();
    legal_moves(&after, &mut replies);
    match (after.is_check(), replies.is_empty()) {
        (true, true) => text.push_str(" #"),
        (true, false) => text.push_str(" +"),
        (false, true) => text.push_str(" ="),
        (false, false) => {}
    }
    text
}

/// A line of moves from `pos` (passes included, as the prover plays them) written as
/// Popeye writes a help or series solution: numbered by the moves of the side that moves
/// second in help play and by the series side's moves in a series, passes left out.
///
/// Help play pairs the moves: `1.Kb8-a8 Sc4-b6 #`, and a half move first is written
/// `1...Rh1-c1   2.Bg8-a2 Rc1-c8 #`. A series numbers each move of its side:
/// `1.Ka1-b2   2.Rh1-a1   3.Ra1-a8 #`, the other side's last move beside the last one.
pub fn line_text(pos: &Chess, line: &[Move], series: bool, half: bool) -> String {
    let mut out = String::from(" ");
    let mut pos = pos.clone();
    let mut number = 1;
    let mut first = true;
    if half {
        // The White move before Black's first: numbered 1... as Popeye does.
        let m = line[0];
        out.push_str(&format!(" 1...{}", move_text(&pos, m)));
        pos.play_unchecked(m);
        number = 2;
        first = false;
    }
    let rest = if half { &line[1..] } else { line };
    // Only the last move can stalemate in a solution: before it, a stalemate is that of
    // the side that waits out a series, which Popeye leaves unmarked.
    let text = |pos: &Chess, m: Move, last: bool| {
        let t = move_text(pos, m);
        match t.strip_suffix(" =") {
            Some(plain) if !last => plain.to_string(),
            _ => t,
        }
    };
    let mut i = 0;
    while i < rest.len() {
        let m = rest[i];
        if !first {
            out.push_str("  ");
        }
        first = false;
        out.push_str(&format!(" {number}.{}", text(&pos, m, i + 1 == rest.len())));
        pos.play_unchecked(m);
        // The reply: a pass in a series (not written), the other move of a pair in help play.
        if let Some(&reply) = rest.get(i + 1) {
            if is_pass(reply) {
                pos = pos.swap_turn().expect("a pass out of check");
            } else if !series || i + 2 == rest.len() {
                out.push_str(&format!(" {}", text(&pos, reply, i + 2 == rest.len())));
                pos.play_unchecked(reply);
            }
        }
        i += 2;
        number += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen, uci::UciMove};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn mv(p: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(p).unwrap()
    }

    #[test]
    fn moves_read_as_popeye_writes_them() {
        let p = pos("k3n3/P7/1K6/3N4/8/8/8/8 w - - 0 1");
        assert_eq!(move_text(&p, mv(&p, "d5c7")), "Sd5-c7 +");
        let p = pos("1k6/8/pK6/8/8/8/8/7Q w - - 0 1");
        assert_eq!(move_text(&p, mv(&p, "h1h8")), "Qh1-h8 #");
        let p = pos("4k3/P7/8/7p/6P1/8/8/R3K2R w KQ h6 0 1");
        assert_eq!(move_text(&p, mv(&p, "a7a8q")), "a7-a8=Q +");
        assert_eq!(move_text(&p, mv(&p, "e1c1")), "0-0-0");
        assert_eq!(move_text(&p, mv(&p, "g4h5")), "g4*h5");
        let p = pos("7k/8/8/5pP1/8/8/8/K7 w - f6 0 1");
        assert_eq!(move_text(&p, mv(&p, "g5f6")), "g5*f6 ep.");
        let p = pos("k7/8/1Q6/8/8/8/8/K7 w - - 0 1");
        assert_eq!(move_text(&p, mv(&p, "b6c7")), "Qb6-c7 =");
    }
}
