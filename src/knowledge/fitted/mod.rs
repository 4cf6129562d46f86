//! Tables fitted to tablebase lines, one generated file per model (see tools/).

pub(crate) mod kbb;
pub(crate) mod kbn;
pub(crate) mod queen_rook;
pub(crate) mod rook_mate;
