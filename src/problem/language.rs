//! The languages problemists write Popeye's input in, and the words and piece letters of
//! the output in each: moves as `Sf3-e5` (German `Sf3-e5`, French `Cf3-e5`), ` threat:`
//! (` Drohung:`, ` menace:`), as Popeye 4.104 writes them.

use shakmaty::{Color, Role};

/// A language of Popeye's: the input's first word says which, and the output is written
/// in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Language {
    #[default]
    English,
    German,
    French,
}

/// The output's words in one language.
pub struct Phrases {
    /// The letters of king, queen, rook, bishop, knight and pawn.
    pieces: [char; 6],
    /// A man's colour in twin labels: White's, Black's.
    colours: [char; 2],
    pub solution_finished: &'static str,
    /// `Time` in `solution finished. Time = 0.1 s`.
    pub time: &'static str,
    pub threat: &'static str,
    pub zugzwang: &'static str,
    pub but: &'static str,
    pub refutes: &'static str,
    pub zero_position: &'static str,
}

const ENGLISH: Phrases = Phrases {
    pieces: ['K', 'Q', 'R', 'B', 'S', 'P'],
    colours: ['w', 'b'],
    solution_finished: "solution finished.",
    time: "Time",
    threat: " threat:",
    zugzwang: " zugzwang.",
    but: "but",
    refutes: "refutes.",
    zero_position: "zeroposition",
};

const GERMAN: Phrases = Phrases {
    pieces: ['K', 'D', 'T', 'L', 'S', 'B'],
    colours: ['w', 's'],
    solution_finished: "Loesung beendet.",
    time: "Zeit",
    threat: " Drohung:",
    zugzwang: " Zugzwang.",
    but: "Aber",
    refutes: "Widerlegt.",
    zero_position: "NullStellung",
};

const FRENCH: Phrases = Phrases {
    pieces: ['R', 'D', 'T', 'F', 'C', 'P'],
    colours: ['b', 'n'],
    solution_finished: "solution terminee.",
    time: "Temps",
    threat: " menace:",
    zugzwang: " blocus.",
    but: "mais",
    refutes: "Refute.",
    zero_position: "zeroposition",
};

const ROLES: [Role; 6] = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

impl Language {
    /// Popeye's order of its languages.
    pub const ALL: [Language; 3] = [Language::French, Language::German, Language::English];

    pub fn phrases(self) -> &'static Phrases {
        match self {
            Language::English => &ENGLISH,
            Language::German => &GERMAN,
            Language::French => &FRENCH,
        }
    }

    /// The letter of `role`, upper case.
    pub fn letter(self, role: Role) -> char {
        self.phrases().pieces[ROLES.iter().position(|&r| r == role).unwrap_or(0)]
    }

    /// The orthodox piece whose letter is `c` (either case).
    pub fn role(self, c: char) -> Option<Role> {
        let upper = c.to_ascii_uppercase();
        ROLES.into_iter().zip(self.phrases().pieces).find_map(|(role, l)| (l == upper).then_some(role))
    }

    /// The letter of a man's colour in twin labels (`wSc6`, `sBc2`, `nFc2`).
    pub fn colour_letter(self, color: Color) -> char {
        self.phrases().colours[if color == Color::White { 0 } else { 1 }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_letters_of_each_language() {
        assert_eq!(Language::German.role('l'), Some(Role::Bishop));
        assert_eq!(Language::German.role('b'), Some(Role::Pawn));
        assert_eq!(Language::French.role('c'), Some(Role::Knight));
        assert_eq!(Language::French.letter(Role::King), 'R');
        assert_eq!(Language::English.role('n'), None, "N is a fairy piece (nightrider) in Popeye");
        assert_eq!(Language::German.colour_letter(Color::Black), 's');
    }
}
