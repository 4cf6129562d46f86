//! What pnmate knows about particular material.

pub mod progress;
pub mod queen_rook;
pub mod rook_mate;
pub mod turned;
