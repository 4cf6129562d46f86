//! Chess problems on the prover: a stipulation ([`stipulation`]) makes a chess position
//! a game of its own ([`game::Problem`]), which the one df-pn solver proves like a mate.
//!
//! Battle play (`#n`, `s#n`, `r#n`, `=n`, `s=n`) asks for the keys: the first moves
//! after which every defence fails within the stipulation. Help and series play ask for
//! every solution: each line of exactly the stipulated length that meets it. Both are
//! read off the solver's proofs, one child at a time, through the shared table.
//!
//! Inside: [`game`] is the problem as a game of the prover, [`prover`] asks it, [`solve`]
//! reads keys and solutions off it ([`tree`]: the variations of battle play), [`report`]
//! writes them as Popeye does ([`notation`]), [`verify`] replays a solution apart from
//! the solver, [`certify`] writes a certificate, and [`popeye`] reads Popeye's input.

pub mod certify;
pub mod duplex;
pub mod game;
pub mod language;
pub mod notation;
pub mod popeye;
pub mod prover;
pub mod reach;
pub mod report;
pub mod solve;
pub mod stipulation;
pub mod tree;
pub mod verify;

pub use report::{report_json, report_text};
pub use solve::{ProblemSettings, Solved, Verdict, check_setup, solve_problem};
pub use verify::{played, verify_solution};

#[cfg(test)]
mod tests;
