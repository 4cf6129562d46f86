//! The driver's schedule: the df-pn calls it asks, in order, as a cursor over what is
//! known (see the parent module for the questions and why they are asked).
//!
//! The schedule hands out one [`Ask`] at a time ([`Schedule::next`]) and learns each
//! verdict when it comes back ([`Schedule::record`]). On one thread every verdict comes
//! back before the next call is asked, and the calls are the driver's sequence exactly.
//! With several threads (see `parallel`), each thread takes the next call while others
//! are still searching theirs: a call is then chosen on what is known so far, as if the
//! calls still running will answer nothing. When one does answer, the schedule adjusts
//! the calls it has not handed out yet, as one thread would have: a disproof of the near
//! bound climbs at once, a proof starts the tightening, an answer while tightening
//! starts its round of questions again. Whatever a thread asks, its verdict is a fact
//! about the root (a proof, or a disproof of every mate up to a length), so a call asked
//! on knowledge that has since grown can waste time but never mislead.

use std::collections::VecDeque;
use std::sync::Arc;

use shakmaty::{Color, Move};

use crate::chess::mate_len::{MAX_MATE_MOVES, MateBound, MateLen, Plies};
use crate::chess::rules::CLAIM_CLOCK;
use crate::dfpn::Cycles;
use crate::dfpn::expand::Expand;
use crate::dfpn::value::Verdict;
use crate::knowledge::oracle::Oracle;
use crate::knowledge::{Ending, FarBounds, Know, Reach};

/// The long bound of the analysis of an endgame of few men (moves), where the ending's
/// longest mate is not known: each round asks it after the ladder's bounds, cycles cut,
/// with the budget share the ending gives ([`knowledge::ending`]). Quiet mates are proven
/// far sooner at a bound well above their length than near it. 49 moves is the longest
/// mate the 50-move claim allows from a fresh clock; the bound is clamped so that the
/// root's halfmove clock plus the bound stays below the claim (above it, table keys carry
/// the clock and transpositions no longer meet).
const LONG_MOVES: u32 = 49;

/// Node budget of the first alternating round; doubled each round.
pub(super) const FIRST_ROUND_BUDGET: u64 = 20_000;

/// One of the two questions: what is known about it.
#[derive(Clone, Debug)]
pub(super) struct Side {
    pub(super) attacker: Color,
    /// The attacker is the side to move at the root.
    pub(super) root_or: bool,
    /// What is proven about the shortest mate: no mate in fewer plies than this.
    pub(super) at_least: Plies,
    /// What is proven about the shortest mate: a mate in at most this many plies.
    pub(super) at_most: Plies,
    /// The shortest line built and replayed so far.
    pub(super) line: Option<Vec<Move>>,
    /// Nodes the next attempt to build a line may spend.
    pub(super) line_budget: u64,
    /// Whether the tablebases say the attacker wins.
    tables_win: bool,
    /// Whether the game's win can fall on the loser's move
    /// ([`crate::chess::game::Game::wins_on_either_move`]): then a win within M moves has
    /// 2M plies for either side, and the next shorter win is one ply shorter.
    either: bool,
    /// How far the bounds reach in the game: the near bound's ladder (moves) and the far
    /// bounds' rungs ([`Expand::reach`]).
    reach: Reach,
}

impl Side {
    pub(super) fn new(attacker: Color, root_or: bool, either: bool, reach: Reach) -> Side {
        Side {
            attacker,
            root_or,
            at_least: Plies::ZERO,
            at_most: Plies::INFINITE,
            line: None,
            line_budget: super::LINE_BUDGET,
            tables_win: false,
            either,
            reach,
        }
    }

    /// The bound in plies of a mate in `moves` for this side's attacker: a line of
    /// `moves` moves, `2 * moves - 1` plies where the side to move mates and `2 * moves`
    /// where it is mated; `2 * moves` for both where the game's win may fall on the
    /// loser's move.
    pub(super) fn plies_for(&self, moves: u32) -> Plies {
        if self.root_or && !self.either { Plies::mate_in(moves) } else { Plies::mated_in(moves) }
    }

