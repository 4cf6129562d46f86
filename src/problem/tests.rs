//! Problems with the solutions Popeye 4.104 printed for them (github.com/thomas-maeder/popeye,
//! run with `tools/popeye_check.py`). The positions are random ones of few men that
//! tools/popeye_check.py's generator drew and Popeye solved; each test asserts the whole
//! set of keys or solutions, in Popeye's notation.

use super::*;
use crate::limits::Budget;
use crate::problem::language::Language;
use crate::problem::stipulation::Stipulation;
use shakmaty::{CastlingMode, Chess, Move, Position, fen::Fen};

fn solved(fen: &str, stip: &str) -> (Chess, Stipulation, Solved) {
    let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
    let stip: Stipulation = stip.parse().unwrap();
    let settings = ProblemSettings {
        budget: Budget { nodes: Some(5_000_000), ..Budget::default() },
        ..ProblemSettings::default()
    };
    let solved = solve_problem(pos.clone(), stip, settings, tree::Show::default()).unwrap();
    (pos, stip, solved)
}

/// The key and solution lines pnmate prints for `stip` from `fen`, in order.
fn lines(fen: &str, stip: &str) -> Vec<String> {
    let (pos, stip, solved) = solved(fen, stip);
    assert_ne!(solved.verdict, Verdict::Unknown, "{fen} {stip}: out of limits");
    let text = report_text(&pos, stip, &solved, Language::English);
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with(' '))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    lines.sort();
    lines
}

fn assert_lines(fen: &str, stip: &str, popeye: &[&str]) {
    let mut want: Vec<String> = popeye.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(lines(fen, stip), want, "{fen} {stip}");
}

#[test]
fn direct_mate_keys_are_popeye_s() {
    assert_lines("k3n3/P7/1K6/3N4/8/8/8/8 w - - 0 1", "#2", &["1.Kb6-a6 !"]);
}

#[test]
fn a_stalemate_key_is_popeye_s() {
    assert_lines("8/4R3/3K4/5Q2/8/4R3/8/2k5 w - - 0 1", "=2", &["1.Re3-e2 !"]);
}

#[test]
fn a_reflex_side_that_can_mate_must_so_the_reflexmate_fails() {
    // White has two mates in one and must play one: no r#2 (Popeye marks both `?!?`).
    let (_, _, s) = solved("k7/7R/8/7R/4R3/8/8/3Q3K w - - 0 1", "r#2");
    assert_eq!(s.verdict, Verdict::NoSolution);
    assert!(s.keys.is_empty());
}

#[test]
fn helpmate_solutions_are_popeye_s_with_the_short_ones() {
    assert_lines("8/8/R7/8/1K6/8/2pk4/8 b - - 0 1", "h#2", &["1.Kd2-d1 Kb4-c3 2.Kd1-c1 Ra6-a1 #"]);
    assert_lines("k7/8/pK6/8/8/8/8/7Q b - - 0 1", "h#1", &["1.Ka8-b8 Qh1-b7 #", "1.Ka8-b8 Qh1-h8 #"]);
    // h#2 of the same position: Popeye lists the two h#1 solutions among its 53.
    let h2 = lines("k7/8/pK6/8/8/8/8/7Q b - - 0 1", "h#2");
    assert_eq!(h2.len(), 53);
    assert!(h2.contains(&"1.Ka8-b8 Qh1-b7 #".to_string()));
    assert!(h2.contains(&"1.Ka8-b8 Kb6-c6 2.Kb8-c8 Qh1-h8 #".to_string()));
}

