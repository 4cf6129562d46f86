//! Orthodox chess as a game of the prover: its expansion (checks first, exact values of
//! small endings, narrowed quiet moves) and its oracle
//! ([`crate::knowledge::oracle::ChessOracle`]).

pub mod expand;
