//! What the engine reports while and after searching, and the sink that receives it.

use std::sync::{Arc, Mutex};

use shakmaty::Move;

use crate::search::multipv::MoveResult;
use crate::search::{Event, Stats};

/// The largest evaluation reported as `score cp`: the fallback's own mate scores are
/// unproven, so they are shown as a large edge, never as a mate.
pub(super) const MAX_CP: i32 = 10_000;

/// What the engine reports while and after searching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineEvent {
    /// A proven mate or no-mate from the prover.
    Search(Event),
    /// The root has no legal move: checkmated (true) or stalemated (false).
    RootTerminal {
        /// True when the side to move is checkmated.
        checkmated: bool,
    },
    /// A note for the user (UCI `info string`).
    Note(String),
    /// The search is alive: what it has searched so far (at least once a second).
    Progress(Stats),
    /// MultiPV: the best root moves so far, best first, each with its own result.
    Ranked {
        /// The moves reported (at most MultiPV), best first.
        results: Vec<MoveResult>,
        /// Statistics so far.
        stats: Stats,
    },
    /// The root move the prover works on changed: the move and its number (from 1) in
    /// the root's move order.
    CurrMove {
        /// The bound (plies) being searched.
        depth: u32,
        /// The root move.
        mv: Move,
        /// Its number in the root's move order.
        number: u32,
    },
    /// No mate was proven: the fallback's evaluation of its move, in centipawns from the
    /// side to move's view, and its line (the move to play first).
    Evaluation {
        /// Centipawns, within +-[`MAX_CP`].
        cp: i32,
        /// The line: the move to play, then the expected reply when known.
        pv: Vec<Move>,
        /// Statistics at the end of the search (`depth`: the fallback's completed depth).
        stats: Stats,
    },
    /// The search is over. `best` is None only when the root has no legal move (or no
    /// valid position was given).
    BestMove {
        /// The move to play.
        best: Option<Move>,
        /// The expected reply, when one is known.
        ponder: Option<Move>,
    },
}

impl EngineEvent {
    /// Whether the event carries a score a client records for the move: a proven mate,
    /// MultiPV's ranked moves, or the fallback's evaluation.
    fn has_score(&self) -> bool {
        matches!(
            self,
            EngineEvent::Search(Event::Mate { .. }) | EngineEvent::Ranked { .. } | EngineEvent::Evaluation { .. }
        )
    }
}

/// Receives engine events; called from the search thread.
pub type Sink = Arc<dyn Fn(EngineEvent) + Send + Sync>;

/// `sink`, keeping in `last` the last event it passes on that carries a score.
pub(super) fn remembering_scores(sink: &Sink, last: &Arc<Mutex<Option<EngineEvent>>>) -> Sink {
    let (sink, last) = (Arc::clone(sink), Arc::clone(last));
    Arc::new(move |e: EngineEvent| {
        if e.has_score() {
            *last.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.clone());
        }
        sink(e)
    })
}
