//! How far a build has got, for the user to see.

use std::sync::atomic::{AtomicU32, AtomicUsize};

/// How far a build has got, for the user to see: the share of the first pass done (in
/// thousandths), then the plies the retrograde passes have settled.
#[derive(Debug, Default)]
pub struct Progress {
    /// Thousandths of the first pass done.
    pub first: AtomicU32,
    /// Plies settled by the retrograde passes.
    pub plies: AtomicU32,
    /// Placements (or words) whose first state is known, as the first pass counts them.
    pub(crate) done: AtomicUsize,
}
