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
    /// A problem solved from the position after the key: a certificate starts at the
    /// stipulation's first move.
    #[error("no certificate for play after the key")]
    Postkey,
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

/// Why a stipulation was not read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum StipulationError {
    /// Not one of the orthodox stipulations.
    #[error(
        "unknown stipulation '{0}': orthodox ones are #n, s#n, r#n, h#n, h#n.5, ser-h#n, ser-#n, =n, s=n, h=n and ser-h=n"
    )]
    Unknown(String),
    /// A half move where only help play takes one.
    #[error("'{0}': only help play takes a half move (h#n.5)")]
    HalfMove(String),
    /// No move at all.
    #[error("'{0}': a stipulation takes at least one move")]
    NoMove(String),
    /// More moves than the prover takes.
    #[error("'{text}': at most {max} moves")]
    TooLong {
        /// The stipulation as written.
        text: String,
        /// The most moves read.
        max: u16,
    },
}

/// Why a problem of a Popeye input file was not read, and where.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("line {line}: {why}")]
pub struct PopeyeError {
    /// The line of the input (from 1) where reading stopped.
    pub line: usize,
    /// What is wrong there.
    pub why: Misread,
}

/// What is wrong with the words of a Popeye input.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Misread {
    #[error("the input is empty")]
    Empty,
    #[error("'{0}': the input starts with BeginProblem (AnfangProblem, DebutProbleme)")]
    NoBegin(String),
    #[error("the input ends before EndProblem")]
    NoEnd,
    #[error("'{0}': ambiguous")]
    Ambiguous(String),
    #[error("'{0}': unknown word")]
    Unknown(String),
    /// Something a command needs after it.
    #[error("{0} is missing")]
    Missing(&'static str),
    /// A word that is not what its place wants.
    #[error("'{word}' {want}")]
    Malformed { word: String, want: &'static str },
    /// Fairy chess (or a command outside orthodox solving): what kind of word.
    #[error("{0} are not read")]
    Fairy(&'static str),
    #[error("stipulation {0}")]
    Stipulation(#[from] StipulationError),
    /// The men do not stand in a legal chess position: shakmaty's reason.
    #[error("the position is not legal chess: {0}")]
    Illegal(String),
    #[error("{0} is empty")]
    EmptySquare(shakmaty::Square),
    #[error("{0} leaves the board")]
    OffBoard(shakmaty::Square),
    #[error("zeroposition without twins")]
    ZeroWithoutTwins,
    #[error("no stipulation")]
    NoStipulation,
    #[error("'{0}': only twins and remarks follow a twin")]
    AfterTwin(String),
    #[error("{0} must follow the twin word at once")]
    ContinuedLate(String),
    /// A reason within a command or a twin change.
    #[error("{context}: {why}")]
    In { context: String, why: Box<Misread> },
}

impl Misread {
    /// `self` within `context` (a command and its word, a twin change).
    pub fn within(self, context: impl Into<String>) -> Misread {
        Misread::In { context: context.into(), why: Box::new(self) }
    }
}

/// Why a problem was not solved.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ProblemError {
    /// Play after the key was asked of help or series play.
    #[error("{0}: play after the key (postkey) is for battle play")]
    PostkeyNotBattle(String),
    /// The position's side to move is not the stipulation's first mover.
    #[error("{stipulation}: {first} moves first, but the position has {to_move} to move")]
    WrongSide {
        /// The stipulation.
        stipulation: String,
        /// Who must move first.
        first: &'static str,
        /// Who moves in the position.
        to_move: &'static str,
    },
}

/// Why a help or series solution fails its replay.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SolutionError {
    /// Empty, or longer than the stipulation.
    #[error("{got} plies, the stipulation has {max}")]
    Length {
        /// Plies of the solution.
        got: usize,
        /// Plies of the stipulation.
        max: u16,
    },
    /// The goal is reached before the line ends.
    #[error("the goal is reached before ply {0}")]
    Early(usize),
    /// A pass by a side that may not pass, or out of check only.
    #[error("ply {0}: a pass where none is allowed")]
    Pass(usize),
    /// The side that waits out a series moves.
    #[error("ply {0}: the side waiting out the series moves")]
    Waiting(usize),
    /// A move that is not legal.
    #[error("ply {0}: an illegal move")]
    Illegal(usize),
    /// The line does not end in the goal.
    #[error("the line does not end in the goal")]
    NoGoal,
}
