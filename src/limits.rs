//! Search limits as the UCI `go` command and the CLI express them, and the time budget
//! derived from a game clock.

use std::time::Duration;

use shakmaty::Color;

/// A game clock as `go wtime .. btime .. winc .. binc .. movestogo ..` gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// White's remaining time.
    pub wtime: Option<Duration>,
    /// Black's remaining time.
    pub btime: Option<Duration>,
    /// White's increment.
    pub winc: Duration,
    /// Black's increment.
    pub binc: Duration,
    /// Moves to the next time control.
    pub movestogo: Option<u64>,
}

/// Everything a `go` command can ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Mate bound in moves (`go mate N`).
    pub mate: Option<u64>,
    /// `go depth D`, read as a mate bound of D moves when no `mate` is given.
    pub depth: Option<u64>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Fixed time.
    pub movetime: Option<Duration>,
    /// Game clock.
    pub clock: Option<Clock>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder: search until `ponderhit` (then the clock applies) or `stop`.
    pub ponder: bool,
    /// Root moves to consider (UCI notation), empty for all.
    pub searchmoves: Vec<String>,
}

impl Limits {
    /// The mate bound in moves the prover gets: `mate`, else `depth`, else none.
    pub fn mate_bound(&self) -> Option<u32> {
        self.mate.or(self.depth).map(|n| n.clamp(1, u64::from(crate::search::mate_len::MAX_MATE_MOVES)) as u32)
    }

    /// How long this move may take, for the side `turn`, keeping `overhead` in reserve
    /// for communication. None when no time limit applies.
    ///
    /// With a clock: a share of the remaining time (1/movestogo, or 1/25 of it without
    /// movestogo) plus most of the increment, never more than the time left minus the
    /// overhead and never more than a third of it.
    pub fn time_budget(&self, turn: Color, overhead: Duration) -> Option<Duration> {
        let from_clock = self.clock.and_then(|c| {
            let (left, inc) = match turn {
                Color::White => (c.wtime?, c.winc),
                Color::Black => (c.btime?, c.binc),
            };
            let usable = left.saturating_sub(overhead);
            let moves = c.movestogo.unwrap_or(25).clamp(1, 50) as u32;
            let share = usable / moves + inc.mul_f64(0.75);
            Some(share.min(usable / 3).max(Duration::from_millis(1)).min(usable.max(Duration::from_millis(1))))
        });
        let from_movetime = self.movetime.map(|t| t.saturating_sub(overhead.min(t / 2)));
        match (from_clock, from_movetime) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_budget_never_exceeds_the_time_left() {
        let ms = Duration::from_millis;
        let l = Limits {
            clock: Some(Clock {
                wtime: Some(ms(1000)),
                btime: Some(ms(60_000)),
                winc: ms(0),
                binc: ms(1000),
                movestogo: None,
            }),
            ..Limits::default()
        };
        let w = l.time_budget(Color::White, ms(50)).unwrap();
        assert!(w <= ms(950 / 3) && w >= ms(1), "{w:?}");
        let b = l.time_budget(Color::Black, ms(50)).unwrap();
        assert!(b > ms(2000) && b < ms(20_000), "{b:?}");
        let tiny = Limits { clock: Some(Clock { wtime: Some(ms(10)), ..Clock::default() }), ..Limits::default() };
        assert_eq!(tiny.time_budget(Color::White, ms(50)), Some(ms(1)));
        assert_eq!(Limits::default().time_budget(Color::White, ms(50)), None);
        let mt = Limits { movetime: Some(ms(1000)), ..Limits::default() };
        assert_eq!(mt.time_budget(Color::White, ms(50)), Some(ms(950)));
    }

    #[test]
    fn mate_bound_prefers_mate_over_depth() {
        let l = Limits { mate: Some(3), depth: Some(9), ..Limits::default() };
        assert_eq!(l.mate_bound(), Some(3));
        let l = Limits { depth: Some(100_000), ..Limits::default() };
        assert_eq!(l.mate_bound(), Some(crate::search::mate_len::MAX_MATE_MOVES));
    }
}
