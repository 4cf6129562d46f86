//! UCI sessions with the real binary over pipes. Timeouts here are generous upper
//! bounds against hangs; precise timings belong to benchmarks.

use crate::common;

use std::time::Duration;

use common::{Session, assert_mating_line, bestmove, field, pv_of, replay};

const LONG: Duration = Duration::from_secs(30);

/// From epd/mates.epd: White mates in 2 (1. Qf3 Kd6 2. Qd5#).
const MATE2: &str = "8/1R6/8/4k3/1K4B1/2N4Q/8/8 w - - 0 1";
/// A KRvK position of ours: Black is mated in 8.
const MATED8: &str = "8/6k1/8/8/5R2/8/4K3/8 b - - 1 1";
/// From epd/mated.epd: Black is mated in 6 (KRvK). Cheap enough to prove exactly in a
/// 1 MB table on four threads of a loaded 2-core machine (about 60k nodes); MATED8 takes
/// tens of millions there, as proving "not within 7" overflows the table.
const MATED6: &str = "8/7k/8/8/8/8/3K4/6R1 b - - 0 1";

fn mate_info(lines: &[String]) -> &String {
    lines.iter().rev().find(|l| l.contains(" score mate ")).unwrap_or_else(|| panic!("no mate score in {lines:#?}"))
}

#[test]
fn handshake_lists_options_and_ends_with_uciok() {
    let mut s = Session::start();
    s.send("uci");
    let lines = s.until(LONG, |l| l == "uciok");
    assert!(lines[0].starts_with("id name pnmate "), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for opt in [
        "option name Hash type spin default 64 min 1 max 65536",
        "option name Threads type spin default 1 min 1 max 1024",
        "option name Clear Hash type button",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name Move Overhead type spin default 30 min 0 max 5000",
        "option name Ponder type check default false",
        "option name UCI_ShowWDL type check default false",
        "option name SyzygyPath type string default <empty>",
    ] {
        assert!(lines.iter().any(|l| l == opt), "missing '{opt}' in {lines:#?}");
    }
    s.send("isready");
    s.until(LONG, |l| l == "readyok");
}

#[test]
fn go_mate_proves_the_mate_with_a_full_line() {
    let mut s = Session::start();
    s.send(&format!("position fen {MATE2}"));
    s.send("go mate 2");
    let lines = s.until_bestmove(LONG);
    let info = mate_info(&lines);
    assert_eq!(field(info, "score"), Some("mate"));
    assert_eq!(field(info, "mate"), Some("2"));
    for key in ["depth", "seldepth", "nodes", "nps", "time", "hashfull"] {
        assert!(field(info, key).is_some_and(|v| v.parse::<u64>().is_ok()), "{key} missing in {info}");
    }
    let pv = pv_of(info);
    assert_mating_line(MATE2, &pv, 3);
    assert_eq!(lines.last().unwrap(), &format!("bestmove {} ponder {}", pv[0], pv[1]));
}

#[test]
fn go_mate_reports_the_mated_side_with_a_negative_score() {
    let mut s = Session::start();
    s.send(&format!("position fen {MATED8}"));
    s.send("go mate 10");
    let lines = s.until_bestmove(LONG);
    let info = mate_info(&lines);
    assert_eq!(field(info, "mate"), Some("-8"), "{info}");
    assert_mating_line(MATED8, &pv_of(info), 16);
}

#[test]
fn go_mate_proves_no_mate_promptly() {
    let mut s = Session::start();
    // KB v K: no side can ever mate.
    s.send("position fen 8/8/4k3/8/8/2B5/8/4K3 w - - 0 1");
    s.send("go mate 5");
    let lines = s.until_bestmove(LONG);
    assert!(lines.iter().any(|l| l == "info string no mate in 5 (proven)"), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("score mate")));
    replay("8/8/4k3/8/8/2B5/8/4K3 w - - 0 1", &[bestmove(&lines)]);
    // A real mate in 2 has no mate in 1.
    s.send(&format!("position fen {MATE2}"));
    s.send("go mate 1");
    let lines = s.until_bestmove(LONG);
    assert!(lines.iter().any(|l| l == "info string no mate in 1 (proven)"), "{lines:#?}");
}