    /// The next shorter win of this side's than one of `plies`: two plies less where the
    /// winner always moves last, one where the loser's move may end the game.
    pub(super) fn shorter(&self, plies: Plies) -> Plies {
        Plies::new(plies.get().saturating_sub(self.step()))
    }

    /// Plies between a win of this side's and the next shorter one.
    fn step(&self) -> u16 {
        if self.either { 1 } else { 2 }
    }

    /// The win in moves, from the root's side to move's view, of a line of `plies`.
    pub(super) fn mate_len(&self, plies: usize) -> MateLen {
        MateLen::of_line(self.root_or, plies)
    }

    /// Whether a mate is proven (with or without a line).
    pub(super) fn found(&self) -> bool {
        !self.at_most.is_infinite()
    }

    pub(super) fn done(&self, cap: u32) -> bool {
        self.found() || self.at_least > self.plies_for(cap)
    }

    /// Whether the shortest proven mate still lacks its line.
    pub(super) fn needs_line(&self) -> bool {
        self.found() && self.line.as_ref().is_none_or(|l| l.len() > usize::from(self.at_most.get()))
    }

    /// Index of the near bound on the ladder: the smallest rung not yet disproven.
    fn rung(&self) -> usize {
        let ladder = self.reach.ladder;
        (0..ladder.len() - 1).find(|&r| self.at_least <= self.plies_for(ladder[r])).unwrap_or(ladder.len() - 1)
    }

    /// The near bound (moves) under the cap.
    pub(super) fn near(&self, cap: u32) -> u32 {
        self.reach.ladder[self.rung()].min(cap)
    }

    /// The far bounds (moves) under the cap, ascending.
    fn far(&self, cap: u32) -> impl Iterator<Item = u32> + use<> {
        let rung = self.rung();
        let Reach { ladder, far: (first, last), .. } = self.reach;
        (first..=last).map(move |k| ladder[(rung + k).min(ladder.len() - 1)].min(cap))
    }

    /// The most moves within which this side's mate is disproven.
    fn disproven_moves(&self) -> u32 {
        (0..MAX_MATE_MOVES).take_while(|&m| self.plies_for(m + 1) < self.at_least).count() as u32
    }

    /// In words: what is disproven for this side, and the bound the search tries next
    /// (`stm` is the side to move at the root).
    pub(super) fn disproven_status(&self, stm: Color, cap: u32) -> String {
        let moves = self.disproven_moves();
        let who = if stm == Color::White { ("white", "black") } else { ("black", "white") };
        let done = if self.root_or {
            format!("no mate for {} within {moves} (proven)", who.0)
        } else {
            format!("{} is not mated within {moves} (proven)", who.0)
        };
        if self.done(cap) {
            return done;
        }
        let near = self.near(cap);
        let who_mates = if self.root_or { who.0 } else { who.1 };
        format!("{done}; proving mate within {near} for {who_mates}")
    }

    /// Whether a mate of `plies` is proven shortest: the next shorter length (plies - 2,
    /// or plies - 1 where the loser's move may end the game) is disproven, or there is
    /// none (a mate in one; mated in one, as a root already over never reaches the
    /// search).
    pub(super) fn is_exact(&self, plies: usize) -> bool {
        let step = usize::from(self.step());
        plies <= step || usize::from(self.at_least.get()) > plies - step
    }
}

/// One df-pn call of the schedule: at the root, for one of the two questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ask {
    /// The question: 0 "does the side to move mate?", 1 "is it mated?".
    pub side: usize,
    /// The bound in plies.
    pub bound: Plies,
    /// Node budget (of the thread that searches it).
    pub budget: u64,
    /// How the call treats cycles on the search path.
    pub cycles: Cycles,
    /// Where in the schedule the call comes from.
    pub role: Role,
}

/// Where in the schedule a call comes from: what its verdict does to the calls after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// Mates in one and two, exactly: an unanswered one ends them.
    Short,
    /// A round's near bound: its disproof climbs the ladder at once.
    Near,
    /// A round's far bound, the cap or the long bound.
    Far,
    /// A question of the tightening of a proven mate.
    Tighten,
}

/// What the schedule asks next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Search this call.
    Ask(Ask),
    /// The schedule is over.
    Done(End),
}

