//! Why a command failed: each error the command line reports, in one line, with exit
//! status 2.

use std::path::PathBuf;

use pnmate::error::{CertError, PopeyeError, ProblemError, SetupError, StipulationError};
use pnmate::options::{MAX_HASH_MB, MAX_THREADS};

/// A command's failure.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A position that does not set up.
    #[error("{0}")]
    Setup(#[from] SetupError),
    /// A time that is not a positive number of seconds.
    #[error("bad time {0}: want a positive number of seconds")]
    Time(f64),
    /// `--hash` out of range.
    #[error("--hash must be in 1..{MAX_HASH_MB}")]
    Hash,
    /// `--threads` out of range.
    #[error("--threads must be in 1..{MAX_THREADS}")]
    Threads,
    /// Problem options without a stipulation.
    #[error("--max-solutions, --variations, --tries, --set-play and --postkey are for a problem: give --stip")]
    ShowWithoutStip,
    /// `--mate 0`.
    #[error("--mate must be at least 1")]
    ZeroMate,
    /// `--mate` neither `bm` nor a number of moves.
    #[error("bad --mate '{0}': want 'bm' or a number of moves 1..1000")]
    Mate(String),
    /// `--shard` not `I/N`.
    #[error("bad --shard '{0}': want I/N with 0 <= I < N")]
    Shard(String),
    /// A variant name pnmate does not know.
    #[error("unknown variant '{name}': want {choices}")]
    Variant {
        /// The name given.
        name: String,
        /// The names known.
        choices: String,
    },
    /// `--syzygy` named no readable table.
    #[error("--syzygy {paths}: {summary}")]
    Syzygy {
        /// The directories given.
        paths: String,
        /// What was found.
        summary: String,
    },
    /// A suite search with neither a limit nor a bound.
    #[error("give --time, --nodes or --mate: an open search would never end")]
    OpenSearch,
    /// A problem suite without a limit per problem.
    #[error("give --time or --nodes: a problem suite needs a limit per problem")]
    OpenProblems,
    /// A file or directory that cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A stipulation that does not read.
    #[error("{0}")]
    Stipulation(#[from] StipulationError),
    /// A problem that cannot be solved as given.
    #[error("{0}")]
    Problem(#[from] ProblemError),
    /// A Popeye input file that does not read.
    #[error("{}: {source}", path.display())]
    Popeye {
        /// The file.
        path: PathBuf,
        /// Where and why reading stopped.
        source: PopeyeError,
    },
    /// A problem of a Popeye file that cannot be solved.
    #[error("problem {number}{twin}: {source}")]
    Twin {
        /// The problem's number in the file, from 1.
        number: usize,
        /// The twin, as " twin b", or empty.
        twin: String,
        /// Why.
        source: ProblemError,
    },
    /// A certificate that could not be written.
    #[error("{0}")]
    Certificate(#[from] CertError),
    /// The search thread panicked.
    #[error("the search panicked")]
    Panicked,
    /// No thread could be started for the search.
    #[error("cannot start the search thread: {0}")]
    Thread(std::io::Error),
    /// An ending name that is not one of three or four men.
    #[error("'{0}' is not an ending of three or four men (as KQvKP)")]
    Ending(String),
    /// `tables build` with nothing to build.
    #[error("name the endings to build (as KQvKP) or give --men N")]
    NothingToBuild,
    /// The tables' cache directory is off.
    #[error("no cache directory (--tables-cache is empty){0}")]
    NoCache(&'static str),
    /// `tables verify` found no stored table that Syzygy covers.
    #[error("no ending to check: {0} Syzygy files in --syzygy, none for a stored table")]
    NothingToVerify(usize),
    /// A Syzygy directory that cannot be read.
    #[error("--syzygy {path}: {reason}")]
    SyzygyDir {
        /// The directory.
        path: String,
        /// Why.
        reason: String,
    },
    /// A table that could not be made.
    #[error("the {0} table could not be made")]
    Table(String),
}

impl CliError {
    /// The error of reading or writing `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> CliError {
        CliError::Io { path: path.into(), source }
    }
}