#[test]
fn checkmated_and_stalemated_roots_answer_0000() {
    let mut s = Session::start();
    s.send("position fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    s.send("go mate 3");
    let lines = s.until_bestmove(LONG);
    assert_eq!(lines, vec!["info depth 0 score mate 0", "bestmove 0000"]);
    s.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    s.send("go movetime 100");
    let lines = s.until_bestmove(LONG);
    assert_eq!(lines, vec!["info depth 0 score cp 0", "bestmove 0000"]);
}

#[test]
fn isready_and_stop_during_go_infinite() {
    let mut s = Session::start();
    s.send("position startpos");
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let before = s.sync();
    assert!(!before.iter().any(|l| l.starts_with("bestmove")), "infinite must wait for stop: {before:?}");
    s.send("stop");
    let lines = s.until_bestmove(Duration::from_secs(5));
    let best = bestmove(&lines);
    replay("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &[best]);
}

#[test]
fn clock_go_returns_a_legal_move_in_time() {
    let mut s = Session::start();
    s.send("position startpos moves e2e4 e7e5");
    s.sync(); // as a GUI does before its first go: the table is in memory then
    let mut limits = pnmate::limits::GoLimits::default();
    limits.clock = Some(pnmate::limits::Clock {
        wtime: Some(Duration::from_millis(2000)),
        btime: Some(Duration::from_millis(2000)),
        ..Default::default()
    });
    let budget = limits.time_budget(shakmaty::Color::White, Duration::from_millis(30)).unwrap();
    assert!(budget < Duration::from_millis(200), "a share of the clock, not all of it: {budget:?}");
    let started = std::time::Instant::now();
    s.send("go wtime 2000 btime 2000 winc 0 binc 0");
    let lines = s.until_bestmove(LONG);
    // The budget is about 80 ms; a search that ignored it would spend the whole clock.
    // Half the clock is a generous guard for a loaded machine.
    assert!(started.elapsed() < Duration::from_secs(1), "spent {:?} of a {budget:?} budget", started.elapsed());
    let best = bestmove(&lines);
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    replay(fen, &[best]);
}

#[test]
fn clock_go_plays_the_mate_when_it_sees_one() {
    let mut s = Session::start();
    s.send(&format!("position fen {MATE2}"));
    // As a GUI does before its first go: the table is in memory then, so that this move's
    // 100 ms for the prover are not spent faulting pages in on a loaded machine.
    s.sync();
    s.send("go wtime 10000 btime 10000 movestogo 40");
    let lines = s.until_bestmove(LONG);
    let info = mate_info(&lines);
    assert_eq!(field(info, "mate"), Some("2"));
    let pv = pv_of(info);
    assert_eq!(bestmove(&lines), pv[0]);
}

#[test]
fn movetime_nodes_and_depth_end_with_a_legal_bestmove() {
    let mut s = Session::start();
    for go in ["go movetime 200", "go nodes 5000", "go depth 2", "go"] {
        s.send("position startpos moves d2d4");
        s.send(go);
        if go == "go" {
            // No limit at all: analysis until stop.
            std::thread::sleep(Duration::from_millis(100));
            s.send("stop");
        }
        let lines = s.until_bestmove(LONG);
        let best = bestmove(&lines);
        replay("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1", &[best]);
    }
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut s = Session::start();
    s.send(&format!("position fen {MATE2}"));
    // Only king moves: whatever is found, the move played is one of them.
    s.send("go mate 2 searchmoves b4a4 b4a3");
    let lines = s.until_bestmove(LONG);
    let best = bestmove(&lines);
    assert!(best == "b4a4" || best == "b4a3", "{lines:#?}");
    if let Some(info) = lines.iter().find(|l| l.contains(" pv ")) {
        assert!(pv_of(info)[0] == best, "{info}");
    }
    s.send("go mate 2 searchmoves h3f3");
    let lines = s.until_bestmove(LONG);
    assert_eq!(field(mate_info(&lines), "mate"), Some("2"));
    assert!(lines.last().unwrap().starts_with("bestmove h3f3"));
}

#[test]
fn hardened_parsing_of_what_vampirc_gets_wrong() {
    let mut s = Session::start();
    // Trailing whitespace after go (vampirc panics on it).
    s.send(&format!("position fen {MATE2}"));
    s.send("go mate 2   ");
    let lines = s.until_bestmove(LONG);
    assert_eq!(field(mate_info(&lines), "mate"), Some("2"));
    // Numbers beyond u8 (vampirc panics) and beyond its truncation.
    for go in ["go mate 256", "go mate 1000", "go depth 300"] {
        s.send(go);
        let lines = s.until_bestmove(LONG);
        assert_eq!(field(mate_info(&lines), "mate"), Some("2"), "{go}: {lines:#?}");
    }
    // Two spaces before a move (vampirc drops the moves): after the two moves below the
    // side to move mates in one.
    s.send(&format!("position fen {MATE2} moves  h3f3  e5d6"));
    s.send("go mate 1");
    let lines = s.until_bestmove(LONG);
    assert_eq!(field(mate_info(&lines), "mate"), Some("1"), "{lines:#?}");
    // A 4-field FEN and Shredder castling letters.
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w -");
    s.send("go mate 1");
    assert!(s.until_bestmove(LONG).last().unwrap().starts_with("bestmove a1a8"));
    s.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1 moves e1g1");
    assert!(s.sync().is_empty());
}

#[test]
fn bad_input_keeps_the_engine_alive_and_the_position() {
    let mut s = Session::start();
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let long_line = "x".repeat(100_000);
    let bad_lines: Vec<String> = vec![
        "garbage".into(),
        "go mate".into(),
        "go mate -3".into(),
        "go nodes banana".into(),
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1".into(),
        "position fen 4k3/8/8/8/8/8/8/8 w - - 0 1".into(),
        "position fen 4k3/8/8/8/8/8/8/4K2q b - - 0 1".into(),
        "position fen P3k3/8/8/8/8/8/8/4K3 w - - 0 1".into(),
        "position fen not a fen at all".into(),
        "position startpos moves e2e4 e2e4".into(),
        "position startpos moves e7e5".into(),
        "position sideways".into(),
        "setoption name Hash value 0".into(),
        "setoption name Hash value 999999".into(),
        "setoption name Hash value lots".into(),
        "setoption name NoSuchOption value 1".into(),
        "setoption".into(),
        "unknowncommand with args".into(),
        long_line,
    ];
    for line in &bad_lines {
        s.send(line);
        let before = s.sync();
        assert!(
            before.iter().any(|l| l.starts_with("info string error: ")),
            "no error reported for '{}': {before:?}",
            &line[..line.len().min(60)]
        );
    }
    // Binary bytes and empty lines.
    s.send_raw(b"\x00\x01\xff\xfe garbage\n\n\r\n");
    s.sync();
    // After a rejected position there is no position to play from: go says so and
    // answers bestmove 0000 instead of a move of a stale position.
    s.send("go mate 1");
    let lines = s.until_bestmove(LONG);
    assert!(lines.iter().any(|l| l.starts_with("info string error: no valid position")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 0000");
    // Garbage other than a position keeps the last valid position: Ra8 mates.
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    for line in bad_lines.iter().filter(|l| !l.starts_with("position")) {
        s.send(line);
    }
    s.sync();
    s.send("go mate 1");
    let lines = s.until_bestmove(LONG);
    assert_eq!(lines.last().unwrap(), "bestmove a1a8");
}

#[test]
fn options_take_effect_or_say_why_not() {
    let mut s = Session::start();
    s.send("setoption name Hash value 1");
    s.send("setoption name Clear Hash");
    s.send("setoption name Move Overhead value 100");
    s.send("setoption name MultiPV value 1");
    assert!(s.sync().is_empty());
    s.send("setoption name Threads value 4");
    assert!(s.sync().is_empty(), "Threads is a real option now: accepted silently");
    s.send("ucinewgame");
    s.send("debug on");
    s.send("register later");
    assert!(s.sync().is_empty());
    // With a 1 MB table on four threads the engine still proves mates exactly.
    s.send(&format!("position fen {MATED6}"));
    s.send("go mate 10");
    let lines = s.until_bestmove(LONG);
    let info = mate_info(&lines);
    assert_eq!(field(info, "mate"), Some("-6"));
    assert_mating_line(MATED6, &pv_of(info), 12);
}

#[test]
fn quit_mid_search_exits_promptly() {
    let mut s = Session::start();
    s.send("position startpos");
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    s.send("quit");
    assert!(s.exited_within(Duration::from_secs(5)), "engine still running after quit");
}

#[test]
fn end_of_input_finishes_a_finite_search() {
    let mut s = Session::start();
    s.send(&format!("position fen {MATE2}"));
    s.send("go mate 2");
    assert!(s.close_and_wait(LONG));
}

#[test]
fn after_a_long_ponder_the_move_gets_its_whole_time_from_ponderhit() {
    // A middlegame: the prover proves nothing in its share, and the fallback must get the
    // rest of the move's time (20 s / 25 = 0.8 s) counted from ponderhit. Counted from
    // `go`, the second of pondering used it all up, and the move came after the prover's
    // share and 15 ms of fallback. (An ending of four men would be proven from its exact
    // table while pondering.)
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let mut s = Session::start();
    s.send(&format!("position fen {fen}"));
    s.send("go ponder wtime 20000 btime 20000");
    std::thread::sleep(Duration::from_millis(1000));
    s.send("ponderhit");
    let hit = std::time::Instant::now();
    let lines = s.until_bestmove(Duration::from_secs(10));
    let after = hit.elapsed();
    assert!(after >= Duration::from_millis(600), "bestmove {after:?} after ponderhit with a 0.8 s move time");
    let words: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    replay(fen, &[words[1].to_string()]);
}

#[test]
fn a_result_proven_while_pondering_is_scored_again_after_ponderhit() {
    // The mate in 2 is proven long before ponderhit; python-chess drops what came while
    // pondering, so the score line must come again between ponderhit and bestmove.
    let mut s = Session::start();
    s.send(&format!("position fen {MATE2}"));
    s.send("go ponder wtime 20000 btime 20000");
    let pondered = s.until(LONG, |l| l.contains(" score mate 2 "));
    let scored = pondered.last().unwrap().clone();
    std::thread::sleep(Duration::from_millis(300));
    let before = s.sync();
    assert!(before.iter().all(|l| !l.starts_with("bestmove")), "pondering must wait: {before:#?}");
    s.send("ponderhit");
    let lines = s.until_bestmove(LONG);
    let again = lines.iter().rev().skip(1).find(|l| l.contains(" score ")).unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(again.contains(" score mate 2 pv "), "{lines:#?}");
    assert_eq!(pv_of(again), pv_of(&scored), "the same line: {lines:#?}");
}

#[test]
fn ponder_then_ponderhit_plays_on_the_clock() {
    let mut s = Session::start();
    s.send("position startpos moves e2e4");
    s.send("go ponder wtime 1000 btime 1000");
    std::thread::sleep(Duration::from_millis(200));
    assert!(s.sync().iter().all(|l| !l.starts_with("bestmove")), "pondering must wait");
    s.send("ponderhit");
    let hit = std::time::Instant::now();
    // No stop is sent: after ponderhit the clock alone ends the search, well inside the
    // one second Black has left.
    let lines = s.until_bestmove(Duration::from_secs(5));
    assert!(hit.elapsed() < Duration::from_secs(1), "bestmove {:?} after ponderhit on a 1 s clock", hit.elapsed());
    let last = lines.last().unwrap();
    let words: Vec<&str> = last.split_whitespace().collect();
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    replay(fen, &[words[1].to_string()]);
    if let ["bestmove", best, "ponder", ponder] = words.as_slice() {
        replay(fen, &[best.to_string(), ponder.to_string()]);
    } else {
        assert_eq!(words.len(), 2, "{last}");
    }
}

#[test]
fn exact_tables_still_decide_once_the_game_has_repeated_a_position() {
    // K+Q v K+R: after these moves White's position has occurred twice (a third time
    // would let Black claim). The tables' mate in 19 never passes through it (every
    // position of the mate is nearer mate), so it is proven at once, as without history.
    let start = "8/8/6r1/1k6/1Q6/K7/8/8 b - - 0 1";
    let moves = ["b5a6", "b4c4", "a6b6", "c4b3", "b6a5", "b3b4", "a5a6"];
    let mut s = Session::start();
    s.send(&format!("position fen {start} moves {}", moves.join(" ")));
    s.send("go mate 25");
    let lines = s.until_bestmove(LONG);
    let info = mate_info(&lines);
    assert_eq!(field(info, "mate"), Some("19"), "{info}");
    let root: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    let fen = shakmaty::fen::Fen::from_position(&replay(start, &root), shakmaty::EnPassantMode::Legal).to_string();
    assert_mating_line(&fen, &pv_of(info), 37);
    assert_eq!(bestmove(&lines), pv_of(info)[0]);
}