/// How the schedule ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// Both questions are disproven up to the cap.
    NoMate,
    /// A hard limit came before an answer.
    Stopped,
    /// The question `side` has a proven mate, tightened as far as it went.
    Mate(usize),
}

/// What a verdict changed, for the driver to report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Recorded {
    /// The question's proven mate got shorter (or was proven first).
    pub proof: bool,
    /// The verdict started the tightening.
    pub tightening: bool,
    /// A round's near bound was disproven (the driver reports the status).
    pub climbed: bool,
}

/// Where the schedule stands.
#[derive(Clone, Debug)]
enum Phase {
    /// Mates in `moves` moves, question `side` next.
    Short { moves: u32, side: usize },
    /// The long call of a question whose attacker the tablebases say wins, asked once
    /// before the rounds with the first round's whole long share (question `side` next).
    Won { side: usize },
    /// The alternating rounds: this round's budget and question; `far` holds the calls of
    /// the question's round still to ask after its near bound (None: the near bound next).
    Rounds { budget: u64, side: usize, far: Option<VecDeque<(u32, u64)>> },
    /// The tightening of question `side`'s proven mate: this round's budget and the next
    /// of its questions.
    Tighten { side: usize, budget: u64, next: usize },
}

/// How far the bounds go in the root's ending, per attacker (see [`Schedule::new`]).
#[derive(Clone)]
struct Endings(Arc<dyn Fn(Color) -> Option<Ending> + Send + Sync>);

impl std::fmt::Debug for Endings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Endings")
    }
}

/// The driver's schedule over the two questions of one root.
#[derive(Clone, Debug)]
pub(super) struct Schedule {
    /// What is known about each question.
    pub sides: [Side; 2],
    phase: Phase,
    /// The bound of every question (moves): the user's, else the longest.
    pub cap: u32,
    /// How far the bounds go in the root's ending for each attacker, as the game's oracle
    /// says ([`crate::knowledge::oracle::Oracle::ending`]; asked again each round, since
    /// an exact table may be ready by then), and the root's halfmove clock.
    ending: Endings,
    clock: u32,
    /// Whether the user set the bound.
    user_bound: bool,
}

impl Schedule {
    /// The schedule of a search of `root`, under the user's bound `mate` (moves), if any.
    pub fn new<G: Expand>(root: &G, mate: Option<MateBound>, oracle: &G::Oracle) -> Schedule {
        let (stm, either) = (root.turn(), root.wins_on_either_move());
        let reach = <G::Knowledge<'static> as Know<G>>::reach(root);
        let (oracle, position) = (oracle.clone(), root.clone());
        Schedule {
            sides: [Side::new(stm, true, either, reach), Side::new(!stm, false, either, reach)],
            phase: Phase::Short { moves: 1, side: 0 },
            cap: mate.map_or(MAX_MATE_MOVES, MateBound::moves),
            ending: Endings(Arc::new(move |attacker| oracle.ending(&position, attacker))),
            clock: root.halfmoves(),
            user_bound: mate.is_some(),
        }
    }

    /// Says which questions' attackers the tablebases call winners: their long calls go
    /// first ([`Phase::Won`]).
    pub fn with_won(mut self, won: [bool; 2]) -> Schedule {
        for (side, won) in self.sides.iter_mut().zip(won) {
            side.tables_win = won;
        }
        self
    }

    /// The question being tightened, once a mate is proven.
    pub fn tightening(&self) -> Option<usize> {
        match self.phase {
            Phase::Tighten { side, .. } => Some(side),
            _ => None,
        }
    }

    /// The tightening's budget for a call outside its questions (the proof of a mate again,
    /// when the table lost part of it); doubles it for the next.
    pub fn tightening_budget(&mut self) -> Option<u64> {
        match &mut self.phase {
            Phase::Tighten { budget, .. } => {
                let b = *budget;
                *budget = budget.saturating_mul(2);
                Some(b)
            }
            _ => None,
        }
    }

