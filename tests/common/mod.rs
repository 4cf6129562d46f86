//! Helpers shared by the integration tests: a UCI session over pipes with the real
//! binary, and line replay.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};

/// A running `pnmate` in UCI mode.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read so far.
    pub log: Vec<String>,
}

/// The `pnmate` binary, its exact tables kept in memory only: what a test finds never
/// depends on what an earlier run stored. Tests of storage name their own directory.
pub fn pnmate() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pnmate"));
    c.arg("--tables-cache=");
    c
}

impl Session {
    /// Starts the binary in UCI mode, its tables in memory only.
    pub fn start() -> Session {
        Session::start_with(pnmate())
    }

    /// Starts `command` (the binary with its arguments) in UCI mode.
    pub fn start_with(mut command: Command) -> Session {
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("start pnmate");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Session { child, stdin, lines: rx, log: Vec::new() }
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends raw bytes (a newline is not added).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }

    /// Reads lines until one satisfies `pred`; returns the lines read, the match last.
    /// Panics after `timeout`, showing what was read.
    pub fn until(&mut self, timeout: Duration, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.log.push(line.clone());
                    let done = pred(&line);
                    got.push(line);
                    if done {
                        return got;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out after {timeout:?}; read: {got:#?}")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("engine exited; read: {got:#?}"),
            }
        }
    }

    /// The lines that have arrived so far, without waiting.
    pub fn available(&mut self) -> Vec<String> {
        let got: Vec<String> = self.lines.try_iter().collect();
        self.log.extend(got.iter().cloned());
        got
    }

    /// Reads up to and including the `bestmove` line; returns all lines read.
    pub fn until_bestmove(&mut self, timeout: Duration) -> Vec<String> {
        self.until(timeout, |l| l.starts_with("bestmove"))
    }

    /// Sends `isready` and waits for `readyok`; returns the lines read before it.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until(Duration::from_secs(10), |l| l == "readyok");
        lines.pop();
        lines
    }

    /// Closes stdin and waits for the process, up to `timeout`; true when it exited.
    pub fn close_and_wait(&mut self, timeout: Duration) -> bool {
        self.stdin.take();
        self.exited_within(timeout)
    }

    /// Waits for the process to exit by itself (after `quit`), up to `timeout`.
    pub fn exited_within(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses a FEN.
pub fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

/// The value of `key` in a UCI info line.
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut it = line.split_whitespace();
    while let Some(t) = it.next() {
        if t == key {
            return it.next();
        }
    }
    None
}

/// The pv of an info line.
pub fn pv_of(line: &str) -> Vec<String> {
    line.split(" pv ").nth(1).map(|p| p.split_whitespace().map(String::from).collect()).unwrap_or_default()
}

/// Replays UCI moves from `fen`; panics on an illegal move. Returns the final position.
pub fn replay(fen: &str, moves: &[String]) -> Chess {
    let mut p = pos(fen);
    for (i, m) in moves.iter().enumerate() {
        let mv = m.parse::<UciMove>().unwrap().to_move(&p).unwrap_or_else(|_| panic!("{fen}: illegal {m} at ply {i}"));
        p.play_unchecked(mv);
    }
    p
}

/// Asserts that `moves` from `fen` is a mating line of exactly `plies` plies.
pub fn assert_mating_line(fen: &str, moves: &[String], plies: usize) {
    assert_eq!(moves.len(), plies, "{fen}: line {moves:?} should have {plies} plies");
    assert!(replay(fen, moves).is_checkmate(), "{fen}: line {moves:?} does not end in checkmate");
}

/// The move of the final `bestmove` line.
pub fn bestmove(lines: &[String]) -> String {
    let last = lines.last().expect("lines read");
    assert!(last.starts_with("bestmove "), "not a bestmove line: {last}");
    last.split_whitespace().nth(1).expect("a move").to_string()
}
