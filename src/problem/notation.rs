//! Moves and solutions written as Popeye's output writes them in the problem's language,
//! which problemists read and YACPDB renders: `Se8-c7`, `Sd5*c7`, `e7-e8=Q`, `h5*g6 ep.`,
//! `0-0-0` (German `e7-e8=D`, French `Ce8-c7`), then ` +` for a check, ` #` for mate and
//! ` =` for stalemate.

use shakmaty::{CastlingSide, Chess, Move, MoveList, Position, Role};

use crate::chess::movegen::legal_moves;
use crate::problem::game::is_pass;
use crate::problem::language::Language;
use crate::problem::tree::{Attack, Play, Tree};

/// The letter of a moving man in `lang` (S for the knight in English; none for a pawn).
fn letter(lang: Language, role: Role) -> String {
    if role == Role::Pawn { String::new() } else { lang.letter(role).to_string() }
}

/// Legal move `m` from `pos` in Popeye's notation, with what it gives (check, mate,
/// stalemate) after it.
pub fn move_text(pos: &Chess, m: Move, lang: Language) -> String {
    let mut text = match m {
        Move::Normal { role, from, capture, to, promotion } => {
            let sep = if capture.is_some() { '*' } else { '-' };
            let promo = promotion.map(|p| format!("={}", lang.letter(p))).unwrap_or_default();
            format!("{}{from}{sep}{to}{promo}", letter(lang, role))
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
pub fn line_text(pos: &Chess, line: &[Move], series: bool, half: bool, lang: Language) -> String {
    let mut out = String::from(" ");
    let mut pos = pos.clone();
    let mut number = 1;
    let mut first = true;
    if half {
        // The White move before Black's first: numbered 1... as Popeye does.
        let m = line[0];
        out.push_str(&format!(" 1...{}", move_text(&pos, m, lang)));
        pos.play_unchecked(m);
        number = 2;
        first = false;
    }
    let rest = if half { &line[1..] } else { line };
    // Only the last move can stalemate in a solution: before it, a stalemate is that of
    // the side that waits out a series, which Popeye leaves unmarked.
    let text = |pos: &Chess, m: Move, last: bool| {
        let t = move_text(pos, m, lang);
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

/// The column of the attacker's move `number` (the key's at 3) and of the defender's.
fn attack_indent(number: u16) -> usize {
    if number == 1 { 3 } else { 10 + 8 * (number as usize - 2) }
}
fn defence_indent(number: u16) -> usize {
    6 + 8 * (number as usize - 1)
}

/// What follows an attacker's move on its line: ` threat:`, ` zugzwang.` or nothing.
fn marker(play: &Play, lang: Language) -> &'static str {
    match &play.threat {
        Some(threat) if threat.is_empty() => lang.phrases().zugzwang,
        Some(_) => lang.phrases().threat,
        None => "",
    }
}

/// The attacker's move `number` of `attack` from `pos`, marked `mark` (` !` for a key),
/// and the play after it, one move a line, indented as Popeye indents it.
fn attack_lines(out: &mut String, pos: &Chess, attack: &Attack, number: u16, mark: &str, lang: Language) {
    let Some(m) = attack.mv else { return };
    let pad = attack_indent(number);
    out.push_str(&format!("{:pad$}{number}.{}{mark}{}\n", "", move_text(pos, m, lang), marker(&attack.play, lang)));
    let mut after = pos.clone();
    after.play_unchecked(m);
    play_lines(out, &after, &attack.play, number, lang);
}

/// The play after the attacker's move `number`, the defender to move at `pos`: the
/// threat's lines, then each defence with its continuations.
fn play_lines(out: &mut String, pos: &Chess, play: &Play, number: u16, lang: Language) {
    if let Some(threat) = &play.threat
        && !threat.is_empty()
    {
        let passed = pos.clone().swap_turn().expect("threats are looked for out of check");
        for attack in threat {
            attack_lines(out, &passed, attack, number + 1, "", lang);
        }
    }
    for defence in &play.defences {
        let pad = defence_indent(number);
        out.push_str(&format!("{:pad$}{number}...{}\n", "", move_text(pos, defence.mv, lang)));
        if defence.refutes {
            out.push_str(&format!("{:pad$}{}\n", "", lang.phrases().refutes, pad = pad + 2));
        }
        let mut after = pos.clone();
        after.play_unchecked(defence.mv);
        for attack in &defence.continuations {
            attack_lines(out, &after, attack, number + 1, "", lang);
        }
    }
}

/// A battle problem's solution from `pos` as Popeye writes it: set play, then each key
/// (`!`) or try (`?`, with `but` and its refutations) and its play, a blank line before
/// each; or the play of a diagram after the key.
pub fn tree_text(pos: &Chess, tree: &Tree, lang: Language) -> String {
    let mut out = String::new();
    if let Some(play) = &tree.postkey {
        out.push_str(&format!("{}\n", marker(play, lang)));
        play_lines(&mut out, pos, play, 1, lang);
    }
    if let Some(set) = &tree.set_play {
        let passed = pos.clone().swap_turn().expect("set play is looked for out of check");
        out.push('\n');
        play_lines(&mut out, &passed, &Play { threat: None, defences: set.clone() }, 1, lang);
    }
    for first in &tree.first {
        out.push('\n');
        let mark = if first.refutations.is_empty() { " !" } else { " ?" };
        attack_lines(&mut out, pos, &first.attack, 1, mark, lang);
        if !first.refutations.is_empty() {
            out.push_str(&format!("    {}\n", lang.phrases().but));
            for &r in &first.refutations {
                let mut after = pos.clone();
                after.play_unchecked(first.attack.mv.expect("a first move"));
                out.push_str(&format!("      1...{} !\n", move_text(&after, r, lang)));
            }
        }
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
        assert_eq!(move_text(&p, mv(&p, "d5c7"), Language::English), "Sd5-c7 +");
        let p = pos("1k6/8/pK6/8/8/8/8/7Q w - - 0 1");
        assert_eq!(move_text(&p, mv(&p, "h1h8"), Language::English), "Qh1-h8 #");
        let p = pos("4k3/P7/8/7p/6P1/8/8/R3K2R w KQ h6 0 1");
        assert_eq!(move_text(&p, mv(&p, "a7a8q"), Language::English), "a7-a8=Q +");
        assert_eq!(move_text(&p, mv(&p, "e1c1"), Language::English), "0-0-0");
        assert_eq!(move_text(&p, mv(&p, "g4h5"), Language::English), "g4*h5");
        let p = pos("7k/8/8/5pP1/8/8/8/K7 w - f6 0 1");
        assert_eq!(move_text(&p, mv(&p, "g5f6"), Language::English), "g5*f6 ep.");
        let p = pos("k7/8/1Q6/8/8/8/8/K7 w - - 0 1");
        assert_eq!(move_text(&p, mv(&p, "b6c7"), Language::English), "Qb6-c7 =");
        // Popeye's German and French letters.
        assert_eq!(move_text(&p, mv(&p, "b6c7"), Language::German), "Db6-c7 =");
        let p = pos("k3n3/P7/1K6/3N4/8/8/8/8 w - - 0 1");
        assert_eq!(move_text(&p, mv(&p, "d5c7"), Language::French), "Cd5-c7 +");
        let p = pos("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(move_text(&p, mv(&p, "a7a8b"), Language::German), "a7-a8=L");
        assert_eq!(move_text(&p, mv(&p, "a7a8n"), Language::French), "a7-a8=C");
    }
}
