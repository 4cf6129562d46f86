//! The engine's promises at the edges, over the real binary: claims true under the game
//! history and any halfmove clock, every `go` answered once and in time, stop and other
//! commands heard during every phase, failures reported instead of fatal. Time bounds
//! here are generous ceilings against hangs (the cases they guard took 8 to 30 s, or
//! forever, before); precise timings belong to benchmarks.

use crate::common;

use std::time::{Duration, Instant};

use common::{Session, bestmove, field, pv_of, replay};
use shakmaty::{Chess, EnPassantMode, Position, fen::Fen, uci::UciMove, zobrist::Zobrist64};

const LONG: Duration = Duration::from_secs(30);

/// Plays `moves` from `fen`; returns the final position and the hashes of the positions
/// before it (a test-side history, independent of the engine's).
fn game(fen: &str, moves: &[&str]) -> (Chess, Vec<u64>) {
    let mut pos: Chess = fen.parse::<Fen>().unwrap().into_position(shakmaty::CastlingMode::Standard).unwrap();
    let mut seen = Vec::new();
    for m in moves {
        seen.push(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0);
        let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
    }
    (pos, seen)
}

/// Asserts that `line` from the end of a game mates, and that the losing side can never
/// claim a threefold repetition on the way, counting the game's positions as FIDE does.
fn assert_mate_without_repetition_claim(pos: &Chess, history: &[u64], line: &[String]) {
    let hash = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
    let loser = if line.len() % 2 == 1 { !pos.turn() } else { pos.turn() };
    let mut p = pos.clone();
    let mut seen = history.to_vec();
    seen.push(hash(&p));
    for (ply, m) in line.iter().enumerate() {
        if p.turn() == loser {
            let count = |h: u64| seen.iter().filter(|&&s| s == h).count();
            assert!(count(hash(&p)) < 3, "threefold on the board at ply {ply} of {line:?}");
            for reply in p.legal_moves() {
                let mut after = p.clone();
                after.play_unchecked(reply);
                assert!(count(hash(&after)) < 2, "the loser claims by moving at ply {ply} of {line:?}");
            }
        }
        let mv = m.parse::<UciMove>().unwrap().to_move(&p).unwrap();
        p.play_unchecked(mv);
        seen.push(hash(&p));
    }
    assert!(p.is_checkmate(), "{line:?} does not mate");
}

#[test]
fn case_1_a_suite_position_that_hung_answers_in_time_and_quits() {
    let mut s = Session::start();
    s.send("setoption name Hash value 64");
    s.send("position fen 2N5/p4P2/p4RqP/P2krb2/5RNK/2PPB1P1/3P1pP1/4nQ2 b - - 0 1");
    s.send("go movetime 1000");
    let lines = s.until_bestmove(LONG);
    replay("2N5/p4P2/p4RqP/P2krb2/5RNK/2PPB1P1/3P1pP1/4nQ2 b - - 0 1", &[bestmove(&lines)]);
    s.send("go nodes 2000000");
    s.until_bestmove(LONG);
    s.send("quit");
    assert!(s.exited_within(Duration::from_secs(5)), "quit not heard");
}

#[test]
fn case_1_a_repetition_in_the_game_does_not_loop_the_prover() {
    let moves = ["b6c6", "b8a8", "c6b6", "a8b8", "b6c6", "b8a8"];
    let fen = "1k6/8/1K6/8/8/8/8/7R w - - 0 1";
    let mut s = Session::start();
    s.send(&format!("position fen {fen} moves {}", moves.join(" ")));
    s.send("go movetime 1000");
    let lines = s.until_bestmove(Duration::from_secs(10));
    // Kb6 would repeat the position a third time; the mate in 2 goes by Kc7.
    let info = lines.iter().rev().find(|l| l.contains(" score mate ")).expect("a mate");
    assert_eq!(field(info, "mate"), Some("2"), "{info}");
    let (pos, history) = game(fen, &moves);
    assert_mate_without_repetition_claim(&pos, &history, &pv_of(info));
}

#[test]
fn case_2_the_game_history_lets_the_loser_claim() {
    let fen = "8/8/8/8/8/5K1k/8/3R4 w - - 4 3";
    let moves = ["f3f4", "h3h4", "f4f3", "h4h3", "d1d7", "h3h2", "f3e2", "h2h3"];
    let mut s = Session::start();
    s.send(&format!("position fen {fen} moves {}", moves.join(" ")));
    // Every mate within 3 lets Black repeat a third time (an independent brute force with
    // python-chess's claim rules agrees); the shortest mate that does not is a mate in 4.
    s.send("go mate 3");
    let lines = s.until_bestmove(LONG);
    assert!(lines.iter().any(|l| l == "info string no mate in 3 (proven)"), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("score mate")), "{lines:#?}");
    s.send("go mate 6");
    let lines = s.until_bestmove(LONG);
    let info = lines.iter().rev().find(|l| l.contains(" score mate ")).expect("a mate");
    assert_eq!(field(info, "mate"), Some("4"), "{info}");
    let (pos, history) = game(fen, &moves);
    assert_mate_without_repetition_claim(&pos, &history, &pv_of(info));
}

