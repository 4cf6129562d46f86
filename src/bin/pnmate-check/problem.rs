//! The rules of a chess problem's certificate: its stipulation's (FORMAT.md,
//! "Problems"). Every node is the attacker's choice in help play; otherwise the first
//! mover chooses and the other side's moves are all answered. No draw rule applies.

use shakmaty::{Chess, Color, Move, MoveList, Position};

use crate::broken::Broken;
use crate::shape::{Kind, Shape};
use crate::walk::{Base, Judged, Rules};

/// A chess problem's stipulation as the checker reads it (FORMAT.md, "Problems").
pub struct Stip {
    pub text: String,
    /// `s`, `r`, `h`, `ser-`, `ser-h` or empty (direct).
    play: &'static str,
    /// The goal: mate (else stalemate).
    mate: bool,
    pub moves: u32,
    /// `h#n.5`: White moves first.
    half: bool,
}

impl Stip {
    pub fn parse(text: &str) -> Option<Stip> {
        let t = text.to_ascii_lowercase();
        let play = ["ser-h", "ser-", "s", "r", "h"].into_iter().find(|p| t.starts_with(p)).unwrap_or("");
        let rest = &t[play.len()..];
        let mate = rest.starts_with('#');
        if !mate && !rest.starts_with('=') {
            return None;
        }
        let count = &rest[1..];
        let (count, half) = count.strip_suffix(".5").map_or((count, false), |c| (c, true));
        let moves: u32 = count.parse().ok().filter(|&n| (1..=1000).contains(&n))?;
        if (half && play != "h") || (play == "r" && !mate) || (play == "ser-" && !mate) {
            return None;
        }
        Some(Stip { text: text.to_string(), play, mate, moves, half })
    }

    /// The plies of the stipulation, the passes of a series counted.
    pub fn plies(&self) -> u32 {
        let n = self.moves;
        match self.play {
            "" | "ser-" => 2 * n - 1,
            "h" => 2 * n + u32::from(self.half),
            _ => 2 * n,
        }
    }

    pub fn first_mover(&self) -> Color {
        if (self.play == "h" && !self.half) || self.play == "ser-h" { Color::Black } else { Color::White }
    }

    fn victim(&self) -> Color {
        if self.play == "s" || self.play == "r" { Color::White } else { Color::Black }
    }

    fn cooperative(&self) -> bool {
        self.play == "h" || self.play == "ser-h"
    }

    fn series_side(&self) -> Option<Color> {
        match self.play {
            "ser-" => Some(Color::White),
            "ser-h" => Some(Color::Black),
            _ => None,
        }
    }

    /// Whether the game has ended in the goal at `pos`, whose legal moves are `legal`.
    fn met(&self, pos: &Chess, legal: &MoveList) -> bool {
        legal.is_empty() && pos.turn() == self.victim() && pos.is_check() == self.mate
    }

    /// How a problem stands at `pos` and the moves the stipulation allows there:
    /// Some(true) met, Some(false) no longer possible, None open.
    fn state(&self, pos: &Chess) -> (Option<bool>, MoveList) {
        let legal = pos.legal_moves();
        let waiting = self.series_side().is_some_and(|s| s != pos.turn());
        // The side waiting out a series passes even when stalemated, unless stalemate is
        // the goal (then the wrong side is stalemated).
        if legal.is_empty() && (!waiting || pos.is_check() || !self.mate) {
            return (Some(self.met(pos, &legal)), MoveList::new());
        }
        let mut allowed = MoveList::new();
        if waiting {
            // A pass after which the series side has no move cannot lead to a stalemate
            // made by the other side's move.
            let series_moves = || pos.clone().swap_turn().is_ok_and(|p| !p.legal_moves().is_empty());
            if !pos.is_check() && (self.mate || series_moves()) {
                let king = pos.board().king_of(pos.turn()).expect("a king");
                allowed.push(Move::Put { role: shakmaty::Role::King, to: king });
            }
            if self.cooperative() {
                allowed.extend(legal.iter().copied().filter(|&m| {
                    let after = pos.clone().play(m).expect("a legal move");
                    self.met(&after, &after.legal_moves())
                }));
            }
        } else {
            let mates = |m: &Move| {
                let after = pos.clone().play(*m).expect("a legal move");
                after.is_checkmate()
            };
            if self.play == "r" && legal.iter().any(mates) {
                allowed.extend(legal.iter().copied().filter(mates));
            } else {
                allowed.extend(legal.iter().copied());
            }
        }
        if allowed.is_empty() { (Some(false), allowed) } else { (None, allowed) }
    }
}

/// A problem's rules for its one section.
pub struct ProblemRules<'s> {
    pub stip: &'s Stip,
    pub kind: Kind,
    pub attacker: Color,
}

impl<'s> ProblemRules<'s> {
    pub fn new(stip: &'s Stip, shape: &Shape) -> ProblemRules<'s> {
        ProblemRules { stip, kind: shape.kind, attacker: shape.attacker }
    }
}

impl Rules for ProblemRules<'_> {
    type Pos = Chess;

    fn judge(&self, pos: &Chess, listed: usize, _table_leaf: bool) -> Result<Judged, Broken> {
        let (end, allowed) = self.stip.state(pos);
        let chooser = self.stip.cooperative() || pos.turn() == self.attacker;
        let base = match (self.kind, end) {
            (Kind::Proof, Some(true)) => Base::Met,
            (Kind::Proof, Some(false)) => return Err(Broken::CannotBeMet),
            (Kind::Disproof, Some(true)) => return Err(Broken::MetHere),
            (Kind::Disproof, Some(false)) => Base::Never,
            (Kind::Proof, None) if chooser && listed != 1 => {
                return Err(Broken::NotOneMove);
            }
            (Kind::Proof, None) if !chooser && listed != allowed.len() => {
                return Err(Broken::SomeReplies { listed, of: allowed.len(), what: "allowed" });
            }
            (Kind::Proof, None) => Base::Inner,
            (Kind::Disproof, None) if listed == 0 => Base::Leaf(0),
            (Kind::Disproof, None) if chooser && listed != allowed.len() => {
                return Err(Broken::SomeRefuted { listed, of: allowed.len(), whose: "the ", what: "allowed" });
            }
            (Kind::Disproof, None) if !chooser && listed > 1 => {
                return Err(Broken::DefenderGivesSeveral);
            }
            (Kind::Disproof, None) => Base::Min,
        };
        Ok(Judged { base, moves: allowed })
    }

    /// Plays `m`, where a pass (a king put on its own square) hands the move over.
    fn play(&self, pos: &Chess, m: Move) -> Chess {
        match m {
            Move::Put { .. } => pos.clone().swap_turn().expect("a pass out of check"),
            m => pos.clone().play(m).expect("a legal move"),
        }
    }

    fn moves_are(&self) -> &'static str {
        "allowed"
    }
}