#[test]
fn a_helpmate_with_a_white_half_move_first_is_popeye_s() {
    let popeye = [
        "1...Kb6-c7 2.Bg8-h7 Rh1-a1 #",
        "1...Rh1-c1 2.Bg8-a2 Rc1-c8 #",
        "1...Rh1-c1 2.Bg8-b3 Rc1-c8 #",
        "1...Rh1-c1 2.Bg8-d5 Rc1-c8 #",
        "1...Rh1-c1 2.Bg8-f7 Rc1-c8 #",
        "1...Rh1-c1 2.Bg8-h7 Rc1-c8 #",
        "1...Rh1-d1 2.Bg8-a2 Rd1-d8 #",
        "1...Rh1-d1 2.Bg8-b3 Rd1-d8 #",
        "1...Rh1-d1 2.Bg8-c4 Rd1-d8 #",
        "1...Rh1-d1 2.Bg8-f7 Rd1-d8 #",
        "1...Rh1-d1 2.Bg8-h7 Rd1-d8 #",
        "1...Rh1-d1 2.Ka8-b8 Rd1-d8 #",
        "1...Rh1-e1 2.Bg8-a2 Re1-e8 #",
        "1...Rh1-e1 2.Bg8-b3 Re1-e8 #",
        "1...Rh1-e1 2.Bg8-c4 Re1-e8 #",
        "1...Rh1-e1 2.Bg8-d5 Re1-e8 #",
        "1...Rh1-e1 2.Bg8-h7 Re1-e8 #",
        "1...Rh1-e1 2.Ka8-b8 Re1-e8 #",
        "1...Rh1-f1 2.Bg8-a2 Rf1-f8 #",
        "1...Rh1-f1 2.Bg8-b3 Rf1-f8 #",
        "1...Rh1-f1 2.Bg8-c4 Rf1-f8 #",
        "1...Rh1-f1 2.Bg8-d5 Rf1-f8 #",
        "1...Rh1-f1 2.Bg8-h7 Rf1-f8 #",
        "1...Rh1-f1 2.Ka8-b8 Rf1-f8 #",
        "1...Rh1-g1 2.Ka8-b8 Rg1*g8 #",
        "1...Rh1-h8 2.Ka8-b8 Rh8*g8 #",
    ];
    assert_lines("k5b1/8/1K6/8/8/8/8/7R w - - 0 1", "h#1.5", &popeye);
}

#[test]
fn a_helpstalemate_is_popeye_s() {
    assert_lines(
        "8/8/6k1/8/6p1/6Q1/2N5/2K5 b - - 0 1",
        "h=2",
        &["1.Kg6-g7 Qg3*g4 + 2.Kg7-h8 Qg4-g6 =", "1.Kg6-h7 Qg3*g4 2.Kh7-h8 Qg4-g6 ="],
    );
}

#[test]
fn series_solutions_are_popeye_s() {
    assert_lines(
        "8/3P3K/2P5/8/8/8/8/1kBb4 w - - 0 1",
        "ser-#3",
        &[
            "1.d7-d8=Q 2.Qd8-d2 3.Qd2-b2 #",
            "1.d7-d8=Q 2.Qd8-d4 3.Qd4-b2 #",
            "1.d7-d8=Q 2.Qd8-f6 3.Qf6-b2 #",
            "1.d7-d8=Q 2.Qd8-h8 3.Qh8-b2 #",
        ],
    );
    assert_lines(
        "4k3/8/1Rr5/8/3Q4/3P4/8/3K4 b - - 0 1",
        "ser-h=3",
        &["1.Rc6-d6 2.Ke8-d7 3.Kd7-c8 Qd4*d6 =", "1.Rc6-d6 2.Ke8-d8 3.Kd8-c8 Qd4*d6 ="],
    );
    // h5-h4 stalemates White at once: it ends the series and is no solution, though a
    // series move there leaves the side that waits without a move. Popeye's three.
    assert_lines(
        "8/8/8/7p/8/7P/P7/kBK5 b - - 0 1",
        "ser-h=3",
        &["1.h5-h4 a2-a3 =", "1.h5-h4 a2-a4 =", "1.h5-h4 Kc1-c2 ="],
    );
    // A series with its short solutions: Popeye prints these 117 (5 of two moves).
    let all = lines("7k/6pp/8/8/8/8/8/K6R w - - 0 1", "ser-#3");
    assert_eq!(all.len(), 117);
    assert!(all.contains(&"1.Rh1-b1 2.Rb1-b8 #".to_string()));
}

#[test]
fn a_composed_helpmate_is_solved_with_its_goal_in_reach() {
    // BEISPIEL/intell.inp's first problem: Popeye 4.104's one solution of h#4, and none
    // in three moves (each proven by the bound on the moves to a mate).
    assert_lines(
        "8/8/2Nq4/5k2/3P4/5K2/2b2P2/8 b - - 0 1",
        "h#4",
        &["1.Qd6-d5 + Kf3-e2 2.Kf5-f4 Sc6-d8 3.Bc2-f5 Sd8-e6 + 4.Kf4-e4 f2-f3 #"],
    );
    assert!(lines("8/8/2Nq4/5k2/3P4/5K2/2b2P2/8 b - - 0 1", "h#3").is_empty());
}

