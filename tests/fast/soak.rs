//! A UCI soak test over the real binary: thousands of random `position`, `go`, `stop`,
//! `isready`, `setoption`, `ucinewgame` and `ponderhit` commands at random moments.
//! Every `go` must be answered by exactly one bestmove, legal in the position it was
//! given (or `0000` where there is no legal move or no valid position), in order; no
//! search may fail; every `isready` must be answered.

use crate::common;

use pnmate::rng::Rng;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use common::Session;
use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};

const POSITIONS: &[&str] = &[
    "startpos",
    "startpos moves e2e4 e7e5 g1f3 b8c6",
    "fen 8/1R6/8/4k3/1K4B1/2N4Q/8/8 w - - 0 1",
    "fen 8/6k1/8/8/5R2/8/4K3/8 b - - 1 1",
    "fen 2N5/p4P2/p4RqP/P2krb2/5RNK/2PPB1P1/3P1pP1/4nQ2 b - - 0 1",
    "fen 1k6/8/1K6/8/8/8/8/7R w - - 0 1 moves b6c6 b8a8 c6b6 a8b8 b6c6 b8a8",
    "fen 8/8/4k3/8/8/2B5/8/4K3 w - - 0 1",
    "fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
    "fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 4294967295 1",
    "fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "fen 8/8/8/8/8/8/8/8 w - - 0 1",
    "fen not a position",
    "startpos moves e2e4 e2e4",
];

const GOS: &[&str] = &[
    "go movetime 20",
    "go movetime 1",
    "go nodes 20000",
    "go nodes 1",
    "go mate 2",
    "go mate 3",
    "go depth 2",
    "go wtime 300 btime 300",
    "go wtime 50 btime 50 winc 10 binc 10 movestogo 3",
    "go infinite",
    "go ponder wtime 500 btime 500",
    "go searchmoves e2e4 d2d4 movetime 10",
];

const OTHERS: &[&str] = &[
    "stop",
    "stop",
    "isready",
    "isready",
    "ponderhit",
    "ucinewgame",
    "setoption name Hash value 1",
    "setoption name Hash value 8",
    "setoption name Clear Hash",
    "setoption name Move Overhead value 0",
];

/// The position a `position` command sets, or None when the command is rejected.
fn position_of(command: &str) -> Option<Chess> {
    let rest = command.strip_prefix("position ")?;
    let (head, moves) = match rest.split_once(" moves ") {
        Some((h, m)) => (h, m.split_whitespace().collect::<Vec<_>>()),
        None => (rest, Vec::new()),
    };
    let mut pos: Chess = if head == "startpos" {
        Chess::default()
    } else {
        let fen: Fen = head.strip_prefix("fen ")?.parse().ok()?;
        let mut setup = shakmaty::Setup::from(fen);
        setup.halfmoves = setup.halfmoves.min(150);
        shakmaty::FromSetup::from_setup(setup, CastlingMode::Standard).ok()?
    };
    for m in moves {
        let mv = m.parse::<UciMove>().ok()?.to_move(&pos).ok()?;
        pos.play_unchecked(mv);
    }
    Some(pos)
}

fn check_answer(line: &str, expected: &mut VecDeque<Option<Chess>>, seed: u64) {
    let pos = expected.pop_front().unwrap_or_else(|| panic!("seed {seed}: a bestmove nobody asked for: {line}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let best = words.get(1).copied().unwrap_or("");
    match pos {
        Some(p) if !p.legal_moves().is_empty() => {
            let legal = best.parse::<UciMove>().ok().and_then(|u| u.to_move(&p).ok()).is_some();
            assert!(
                legal,
                "seed {seed}: illegal '{line}' in {}",
                Fen::from_position(&p, shakmaty::EnPassantMode::Legal)
            );
        }
        _ => assert_eq!(best, "0000", "seed {seed}: a move where there is none: {line}"),
    }
}

#[test]
fn thousands_of_random_commands_keep_every_promise() {
    let seed = 0x5EED_2026;
    let mut rng = Rng::new(seed);
    let mut s = Session::start();
    let mut current = Some(Chess::default());
    let mut expected: VecDeque<Option<Chess>> = VecDeque::new();
    // isready commands not answered yet.
    let mut ready_asked = 0usize;
    let process = |lines: Vec<String>, expected: &mut VecDeque<Option<Chess>>, asked: &mut usize| {
        for line in lines {
            assert!(!line.contains("search failed") && !line.contains("panick"), "seed {seed}: {line}");
            if line.starts_with("bestmove") {
                check_answer(&line, expected, seed);
            } else if line == "readyok" {
                *asked = asked.checked_sub(1).expect("a readyok nobody asked for");
            }
        }
    };
    for _ in 0..3000 {
        let command = match rng.below(10) {
            0..=2 => format!("position {}", rng.pick(POSITIONS)),
            3..=5 => rng.pick(GOS).to_string(),
            _ => rng.pick(OTHERS).to_string(),
        };
        if command.starts_with("position") {
            // A rejected position leaves the engine without one until the next good one.
            current = position_of(&command);
        }
        if command.starts_with("go") {
            expected.push_back(current.clone());
        }
        if command == "isready" {
            ready_asked += 1;
        }
        s.send(&command);
        let pause = rng.below(8);
        if pause > 0 {
            std::thread::sleep(Duration::from_millis(pause as u64));
        }
        let lines = s.available();
        process(lines, &mut expected, &mut ready_asked);
    }
    s.send("stop");
    s.send("isready");
    ready_asked += 1;
    let deadline = Instant::now() + Duration::from_secs(60);
    while (!expected.is_empty() || ready_asked > 0) && Instant::now() < deadline {
        let lines = s.until(Duration::from_secs(60), |_| true);
        process(lines, &mut expected, &mut ready_asked);
        if !expected.is_empty() && ready_asked == 0 {
            s.send("stop");
        }
    }
    assert!(expected.is_empty(), "seed {seed}: {} go commands never answered", expected.len());
    assert_eq!(ready_asked, 0, "seed {seed}: isready never answered");
    s.send("quit");
    assert!(s.exited_within(Duration::from_secs(5)));
}
