//! Stipulations of orthodox chess problems, as problemists write them (`#2`, `s#3`,
//! `r#2`, `h#3`, `h#2.5`, `ser-h#5`, `ser-#4`, `=3`, `s=2`, `h=2`, `ser-h=4`), and what
//! each asks of the prover: who moves first, whose moves are chosen (OR) and whose are
//! all answered (AND), who must end mated or stalemated, and who moves in a series.

use std::fmt;
use std::str::FromStr;

use shakmaty::Color;

use crate::error::StipulationError;

/// What the last move must bring about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    /// The victim is checkmated.
    Mate,
    /// The victim is stalemated.
    Stalemate,
}

/// How the two sides play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Play {
    /// White forces the goal on Black against every defence (`#n`, `=n`).
    Direct,
    /// White forces Black to mate (or stalemate) White (`s#n`, `s=n`).
    SelfPlay,
    /// A selfmate in which either side must mate in one whenever it can (`r#n`).
    Reflex,
    /// Both sides cooperate; Black moves first and ends mated (or stalemated) by White
    /// (`h#n`, `h=n`); `h#n.5` begins with a White move.
    Help,
    /// White makes n moves in a row, the last one mating; Black only passes (`ser-#n`).
    Series,
    /// Black makes n moves in a row, then White mates (or stalemates) it in one; both
    /// cooperate (`ser-h#n`, `ser-h=n`).
    SeriesHelp,
}

/// A stipulation: play, goal and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stipulation {
    pub play: Play,
    pub goal: Goal,
    /// The number of moves n.
    pub moves: u16,
    /// Whether a half move is added before (`h#n.5`: White moves first).
    pub half: bool,
}

impl Stipulation {
    /// The side that makes the first move: Black in help and series-help play (without
    /// the half move), White otherwise.
    pub fn first_mover(&self) -> Color {
        match self.play {
            Play::Help if !self.half => Color::Black,
            Play::SeriesHelp => Color::Black,
            _ => Color::White,
        }
    }

    /// The side that must end mated or stalemated: White in self and reflex play, Black
    /// otherwise.
    pub fn victim(&self) -> Color {
        match self.play {
            Play::SelfPlay | Play::Reflex => Color::White,
            _ => Color::Black,
        }
    }

    /// Whether both sides choose their moves (every node is an OR node).
    pub fn cooperative(&self) -> bool {
        matches!(self.play, Play::Help | Play::SeriesHelp)
    }

    /// The side that makes the series, in series play.
    pub fn series_side(&self) -> Option<Color> {
        match self.play {
            Play::Series => Some(Color::White),
            Play::SeriesHelp => Some(Color::Black),
            _ => None,
        }
    }

    /// Whether both sides must mate in one whenever they can (reflex play).
    pub fn reflex(&self) -> bool {
        self.play == Play::Reflex
    }

    /// Whether the side that moves first chooses its moves and the other answers with
    /// all of its (battle play: direct, self and reflex).
    pub fn battle(&self) -> bool {
        matches!(self.play, Play::Direct | Play::SelfPlay | Play::Reflex)
    }

    /// The length in plies, the other side's passes in a series counted as plies.
    pub fn plies(&self) -> u16 {
        let n = self.moves;
        match self.play {
            Play::Direct | Play::Series => 2 * n - 1,
            Play::SelfPlay | Play::Reflex | Play::SeriesHelp => 2 * n,
            Play::Help => 2 * n + u16::from(self.half),
        }
    }
}

/// The longest stipulation read: n moves, as problems go (a prover bound, not a rule).
pub const MAX_PROBLEM_MOVES: u16 = 60;

impl FromStr for Stipulation {
    type Err = StipulationError;

    fn from_str(text: &str) -> Result<Stipulation, StipulationError> {
        let unknown = || StipulationError::Unknown(text.to_string());
        let s = text.trim().to_ascii_lowercase();
        let (play, rest) = [
            ("ser-h", Play::SeriesHelp),
            ("ser-", Play::Series),
            ("s", Play::SelfPlay),
            ("r", Play::Reflex),
            ("h", Play::Help),
        ]
        .iter()
        .find_map(|&(prefix, play)| s.strip_prefix(prefix).map(|rest| (play, rest)))
        .unwrap_or((Play::Direct, s.as_str()));
        let (goal, count) = if let Some(count) = rest.strip_prefix('#') {
            (Goal::Mate, count)
        } else if let Some(count) = rest.strip_prefix('=') {
            (Goal::Stalemate, count)
        } else {
            return Err(unknown());
        };
        let (count, half) = match count.strip_suffix(".5") {
            Some(whole) => (whole, true),
            None => (count, false),
        };
        if half && play != Play::Help {
            return Err(StipulationError::HalfMove(text.to_string()));
        }
        if (play == Play::Series || play == Play::Reflex) && goal == Goal::Stalemate {
            return Err(unknown());
        }
        let moves: u16 = count.parse().map_err(|_| unknown())?;
        if !half && moves == 0 {
            return Err(StipulationError::NoMove(text.to_string()));
        }
        if moves > MAX_PROBLEM_MOVES {
            return Err(StipulationError::TooLong { text: text.to_string(), max: MAX_PROBLEM_MOVES });
        }
        Ok(Stipulation { play, goal, moves, half })
    }
}

impl fmt::Display for Stipulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.play {
            Play::Direct => "",
            Play::SelfPlay => "s",
            Play::Reflex => "r",
            Play::Help => "h",
            Play::Series => "ser-",
            Play::SeriesHelp => "ser-h",
        };
        let goal = if self.goal == Goal::Mate { '#' } else { '=' };
        write!(f, "{prefix}{goal}{}{}", self.moves, if self.half { ".5" } else { "" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stip(s: &str) -> Stipulation {
        s.parse().unwrap()
    }

    #[test]
    fn every_orthodox_stipulation_reads_and_prints_back() {
        for s in ["#2", "s#3", "r#2", "h#3", "h#2.5", "h#0.5", "ser-h#5", "ser-#4", "=3", "s=2", "h=2", "ser-h=4"] {
            assert_eq!(stip(s).to_string(), s);
        }
        assert_eq!(stip("S#3"), stip("s#3"));
    }

    #[test]
    fn stipulations_give_their_first_mover_victim_and_plies() {
        let cases = [
            ("#2", Color::White, Color::Black, 3),
            ("s#3", Color::White, Color::White, 6),
            ("r#2", Color::White, Color::White, 4),
            ("h#3", Color::Black, Color::Black, 6),
            ("h#2.5", Color::White, Color::Black, 5),
            ("ser-#4", Color::White, Color::Black, 7),
            ("ser-h#5", Color::Black, Color::Black, 10),
            ("=3", Color::White, Color::Black, 5),
            ("s=2", Color::White, Color::White, 4),
            ("h=2", Color::Black, Color::Black, 4),
        ];
        for (s, first, victim, plies) in cases {
            let st = stip(s);
            assert_eq!((st.first_mover(), st.victim(), st.plies()), (first, victim, plies), "{s}");
        }
    }

    #[test]
    fn fairy_and_malformed_stipulations_are_refused_by_name() {
        for s in ["#", "x#2", "hs#2", "s#2.5", "ser-=3", "r=2", "#0", "pser-h#2", "dia3"] {
            assert!(s.parse::<Stipulation>().is_err(), "{s}");
        }
        assert!(stip("h#0.5").plies() == 1);
    }
}