#[test]
fn a_king_that_walks_across_the_board_is_followed_to_its_final_square() {
    // K+B v K+N: the black king walks b3-h1 in seven moves; Popeye 4.104 (intelligent
    // mode) prints this one solution. Every node on the way keeps the king within reach
    // of h1, the square its search is fixed to.
    assert_lines(
        "8/8/8/8/8/1k6/5nB1/2K5 b - - 0 1",
        "h#8",
        &["1.Kb3-c3 Kc1-b1 2.Kc3-d2 Bg2-f1 3.Kd2-e1 Kb1-c2 4.Sf2-h3 Kc2-d3 5.Ke1-f2 Kd3-e4 \
           6.Kf2-g1 Ke4-f3 7.Kg1-h1 Kf3-g3 8.Sh3-g1 Bf1-g2 #"],
    );
    // K+P v K: b2-h6 is six king steps, every black move of the h#6; Popeye 4.104's one
    // solution.
    assert_lines(
        "8/8/8/7K/7P/8/1k6/8 b - - 0 1",
        "h#6",
        &["1.Kb2-c3 Kh5-g4 2.Kc3-d4 h4-h5 3.Kd4-e5 h5-h6 4.Ke5-f6 h6-h7 5.Kf6-g7 Kg4-f5 \
           6.Kg7-h6 h7-h8=Q #"],
    );
}

#[test]
fn a_position_whose_side_to_move_is_not_the_first_mover_is_refused() {
    let pos: Chess =
        "k7/8/pK6/8/8/8/8/6Q1 w - - 0 1".parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
    let err =
        solve_problem(pos, "h#2".parse().unwrap(), ProblemSettings::default(), tree::Show::default()).unwrap_err();
    assert_eq!(err.to_string(), "h#2: Black moves first, but the position has White to move");
}

#[test]
fn json_lists_keys_and_solutions_without_passes() {
    let (_, stip, s) = solved("8/3P3K/2P5/8/8/8/8/1kBb4 w - - 0 1", "ser-#3");
    let json = report_json(stip, &s);
    assert_eq!(json["result"], "solution");
    assert_eq!(json["keys"].as_array().unwrap().len(), 0);
    let solutions = json["solutions"].as_array().unwrap();
    assert_eq!(solutions.len(), 4);
    assert!(solutions.iter().all(|s| s.as_array().unwrap().len() == 3 && s[0] == "d7d8q"), "{json}");
}

