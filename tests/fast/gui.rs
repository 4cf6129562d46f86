//! What GUIs and bot wrappers rely on, over the real binary: the options lichess-bot
//! sets, live progress lines, a score for every search, `go depth` that ends, and
//! `seldepth` never below `depth`.

use crate::common;

use std::time::{Duration, Instant};

use common::{Session, bestmove, field, pos, pv_of};
use shakmaty::Position;

const LONG: Duration = Duration::from_secs(60);

fn started() -> Session {
    let mut s = Session::start();
    s.send("uci");
    s.until(LONG, |l| l == "uciok");
    s
}

/// Every line with both `depth` and `seldepth` has seldepth >= depth.
fn assert_seldepth_not_below_depth(lines: &[String]) {
    for l in lines {
        if let (Some(d), Some(sd)) = (field(l, "depth"), field(l, "seldepth")) {
            let (d, sd): (u32, u32) = (d.parse().unwrap(), sd.parse().unwrap());
            assert!(sd >= d, "seldepth below depth: {l}");
        }
    }
}

#[test]
fn lichess_bot_default_options_are_accepted_in_one_configure() {
    let mut s = started();
    // What python-chess's configure() sends for lichess-bot's defaults, without waiting.
    for (name, value) in [
        ("Move Overhead", "100"),
        ("Threads", "2"),
        ("Hash", "32"),
        ("SyzygyPath", "<empty>"),
        ("UCI_ShowWDL", "true"),
        ("Ponder", "true"),
    ] {
        s.send(&format!("setoption name {name} value {value}"));
    }
    let lines = s.sync();
    assert!(lines.is_empty(), "{lines:?}");
    s.send("setoption name SyzygyPath value /opt/syzygy");
    let lines = s.sync();
    assert_eq!(
        lines,
        [
            "info string cannot read Syzygy directory '/opt/syzygy': No such file or directory (os error 2)",
            "info string no Syzygy tables found"
        ]
    );
}

#[test]
fn go_depth_20_on_the_start_position_ends_with_a_scored_move() {
    let mut s = started();
    s.send("position startpos");
    s.send("go depth 20");
    let lines = s.until_bestmove(LONG);
    let best = bestmove(&lines);
    let scored = lines.iter().rev().find(|l| l.contains(" score ")).expect("a score line");
    assert!(field(scored, "cp").is_some(), "no mate at the start: a cp score, {scored}");
    assert_eq!(pv_of(scored)[0], best, "{scored}");
    assert!(shakmaty::Chess::default().legal_moves().iter().any(|m| pnmate::chess::position::uci(*m) == best));
    assert_seldepth_not_below_depth(&lines);
}

#[test]
fn every_search_without_a_mate_scores_its_move_in_centipawns_with_wdl() {
    let mut s = started();
    s.send("setoption name UCI_ShowWDL value true");
    // White is a queen up, no mate within reach of a short search.
    s.send("position fen 4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1");
    s.send("go movetime 300");
    let lines = s.until_bestmove(LONG);
    let scored = lines.iter().rev().find(|l| l.contains(" score ")).expect("a score line");
    let cp: i32 = field(scored, "cp").expect("score cp").parse().unwrap();
    assert!(cp > 500, "a queen up: {scored}");
    let wdl: Vec<u32> =
        scored.split(" wdl ").nth(1).unwrap().split_whitespace().take(3).map(|x| x.parse().unwrap()).collect();
    assert_eq!(wdl.iter().sum::<u32>(), 1000, "{scored}");
    assert!(wdl[0] > wdl[2], "{scored}");
    assert_eq!(pv_of(scored)[0], bestmove(&lines));
    // A proven mate comes with a mate score and a certain win.
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    s.send("go mate 1");
    let lines = s.until_bestmove(LONG);
    let mate = lines.iter().find(|l| l.contains(" score mate ")).expect("mate line");
    assert!(mate.contains(" score mate 1 wdl 1000 0 0 pv a1a8"), "{mate}");
    assert_seldepth_not_below_depth(&lines);
}

