//! Lines and proofs: rebuilding a forced line from the table, replaying it before it is
//! shown, and certificates a stranger can check.

pub mod certificate;
pub mod certify;
pub(crate) mod line;
pub mod verify;

pub use certificate::*;