/// A solution's text as a tree by its indentation, each level sorted: pnmate's and
/// Popeye's compare whatever order their moves come in.
fn canon(lines: &[(usize, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let indent = lines[i].0;
        let mut j = i + 1;
        while j < lines.len() && lines[j].0 > indent {
            j += 1;
        }
        out.push(format!("{}[{}]", lines[i].1, canon(&lines[i + 1..j]).join(", ")));
        i = j;
    }
    out.sort();
    out
}

fn indented(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .filter(|l| l.starts_with(' ') && !l.trim().is_empty())
        .map(|l| (l.len() - l.trim_start().len(), l.split_whitespace().collect::<Vec<_>>().join(" ")))
        .collect()
}

/// Asserts that pnmate's battle solution of `stip` from `fen`, shown as `show` asks, is
/// the tree Popeye printed.
fn assert_tree(fen: &str, stip: &str, show: tree::Show, popeye: &str) {
    let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
    let stip: Stipulation = stip.parse().unwrap();
    let settings = ProblemSettings {
        budget: Budget { nodes: Some(5_000_000), ..Budget::default() },
        ..ProblemSettings::default()
    };
    let solved = solve_problem(pos.clone(), stip, settings, show).unwrap();
    assert_ne!(solved.verdict, Verdict::Unknown, "{fen} {stip}: out of limits");
    let text = report_text(&pos, stip, &solved, Language::English);
    assert_eq!(canon(&indented(&text)), canon(&indented(popeye)), "{fen} {stip}:\n{text}");
}

const VARI: tree::Show =
    tree::Show { variations: true, threats: true, max_threat: None, tries: None, set_play: false, postkey: false };

#[test]
fn keys_threats_and_tries_are_popeye_s() {
    // Popeye 4.104, `option vari try`: each key's threat, each try's refutation.
    let popeye = r"
   1.Qd1-a4 + ?
    but
      1...Ka8-b8 !
   1.Qd1-b3 ! threat:
          2.Qb3-b7 #
   1.Qd1-a1 + ?
    but
      1...Ka8-b8 !
   1.Qd1-b1 ! threat:
          2.Qb1-b7 #
   1.Qd1-d8 + ?
    but
      1...Ka8-a7 !
   1.Qd1-d7 ! threat:
          2.Qd7-b7 #
   1.Qd1-d6 ? zugzwang.
    but
      1...Ka8-a7 !
   1.Qd1-d4 ? zugzwang.
    but
      1...Ka8-b8 !
   1.Qd1-g1 ? zugzwang.
    but
      1...Ka8-b8 !
   1.Kc6-b6 ! threat:
          2.Qd1-d8 #
   1.Kc6-c7 ! threat:
          2.Qd1-a4 #
          2.Qd1-a1 #
";
    let show = tree::Show { tries: Some(1), ..VARI };
    assert_tree("k7/8/2K5/8/8/8/8/3Q4 w - - 0 1", "#2", show, popeye);
}

#[test]
fn defences_with_their_continuations_and_threats_at_move_two_are_popeye_s() {
    // Popeye's #3 with `option vari`: a short mate, keys whose threat two pawn moves stop,
    // each met by a move that threatens again; a variation with a defence at move two.
    let popeye = r"
   1.Rd1-d8 # !
   1.Rd1-d7 ! threat:
          2.Rd7-d8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rd7-d8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rd7-d8 #
   1.Rd1-d6 ! threat:
          2.Rd6-d8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rd6-d8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rd6-d8 #
   1.Rd1-d5 ! threat:
          2.Rd5-d8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rd5-d8 #
          2.Kc6-c7 threat:
                  3.Rd5*a5 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rd5-d8 #
   1.Rd1-d4 ! threat:
          2.Rd4-d8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rd4-d8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rd4-d8 #
   1.Rd1-d3 ! threat:
          2.Rd3-d8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rd3-d8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rd3-d8 #
   1.Rd1-d2 ! threat:
          2.Rd2-d8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rd2-d8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rd2-d8 #
   1.Rd1-h1 ! threat:
          2.Rh1-h8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rh1-h8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rh1-h8 #
   1.Rd1-g1 ! threat:
          2.Rg1-g8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rg1-g8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rg1-g8 #
   1.Rd1-f1 ! threat:
          2.Rf1-f8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Rf1-f8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Rf1-f8 #
   1.Rd1-e1 ! threat:
          2.Re1-e8 #
      1...a7-a5
          2.Kc6-b6 threat:
                  3.Re1-e8 #
      1...a7-a6
          2.Kc6-b6 threat:
                  3.Re1-e8 #
   1.Kc6-c7 ! threat:
          2.Rd1-d8 #
      1...a7-a5
          2.Rd1-a1 threat:
                  3.Ra1*a5 #
              2...a5-a4
                  3.Ra1*a4 #
          2.Rd1-d5 threat:
                  3.Rd5*a5 #
          2.Kc7-b6 threat:
                  3.Rd1-d8 #
      1...a7-a6
          2.Kc7-b6 threat:
                  3.Rd1-d8 #
";
    assert_tree("k7/p7/2K5/8/8/8/8/3R4 w - - 0 1", "#3", VARI, popeye);
}

#[test]
fn set_play_and_a_try_of_a_direct_mate_are_popeye_s() {
    let popeye = r"
      1...Kb8-a8
          2.Rc6-c8 #
   1.Ka6-b6 ? zugzwang.
      1...Kb8-a8
          2.Rc6-c8 #
    but
      1...c5-c4 !
   1.Rc6*c5 ! zugzwang.
      1...Kb8-a8
          2.Rc5-c8 #
   1.Rc6-c8 + ?
    but
      1...Kb8*c8 !
";
    let show = tree::Show { tries: Some(1), set_play: true, ..VARI };
    assert_tree("1k6/8/K1R5/2p5/8/8/8/8 w - - 0 1", "#2", show, popeye);
}

#[test]
fn selfmate_set_play_and_variations_are_popeye_s() {
    let popeye = r"
      1...b4-b3
          2.Qc2-e4
              2...b3-b2 #
          2.Qc2-c4
              2...b3-b2 #
   1.Qc2-d1 ! zugzwang.
      1...b4-b3
          2.Qd1-g4
              2...b3-b2 #
";
    assert_tree("8/8/8/8/1p6/k7/p1Q5/K7 w - - 0 1", "s#2", tree::Show { set_play: true, ..VARI }, popeye);
}

#[test]
fn play_after_the_key_shows_the_refutation_as_popeye_does() {
    let popeye = r"
 zugzwang.
      1...h5-h4
        refutes.
      1...Se8-c7
          2.Sd5*c7 #
      1...Se8-d6
          2.Sd5-c7 #
      1...Se8-f6
          2.Sd5-c7 #
      1...Se8-g7
          2.Sd5-c7 #
";
    let show = tree::Show { postkey: true, ..VARI };
    assert_tree("k3n3/P7/1K6/3N3p/8/8/8/8 b - - 0 1", "#2", show, popeye);
}

#[test]
fn a_short_key_shows_its_own_play_and_a_defence_that_stops_one_threat_is_shown() {
    // Popeye 4.104, `option vari`, three of the =3's keys: 1.Bg3 and 1.Kg6 stalemate in
    // two, so their play is a two-mover's (zugzwang: no threat of two moves); after
    // 1.Kg5 each king move stops one of the three threats and is shown.
    let popeye = r"
   1.Kh6-g5 ! threat:
          2.Kg5-h6 threat:
                  3.Rf3-g3 =
              2...Kh8-g8
                  3.Bc7-e5 =
          2.Kg5-g6 zugzwang.
              2...Kh8-g8
                  3.Bc7-e5 =
          2.Bc7-e5 +
              2...Kh8-h7
                  3.Rf3-f8 =
              2...Kh8-g8
                  3.Kg5-h6 =
                  3.Kg5-g6 =
      1...Kh8-g7
          2.Bc7-e5 +
              2...Kg7-g8
                  3.Kg5-h6 =
                  3.Kg5-g6 =
              2...Kg7-h7
                  3.Rf3-f8 =
      1...Kh8-h7
          2.Bc7-e5 threat:
                  3.Rf3-f8 =
              2...Kh7-g8
                  3.Kg5-h6 =
                  3.Kg5-g6 =
      1...Kh8-g8
          2.Kg5-h6 threat:
                  3.Bc7-e5 =
              2...Kg8-h8
                  3.Rf3-g3 =
          2.Bc7-e5 threat:
                  3.Kg5-h6 =
                  3.Kg5-g6 =
              2...Kg8-h7
                  3.Rf3-f8 =

   1.Kh6-g6 ! zugzwang.
      1...Kh8-g8
          2.Bc7-e5 =

   1.Bc7-g3 ! zugzwang.
      1...Kh8-g8
          2.Bg3-e5 =
";
    let pos: Chess =
        "7k/2B5/7K/8/8/5R2/8/8 w - - 0 1".parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
    let stip: Stipulation = "=3".parse().unwrap();
    let solved = solve_problem(pos.clone(), stip, ProblemSettings::default(), VARI).unwrap();
    let ours = canon(&indented(&report_text(&pos, stip, &solved, Language::English)));
    assert_eq!(solved.keys.len(), 25, "{ours:#?}");
    for key in canon(&indented(popeye)) {
        assert!(ours.contains(&key), "missing or different: {key}");
    }
}

#[test]
fn composed_selfmates_are_solved_as_popeye_solves_them() {
    // Two prize-winning s#3 from Popeye's own examples (BEISPIEL/selfref.inp): Mariusz
    // Limbach, 1st Prize Szachy 1979, and Uri Avner, 1st Prize IRT 1981 (with set play),
    // as Popeye 4.104 prints them with `option variation` (`setplay`). Black's moves that
    // mate at once before the last move are no defences and are not shown.
    let limbach = r"
   1.f5-f6 ! zugzwang.
      1...e7-e6
          2.Qh3-g4 +
              2...Kg5*f6
                  3.Rd6*d7
                      3...Sg8-e7 #
      1...e7*f6
          2.Qh3-g3 +
              2...Kg5-f5
                  3.Se5*d7
                      3...Sg8-e7 #
      1...e7*d6
          2.Se5-f3 +
              2...Kg5*f6
                  3.Qh3*d7
                      3...Sg8-e7 #
";
    assert_tree("2K3nr/1PPpp2p/3R3p/3pNPkP/3P4/3PP2Q/8/3B4 w - - 0 1", "s#3", VARI, limbach);
    let avner = r"
      1...Sa1-c2
          2.Ra7-a6 +
              2...Kf6-e7
                  3.Qb3*b4 +
                      3...Rb2*b4 #
                      3...Sc2*b4 #
                      3...Ba3*b4 #
      1...Sa1*b3
          2.Sg5-e4 +
              2...Kf6-e6
                  3.Se4-c5 +
                      3...Sb3*c5 #
      1...Bd1-h5
          2.Qb3-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
          2.Ra7-a6 +
              2...Kf6-e7
                  3.Qb3*b4 +
                      3...Rb2*b4 #
                      3...Ba3*b4 #
      1...Bd1-g4
          2.Qb3-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
      1...Bd1-f3
          2.Qb3-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
          2.Ra7-a6 +
              2...Kf6-e7
                  3.Qb3*b4 +
                      3...Rb2*b4 #
                      3...Ba3*b4 #
      1...Bd1-e2
          2.Qb3-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
          2.Ra7-a6 +
              2...Kf6-e7
                  3.Qb3*b4 +
                      3...Rb2*b4 #
                      3...Ba3*b4 #
      1...Rb2*b3
          2.Rd5-d6 +
              2...Kf6-f5
                  3.Sf1-e3 +
                      3...Rb3*e3 #
      1...Rb2-c2
          2.Qb3-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
   1.Qb3-c2 ! zugzwang.
      1...Sa1*c2
          2.Rd5-d6 +
              2...Kf6-f5
                  3.Sf1-e3 +
                      3...Sc2*e3 #
      1...Sa1-b3
          2.Ra7-a6 +
              2...Kf6-e7
                  3.Qc2-c5 +
                      3...Sb3*c5 #
      1...Bd1-h5
          2.Qc2-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
      1...Bd1-g4
          2.Qc2-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
      1...Bd1-f3
          2.Qc2-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
      1...Bd1-e2
          2.Qc2-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
      1...Rb2-b3
          2.Qc2-c3 +
              2...b4*c3
                  3.f7-f8=Q +
                      3...Ba3*f8 #
                  3.f7-f8=R +
                      3...Ba3*f8 #
      1...Rb2*c2
          2.Sg5-e4 +
              2...Kf6-e6
                  3.Se4-c5 +
                      3...Rc2*c5 #
      1...b4-b3
          2.Qc2-c6 +
              2...Ba3-d6 #
          2.Qc2-c3 +
              2...Sb1*c3 #
          2.Rd5-d6 +
              2...Ba3*d6 #
          2.f7-f8=Q +
              2...Ba3*f8 #
          2.f7-f8=R +
              2...Ba3*f8 #
";
    let set = tree::Show { set_play: true, ..VARI };
    assert_tree("8/R4PpP/5kp1/PP1R2N1/Kp3P1B/bQ4P1/rr1p4/nn1b1N1B w - - 0 1", "s#3", set, avner);
}

#[test]
fn two_threads_list_the_same_help_solutions_as_one() {
    // Popeye 4.104 prints 4373 solutions of this h#2.5 (a random position of
    // tools/popeye_check.py, 8 to 12 men).
    let pos: Chess = "4K3/5R2/r3N3/3p4/B7/4k3/3R4/8 w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let stip: Stipulation = "h#2.5".parse().unwrap();
    let solve = |threads| {
        let settings = ProblemSettings { max_solutions: 100_000, threads, ..Default::default() };
        let solved = solve_problem(pos.clone(), stip, settings, tree::Show::default()).unwrap();
        let mut lines = solved.solutions.clone();
        lines.sort_by_key(|l| format!("{l:?}"));
        (solved.verdict, solved.capped, lines)
    };
    let one = solve(1);
    assert_eq!((one.0, one.1, one.2.len()), (Verdict::Solution, false, 4373));
    assert_eq!(solve(2), one);
}

/// Every helpmate of `pos` in `plies` plies or fewer, found by trying every line: moves
/// that do not end the game, the last one White's mate.
fn every_helpmate(pos: &Chess, plies: u32) -> Vec<Vec<Move>> {
    fn walk(pos: &Chess, plies: u32, line: &mut Vec<Move>, out: &mut Vec<Vec<Move>>) {
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            line.push(m);
            if after.is_checkmate() {
                if pos.turn() == shakmaty::Color::White {
                    out.push(line.clone());
                }
            } else if plies > 1 && !after.legal_moves().is_empty() {
                walk(&after, plies - 1, line, out);
            }
            line.pop();
        }
    }
    let mut out = Vec::new();
    walk(pos, plies, &mut Vec::new(), &mut out);
    out.sort_by_key(|l| format!("{l:?}"));
    out
}

