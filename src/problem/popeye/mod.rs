//! Popeye's input language, read as Popeye 4.104 reads it, so that problemists can run
//! the files they have: its English, German and French keywords, each abbreviated to any
//! prefix that names it alone, in any letter case ([`words`]). A file holds problems from
//! `BeginProblem` (`AnfangProblem`, `DebutProbleme`) to `EndProblem`, separated by
//! `NextProblem`; each has `pieces` (or `forsyth`), a `stipulation`, `option`s, and
//! `twin`s (`zeroposition`: the diagram is not solved, only its twins).
//!
//! The orthodox part is read: orthodox pieces, the stipulations pnmate proves, and the
//! options that keep to orthodox chess. A fairy word (a condition, a fairy piece, neutral
//! men, an option outside orthodox chess) makes its problem one that is skipped, its
//! error naming the word; the file's other problems are still read.
//!
//! As in Popeye, a king and a rook on their home squares may castle (unless `option
//! nocastling` names them), en passant is open only after `option enpassant`, White moves
//! first except in help play (Black first, `h#n.5` and `option whitetoplay` White first),
//! and `postkey` gives the move to the defender.

mod draft;
mod tokens;
mod twin;
pub mod words;

use shakmaty::Chess;

use crate::error::{Misread, PopeyeError};
use crate::problem::stipulation::Stipulation;
use crate::problem::tree::Show;
use draft::Draft;
use tokens::Tokens;
use twin::TwinReader;
pub use words::Language;
use words::{COMMANDS, Command, Lookup, language_of_begin, lookup, words};

/// Whether a twin is also, or only, solved with the colours exchanged (`option duplex`,
/// `option halfduplex`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Duplex {
    #[default]
    Off,
    /// The stipulation for both sides: as set, then with the colours exchanged.
    Both,
    /// Only with the colours exchanged.
    Only,
}

/// One twin of a problem: a position, a stipulation and what to show.
#[derive(Clone, Debug)]
pub struct Twin {
    /// Popeye's label: `a)` and the changes, empty without twins.
    pub label: String,
    pub pos: Chess,
    pub stip: Stipulation,
    pub show: Show,
    /// `option maxsolutions n`.
    pub max_solutions: Option<usize>,
    /// `option maxtime n`, in seconds.
    pub max_time: Option<u64>,
    pub duplex: Duplex,
}

/// One problem of an input file.
#[derive(Clone, Debug, Default)]
pub struct PopeyeProblem {
    pub title: Vec<String>,
    pub author: Vec<String>,
    pub origin: Vec<String>,
    pub award: Vec<String>,
    /// `zeroposition`: the diagram is not solved, only the twins made from it.
    pub zero: bool,
    pub twins: Vec<Twin>,
    /// `protocol FILE`: from this problem on, the output goes to the file as well.
    pub protocol: Option<String>,
}

/// A file's problems, in its language.
#[derive(Clone, Debug)]
pub struct PopeyeInput {
    pub language: Language,
    /// Each problem in order, or why it was skipped (a fairy word, an input error).
    pub problems: Vec<Result<PopeyeProblem, PopeyeError>>,
}

/// Reads every problem of a Popeye input file; Err when it is not one (it does not start
/// with `BeginProblem` in one of Popeye's languages).
pub fn parse(text: &str) -> Result<PopeyeInput, PopeyeError> {
    let mut tokens = Tokens::new(text);
    let line = tokens.line();
    let first = tokens.next().ok_or(PopeyeError { line, why: Misread::Empty })?;
    let language =
        language_of_begin(first).ok_or_else(|| PopeyeError { line, why: Misread::NoBegin(first.to_string()) })?;
    let mut problems = Vec::new();
    loop {
        let mut reader = Reader { tokens: &mut tokens, language };
        let (problem, end) = reader.problem();
        problems.push(problem);
        let end = end.unwrap_or_else(|| reader.skip_problem());
        if end != End::Next {
            break;
        }
    }
    Ok(PopeyeInput { language, problems })
}

