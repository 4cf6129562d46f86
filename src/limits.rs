//! Search limits as the UCI `go` command and the CLI express them, the time budget
//! derived from a game clock, and the budget of a blocking search.

use std::time::Duration;

use shakmaty::Color;

use crate::chess::mate_len::MateBound;

/// A budget of one blocking search: its node and time limits (None: none).
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    /// Total node limit.
    pub nodes: Option<u64>,
    /// Wall-clock limit.
    pub time: Option<Duration>,
}

/// The fallback search's depth (plies) when `go depth` does not give one.
pub const DEFAULT_FALLBACK_DEPTH: u32 = 64;

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
pub struct GoLimits {
    /// Mate bound (`go mate N`).
    pub mate: Option<MateBound>,
    /// `go depth D`, in plies: the prover's mate bound (when no `mate` is given) and the
    /// fallback's depth, within a time that grows with D (see [`GoLimits::time_budget`]).
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

impl GoLimits {
    /// The mate bound in moves the prover gets: `mate`, else the moves that fit in `depth`
    /// plies (a mate in M takes 2M - 1 plies: M = ceil(D / 2)), else none.
    pub fn mate_bound(&self) -> Option<MateBound> {
        self.mate.or(self.depth.map(MateBound::within_plies))
    }

    /// The fallback search's depth in plies: `depth`, else [`DEFAULT_FALLBACK_DEPTH`].
    pub fn fallback_depth(&self) -> u32 {
        self.depth.map_or(DEFAULT_FALLBACK_DEPTH, |d| d.clamp(1, u64::from(DEFAULT_FALLBACK_DEPTH)) as u32)
    }

    /// The time `go depth D` may take when nothing else limits it: 10 ms x 1.3^D
    /// (0.14 s at depth 10, 1.9 s at 20, 26 s at 30), so that it always ends, in about
    /// the time an alpha-beta engine takes to that depth; at most an hour.
    pub fn depth_time(depth: u64) -> Duration {
        Duration::from_secs_f64((0.01 * 1.3f64.powf(depth.min(60) as f64)).min(3600.0))
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
        let from_depth = self.depth.filter(|_| !self.infinite && !self.ponder).map(GoLimits::depth_time);
        [from_clock, from_movetime, from_depth].into_iter().flatten().min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_budget_never_exceeds_the_time_left() {
        let ms = Duration::from_millis;
        let l = GoLimits {
            clock: Some(Clock {
                wtime: Some(ms(1000)),
                btime: Some(ms(60_000)),
                winc: ms(0),
                binc: ms(1000),
                movestogo: None,
            }),
            ..GoLimits::default()
        };
        let w = l.time_budget(Color::White, ms(50)).unwrap();
        assert!(w <= ms(950 / 3) && w >= ms(1), "{w:?}");
        let b = l.time_budget(Color::Black, ms(50)).unwrap();
        assert!(b > ms(2000) && b < ms(20_000), "{b:?}");
        let tiny = GoLimits { clock: Some(Clock { wtime: Some(ms(10)), ..Clock::default() }), ..GoLimits::default() };
        assert_eq!(tiny.time_budget(Color::White, ms(50)), Some(ms(1)));
        assert_eq!(GoLimits::default().time_budget(Color::White, ms(50)), None);
        let mt = GoLimits { movetime: Some(ms(1000)), ..GoLimits::default() };
        assert_eq!(mt.time_budget(Color::White, ms(50)), Some(ms(950)));
    }

    #[test]
    fn mate_bound_prefers_mate_over_depth() {
        let l = GoLimits { mate: MateBound::new(3), depth: Some(9), ..GoLimits::default() };
        assert_eq!(l.mate_bound(), MateBound::new(3));
        let l = GoLimits { depth: Some(100_000), ..GoLimits::default() };
        assert_eq!(l.mate_bound(), Some(MateBound::LONGEST));
        // Depth is plies: a mate within 9 plies is a mate in at most 5 moves.
        let l = GoLimits { depth: Some(9), ..GoLimits::default() };
        assert_eq!((l.mate_bound(), l.fallback_depth()), (MateBound::new(5), 9));
        assert_eq!(MateBound::new(0), None);
        assert_eq!(MateBound::new(u64::MAX), Some(MateBound::LONGEST));
        assert_eq!(GoLimits::default().fallback_depth(), DEFAULT_FALLBACK_DEPTH);
    }

    #[test]
    fn go_depth_always_has_a_time_limit_that_grows_with_depth() {
        let budget = |d| GoLimits { depth: Some(d), ..GoLimits::default() }.time_budget(Color::White, Duration::ZERO);
        assert_eq!(budget(0), Some(Duration::from_millis(10)));
        let (d10, d20) = (budget(10).unwrap(), budget(20).unwrap());
        assert!(d10 > Duration::from_millis(100) && d10 < Duration::from_millis(200), "{d10:?}");
        assert!(d20 > Duration::from_millis(1500) && d20 < Duration::from_millis(2500), "{d20:?}");
        assert_eq!(budget(u64::MAX), Some(Duration::from_secs(3600)));
        let infinite = GoLimits { depth: Some(20), infinite: true, ..GoLimits::default() };
        assert_eq!(infinite.time_budget(Color::White, Duration::ZERO), None);
        let movetime = GoLimits { depth: Some(40), movetime: Some(Duration::from_millis(300)), ..GoLimits::default() };
        assert_eq!(movetime.time_budget(Color::White, Duration::ZERO), Some(Duration::from_millis(300)));
    }
}
