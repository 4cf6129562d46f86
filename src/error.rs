//! Typed errors: reported to the user, never panicked.

use thiserror::Error;

/// Why a position could not be set up.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// The FEN text does not parse.
    #[error("invalid FEN '{fen}': {reason}")]
    Fen {
        /// The text given.
        fen: String,
        /// The parser's reason.
        reason: String,
    },
    /// The FEN parses but describes an illegal position.
    #[error("illegal position '{fen}': {reason}")]
    Illegal {
        /// The text given.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A move of a move list is not legal (or does not parse).
    #[error("illegal move '{uci}' at move {index} of the list")]
    Move {
        /// The move text.
        uci: String,
        /// 1-based index in the list.
        index: usize,
    },
}

/// A malformed UCI command.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum UciError {
    /// The line is not a command this engine knows.
    #[error("unknown command '{0}'")]
    Unknown(String),
    /// A known command with bad arguments.
    #[error("{command}: {reason}")]
    BadArguments {
        /// The command.
        command: String,
        /// What is wrong.
        reason: String,
    },
    /// A position command failed; the last valid position stays.
    #[error("{0}; keeping the previous position")]
    Position(#[from] SetupError),
}

/// A malformed EPD line.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EpdError {
    /// The line has no FEN this parser understands.
    #[error("no FEN found")]
    NoFen,
    /// The FEN is bad.
    #[error("{0}")]
    Setup(#[from] SetupError),
    /// The `bm` field is not `#N` with a nonzero integer N.
    #[error("bad bm field '{0}' (want 'bm #N;')")]
    BadBm(String),
}