    /// The next call, or the end (`stopped`: a hard limit has struck).
    pub fn next(&mut self, stopped: bool) -> Step {
        let cap = self.cap;
        loop {
            match &mut self.phase {
                Phase::Short { moves, side } => {
                    if stopped || *moves > cap.min(2) {
                        self.phase = Phase::Won { side: 0 };
                        continue;
                    }
                    let s = *side;
                    let bound = self.sides[s].plies_for(*moves);
                    (*moves, *side) = if s == 0 { (*moves, 1) } else { (*moves + 1, 0) };
                    return Step::Ask(Ask {
                        side: s,
                        bound,
                        budget: FIRST_ROUND_BUDGET,
                        cycles: Cycles::Search,
                        role: Role::Short,
                    });
                }
                Phase::Won { side } => {
                    let s = *side;
                    if s == 2 || stopped {
                        self.phase = Phase::Rounds { budget: FIRST_ROUND_BUDGET, side: 0, far: None };
                        continue;
                    }
                    *side += 1;
                    let question = &self.sides[s];
                    if !question.tables_win || question.done(cap) {
                        continue;
                    }
                    let Some(long) = self.long_call(question, 0) else { continue };
                    let bound = question.plies_for(long.moves);
                    let budget = FIRST_ROUND_BUDGET.saturating_mul(long.ending.long_share);
                    return Step::Ask(Ask { side: s, bound, budget, cycles: Cycles::Cut, role: Role::Far });
                }
                Phase::Rounds { budget, side, far } => {
                    if *side == 2 {
                        if self.sides.iter().all(|s| s.done(cap)) {
                            return Step::Done(End::NoMate);
                        }
                        if stopped {
                            return Step::Done(End::Stopped);
                        }
                        (*budget, *side, *far) = (budget.saturating_mul(2), 0, None);
                        continue;
                    }
                    let (s, b) = (*side, *budget);
                    match far {
                        None => {
                            if self.sides[s].done(cap) || stopped {
                                *side += 1;
                                continue;
                            }
                            let near = self.sides[s].near(cap);
                            // The calls after the near bound, as its verdict would leave them
                            // unless it disproves the bound (then `record` asks it again).
                            let calls = self.far_calls(&self.sides[s], near);
                            self.phase = Phase::Rounds { budget: b, side: s, far: Some(calls) };
                            let bound = self.sides[s].plies_for(near);
                            return Step::Ask(Ask {
                                side: s,
                                bound,
                                budget: b,
                                cycles: Cycles::Search,
                                role: Role::Near,
                            });
                        }
                        Some(calls) => match calls.pop_front().filter(|_| !stopped) {
                            Some((moves, share)) => {
                                let bound = self.sides[s].plies_for(moves);
                                let budget = b.saturating_mul(share);
                                return Step::Ask(Ask { side: s, bound, budget, cycles: Cycles::Cut, role: Role::Far });
                            }
                            None => (*side, *far) = (s + 1, None),
                        },
                    }
                }
                Phase::Tighten { side, budget, next } => {
                    let s = &self.sides[*side];
                    if stopped || s.is_exact(usize::from(s.at_most.get())) {
                        return Step::Done(End::Mate(*side));
                    }
                    let questions = tightening_questions(s, cap);
                    if *next >= questions.len() {
                        // A round without an answer: the next one gets twice the budget.
                        (*budget, *next) = (budget.saturating_mul(2), 0);
                    }
                    let (bound, cycles) = questions[*next];
                    *next += 1;
                    return Step::Ask(Ask { side: *side, bound, budget: *budget, cycles, role: Role::Tighten });
                }
            }
        }
    }

