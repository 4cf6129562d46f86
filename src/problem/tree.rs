//! The solution of battle play as problemists read it: each key with its threat (or
//! zugzwang) and the defences that stop the threat, each with the attacker's shortest
//! continuations down to the stipulation's end; tries with their refutations; set play.
//!
//! Everything is read off the prover's values, the same calls that find the keys: "does
//! the attacker win from here within q plies?". A threat is what the attacker would win
//! with if the defender could pass; a defence is shown when it stops at least one threat
//! move without letting the attacker win faster (every defence in zugzwang or after a
//! check).

use std::ops::ControlFlow;

use shakmaty::{Move, Position};

use super::game::{Problem, pass_of};
use super::prover::{OutOfLimits, ProblemSolver};
use super::stipulation::Play as StipPlay;
use crate::chess::game::Standing;
use crate::chess::node::Node;

/// What the solution shows beyond the keys (Popeye's options `vari`, `nothreat`,
/// `threat n`, `try`, `defence n`, `set`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Show {
    /// Threats and variations after each key and try.
    pub variations: bool,
    /// Whether threats are looked for; without, every defence is shown.
    pub threats: bool,
    /// The longest threat looked for, in moves.
    pub max_threat: Option<u16>,
    /// Tries: first moves refuted by at least one and at most this many defences.
    pub tries: Option<usize>,
    /// Set play: the defender's moves in the diagram, as if the attacker had passed.
    pub set_play: bool,
    /// The diagram is the position after the key, the defender to move (`postkey`).
    pub postkey: bool,
}

impl Default for Show {
    fn default() -> Self {
        Show { variations: false, threats: true, max_threat: None, tries: None, set_play: false, postkey: false }
    }
}

/// An attacker's move and the play after it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attack {
    pub mv: Option<Move>,
    pub play: Play,
}

/// The play after an attacker's move, with the defender to move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Play {
    /// The threat: None where none was looked for (after a check, before the last forced
    /// move, or at the end); empty for zugzwang.
    pub threat: Option<Vec<Attack>>,
    /// The defences shown.
    pub defences: Vec<Defence>,
}

/// A defence and the attacker's shortest continuations after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defence {
    pub mv: Move,
    /// Empty where the defence itself ends the play in the goal (a selfmate's last move)
    /// or refutes.
    pub continuations: Vec<Attack>,
    /// No continuation wins: shown only in play after the key (`postkey`).
    pub refutes: bool,
}

/// A first move of the attacker: a key (no refutations) or a try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstMove {
    pub attack: Attack,
    /// The defences that refute a try; empty for a key.
    pub refutations: Vec<Move>,
}

/// The solution of a battle problem.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// Set play, where asked for and there is some.
    pub set_play: Option<Vec<Defence>>,
    /// Keys and tries, in the order of the legal moves.
    pub first: Vec<FirstMove>,
    /// The play from a diagram after the key (`postkey`), refuting defences included.
    pub postkey: Option<Play>,
}

/// What a defender's move leads to.
enum Answer {
    /// The defender's move itself meets the goal.
    Goal,
    /// The attacker wins within the plies left: its shortest continuations (empty where
    /// only whether there is one was asked).
    Continued(Vec<Attack>),
    /// No continuation wins within the plies left.
    Unanswered,
}