/// How a problem's input ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// `EndProblem`: the last one.
    Last,
    /// `NextProblem`: another follows.
    Next,
    /// The input ended without `EndProblem`.
    Input,
}

/// Reads the problems of an input in its language.
struct Reader<'t, 'a> {
    tokens: &'t mut Tokens<'a>,
    language: Language,
}

impl Reader<'_, '_> {
    /// Which end of a problem `token` is, if any.
    fn end_of(&self, token: &str) -> Option<End> {
        match lookup(&words(self.language).ends, token) {
            Lookup::Found(0) => Some(End::Last),
            Lookup::Found(_) => Some(End::Next),
            _ => None,
        }
    }

    /// Reads one problem up to its end, and how it ended (None: reading stopped at an
    /// error before its end).
    fn problem(&mut self) -> (Result<PopeyeProblem, PopeyeError>, Option<End>) {
        let mut problem = PopeyeProblem::default();
        let mut draft = Draft::new(self.language);
        let words = words(self.language);
        loop {
            let line = self.tokens.line();
            let Some(t) = self.tokens.next() else {
                return (Err(PopeyeError { line, why: Misread::NoEnd }), Some(End::Input));
            };
            let command = lookup(&words.commands, t);
            if let Lookup::Found(i) = command {
                if let Err(e) = self.command(COMMANDS[i], &mut problem, &mut draft) {
                    return (Err(e), None);
                }
                continue;
            }
            if let Some(end) = self.end_of(t) {
                return (draft.finish(problem, Vec::new()).map_err(|why| PopeyeError { line, why }), Some(end));
            }
            match lookup(&words.twins, t) {
                Lookup::Found(i) => {
                    let mut twins = TwinReader::new(&draft, i == 1);
                    problem.zero = i == 1;
                    return match twins.read(self) {
                        Ok((list, end)) => {
                            (draft.finish(problem, list).map_err(|why| PopeyeError { line, why }), Some(end))
                        }
                        Err(e) => (Err(e), None),
                    };
                }
                Lookup::Ambiguous => return (Err(PopeyeError { line, why: Misread::Ambiguous(t.to_string()) }), None),
                Lookup::Unknown if command == Lookup::Ambiguous => {
                    return (Err(PopeyeError { line, why: Misread::Ambiguous(t.to_string()) }), None);
                }
                Lookup::Unknown => return (Err(PopeyeError { line, why: Misread::Unknown(t.to_string()) }), None),
            }
        }
    }

    /// Reads the arguments of `command`.
    fn command(&mut self, command: Command, problem: &mut PopeyeProblem, draft: &mut Draft) -> Result<(), PopeyeError> {
        let line = self.tokens.line();
        let at = |why: Misread| PopeyeError { line, why };
        match command {
            Command::Title => problem.title.push(self.tokens.rest_of_line()),
            Command::Author => problem.author.push(self.tokens.rest_of_line()),
            Command::Origin => problem.origin.push(self.tokens.rest_of_line()),
            Command::Award => problem.award.push(self.tokens.rest_of_line()),
            Command::Remark => {
                self.tokens.rest_of_line();
            }
            Command::Protocol => {
                let file = self.tokens.next().ok_or_else(|| at(Misread::Missing("a file name").within("protocol")))?;
                problem.protocol = Some(file.to_string());
            }
            Command::Separator => {}
            Command::Pieces => draft.read_pieces(self.tokens).map_err(at)?,
            Command::Forsyth => {
                let text = self.tokens.next().ok_or_else(|| at(Misread::Missing("the position").within("forsyth")))?;
                draft.read_forsyth(text).map_err(at)?;
            }
            Command::Stipulation => {
                let text =
                    self.tokens.next().ok_or_else(|| at(Misread::Missing("the stipulation").within("stipulation")))?;
                draft.read_stipulation(text).map_err(at)?;
            }
            Command::Option => draft.read_options(self.tokens).map_err(at)?,
            Command::Condition => {
                let word = self.tokens.peek().unwrap_or("");
                return Err(at(Misread::Fairy("fairy conditions").within(format!("condition {word}"))));
            }
            Command::StructuredStipulation => {
                return Err(at(Misread::Fairy("structured stipulations").within("sstipulation")));
            }
            Command::LaTeX | Command::LaTeXPieces => return Err(at(Misread::Fairy("LaTeX commands").within("LaTeX"))),
            Command::GameArray => draft.read_game_array(),
        }
        Ok(())
    }

