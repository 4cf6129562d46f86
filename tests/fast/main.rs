//! The integration tests that CI also runs in the `checked` profile, in one binary: one
//! link of the library instead of one per file. The heavy suites (tests/suites.rs,
//! tests/threads.rs) are binaries of their own, run in release only.

#[path = "../common/mod.rs"]
mod common;

mod certificates;
mod cli;
mod gui;
mod history;
mod soak;
mod tablebase;
mod tables;
mod trust;
mod uci;
mod uci_fuzz;
mod variants;