#[test]
fn the_last_ply_finds_mates_by_castling_en_passant_promotion_and_discovery() {
    // Random positions (drawn with python-chess) whose helpmates in one include mates by
    // castling, en passant, promotion and discovered check; the prover looks only at the
    // mating side's checks on its last ply, and must list every line a full search finds,
    // in two moves or fewer.
    let cases = [
        ("8/8/8/8/4b3/3P1k2/6R1/2BNK2R b K - 0 1", 7),
        ("3N1R2/8/3kPPpp/8/b7/2Q5/8/R3K2R b KQ - 0 1", 5),
        ("6q1/kp1PR3/P7/8/8/2p5/4P3/R3K2R b KQ - 0 1", 4),
        ("N1KQ4/5p2/1p2R3/4P3/5Q2/8/4k3/4n3 b - - 0 1", 8),
        // After e7-e5, only d5xe6 e.p. mates.
        ("k5q1/4pQ2/8/3P4/4Q1P1/1K4Q1/8/8 b - - 0 1", 3),
    ];
    for (fen, in_one) in cases {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        let settings = ProblemSettings { max_solutions: 100_000, ..ProblemSettings::default() };
        let solved = solve_problem(pos.clone(), "h#2".parse().unwrap(), settings, tree::Show::default()).unwrap();
        let want = every_helpmate(&pos, 4);
        assert_eq!(want.iter().filter(|l| l.len() == 2).count(), in_one, "{fen}");
        let got: std::collections::BTreeSet<String> = solved.solutions.iter().map(|l| format!("{l:?}")).collect();
        let want: std::collections::BTreeSet<String> = want.iter().map(|l| format!("{l:?}")).collect();
        assert!(!solved.capped, "{fen}");
        assert_eq!(got.difference(&want).collect::<Vec<_>>(), Vec::<&String>::new(), "{fen}: not helpmates");
        assert_eq!(want.difference(&got).collect::<Vec<_>>(), Vec::<&String>::new(), "{fen}: missed");
    }
}