#[test]
fn live_progress_lines_arrive_every_second_during_go_infinite() {
    let mut s = started();
    // KBN v K with blocked pawns (eight men, far from the exact tables): far beyond a few
    // seconds of proving.
    s.send("position fen 8/p7/P7/4k3/p7/P7/8/KBN5 w - - 0 1");
    s.send("go infinite");
    let start = Instant::now();
    let mut progress = Vec::new();
    let mut currmoves = Vec::new();
    while progress.len() < 3 && start.elapsed() < LONG {
        std::thread::sleep(Duration::from_millis(100));
        for l in s.available() {
            if l.starts_with("info depth") && l.contains(" nodes ") && !l.contains(" score ") {
                progress.push(l);
            } else if l.contains(" currmove ") {
                currmoves.push(l);
            }
        }
    }
    let root = pos("8/p7/P7/4k3/p7/P7/8/KBN5 w - - 0 1");
    assert!(!currmoves.is_empty(), "no currmove line");
    for l in &currmoves {
        let mv = field(l, "currmove").unwrap();
        assert!(root.legal_moves().iter().any(|m| pnmate::chess::position::uci(*m) == mv), "{l}");
        let n: usize = field(l, "currmovenumber").unwrap().parse().unwrap();
        assert!((1..=root.legal_moves().len()).contains(&n), "{l}");
    }
    assert!(progress.len() >= 3, "progress lines: {progress:#?}");
    // The engine's own clock: a line about once a second (3 s: a generous guard).
    let times: Vec<u64> = progress.iter().map(|l| field(l, "time").unwrap().parse().unwrap()).collect();
    assert!(times[0] <= 3000 && times.windows(2).all(|w| w[1] - w[0] <= 3000), "times {times:?}");
    let mut nodes = 0;
    for l in &progress {
        for key in ["depth", "seldepth", "nodes", "nps", "time", "hashfull"] {
            assert!(field(l, key).is_some(), "no {key} in {l}");
        }
        let n: u64 = field(l, "nodes").unwrap().parse().unwrap();
        assert!(n > nodes, "nodes do not grow: {progress:#?}");
        nodes = n;
    }
    s.send("stop");
    let lines = s.until_bestmove(Duration::from_secs(5));
    let legal = pos("8/p7/P7/4k3/p7/P7/8/KBN5 w - - 0 1").legal_moves();
    assert!(legal.iter().any(|m| pnmate::chess::position::uci(*m) == bestmove(&lines)));
    assert!(lines.iter().any(|l| l.contains(" score cp ")), "{lines:#?}");
    assert_seldepth_not_below_depth(&s.log);
}

#[test]
fn the_prover_says_in_words_what_it_has_proven() {
    let mut s = started();
    // KRvK with blocked pawns (five men: no exact table): a mate, but not within 3
    // moves; the short bounds are disproven first.
    s.send("position fen 8/8/8/4k3/p7/P7/8/4K2R w - - 0 1");
    // A node limit keeps the test deterministic: the first mate comes at about 0.9M nodes.
    s.send("go mate 20 nodes 1500000");
    let lines = s.until_bestmove(LONG);
    assert!(
        lines.iter().any(|l| l.starts_with("info string no mate for white within 3 (proven); proving mate within")),
        "{lines:#?}"
    );
    let mate = lines.iter().rev().find(|l| l.contains(" score mate ")).expect("a mate");
    let moves: u32 = field(mate, "mate").unwrap().parse().unwrap();
    assert!(moves > 3, "{mate}");
    let first = lines.iter().find(|l| l.contains(" score mate ")).unwrap();
    let found = format!("info string mate {} found, proving it shortest", field(first, "mate").unwrap());
    assert!(lines.contains(&found), "no '{found}' in {lines:#?}");
}

