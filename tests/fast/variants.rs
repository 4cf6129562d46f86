//! Variants over UCI and the command line, with the real binary: the UCI_Variant option,
//! each variant's FEN, proven wins of exact length whose lines are replayed here with
//! shakmaty's variant rules (not the library's), proven "no win", and legal moves in
//! every variant. Timeouts are generous guards against hangs.

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::{Session, bestmove, field, pv_of};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{CastlingMode, Color, Position};

const LONG: Duration = Duration::from_secs(60);

/// One won position per variant (and chess), with the length of its shortest win in moves:
/// a king walk to the hill, a rook given away, an explosion beside the king, the third
/// check, a queen dropped to mate, a king reaching the eighth rank, and a horde's mate.
const WINS: [(&str, &str, i32); 9] = [
    ("kingofthehill", "7k/8/8/8/8/8/8/K7 w - - 0 1", 3),
    ("antichess", "8/8/8/8/8/8/1p6/2R5 w - - 0 1", 1),
    ("atomic", "4k3/5p2/8/7Q/8/8/8/4K3 w - - 0 1", 1),
    ("3check", "4k3/8/8/8/8/8/8/3QK3 w - - 1+3 0 1", 1),
    ("3check", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1 +2+0", 1),
    ("crazyhouse", "k7/8/1K6/8/8/8/8/8[Q] w - - 0 1", 1),
    ("racingkings", "8/1K6/8/8/8/8/k7/8 w - - 0 1", 1),
    ("horde", "k7/8/1Q6/8/8/8/8/6Q1 w - - 0 1", 1),
    ("chess", "8/1R6/8/4k3/1K4B1/2N4Q/8/8 w - - 0 1", 2),
];

/// The position of `variant` (python-chess's name) from `fen`.
fn variant_pos(variant: &str, fen: &str) -> VariantPosition {
    let variant = Variant::from_uci(variant).unwrap();
    let setup = fen.parse::<Fen>().unwrap().into_setup();
    VariantPosition::from_setup(variant, setup, CastlingMode::Standard).unwrap()
}

/// Replays `pv` from `fen` and asserts a win for `winner` at its last move, not before,
/// in `moves` moves (2M-1 or 2M plies).
fn assert_winning_line(variant: &str, fen: &str, pv: &[String], winner: Color, moves: i32) {
    let mut pos = variant_pos(variant, fen);
    let plies = pv.len() as i32;
    assert!(plies == 2 * moves - 1 || plies == 2 * moves, "{variant} {fen}: {plies} plies for a win in {moves}");
    for (i, text) in pv.iter().enumerate() {
        assert!(pos.outcome().is_unknown(), "{variant} {fen}: the game ended before ply {i}");
        let m = text
            .parse::<UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap_or_else(|_| panic!("{variant} {fen}: illegal {text}"));
        pos.play_unchecked(m);
    }
    assert_eq!(pos.outcome().winner(), Some(winner), "{variant} {fen}: {pv:?} does not end in the win");
}

#[test]
fn the_handshake_offers_every_variant_by_python_chess_names() {
    let mut s = Session::start();
    s.send("uci");
    let lines = s.until(LONG, |l| l == "uciok");
    let combo = "option name UCI_Variant type combo default chess var chess var antichess var atomic var crazyhouse \
                 var horde var kingofthehill var racingkings var 3check";
    assert!(lines.iter().any(|l| l == combo), "{lines:#?}");
}

#[test]
fn each_variant_proves_its_shortest_win_with_a_line_that_replays() {
    let mut s = Session::start();
    for (variant, fen, moves) in WINS {
        s.send(&format!("setoption name UCI_Variant value {variant}"));
        s.send("ucinewgame");
        s.send(&format!("position fen {fen}"));
        s.send("go mate 5");
        let lines = s.until_bestmove(LONG);
        let info = lines
            .iter()
            .rev()
            .find(|l| l.contains(" score mate "))
            .unwrap_or_else(|| panic!("{variant} {fen}: {lines:#?}"));
        assert_eq!(field(info, "mate"), Some(moves.to_string().as_str()), "{variant} {fen}: {info}");
        let pv = pv_of(info);
        let winner = variant_pos(variant, fen).turn();
        assert_winning_line(variant, fen, &pv, winner, moves);
        assert_eq!(bestmove(&lines), pv[0], "{variant} {fen}");
    }
}

#[test]
fn a_lost_position_is_scored_as_mated_with_the_winners_line() {
    // King of the hill, Black to move: White's king walks to d4 in three whatever Black does.
    let fen = "k7/8/8/8/8/2K5/8/8 b - - 0 1";
    let mut s = Session::start();
    s.send("setoption name UCI_Variant value kingofthehill");
    s.send(&format!("position fen {fen}"));
    s.send("go mate 3");
    let lines = s.until_bestmove(LONG);
    let info = lines.iter().rev().find(|l| l.contains(" score mate ")).unwrap_or_else(|| panic!("{lines:#?}"));
    assert_eq!(field(info, "mate"), Some("-1"), "{info}");
    assert_winning_line("kingofthehill", fen, &pv_of(info), Color::White, 1);
}

#[test]
fn no_win_within_the_bound_is_proven() {
    let mut s = Session::start();
    s.send("setoption name UCI_Variant value kingofthehill");
    s.send("position fen 7k/8/8/8/8/8/8/K7 w - - 0 1");
    s.send("go mate 2");
    let lines = s.until_bestmove(LONG);
    assert!(lines.iter().any(|l| l == "info string no mate in 2 (proven)"), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains(" score mate ")), "{lines:#?}");
}

