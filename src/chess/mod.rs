//! The chess the search relies on: positions from text, search nodes with their hashes,
//! the rules that end a game (mate, the 50-move rule, repetitions), cheap check
//! detection, move codes and mate lengths. Nothing here searches.

pub(crate) mod checks;
pub mod game;
pub mod mate_len;
pub mod movecode;
pub(crate) mod movegen;
pub mod node;
pub mod position;
pub(crate) mod rules;
