//! The df-pn core: one question ("does the attacker mate within r plies?") over one
//! table. Proof and disproof numbers, the values a node carries, table keys, node
//! counting and limits, local expansion and the recursive search.

pub mod expand;
pub mod monitor;
pub mod pndn;
pub mod query;
pub mod solver;
pub mod value;
