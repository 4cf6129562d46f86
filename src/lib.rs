//! pnmate: a proof-number mate prover for chess.
//!
//! The library proves "mate in M" (with M the proven shortest when time allows), "mated
//! in M" and "no mate within N" with depth-first proof-number search over shakmaty's
//! legal moves, and returns complete forced lines that are replayed before they are
//! reported. The binary wraps it as a UCI engine and a command-line tool.

pub mod bench;
pub mod chess;
pub mod dfpn;
pub mod engine;
pub mod epd;
pub mod error;
pub mod fallback;
pub mod jobs;
pub mod knowledge;
pub mod limits;
pub mod options;
pub mod orthodox;
pub mod problem;
pub mod proof;
pub mod rng;
pub mod search;
pub mod suite;
pub mod tt;
pub mod uci;
pub mod variant;

pub use chess::mate_len::{MateBound, MateLen};
pub use error::{EpdError, SetupError, UciError};
pub use knowledge::tablebase;
pub use search::{Event, Outcome, Params, Stats};
pub use tt::TranspositionTable;