#[test]
fn a_last_self_block_is_found_where_the_search_is_split() {
    // Random positions of few solutions (searched once per final king square), each
    // with a helpmate whose last black move blocks a flight of the mated king: every
    // line a full search finds, and no other, in two moves or fewer.
    let cases = [
        "8/8/2p4q/3k4/P7/1n6/8/4NKQ1 b - - 0 1",
        "k1r5/8/2P5/P7/b1K5/8/R7/8 b - - 0 1",
        "8/3B4/1N6/K1p2PQ1/5p2/8/3p4/5k2 b - - 0 1",
        "4Q3/4p3/5k2/2K5/1B6/1b6/2P5/5n2 b - - 0 1",
        "1N2b3/3n4/8/6k1/n7/1Q6/6N1/2K5 b - - 0 1",
        "5n2/3k4/2N5/4r3/4BK1B/8/7r/4B3 b - - 0 1",
    ];
    for fen in cases {
        let helpmates = assert_h2_solutions_are_every_helpmate(fen);
        assert!(helpmates <= 100, "{fen}: {helpmates} helpmates");
    }
}

/// Asserts that `fen`'s h#2 has some solution and exactly the lines [`every_helpmate`]
/// finds; returns how many.
fn assert_h2_solutions_are_every_helpmate(fen: &str) -> usize {
    let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
    let solved =
        solve_problem(pos.clone(), "h#2".parse().unwrap(), ProblemSettings::default(), tree::Show::default()).unwrap();
    let got: std::collections::BTreeSet<String> = solved.solutions.iter().map(|l| format!("{l:?}")).collect();
    let want: std::collections::BTreeSet<String> = every_helpmate(&pos, 4).iter().map(|l| format!("{l:?}")).collect();
    assert!(!want.is_empty(), "{fen}");
    assert_eq!(got, want, "{fen}");
    want.len()
}

