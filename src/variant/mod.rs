//! Chess variants: lichess's seven (antichess, atomic, crazyhouse, horde, king of the
//! hill, racing kings, three-check) over shakmaty's rules, behind the same prover.
//!
//! A variant's win takes the place of mate: the opponent's king exploded, a king on the
//! hill or the eighth rank, the third check, every man given away, a stalemate where the
//! variant scores it. A variant is rules and knowledge, never a second search: [`game`]
//! reads positions and implements the rules' trait ([`crate::chess::game::Game`]),
//! `expand` the core's expansion ([`crate::dfpn::expand::Expand`]) with the variant's
//! first numbers (`knowledge::variants`), and the one prover does the rest. [`eval`]
//! is the evaluation the one fallback search (`crate::fallback`) plays by.

pub(crate) mod eval;
pub(crate) mod expand;
pub mod game;

pub use game::{VARIANT_NAMES, parse_variant_fen, variant_named};
