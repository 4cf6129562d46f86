//! The df-pn core: one question ("does the attacker mate within r plies?") over one
//! table. Proof and disproof numbers and the values a node carries, table keys, node
//! counting and limits, the question's tree, a node's children and their aggregation,
//! local expansion, and the recursive search that ties them together.

pub mod children;
pub mod expand;
pub mod monitor;
pub mod pndn;
pub mod query;
pub mod solver;
pub mod tree;
pub mod value;

pub use solver::{Call, Question, Solver};
pub use tree::{Cycles, RootMoves};