#[test]
fn a_mate_with_a_pinned_blocker_or_a_double_check_is_found() {
    // Random positions (the last made by hand) with a helpmate whose mated king stands
    // beside a man of its own that could capture the checker or step between, were it
    // not pinned or the check double: the bound refuses such a man as a blocker only
    // where the check is single, and lets a pinning man guard its flight instead. Every
    // line a full search finds, and no other, in two moves or fewer.
    let cases = [
        "1k4K1/n7/5P2/5B2/6R1/5B2/5q2/1n5r b - - 0 1",
        "6q1/8/2r5/4k3/7R/8/5K2/1BRb1R2 b - - 0 1",
        "R2B2k1/6N1/2K5/8/8/7r/8/q6n b - - 0 1",
        "3q2b1/4k3/8/8/2Q5/2R5/8/K7 b - - 0 1",
        "3NR3/b7/8/4b3/r1Bnk3/3R4/8/3K4 b - - 0 1",
        "6R1/3K4/8/N7/5B2/8/r3r3/1k6 b - - 0 1",
        "8/7b/3KR3/1B6/8/7Q/1n6/k3n3 b - - 0 1",
        "R4B2/2pkb3/6K1/8/8/2R5/7r/8 b - - 0 1",
        // A pawn pinned on h7 cannot take the knight's check on g6: 1...a6 2.Sg6#.
        "6bk/p6p/5K2/4N3/8/8/8/7R b - - 0 1",
        // Random positions where White checks with bishops only, which never check at
        // once: a black man that would parry the check holds no flight.
        "8/1B6/8/1k1B4/3q2p1/K7/5B2/3n4 b - - 0 1",
        "8/8/K2B1n2/8/2r3Bk/5r2/6B1/8 b - - 0 1",
        "8/K7/n7/3B2q1/k7/1p6/5B2/B7 b - - 0 1",
        "3B1b2/2P5/8/5B2/7K/6r1/3b4/3k4 b - - 0 1",
    ];
    for fen in cases {
        assert_h2_solutions_are_every_helpmate(fen);
    }
}