impl ProblemSolver<'_> {
    /// The attacker's shortest wins from `node` (the attacker to move) within `plies`:
    /// their length in plies and their first moves; None where there is none.
    fn shortest(&mut self, node: &Node<Problem>, plies: u16) -> Result<Option<(u16, Vec<Move>)>, OutOfLimits> {
        if plies == 0 {
            return Ok(None);
        }
        let Some(q) = self.win_length(node, 1, plies)? else { return Ok(None) };
        let mut moves = Vec::new();
        for m in node.pos.legal_moves() {
            if self.prove(&node.play(m), q - 1)? {
                moves.push(m);
            }
        }
        Ok(Some((q, moves)))
    }

    /// The fewest plies from `from` to `plies` within which the attacker wins from
    /// `node`; None where it does not within `plies`.
    fn win_length(&mut self, node: &Node<Problem>, from: u16, plies: u16) -> Result<Option<u16>, OutOfLimits> {
        if !self.prove(node, plies)? {
            return Ok(None);
        }
        for q in from..plies {
            if self.prove(node, q)? {
                return Ok(Some(q));
            }
        }
        Ok(Some(plies))
    }

    /// `node` after its side to move passes (a null move, out of check only).
    fn passed(node: &Node<Problem>) -> Node<Problem> {
        let king = node.pos.board().king_of(node.pos.turn()).expect("a king");
        node.play(pass_of(king))
    }

    /// The attacker's move `mv` from `node` and the play after it, `plies` left after it.
    fn attack(&mut self, node: &Node<Problem>, mv: Move, plies: u16, show: &Show) -> Result<Attack, OutOfLimits> {
        let after = node.play(mv);
        Ok(Attack { mv: Some(mv), play: self.play_after(&after, plies, show, false)? })
    }

    /// The attacker's shortest continuations from `node` within `plies`, each with its
    /// play; None where there is none.
    fn continuations(
        &mut self,
        node: &Node<Problem>,
        plies: u16,
        show: &Show,
    ) -> Result<Option<Vec<Attack>>, OutOfLimits> {
        let Some((q, moves)) = self.shortest(node, plies)? else { return Ok(None) };
        let mut out = Vec::with_capacity(moves.len());
        for m in moves {
            out.push(self.attack(node, m, q - 1, show)?);
        }
        Ok(Some(out))
    }

    /// The longest threat looked for from a node with `plies` left, in plies.
    fn threat_plies(&self, plies: u16, show: &Show) -> u16 {
        let cap = show.max_threat.map_or(u16::MAX, |n| match self.stip.play {
            StipPlay::Direct => 2 * n - 1,
            _ => 2 * n,
        });
        plies.min(cap)
    }

    /// Walks the defender's moves at `at` (the defender to move, `plies` left counting
    /// its move): each one that `passes_over` does not leave out is answered (with the
    /// attacker's shortest continuations and their play where `show` is given, else only
    /// whether one wins) and handed to `visit`, until it breaks off.
    fn walk_defences(
        &mut self,
        at: &Node<Problem>,
        plies: u16,
        show: Option<&Show>,
        mut passes_over: impl FnMut(&mut Self, &Node<Problem>) -> Result<bool, OutOfLimits>,
        mut visit: impl FnMut(Move, Answer) -> ControlFlow<()>,
    ) -> Result<(), OutOfLimits> {
        for d in at.pos.legal_moves() {
            let child = at.play(d);
            let answer = if child.pos.stands() == Standing::Won {
                Answer::Goal
            } else if passes_over(self, &child)? {
                continue;
            } else if let Some(show) = show {
                match self.continuations(&child, plies - 1, show)? {
                    Some(continuations) => Answer::Continued(continuations),
                    None => Answer::Unanswered,
                }
            } else if plies > 0 && self.prove(&child, plies - 1)? {
                Answer::Continued(Vec::new())
            } else {
                Answer::Unanswered
            };
            if visit(d, answer).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// The play at `after` (the defender to move, `plies` left): the threat and the
    /// defences that stop it, with their continuations. `refuting` shows defences that
    /// no continuation answers (play after the key); otherwise they are left out (a
    /// try's refutations are listed apart).
    pub(super) fn play_after(
        &mut self,
        after: &Node<Problem>,
        plies: u16,
        show: &Show,
        refuting: bool,
    ) -> Result<Play, OutOfLimits> {
        let mut play = Play::default();
        if after.pos.stands() != Standing::Open || plies == 0 {
            return Ok(play);
        }
        let mut threat_moves: Option<(u16, Vec<Move>)> = None;
        if show.threats && plies >= 2 && !after.pos.is_check() {
            let passed = Self::passed(after);
            let cap = self.threat_plies(plies - 1, show);
            let mut threat = Vec::new();
            if let Some((q, moves)) = self.shortest(&passed, cap)? {
                for &m in &moves {
                    threat.push(self.attack(&passed, m, q - 1, show)?);
                }
                threat_moves = Some((q, moves));
            }
            play.threat = Some(threat);
        }
        // A defender's move that meets the goal is play only where the goal is forced
        // (the last move, a reflex side that must mate); elsewhere it is no defence
        // (Popeye omits it).
        let forced = plies == 1 || self.goal_forced(after);
        let stops_threat = |ps: &mut Self, child: &Node<Problem>| match &threat_moves {
            Some((q, moves)) => ps.threat_holds(child, moves, *q),
            None => Ok(false),
        };
        let defences = &mut play.defences;
        self.walk_defences(after, plies, Some(show), stops_threat, |mv, answer| {
            match answer {
                Answer::Goal if forced => defences.push(Defence { mv, continuations: Vec::new(), refutes: false }),
                Answer::Continued(continuations) => defences.push(Defence { mv, continuations, refutes: false }),
                Answer::Unanswered if refuting => {
                    defences.push(Defence { mv, continuations: Vec::new(), refutes: true })
                }
                _ => {}
            }
            ControlFlow::Continue(())
        })?;
        Ok(play)
    }

    /// Whether a defence leaves the threat standing, so that it is not shown (Popeye's
    /// rule): the attacker now wins faster than the threat, or every threat move still
    /// wins within the threat's `q` plies. A move is the same threat when it goes from
    /// and to the same squares (`Rd5*a5` threatened, `Rd5-a5` after the pawn left a5).
    fn threat_holds(&mut self, node: &Node<Problem>, moves: &[Move], q: u16) -> Result<bool, OutOfLimits> {
        if q > 2 && self.prove(node, q - 2)? {
            return Ok(true);
        }
        let squares = |m: &Move| (m.from(), m.to(), m.promotion());
        let legal = node.pos.legal_moves();
        for t in moves {
            let Some(&m) = legal.iter().find(|m| squares(m) == squares(t)) else { return Ok(false) };
            if !self.prove(&node.play(m), q - 1)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether every move the stipulation allows at `node` meets the goal.
    fn goal_forced(&self, node: &Node<Problem>) -> bool {
        node.pos.legal_moves().iter().all(|&m| node.play(m).pos.stands() == Standing::Won)
    }

    /// The defences at `after` (the defender to move, `plies` left) that no continuation
    /// answers, stopping past `max`.
    fn refutations(&mut self, after: &Node<Problem>, plies: u16, max: usize) -> Result<Vec<Move>, OutOfLimits> {
        let mut out = Vec::new();
        self.walk_defences(
            after,
            plies,
            None,
            |_, _| Ok(false),
            |mv, answer| {
                if matches!(answer, Answer::Unanswered) {
                    out.push(mv);
                    if out.len() > max {
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            },
        )?;
        Ok(out)
    }

    /// The first move `m` from `root` (the attacker to move, `plies` left): a key, a try
    /// (with its refutations), or neither (None).
    pub(super) fn first_move(
        &mut self,
        root: &Node<Problem>,
        m: Move,
        plies: u16,
        show: &Show,
    ) -> Result<Option<FirstMove>, OutOfLimits> {
        let after = root.play(m);
        let refutations = if self.prove(&after, plies - 1)? {
            Vec::new()
        } else {
            let Some(max) = show.tries else { return Ok(None) };
            // In a direct one-mover the move itself must reach the goal: no defence
            // refutes it, so there are no tries (as in Popeye).
            if after.pos.stands() != Standing::Open || (self.stip.play == StipPlay::Direct && plies == 1) {
                return Ok(None);
            }
            let refutations = self.refutations(&after, plies - 1, max)?;
            if refutations.is_empty() || refutations.len() > max {
                return Ok(None);
            }
            refutations
        };
        // A key that wins faster than the stipulation shows its play at its own length
        // (Popeye: a short key's threats are no longer than what is left of it).
        let mut left = plies - 1;
        if refutations.is_empty() {
            left = self.win_length(&after, 0, left)?.unwrap_or(left);
        }
        let play = if show.variations { self.play_after(&after, left, show, false)? } else { Play::default() };
        Ok(Some(FirstMove { attack: Attack { mv: Some(m), play }, refutations }))
    }

    /// Set play: each defence in the diagram, as if the attacker had passed, that the
    /// attacker answers within the stipulation, with its continuations. Where the
    /// defender's move would be the last one (a selfmate in one), only when every
    /// defender's move meets the goal. None: no set play.
    pub(super) fn set_play(
        &mut self,
        root: &Node<Problem>,
        plies: u16,
        show: &Show,
    ) -> Result<Option<Vec<Defence>>, OutOfLimits> {
        if root.pos.is_check() || plies < 2 {
            return Ok(None);
        }
        let passed = Self::passed(root);
        if passed.pos.stands() != Standing::Open {
            return Ok(None);
        }
        let all = Show { variations: true, ..*show };
        let mut out = Vec::new();
        let mut complete = true;
        let forced = plies == 2 || self.goal_forced(&passed);
        self.walk_defences(
            &passed,
            plies - 1,
            Some(&all),
            |_, _| Ok(false),
            |mv, answer| {
                match answer {
                    Answer::Goal if forced => out.push(Defence { mv, continuations: Vec::new(), refutes: false }),
                    Answer::Goal => {}
                    Answer::Continued(continuations) => out.push(Defence { mv, continuations, refutes: false }),
                    Answer::Unanswered => complete = false,
                }
                ControlFlow::Continue(())
            },
        )?;
        let last_forced = plies == 2 && self.stip.play != StipPlay::Direct;
        Ok(if out.is_empty() || (last_forced && !complete) { None } else { Some(out) })
    }
}