#[test]
fn every_variant_answers_every_go_with_a_legal_move() {
    let mut s = Session::start();
    for variant in ["antichess", "atomic", "crazyhouse", "horde", "kingofthehill", "racingkings", "3check", "chess"] {
        s.send(&format!("setoption name UCI_Variant value {variant}"));
        for go in ["go movetime 300", "go nodes 20000", "go depth 3", "go wtime 2000 btime 2000 winc 10 binc 10"] {
            s.send("position startpos moves");
            s.send(go);
            let best = bestmove(&s.until_bestmove(LONG));
            let pos = VariantPosition::new(Variant::from_uci(variant).unwrap());
            let m = best.parse::<UciMove>().unwrap().to_move(&pos);
            assert!(m.is_ok(), "{variant} {go}: illegal bestmove {best}");
        }
    }
}

#[test]
fn moves_after_a_variant_fen_include_drops_and_a_bad_fen_is_refused() {
    let mut s = Session::start();
    s.send("setoption name UCI_Variant value crazyhouse");
    // Both sides have a pawn in hand; White drops it, then Black.
    s.send("position fen r1bqkbnr/ppp2ppp/2n5/4p3/4P3/5N2/PPP2PPP/RNBQKB1R[Pp] w KQkq - 0 5 moves P@d5 P@d4");
    s.send("go nodes 5000");
    let best = bestmove(&s.until_bestmove(LONG));
    let mut pos = variant_pos("crazyhouse", "r1bqkbnr/ppp2ppp/2n5/4p3/4P3/5N2/PPP2PPP/RNBQKB1R[Pp] w KQkq - 0 5");
    for m in ["P@d5", "P@d4"] {
        let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    assert!(best.parse::<UciMove>().unwrap().to_move(&pos).is_ok(), "illegal {best}");
    s.send("setoption name UCI_Variant value racingkings");
    s.send("position startpos moves e2e4");
    let lines = s.sync();
    assert!(lines.iter().any(|l| l.starts_with("info string error: illegal move 'e2e4'")), "{lines:#?}");
    s.send("setoption name UCI_Variant value shogi");
    let lines = s.sync();
    assert!(lines.iter().any(|l| l.starts_with("info string error: setoption")), "{lines:#?}");
}

#[test]
fn the_command_line_solves_a_variant_position() {
    let out = crate::common::pnmate()
        .args(["solve", "--variant", "atomic", "--json", "--time", "30", "4k3/5p2/8/7Q/8/8/8/4K3 w - - 0 1"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "win");
    assert_eq!(v["moves"], 1);
    assert_eq!(v["exact"], true);
    assert_eq!(v["pv"], serde_json::json!(["h5f7"]));
}

#[test]
fn a_long_forcing_win_is_found_by_the_far_bound() {
    // Three-check, Black to move (a suite position): a win in 6 by a queen's raid and two
    // checks. The far bound eight rungs above the near one proves it within the budget;
    // four rungs above needed 2.8 million nodes for its first win.
    let fen = "r3r1k1/1p3ppp/p3b3/2b1q3/P5P1/1PP1P2P/1B2QP2/1N2K2R b K - 3+3 3 19";
    let out = crate::common::pnmate()
        .args(["solve", "--variant", "3check", "--json", "--nodes", "1000000", fen])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "win", "{v}");
    assert_eq!(v["moves"], 6, "{v}");
    let pv: Vec<String> = v["pv"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
    assert_winning_line("3check", fen, &pv, Color::Black, 6);
}

#[test]
fn variant_certificates_are_checked_by_pnmate_check_and_a_forged_one_is_refused() {
    let dir = std::env::temp_dir().join(format!("pnmate-variant-certs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let check = |file: &std::path::Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_pnmate-check")).arg(file).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    // `solve --variant VARIANT LIMIT... --proof FILE FEN`, which must succeed; its checker verdict.
    let prove = |variant: &str, limit: [&str; 2], file: &std::path::Path, fen: &str| {
        let out = crate::common::pnmate()
            .args(["solve", "--variant", variant])
            .args(limit)
            .args(["--proof", file.to_str().unwrap(), fen])
            .output()
            .unwrap();
        assert!(out.status.success(), "{variant} {fen}: {}", String::from_utf8_lossy(&out.stdout));
        check(file)
    };
    for (i, (variant, fen, moves)) in WINS.iter().enumerate().filter(|(_, w)| w.0 != "chess") {
        let file = dir.join(format!("{i}.cert"));
        let verdict = prove(variant, ["--time", "30"], &file, fen);
        assert_eq!(verdict, format!("valid: {variant} win in {moves}, shortest"), "{variant} {fen}");
    }
    // A racing kings refutation ends where the attacking king is too far from the eighth
    // rank for the plies left, so the shortest win's certificate stays small (without that
    // rule its refutation of a win in 3 lists some 7,000 nodes, 94 kB).
    let file = dir.join("racing.cert");
    let verdict = prove("racingkings", ["--time", "30"], &file, "q5n1/3B4/4K3/1Q6/8/8/k7/8 w - - 3 23");
    assert_eq!(verdict, "valid: racingkings win in 4, shortest");
    let size = std::fs::metadata(&file).unwrap().len();
    assert!(size < 40_000, "{size} bytes");
    // "No win within 2" for both sides: king of the hill, both kings three steps away.
    let file = dir.join("nowin.cert");
    let verdict = prove("kingofthehill", ["--mate", "2"], &file, "7k/8/8/8/8/8/8/K7 w - - 0 1");
    assert_eq!(verdict, "valid: no kingofthehill win within 2");
    // The same proof read under another variant's rules is refused.
    // The header is text up to `data`: the binary sections follow it unchanged.
    let bytes = std::fs::read(&file).unwrap();
    let at = bytes.windows(5).position(|w| w == b"data\n").unwrap();
    let header = String::from_utf8(bytes[..at].to_vec()).unwrap();
    let mut forged_bytes = header.replacen("variant kingofthehill", "variant racingkings", 1).into_bytes();
    forged_bytes.extend_from_slice(&bytes[at..]);
    let forged = dir.join("forged.cert");
    std::fs::write(&forged, &forged_bytes).unwrap();
    assert!(check(&forged).starts_with("invalid: "), "{}", check(&forged));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_suite_runner_verifies_variant_lines_and_counts_them() {
    let dir = std::env::temp_dir().join(format!("pnmate-variant-epd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("koth.epd");
    // Two wins (one shorter than the suite says) and a line with a bad FEN, which is skipped.
    std::fs::write(
        &suite,
        "# king of the hill\n7k/8/8/8/8/8/8/K7 w - - 0 1 bm #3;\n7k/8/8/8/8/2K5/8/8 w - - 0 1 bm #2;\nnot a fen bm #1;\n",
    )
    .unwrap();
    let out = crate::common::pnmate()
        .args(["epd", "--variant", "kingofthehill", "--time", "20", "--jobs", "1", suite.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let row = |name: &str| {
        text.lines().find(|l| l.starts_with(name)).map(|l| l.split_whitespace().nth(1).unwrap().to_string())
    };
    assert_eq!(row("positions").as_deref(), Some("2"), "{text}");
    assert_eq!(row("found").as_deref(), Some("2"), "{text}");
    assert_eq!(row("better").as_deref(), Some("1"), "{text}");
    assert_eq!(row("shortest").as_deref(), Some("2"), "{text}");
    assert!(text.contains("bad line   0") && text.contains("wrong      0"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn multipv_in_a_variant_proves_a_result_per_move_each_with_its_line() {
    // Atomic: Qxf7 explodes the king at once; every other move gets its own result.
    let fen = "4k3/5p2/8/7Q/8/8/8/4K3 w - - 0 1";
    let mut s = Session::start();
    s.send("setoption name UCI_Variant value atomic");
    s.send("setoption name MultiPV value 3");
    s.send(&format!("position fen {fen}"));
    s.send("go mate 2");
    let lines = s.until_bestmove(LONG);
    let ranked: Vec<&String> = lines.iter().filter(|l| l.starts_with("info multipv ")).collect();
    let last: Vec<&&String> =
        ["1", "2", "3"].iter().map(|k| ranked.iter().rev().find(|l| field(l, "multipv") == Some(k)).unwrap()).collect();
    assert_eq!(field(last[0], "mate"), Some("1"), "{last:#?}");
    assert_eq!(pv_of(last[0]), ["h5f7"], "{last:#?}");
    assert_eq!(bestmove(&lines), "h5f7");
    let mut firsts = Vec::new();
    for info in &last {
        let pv = pv_of(info);
        firsts.push(pv[0].clone());
        if let Some(m) = field(info, "mate") {
            assert_winning_line("atomic", fen, &pv, Color::White, m.parse().unwrap());
        }
    }
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "three different moves: {last:#?}");
    // The other two moves are each proven not to win within the bound.
    let proven =
        lines.iter().filter(|l| l.starts_with("info string multipv ") && l.ends_with("no mate within 2 (proven)"));
    assert_eq!(proven.count(), 2, "{lines:#?}");
}

#[test]
fn searchmoves_in_a_variant_restricts_the_root_and_its_result() {
    // King of the hill: Kd4 wins at once, but only the other king steps are searched.
    let fen = "7k/8/8/8/8/2K5/8/8 w - - 0 1";
    let mut s = Session::start();
    s.send("setoption name UCI_Variant value kingofthehill");
    s.send(&format!("position fen {fen}"));
    s.send("go mate 3 searchmoves c3b3 c3c2");
    let lines = s.until_bestmove(LONG);
    let best = bestmove(&lines);
    assert!(best == "c3b3" || best == "c3c2", "{lines:#?}");
    let info = lines.iter().rev().find(|l| l.contains(" score mate ")).unwrap_or_else(|| panic!("{lines:#?}"));
    assert_eq!(field(info, "mate"), Some("3"), "Kb3/Kc2 reach the hill in three: {info}");
    let pv = pv_of(info);
    assert!(pv[0] == "c3b3" || pv[0] == "c3c2", "{info}");
    assert_winning_line("kingofthehill", fen, &pv, Color::White, 3);
}

#[test]
fn two_threads_in_a_variant_find_the_win_one_thread_finds() {
    // Three-check, a suite position: the win in 2 is found with one thread and with two.
    let fen = "4k3/8/8/8/8/8/8/3QK3 w - - 1+3 0 1";
    for threads in ["1", "2"] {
        let mut s = Session::start();
        s.send("setoption name UCI_Variant value 3check");
        s.send(&format!("setoption name Threads value {threads}"));
        s.send(&format!("position fen {fen}"));
        s.send("go mate 4");
        let lines = s.until_bestmove(LONG);
        let info = lines.iter().rev().find(|l| l.contains(" score mate ")).unwrap_or_else(|| panic!("{lines:#?}"));
        let moves: i32 = field(info, "mate").unwrap().parse().unwrap();
        assert!(moves > 0, "{threads} threads: {info}");
        assert_winning_line("3check", fen, &pv_of(info), Color::White, moves);
    }
}

#[test]
fn syzygy_tables_in_a_variant_are_said_to_be_unused() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
    let mut s = Session::start();
    s.send(&format!("setoption name SyzygyPath value {dir}"));
    s.send("setoption name UCI_Variant value atomic");
    s.send("position fen 4k3/5p2/8/7Q/8/8/8/4K3 w - - 0 1");
    s.send("go mate 1");
    let lines = s.until_bestmove(LONG);
    assert!(
        lines.iter().any(|l| l == "info string SyzygyPath: the tables are not used in atomic (chess only)"),
        "{lines:#?}"
    );
}