#[test]
fn chess960_castling_mates_and_is_written_king_takes_rook() {
    // King f1, rook h1 with Chess960 castling rights (Shredder 'H'): the only mate in
    // one is castling, O-O putting the rook on f1.
    let fen = "4rkr1/4p1p1/8/8/8/8/8/5K1R w H - 0 1";
    let mut s = started();
    s.send("setoption name UCI_Chess960 value true");
    s.send(&format!("position fen {fen}"));
    assert!(s.sync().is_empty());
    s.send("go mate 1");
    let lines = s.until_bestmove(LONG);
    let mate = lines.iter().find(|l| l.contains(" score mate ")).expect("a mate");
    assert!(mate.ends_with(" score mate 1 pv f1h1"), "{mate}");
    assert_eq!(bestmove(&lines), "f1h1");
    // The GUI plays it back in the same notation.
    s.send(&format!("position fen {fen} moves f1h1"));
    s.send("go depth 2");
    let lines = s.until_bestmove(LONG);
    assert_eq!(lines, ["info depth 0 score mate 0", "bestmove 0000"]);
    // Standard chess notation when the option is off: the king's own move.
    s.send("setoption name UCI_Chess960 value false");
    s.send(&format!("position fen {fen}"));
    s.send("go mate 1");
    assert_eq!(bestmove(&s.until_bestmove(LONG)), "f1g1");
}

/// The `info multipv` lines of the last complete report before `bestmove`.
fn last_multipv(lines: &[String], k: usize) -> Vec<String> {
    let ranked: Vec<&String> = lines.iter().filter(|l| l.starts_with("info multipv ")).collect();
    assert!(ranked.len() >= k, "{lines:#?}");
    let last = &ranked[ranked.len() - k..];
    for (i, l) in last.iter().enumerate() {
        assert_eq!(field(l, "multipv"), Some((i + 1).to_string().as_str()), "{l}");
    }
    last.iter().map(|l| l.to_string()).collect()
}

#[test]
fn multipv_3_gives_each_mating_key_its_length_and_a_replayed_line() {
    let mut s = started();
    s.send("setoption name MultiPV value 3");
    // Back-rank mates: two keys with the rooks alone, three with the queen as well.
    for (fen, keys) in [("6k1/5ppp/8/8/8/8/8/R3R1K1 w - - 0 1", 2), ("6k1/5ppp/8/8/8/8/8/R2QR1K1 w - - 0 1", 3)] {
        s.send(&format!("position fen {fen}"));
        s.send("go mate 2");
        let lines = s.until_bestmove(LONG);
        let ranked = last_multipv(&lines, 3);
        let mut seen = Vec::new();
        for (i, l) in ranked.iter().enumerate() {
            if i < keys {
                assert!(l.contains(" score mate 1 pv "), "{fen}: {l}");
                let pv = pv_of(l);
                common::assert_mating_line(fen, &pv, 1);
                seen.push(pv[0].clone());
            } else {
                assert!(l.contains(" score cp "), "{fen}: the third move does not mate: {l}");
            }
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), keys, "{fen}: distinct keys {seen:?}");
        assert_eq!(bestmove(&lines), pv_of(&ranked[0])[0]);
    }
}

#[test]
fn multipv_3_scores_every_entry_in_a_timed_search() {
    let mut s = started();
    s.send("setoption name MultiPV value 3");
    s.send("position startpos");
    s.send("go movetime 1000");
    let lines = s.until_bestmove(LONG);
    let ranked = last_multipv(&lines, 3);
    let legal = shakmaty::Chess::default().legal_moves();
    for l in &ranked {
        assert!(field(l, "cp").is_some(), "{l}");
        let first = &pv_of(l)[0];
        assert!(legal.iter().any(|m| &pnmate::chess::position::uci(*m) == first), "{l}");
    }
    assert_eq!(bestmove(&lines), pv_of(&ranked[0])[0]);
}