    /// Skips to the end of a problem that failed: the next line that holds `EndProblem`
    /// or `NextProblem` alone (a word of a line with more on it may be another one:
    /// German `wei` is White, and a prefix of `WeiteresProblem`).
    fn skip_problem(&mut self) -> End {
        loop {
            let start = self.tokens.at_line_start();
            let Some(t) = self.tokens.next() else { return End::Input };
            if start && t.len() >= 3 {
                let alone = self.tokens.peek().is_none() || self.tokens.at_line_start();
                if let Some(end) = self.end_of(t).filter(|_| alone) {
                    return end;
                }
            }
            self.tokens.rest_of_line();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{EnPassantMode, Position};

    fn fen(pos: &Chess) -> String {
        Fen::from_position(pos, EnPassantMode::Legal).to_string()
    }

    fn one(text: &str) -> PopeyeProblem {
        let input = parse(text).unwrap();
        assert_eq!(input.problems.len(), 1);
        input.problems.into_iter().next().unwrap().unwrap()
    }

    fn error(text: &str) -> String {
        let input = parse(text).unwrap();
        input.problems.into_iter().next().unwrap().unwrap_err().to_string()
    }

    #[test]
    fn a_problem_reads_with_abbreviations_and_twins() {
        let text = "BeGinProb\ntit A twin test\nauth Some One\npie white kc6 rd1 black ka8 pa7\nstip #2\n\
                    opt vari try noboard\ntwin move d1 d2\ntwin cont remove a7\ntwin rotate 180\n\
                    twin remove a7 rotate 90\ntwin mirror a1<-->h1\ntwin shift a1 b1\n\
                    twin add white qh1 stip h#1\nendp\n";
        let p = one(text);
        assert_eq!(p.title, vec!["A twin test"]);
        assert_eq!(p.author, vec!["Some One"]);
        let labels: Vec<&str> = p.twins.iter().map(|t| t.label.as_str()).collect();
        // Popeye 4.104's labels for the same changes.
        let popeye = [
            "a)",
            "b) wRd1-->d2",
            "+c) -bPa7",
            "d) rotate 180",
            "e) -bPa7  rotate 90",
            "f) mirror a1<-->h1",
            "g) shift a1 ==> b1",
            "h) +wQh1  h#1",
        ];
        assert_eq!(labels, popeye);
        let fens: Vec<String> = p.twins.iter().map(|t| fen(&t.pos)).collect();
        let want = [
            "k7/p7/2K5/8/8/8/8/3R4 w - - 0 1",
            "k7/p7/2K5/8/8/8/3R4/8 w - - 0 1",
            "k7/8/2K5/8/8/8/3R4/8 w - - 0 1",
            "4R3/8/8/8/8/5K2/7p/7k w - - 0 1",
            // A quarter turn as Popeye turns: c6 to c3, d1 to h4, a8 to a1.
            "8/8/8/8/7R/2K5/8/k7 w - - 0 1",
            "7k/7p/5K2/8/8/8/8/4R3 w - - 0 1",
            "1k6/1p6/3K4/8/8/8/8/4R3 w - - 0 1",
            // The stipulation changed: a helpmate, Black to move first.
            "k7/p7/2K5/8/8/8/8/3R3Q b - - 0 1",
        ];
        assert_eq!(fens, want);
        assert_eq!(p.twins[7].stip.to_string(), "h#1");
        assert!(p.twins[0].show.variations && p.twins[0].show.tries == Some(1));
    }

    #[test]
    fn german_and_french_files_read_in_their_own_words() {
        let german = parse(
            "AnfangProblem\nAutor Jemand\nSteine\nWeiss Kc6 Td1\nSchwarz Ka8 Bb7\nForderung #2\n\
             Zwilling Versetze d1 d2\nZwilling Ferner Entferne b7\nEndeProblem\n",
        )
        .unwrap();
        assert_eq!(german.language, Language::German);
        let p = german.problems[0].as_ref().unwrap();
        let labels: Vec<&str> = p.twins.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["a)", "b) wTd1-->d2", "+c) -sBb7"]);
        assert_eq!(fen(&p.twins[0].pos), "k7/1p6/2K5/8/8/8/8/3R4 w - - 0 1");
        let french = parse(
            "DebutProbleme\nPieces Blanc Rc6 Td1 Noir Ra8 Ph7\nEnonce h#2\nJumeau Deplacement d1 d2\n\
             Jumeau Echange a8 c6\nFinProbleme\n",
        )
        .unwrap();
        assert_eq!(french.language, Language::French);
        let p = french.problems[0].as_ref().unwrap();
        let labels: Vec<&str> = p.twins.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["a)", "b) bTd1-->d2", "c) nRa8<-->bRc6"]);
        assert_eq!(fen(&p.twins[2].pos), "K7/7p/2k5/8/8/8/8/3R4 b - - 0 1");
    }