#[test]
fn case_3_a_huge_halfmove_clock_leaks_into_nothing() {
    let mut s = Session::start();
    // Clock far beyond 150: the game is drawn by the 75-move rule.
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 4294967295 1");
    s.send("go mate 3");
    let lines = s.until_bestmove(LONG);
    assert!(lines.iter().any(|l| l == "info string no mate in 3 (proven)"), "{lines:#?}");
    // The same board with a normal clock: Ra8 mates.
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    s.send("go mate 3");
    let lines = s.until_bestmove(LONG);
    let info = lines.iter().rev().find(|l| l.contains(" score mate ")).expect("a mate");
    assert_eq!(field(info, "mate"), Some("1"), "{lines:#?}");
    assert_eq!(bestmove(&lines), "a1a8");
}

#[test]
fn case_4_stop_is_heard_during_the_fallback_search() {
    let mut s = Session::start();
    // K+B v K: proven "no mate" at once, then the fallback would think for ten minutes:
    // only a stop it hears ends the search within the hang guard.
    s.send("position fen 8/8/4k3/8/8/2B5/8/4K3 w - - 0 1");
    s.send("go movetime 600000");
    std::thread::sleep(Duration::from_millis(500));
    s.send("stop");
    let lines = s.until_bestmove(LONG);
    replay("8/8/4k3/8/8/2B5/8/4K3 w - - 0 1", &[bestmove(&lines)]);
}

#[test]
fn case_5_a_go_during_a_search_never_blocks_the_reader() {
    let mut s = Session::start();
    s.send("position fen 8/8/8/3k4/8/8/8/R3K3 w - - 0 1");
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    s.send("go movetime 100");
    std::thread::sleep(Duration::from_millis(100));
    s.send("isready");
    let lines = s.until(LONG, |l| l == "readyok");
    // Both searches answered, in order, each with one legal move.
    let mut all = lines;
    while all.iter().filter(|l| l.starts_with("bestmove")).count() < 2 {
        all.extend(s.until_bestmove(LONG));
    }
    for line in all.iter().filter(|l| l.starts_with("bestmove")) {
        replay("8/8/8/3k4/8/8/8/R3K3 w - - 0 1", &[line.split_whitespace().nth(1).unwrap().to_string()]);
    }
}

#[test]
fn case_6_a_table_the_machine_cannot_give_is_an_error_not_an_abort() {
    let mut s = Session::start();
    s.send("setoption name Hash value 65536");
    let lines = s.sync();
    // On a machine without 64 GB to spare this is refused; either way the engine lives on.
    assert!(lines.iter().all(|l| l.starts_with("info string error: setoption: cannot allocate")), "{lines:?}");
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    s.send("go mate 2");
    assert_eq!(bestmove(&s.until_bestmove(LONG)), "a1a8");
}

/// Resident memory of process `pid`, in MB (Linux).
#[cfg(target_os = "linux")]
fn resident_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
}

#[test]
#[cfg(target_os = "linux")]
fn case_8_readyok_after_setoption_hash_comes_and_the_table_gets_in_memory() {
    // The table's pages are faulted in by a thread (so that a go right behind the
    // setoption is not held up); `isready` waits for it a little, never long (a client's
    // clock may already run), and the pages keep being faulted in after `readyok`.
    let mut s = Session::start();
    s.send("setoption name Hash value 1024");
    assert_eq!(s.sync(), Vec::<String>::new(), "the table is given");
    let asked = Instant::now();
    let mut rss = resident_mb(s.pid());
    while rss < 1024 && asked.elapsed() < LONG {
        std::thread::sleep(Duration::from_millis(20));
        rss = resident_mb(s.pid());
    }
    assert!(rss >= 1024, "resident {rss} MB after {:?}", asked.elapsed());
}

#[test]
fn commands_are_heard_while_a_search_runs() {
    let mut s = Session::start();
    // A search that never ends by itself: a reader it blocked would never answer. The
    // same commands during the line building and the fallback are covered by the stop
    // test above and the soak test.
    s.send("position fen 2N5/p4P2/p4RqP/P2krb2/5RNK/2PPB1P1/3P1pP1/4nQ2 b - - 0 1");
    s.send("go infinite");
    for command in ["isready", "setoption name Move Overhead value 40", "isready"] {
        std::thread::sleep(Duration::from_millis(150));
        s.send(command);
        if command == "isready" {
            let lines = s.until(LONG, |l| l == "readyok");
            assert!(lines.iter().all(|l| !l.starts_with("bestmove")), "the search ended: {lines:?}");
        }
    }
    s.send("ucinewgame");
    s.send("isready");
    let lines = s.until(LONG, |l| l == "readyok");
    assert_eq!(lines.iter().filter(|l| l.starts_with("bestmove")).count(), 1, "{lines:?}");
}
