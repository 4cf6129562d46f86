//! Chess variants: lichess's seven (antichess, atomic, crazyhouse, horde, king of the
//! hill, racing kings, three-check) over shakmaty's rules, behind the same prover.
//!
//! A variant's win takes the place of mate: the opponent's king exploded, a king on the
//! hill or the eighth rank, the third check, every man given away, a stalemate where the
//! variant scores it. [`game`] reads positions and says how a game stands, [`solver`] is
//! df-pn over variant positions on the core's table and values, [`search`] asks it the
//! questions and builds the lines, [`fallback`] plays a legal, sensible move when
//! nothing is proven. Chess itself keeps its own, faster path (`crate::search`).

pub mod certify;
pub(crate) mod expand;
pub(crate) mod fallback;
pub mod game;
pub mod search;
pub mod suite;

pub use game::{VARIANT_NAMES, parse_variant_fen, play_variant_moves, variant_named};
pub use search::{VariantParams, VariantSearch, solve_variant, verify_variant_line};