    #[test]
    fn white_to_play_makes_a_helpmate_begin_with_a_white_half_move() {
        let p = one("begin pieces white kc6 qd1 black ka8 stip h#2 option whitetoplay end");
        assert_eq!(p.twins[0].stip.to_string(), "h#1.5");
        assert_eq!(p.twins[0].pos.turn(), shakmaty::Color::White);
        let p = one("anfangproblem steine weiss kc6 dd1 schwarz ka8 forderung h#2 option weissbeginnt endeproblem");
        assert_eq!(p.twins[0].stip.to_string(), "h#1.5");
    }

    #[test]
    fn forsyth_and_castling_where_king_and_rook_stand_at_home() {
        let p = one("begin pieces white ke1 rh1 ra2 black ke8 ra8 stip #2 end");
        assert_eq!(fen(&p.twins[0].pos), "r3k3/8/8/8/8/8/R7/4K2R w Kq - 0 1");
        let p = one("begin forsyth r3k3/8/8/8/8/8/R7/4K2R stip #2 option nocastling e1 end");
        assert_eq!(fen(&p.twins[0].pos), "r3k3/8/8/8/8/8/R7/4K2R w q - 0 1");
    }

    #[test]
    fn fairy_problems_are_skipped_by_name_and_the_others_read() {
        assert!(error("begin pieces white ka1 black ka8 cond circe stip #2 end").contains("condition circe"));
        assert!(error("begin pieces white ka1 nrb2 black ka8 stip #2 end").contains("nrb2"));
        assert!(error("begin pieces white ka1 black ka8 stip #2 opt nowk end").contains("nowk"));
        assert!(error("begin pieces white ka1 black ka8 stip exact-#2 end").contains("exact-#2"));
        assert!(error("begin pieces white ka1 black ka8 stip #2").contains("before EndProblem"));
        let input = parse(
            "beginproblem\npieces white ka1 black ka8\ncondition circe\nstip #2\nnextproblem\n\
             pieces white kb6 qc1 black ka8\nstip #1\nendproblem\n",
        )
        .unwrap();
        assert_eq!(input.problems.len(), 2);
        assert_eq!(input.problems[0].as_ref().unwrap_err().line, 3);
        assert_eq!(fen(&input.problems[1].as_ref().unwrap().twins[0].pos), "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1");
        assert!(parse("pieces white ka1 black ka8 stip #2 end").is_err(), "no BeginProblem");
        // After a fairy problem, `wei` (White) at a line's start does not start the next.
        let input = parse("anfang\nford #2\nbed circe\nste\nwei kc8 bb6\nsch ka8 ba7\nweiter\nford #1\nste wei kb6 dc1 sch ka8\nende\n").unwrap();
        assert_eq!(input.problems.len(), 2);
        assert!(input.problems[0].is_err() && input.problems[1].is_ok());
    }
}
