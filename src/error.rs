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

/// Why a certificate could not be made, written or read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CertError {
    /// The outcome claims nothing (the search proved nothing).
    #[error("nothing was proven")]
    NothingProven,
    /// A section could not be rebuilt from the table and its re-searches.
    #[error("the {section} could not be rebuilt from the table")]
    NotRebuilt {
        /// Which section ("proof", "disproof").
        section: &'static str,
    },
    /// A section needs more re-search than the budget allows.
    #[error("the {section} needs more re-search than the budget allows")]
    Budget {
        /// Which section.
        section: &'static str,
    },
    /// A disproof of an ending of four men or fewer: its exact values decided it, and the
    /// tree the checker would read is too large to build.
    #[error("the {section} of an ending of four men or fewer is too large to show (its exact table decided it)")]
    ExactDisproof {
        /// Which section.
        section: &'static str,
    },
    /// A section outgrew the size limit.
    #[error("the {section} does not fit the size limit")]
    TooLarge {
        /// Which section.
        section: &'static str,
    },
    /// The file could not be written.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// The bytes are not a well-formed certificate.
    #[error("malformed certificate: {0}")]
    Format(&'static str),
}

/// A `setoption` the engine refuses.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum OptionError {
    /// A spin option's value is not a number in its range.
    #[error("value '{value}' of '{name}' is not a number in {min}..{max}")]
    OutOfRange {
        /// The option.
        name: &'static str,
        /// The text given.
        value: String,
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// A check option's value is neither true nor false.
    #[error("option '{0}' wants 'true' or 'false'")]
    NotAFlag(&'static str),
    /// A value is missing.
    #[error("option '{0}' needs a value")]
    NoValue(&'static str),
    /// A combo option's value is not one of its names.
    #[error("option '{name}': '{value}' is not one of {values}")]
    NotAChoice {
        /// The option.
        name: &'static str,
        /// The value given.
        value: String,
        /// The names allowed.
        values: String,
    },
    /// The table could not be allocated at the size asked.
    #[error("{0}")]
    Allocation(String),
}