    /// Learns the verdict of `ask`.
    pub fn record(&mut self, ask: &Ask, verdict: Verdict) -> Recorded {
        let side = &mut self.sides[ask.side];
        let known = (side.at_least, side.at_most);
        match verdict {
            Verdict::Disproven(at_least) => side.at_least = side.at_least.max(at_least),
            Verdict::Proven(p) => side.at_most = side.at_most.min(p),
            Verdict::Unknown => {}
        }
        let changed = (side.at_least, side.at_most) != known;
        let mut recorded = Recorded { proof: side.at_most < known.1, ..Recorded::default() };
        match &mut self.phase {
            Phase::Tighten { side, next, .. } => {
                // An answer starts the round of questions again, with the same budget.
                if changed && *side == ask.side {
                    *next = 0;
                }
            }
            _ if self.sides[ask.side].found() => {
                self.phase = Phase::Tighten { side: ask.side, budget: FIRST_ROUND_BUDGET, next: 0 };
                recorded.tightening = true;
            }
            Phase::Short { .. } => {
                if verdict == Verdict::Unknown && ask.role == Role::Short {
                    self.phase = Phase::Won { side: 0 };
                }
            }
            Phase::Won { .. } => {}
            Phase::Rounds { budget, side, far } => {
                if ask.role == Role::Near && matches!(verdict, Verdict::Disproven(_)) {
                    recorded.climbed = true;
                    // Climb at once: the next rung gets this round's budget.
                    if *side == ask.side && *budget == ask.budget {
                        *far = None;
                    }
                }
            }
        }
        recorded
    }

    /// The calls of a round after the near bound `near` for `side`: the far bounds, the cap
    /// (the user's bound, or the longest one in analysis) and then the long bound of a
    /// few-men endgame, each with its budget in ladder calls. They look for mates only:
    /// cycles are cut there.
    fn far_calls(&self, side: &Side, near: u32) -> VecDeque<(u32, u64)> {
        let long = self.long_call(side, near);
        let ceiling = far_ceiling(long);
        let mut calls = VecDeque::new();
        let mut last = near;
        let cap = (side.reach.cap || self.user_bound).then_some(self.cap);
        for moves in side.far(self.cap).chain(cap) {
            if moves > last && moves <= ceiling && long.is_none_or(|c| c.moves != moves) {
                calls.push_back((moves, 1));
            }
            last = last.max(moves);
        }
        calls.extend(long.map(|c| (c.moves, c.ending.long_share)));
        calls
    }

    /// The long call of this round for `side`, in the analysis of an endgame of few men
    /// ([`knowledge::ending`]): its bound (moves: the ending's longest mate where it is
    /// known, else [`LONG_MOVES`], clamped below the 50-move claim) and its budget in
    /// ladder calls ([`Ending::long_share`]). None elsewhere, or when the bound is not above
    /// `near`.
    fn long_call(&self, side: &Side, near: u32) -> Option<LongCall> {
        if self.user_bound {
            return None;
        }
        let ending = (self.ending.0)(side.attacker)?;
        // A won ending's proof follows the tables' line, which may be longer than the
        // shortest mate: the bound leaves it room.
        let longest = if side.tables_win { LONG_MOVES } else { ending.longest_mate.unwrap_or(LONG_MOVES) };
        let clock = self.clock;
        let moves = (1..=longest).rev().find(|&m| clock + u32::from(side.plies_for(m).get()) < CLAIM_CLOCK)?;
        (moves > near).then_some(LongCall { moves, ending })
    }
}

/// A round's long call: its bound (moves) and the ending it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LongCall {
    moves: u32,
    ending: Ending,
}

/// The longest far bound (moves, the cap among them) worth asking beside the round's
/// `long` call, as its ending says ([`FarBounds`]). Every bound is asked again once the
/// near bound passes the long one and no long call is left. The ceiling of a known
/// longest mate is not cut at the 50-move claim, since taking a piece resets the count.
fn far_ceiling(long: Option<LongCall>) -> u32 {
    let Some(LongCall { moves, ending }) = long else { return u32::MAX };
    match ending.far {
        FarBounds::None => 0,
        FarBounds::UpToLong => moves,
        FarBounds::UpToLongestMate => ending.longest_mate.unwrap_or(u32::MAX),
    }
}

