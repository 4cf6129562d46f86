//! pnmate-check: verifies a pnmate proof certificate without trusting pnmate.
//!
//! Usage: `pnmate-check [--syzygy DIRS] FILE...`. For each file it prints `valid: <claim>`
//! or `invalid: <first reason>` (prefixed by the file name when there are several) and
//! exits with status 1 when any file is invalid (2 when one cannot be read).
//!
//! This program reads the format that `src/proof/FORMAT.md` describes and uses shakmaty
//! for the rules of chess and of lichess's variants (and shakmaty-syzygy for the
//! tablebase leaves of a disproof, which need `--syzygy`) and nothing of the pnmate
//! library (a test enforces it), so a bug in the prover cannot hide in the check. It
//! re-derives every position from the root by playing the certificate's moves, so a
//! node's stored hash only names the position: a hash that names another position is
//! rejected, and a node reached from two parents must be the same position in full
//! (board, side to move, castling rights, en passant square, halfmove clock, and a
//! variant's pockets, promoted men and check counters).
//!
//! Inside: [`reader`] reads the bytes, [`header`] the header, [`claim`] matches the
//! sections to the claim, and [`walk`] checks a section by the rules of a game ([`game`]:
//! chess and its variants; [`problem`]: a chess problem's stipulation).

mod broken;
mod claim;
mod game;
mod header;
mod problem;
mod reader;
mod shape;
mod walk;

use std::fmt;
use std::process::ExitCode;
use std::time::Instant;

use shakmaty_syzygy::Tablebase;

use broken::Broken;

/// Why a certificate is not valid.
#[derive(Debug)]
pub enum Invalid {
    /// The bytes or the header are not what the format says.
    Format(String),
    /// The sections do not establish the claim.
    Claim(String),
    /// A section fails: which one, and why.
    Section { number: usize, why: Box<Invalid> },
    /// A node of a section breaks the rules: its index, its position when known, and why.
    Node { node: usize, fen: Option<String>, why: Broken },
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::Format(why) | Invalid::Claim(why) => f.write_str(why),
            Invalid::Section { number, why } => write!(f, "section {number}: {why}"),
            Invalid::Node { node, fen: Some(fen), why } => write!(f, "node {node} ({fen}): {why}"),
            Invalid::Node { node, fen: None, why } => write!(f, "node {node}: {why}"),
        }
    }
}

impl Invalid {
    /// `self` as a failure of section `number`.
    fn in_section(self, number: usize) -> Invalid {
        Invalid::Section { number, why: Box::new(self) }
    }
}

impl From<&str> for Invalid {
    fn from(why: &str) -> Invalid {
        Invalid::Format(why.into())
    }
}

impl From<String> for Invalid {
    fn from(why: String) -> Invalid {
        Invalid::Format(why)
    }
}

fn format(why: impl Into<String>) -> Invalid {
    Invalid::Format(why.into())
}

fn main() -> ExitCode {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    let mut tables = None;
    if let Some(i) = files.iter().position(|f| f == "--syzygy") {
        let Some(dirs) = files.get(i + 1).cloned() else {
            eprintln!("--syzygy needs the tables' directories");
            return ExitCode::from(2);
        };
        files.drain(i..=i + 1);
        let mut tb = Tablebase::new();
        for dir in dirs.split(if cfg!(windows) { ';' } else { ':' }).filter(|d| !d.is_empty()) {
            if let Err(e) = tb.add_directory(dir) {
                eprintln!("cannot read Syzygy directory '{dir}': {e}");
                return ExitCode::from(2);
            }
        }
        tables = Some(tb);
    }
    if files.is_empty() || files.iter().any(|f| f == "-h" || f == "--help") {
        eprintln!(
            "usage: pnmate-check [--syzygy DIRS] FILE...\nVerifies pnmate proof certificates (see src/proof/FORMAT.md)."
        );
        return ExitCode::from(2);
    }
    let mut status = 0u8;
    for file in &files {
        let prefix = if files.len() > 1 { format!("{file}: ") } else { String::new() };
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                println!("{prefix}error: cannot read {file}: {e}");
                status = status.max(2);
                continue;
            }
        };
        let start = Instant::now();
        let mut nodes = 0usize;
        match claim::check(&bytes, tables.as_ref(), &mut nodes) {
            Ok(claim) => println!("{prefix}valid: {claim}"),
            Err(reason) => {
                println!("{prefix}invalid: {reason}");
                status = status.max(1);
            }
        }
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "{prefix}{nodes} nodes, {} bytes, {:.3} s, {:.0} nodes/s",
            bytes.len(),
            secs,
            nodes as f64 / secs.max(1e-9)
        );
    }
    ExitCode::from(status)
}