#[test]
fn a_mate_whose_line_or_pawn_capture_needs_a_black_move_is_found() {
    // Random positions (the last made by hand) whose helpmates need Black's men to clear
    // the mating line or to stand where a white pawn takes: the bound counts those moves,
    // and a pass of Black's is judged without them. Every line a full search finds, and
    // no other, in two moves or fewer.
    let cases = [
        // 1.a2 Kc6 2.Ka6 Rxa2#: the pawn leaves the rook's line, and is taken.
        "Nbn3n1/3K1p2/5p2/k6B/8/p7/1R6/7n b - - 0 1",
        "4R3/8/7k/B6p/2nP1K2/8/6P1/n7 b - - 0 1",
    ];
    for fen in cases {
        assert_h2_solutions_are_every_helpmate(fen);
    }
}

#[test]
fn a_problem_s_table_is_what_its_time_can_fill_at_most_its_hash() {
    let with = |time: Option<f64>, threads: usize| {
        let budget = Budget { time: time.map(std::time::Duration::from_secs_f64), ..Budget::default() };
        ProblemSettings { budget, hash_mb: 64, threads, ..ProblemSettings::default() }.table_mb()
    };
    assert_eq!(with(None, 1), 64);
    assert_eq!(with(Some(0.1), 1), 16);
    assert_eq!(with(Some(1.0), 1), 16);
    assert_eq!(with(Some(2.5), 1), 40);
    assert_eq!(with(Some(1.0), 2), 32);
    assert_eq!(with(Some(10.0), 1), 64);
    let small = ProblemSettings { hash_mb: 4, ..ProblemSettings::default() };
    assert_eq!(small.table_mb(), 4);
}