/// The questions of a round of the tightening of `side`'s mate of `P` plies, in order:
/// - `P - 2` with cycles cut, which looks for a shorter mate: a first proof at a long
///   bound is often far from the shortest (a mate in 63 where 21 exists), and searching
///   cycles out at such a bound chases perpetual checks;
/// - a bound halfway between the near bound and `P - 2`, cycles cut: a smaller bound
///   keeps df-pn on shorter lines, so it finds a much shorter mate sooner;
/// - the near bound (the smallest rung not yet disproven, at most `P - 2`), cycles
///   searched: its disproofs climb towards `P - 2`, whose disproof makes the mate exact.
///
/// The cut questions only when they ask more than the near bound (the halfway bound is
/// below `P - 2` whenever it is above the near bound).
fn tightening_questions(side: &Side, cap: u32) -> Vec<(Plies, Cycles)> {
    let shorter = side.shorter(side.at_most);
    let near = side.plies_for(side.near(cap)).min(shorter);
    // In chess bounds keep their parity (a bound of the other parity asks the same
    // question).
    let half = shorter.get() - near.get();
    let mid = Plies::new(near.get() + if side.either { half / 2 } else { half / 4 * 2 });
    [(shorter, Cycles::Cut), (mid, Cycles::Cut), (near, Cycles::Search)]
        .into_iter()
        .filter(|&(bound, cycles)| cycles == Cycles::Search || bound > near)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::parse_fen;
    use crate::knowledge::oracle::ChessOracle;
    use crate::knowledge::{LONG_SHARE, QUIET_LONG_SHARE};

    /// The longest K+Q v K+R and K+Q v K mates, as their exact tables say.
    const KQKR_LONGEST_MATE: u32 = 35;
    const KQK_LONGEST_MATE: u32 = 10;

    /// The schedule of a search of `fen` (bound `mate`, if any).
    fn schedule(fen: &str, mate: Option<u32>) -> Schedule {
        let pos = parse_fen(fen).unwrap();
        Schedule::new(&pos, mate.and_then(|m| MateBound::new(m.into())), &ChessOracle::default())
    }

    fn ask(step: Step) -> Ask {
        match step {
            Step::Ask(ask) => ask,
            Step::Done(end) => panic!("the schedule ended: {end:?}"),
        }
    }

    /// The next call's question, bound (plies), budget, cycles and role.
    fn next(s: &mut Schedule) -> (usize, u16, u64, Cycles, Role) {
        let a = ask(s.next(false));
        (a.side, a.bound.get(), a.budget, a.cycles, a.role)
    }

    const B: u64 = FIRST_ROUND_BUDGET;

    #[test]
    fn short_mates_then_a_round_of_near_far_cap_and_long_bounds() {
        // K+Q v K, analysis: an endgame of few men, so the round ends with the long call.
        let mut s = schedule("8/8/7K/4Q3/8/8/2k5/8 w - - 0 1", None);
        let short = [(0, 1), (1, 2), (0, 3)];
        for (i, &(side, plies)) in short.iter().enumerate() {
            let a = ask(s.next(false));
            assert_eq!((a.side, a.bound.get(), a.role), (side, plies, Role::Short));
            let verdict = if i < 2 { Verdict::Disproven(a.bound.succ()) } else { Verdict::Unknown };
            assert_eq!(s.record(&a, verdict), Recorded::default());
        }
        // An unanswered short call ends them: the first round, the near bound of 3 moves.
        let near = ask(s.next(false));
        assert_eq!((near.side, near.bound.get(), near.budget, near.role), (0, 5, B, Role::Near));
        s.record(&near, Verdict::Unknown);
        let far: Vec<_> = std::iter::from_fn(|| Some(next(&mut s))).take_while(|c| c.0 == 0).collect();
        let cut = |moves: u32, share: u64| (0, Plies::mate_in(moves).get(), B * share, Cycles::Cut, Role::Far);
        assert_eq!(
            far,
            [cut(6, 1), cut(8, 1), cut(KQK_LONGEST_MATE, LONG_SHARE)],
            "nothing above K+Q v K's longest mate, read from its exact table"
        );
    }

    #[test]
    fn a_near_disproof_climbs_at_once_even_when_later_calls_were_handed_out() {
        let mut s = schedule("8/8/7K/4Q3/8/8/2k5/8 w - - 0 1", Some(20));
        s.phase = Phase::Rounds { budget: B, side: 0, far: None };
        let near = ask(s.next(false));
        assert_eq!(near.bound, Plies::mate_in(3));
        // Another thread takes the next call while the near bound is searched.
        assert_eq!(next(&mut s), (0, Plies::mate_in(6).get(), B, Cycles::Cut, Role::Far));
        let recorded = s.record(&near, Verdict::Disproven(Plies::mate_in(3).succ()));
        assert!(recorded.climbed && !recorded.proof);
        // The next rung, with this round's budget, before any other far bound.
        assert_eq!(next(&mut s), (0, Plies::mate_in(4).get(), B, Cycles::Search, Role::Near));
        assert_eq!(next(&mut s), (0, Plies::mate_in(8).get(), B, Cycles::Cut, Role::Far));
    }

    #[test]
    fn a_proof_starts_the_tightening_whose_answers_restart_its_questions() {
        let mut s = schedule("8/8/7K/4Q3/8/8/2k5/8 w - - 0 1", Some(20));
        s.phase = Phase::Rounds { budget: 4 * B, side: 0, far: None };
        let near = ask(s.next(false));
        let far = ask(s.next(false));
        assert_eq!(far.bound, Plies::mate_in(6));
        let recorded = s.record(&far, Verdict::Proven(Plies::mate_in(6)));
        assert!(recorded.proof && recorded.tightening);
        // The near bound's verdict comes back late: it still counts, and climbs nothing.
        assert!(!s.record(&near, Verdict::Disproven(Plies::mate_in(3).succ())).climbed);
        assert_eq!(s.tightening(), Some(0));
        let tighten = |bound: u32, cycles, budget| (0, Plies::mate_in(bound).get(), budget, cycles, Role::Tighten);
        // Mate in 6 found, no mate in 3: a mate in 5 (cut), halfway (4), the near bound (4).
        assert_eq!(next(&mut s), tighten(5, Cycles::Cut, B));
        assert_eq!(next(&mut s), tighten(4, Cycles::Search, B));
        // A round without an answer: the next gets twice the budget.
        assert_eq!(next(&mut s), tighten(5, Cycles::Cut, 2 * B));
        let q = ask(s.next(false));
        assert_eq!(q.bound, Plies::mate_in(4));
        assert!(!s.record(&q, Verdict::Disproven(Plies::mate_in(4).succ())).climbed);
        // An answer: the round starts again with the same budget, at the only question left.
        assert_eq!(next(&mut s), tighten(5, Cycles::Search, 2 * B));
        let q = ask(s.next(false));
        s.record(&q, Verdict::Disproven(Plies::mate_in(5).succ()));
        assert_eq!(s.next(false), Step::Done(End::Mate(0)), "mate in 6, exact");
    }

    #[test]
    fn the_rounds_end_when_both_questions_are_disproven_or_a_limit_strikes() {
        let mut s = schedule("8/8/7K/4Q3/8/8/2k5/8 w - - 0 1", Some(2));
        assert_eq!(s.next(true), Step::Done(End::Stopped));
        let mut s = schedule("8/8/7K/4Q3/8/8/2k5/8 w - - 0 1", Some(2));
        for _ in 0..4 {
            let a = ask(s.next(false));
            assert_eq!(a.role, Role::Short);
            s.record(&a, Verdict::Disproven(a.bound.succ()));
        }
        assert_eq!(s.next(false), Step::Done(End::NoMate));
    }
    /// The long call (bound and share) the first round of a search of `fen` asks, the
    /// near bound at 3.
    fn long_call(fen: &str, mate: Option<u32>) -> Option<(u32, u64)> {
        let s = schedule(fen, mate);
        s.long_call(&s.sides[0], 3).map(|c| (c.moves, c.ending.long_share))
    }

    #[test]
    fn endgame_analysis_asks_a_long_bound_below_the_fifty_move_claim() {
        let kbbk = "8/4k3/8/8/5B2/K7/8/7B w - -";
        // Two bishops mate in 19 moves at most (their exact table).
        assert_eq!(long_call(&format!("{kbbk} 0 1"), None), Some((19, QUIET_LONG_SHARE)));
        assert_eq!(long_call(&format!("{kbbk} 0 1"), Some(20)), None, "the user's bound is the question");
        // 70 + (2 * 14 - 1) plies stays below the claim at 99; a mate in 15 would not.
        assert_eq!(long_call(&format!("{kbbk} 70 60"), None), Some((14, QUIET_LONG_SHARE)));
        assert_eq!(long_call(&format!("{kbbk} 95 100"), None), None, "nothing above the near bound fits");
        assert_eq!(long_call("8/N2p4/1R6/3k4/1P6/5r2/5Q2/1K6 w - - 0 1", None), None, "eight men");
        assert_eq!(long_call("8/8/3p4/1K6/8/4k3/P7/R1N3N1 w - - 0 1", None), None, "seven men");
        assert_eq!(
            long_call("Q7/8/1k5r/8/8/8/2K5/8 w - - 0 1", None),
            Some((KQKR_LONGEST_MATE, LONG_SHARE)),
            "the defender's rook against a queen: the ending's longest mate"
        );
        assert_eq!(
            long_call("Q7/8/1k5r/8/8/8/2K5/8 w - - 80 100", None),
            Some((9, LONG_SHARE)),
            "80 + 17 plies, below the claim"
        );
        assert_eq!(
            long_call("8/8/1k5r/8/8/8/2K5/8 b - - 0 1", None),
            Some((16, LONG_SHARE)),
            "K+R v K: its longest mate, 16 moves"
        );
        assert_eq!(
            long_call("8/5r2/7R/8/5BK1/8/6k1/8 w - - 0 1", None),
            Some((LONG_MOVES, QUIET_LONG_SHARE)),
            "the defender's rook against rook and bishop"
        );
        assert_eq!(
            long_call("8/5p2/8/8/6N1/8/6K1/k5N1 w - - 0 1", None),
            Some((LONG_MOVES, LONG_SHARE)),
            "the defender's pawn"
        );
        assert_eq!(
            long_call("8/8/8/8/8/5k2/3K4/N1B5 w - - 0 1", None),
            Some((33, QUIET_LONG_SHARE)),
            "a bare king against bishop and knight: their longest mate"
        );
    }

    /// The longest far bound the first round of a search of `fen` asks beside its long
    /// call, the near bound at 3.
    fn far_ceiling(fen: &str, mate: Option<u32>) -> u32 {
        let s = schedule(fen, mate);
        super::far_ceiling(s.long_call(&s.sides[0], 3))
    }

    #[test]
    fn quiet_mates_ask_no_far_bound_above_the_long_one() {
        let kbbk = "8/4k3/8/8/5B2/K7/8/7B w - -";
        assert_eq!(far_ceiling(&format!("{kbbk} 0 1"), None), 0, "two bishops: the long call alone");
        assert_eq!(far_ceiling(&format!("{kbbk} 0 1"), Some(20)), u32::MAX, "the user's bound: no long call");
        let kbnk = "8/8/8/8/8/5k2/3K4/N1B5 w - -";
        assert_eq!(far_ceiling(&format!("{kbnk} 0 1"), None), 33, "K+B+N v K's longest mate");
        assert_eq!(far_ceiling(&format!("{kbnk} 40 60"), None), 29, "the long bound below the claim");
        assert_eq!(far_ceiling("8/8/8/3k4/8/2K5/3P4/1B2B3 w - - 0 1", None), 0, "two bishops and a pawn");
        assert_eq!(far_ceiling("8/8/8/3k4/8/2K5/3P4/1N2B3 w - - 0 1", None), LONG_MOVES, "bishop, knight and pawn");
        assert_eq!(far_ceiling("8/8/8/3k4/8/2K5/8/1R6 w - - 0 1", None), 16, "a rook: up to its longest mate");
        assert_eq!(far_ceiling("8/8/8/3k4/8/2K5/PP6/1R6 w - - 0 1", None), u32::MAX, "a rook and pawns mate by checks");
        assert_eq!(far_ceiling("8/5r2/7R/8/5BK1/8/6k1/8 w - - 0 1", None), u32::MAX, "an armed defender");
        let kqkr = "Q7/8/1k5r/8/8/8/2K5/8 w - -";
        assert_eq!(far_ceiling(&format!("{kqkr} 0 1"), None), KQKR_LONGEST_MATE, "no K+Q v K+R mate is longer");
        assert_eq!(far_ceiling(&format!("{kqkr} 80 100"), None), KQKR_LONGEST_MATE, "taking the rook resets the clock");
        assert_eq!(far_ceiling(&format!("{kqkr} 0 1"), Some(40)), u32::MAX, "the user's bound: no long call");
    }
}
