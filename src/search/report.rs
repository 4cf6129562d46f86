//! What a search reports: events while it runs, the outcome when it ends.

use std::time::Duration;

use shakmaty::Move;

use crate::chess::mate_len::MateLen;
use crate::dfpn::expand::Expand;
use crate::error::CertError;
use crate::proof::certificate::MateClaim;
use crate::proof::certify::{CertBudget, Certified, certify};
use crate::tt::TranspositionTable;

/// Search statistics attached to events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Table occupancy, permille.
    pub hashfull: u32,
    /// The mate bound (plies) of the question that produced the event.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Tablebase probes that found a value.
    pub tbhits: u64,
}

impl Stats {
    /// The statistics of a search now: `monitor`'s nodes and time, `tt`'s fill, the bound
    /// `depth` of the question at hand, the deepest ply, and the tablebase hits.
    pub fn now(
        monitor: &crate::dfpn::monitor::Monitor,
        tt: &TranspositionTable,
        depth: u32,
        seldepth: u32,
        tbhits: u64,
    ) -> Stats {
        Stats {
            nodes: monitor.total_nodes(),
            time: monitor.control().elapsed(),
            hashfull: tt.hashfull(),
            depth,
            seldepth: seldepth.max(depth),
            tbhits,
        }
    }

    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let us = self.time.as_micros().max(1) as u64;
        self.nodes.saturating_mul(1_000_000) / us
    }
}

/// What the search tells its owner while it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A (shorter) mate was proven and its line replayed.
    Mate {
        /// The mate, from the side to move's view.
        mate: MateLen,
        /// True when proven shortest.
        exact: bool,
        /// The forced line.
        pv: Vec<Move>,
        /// Statistics at the time of the proof.
        stats: Stats,
    },
    /// Proven: neither side mates within `moves` moves.
    NoMate {
        /// The bound in moves.
        moves: u32,
        /// Statistics at the time of the disproof.
        stats: Stats,
    },
    /// A mate is proven but the search ended before its line could be built: reported
    /// once, at the end, without a line (and so without a claim a GUI would show).
    MateUnshown {
        /// The proven mate (an upper bound), from the side to move's view.
        mate: MateLen,
        /// The first move of the proof, as the table records it.
        first: Option<Move>,
        /// Statistics at the end.
        stats: Stats,
    },
    /// What the prover has established or is doing next, in words (rare: once per
    /// bound that is disproven, and when a found mate is being proven shortest).
    Status(String),
}

/// The final verdict of a search, as proven (or not) by the prover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move mates in `moves` (a proven upper bound; `exact` when a shorter mate
    /// was also disproven). `pv` replays to checkmate in exactly `2 * moves - 1` plies:
    /// the attacker's proven moves, and at each defender turn the reply with the longest
    /// proven mate against it.
    Mate {
        /// Mate length in moves.
        moves: u32,
        /// True when no shorter mate exists (proven).
        exact: bool,
        /// The forced line.
        pv: Vec<Move>,
    },
    /// The side to move is mated in `moves`; `pv` has exactly `2 * moves` plies, chosen as
    /// for [`Outcome::Mate`].
    Mated {
        /// Mate length in moves.
        moves: u32,
        /// True when the opponent provably has no shorter mate.
        exact: bool,
        /// The forced line.
        pv: Vec<Move>,
    },
    /// Proven: neither side mates within `moves` moves (a real disproof).
    NoMate {
        /// The bound in moves.
        moves: u32,
    },
    /// Nothing proven before a limit, a stop or lack of memory ended the search.
    Unknown,
}

impl Outcome {
    /// What a certificate of this outcome claims, and whether the mate is proven shortest;
    /// None when nothing is proven.
    pub fn claim(&self) -> Option<(MateClaim, bool)> {
        match *self {
            Outcome::Mate { moves, exact, .. } => Some((MateClaim::Mate(moves), exact)),
            Outcome::Mated { moves, exact, .. } => Some((MateClaim::Mated(moves), exact)),
            Outcome::NoMate { moves } => Some((MateClaim::NoMate(moves), false)),
            Outcome::Unknown => None,
        }
    }

    /// The certificate of this outcome, a result of searching `root` (in any game)
    /// without game history or root-move restrictions whose entries are in `tt`, with
    /// `tables` when the search had them (see [`certify`]).
    pub fn certify<G: Expand>(
        &self,
        root: &G,
        tt: &TranspositionTable,
        limits: CertBudget,
        oracle: &G::Oracle,
    ) -> Result<Certified, CertError> {
        let (claim, exact) = self.claim().ok_or(CertError::NothingProven)?;
        certify(root, (claim, exact, self.pv().len() as u32), tt, limits, oracle)
    }

    /// The outcome of a proven `mate` with its line.
    pub fn from_mate(mate: MateLen, exact: bool, pv: Vec<Move>) -> Outcome {
        if mate.side_to_move_mates() {
            Outcome::Mate { moves: mate.moves(), exact, pv }
        } else {
            Outcome::Mated { moves: mate.moves(), exact, pv }
        }
    }

    /// The mate, from the side to move's view, when one is proven.
    pub fn mate(&self) -> Option<MateLen> {
        match self {
            Outcome::Mate { moves, .. } => Some(MateLen::mate_in(*moves)),
            Outcome::Mated { moves, .. } => Some(MateLen::mated_in(*moves)),
            _ => None,
        }
    }

    /// The signed mate number from the side to move's view (negative: it is mated).
    pub fn signed_moves(&self) -> Option<i32> {
        self.mate().map(MateLen::signed)
    }

    /// Whether a proven mate is also proven shortest.
    pub fn is_exact(&self) -> bool {
        matches!(self, Outcome::Mate { exact: true, .. } | Outcome::Mated { exact: true, .. })
    }

    /// The forced line of a mate verdict; empty otherwise.
    pub fn pv(&self) -> &[Move] {
        match self {
            Outcome::Mate { pv, .. } | Outcome::Mated { pv, .. } => pv,
            _ => &[],
        }
    }
}
