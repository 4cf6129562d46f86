//! The df-pn core: one question ("does the attacker mate within r plies?") over one
//! table. Proof and disproof numbers and the values a node carries, table keys, node
//! counting and limits, the question's tree and the search path, a node's children and
//! their aggregation, local expansion, and the recursive search that ties them together.

pub(crate) mod children;
pub(crate) mod expand;
pub mod monitor;
pub(crate) mod path;
pub(crate) mod pndn;
pub(crate) mod query;
pub(crate) mod solver;
pub(crate) mod tree;
pub(crate) mod value;

pub use expand::Expand;
pub(crate) use solver::{Call, Question, Solver};
pub(crate) use tree::{Cycles, RootMoves};
