//! Twins: positions made from the diagram by small changes (`twin move d1 d2`,
//! `zwilling hinzufuegen schwarz bc2`), each labelled as Popeye labels it in the input's
//! language (`b) wRd1-->d2`, `+c) -bPa7`).

use shakmaty::{Board, File, Piece, Rank, Role, Square};

use super::draft::{Draft, PieceWord, colour_word, piece_word, square};
use super::words::{CHANGES, Change, Language, Lookup, lookup, words};
use super::{End, Reader};
use crate::error::{Misread, PopeyeError};

/// Reads the twins of a problem from its first `twin` (or `zeroposition`) on.
pub struct TwinReader {
    /// The diagram's draft: a twin changes it, or (`continued`) the twin before.
    diagram: Draft,
    zero: bool,
    twins: Vec<(String, Draft)>,
}

impl TwinReader {
    pub fn new(diagram: &Draft, zero: bool) -> TwinReader {
        TwinReader { diagram: diagram.clone(), zero, twins: Vec::new() }
    }

    /// Reads the twins, the first one's word read; they end the problem.
    pub fn read(&mut self, reader: &mut Reader) -> Result<(Vec<(String, Draft)>, End), PopeyeError> {
        let language = reader.language;
        let words = words(language);
        loop {
            self.twin(reader)?;
            // After a twin: remarks, more twins, or the problem's end.
            loop {
                let line = reader.tokens.line();
                let Some(t) = reader.tokens.next() else {
                    return Err(PopeyeError { line, why: Misread::NoEnd });
                };
                if let Some(end) = reader.end_of(t) {
                    return Ok((std::mem::take(&mut self.twins), end));
                }
                if lookup(&words.twins, t) == Lookup::Found(0) {
                    break;
                }
                if lookup(&words.commands, t) == Lookup::Found(0) {
                    reader.tokens.rest_of_line();
                    continue;
                }
                return Err(PopeyeError { line, why: Misread::AfterTwin(t.to_string()) });
            }
        }
    }

    /// Reads one twin's changes.
    fn twin(&mut self, reader: &mut Reader) -> Result<(), PopeyeError> {
        let language = reader.language;
        let changes = &words(language).changes;
        let change_of = |t: &str| match lookup(changes, t) {
            Lookup::Found(i) => Some(CHANGES[i]),
            _ => None,
        };
        let continued = reader.tokens.peek().and_then(change_of) == Some(Change::Continued);
        if continued {
            reader.tokens.next();
        }
        let mut draft = match (continued, self.twins.last()) {
            (true, Some((_, last))) => last.clone(),
            _ => self.diagram.clone(),
        };
        let mut labels = Vec::new();
        while let Some(change) = reader.tokens.peek().and_then(change_of) {
            let word = reader.tokens.next().unwrap_or_default();
            let line = reader.tokens.line();
            let label = apply(&mut draft, change, word, reader)
                .map_err(|why| PopeyeError { line, why: why.within(format!("{} {word}", words_twin(language))) })?;
            labels.push(label);
        }
        let letter = (b'a' + (self.twins.len() + usize::from(!self.zero)) as u8) as char;
        let prefix = if continued { "+" } else { "" };
        self.twins.push((format!("{prefix}{letter}) {}", labels.join("  ")).trim_end().to_string(), draft));
        Ok(())
    }
}

fn words_twin(language: Language) -> &'static str {
    words(language).twins[0]
}

/// Popeye's name of the man on a square in twin labels: `wRd1` (`wTd1`, `bTd1`).
fn man(language: Language, board: &Board, sq: Square) -> String {
    match board.piece_at(sq) {
        Some(p) => format!("{}{}{sq}", language.colour_letter(p.color), language.letter(p.role)),
        None => sq.to_string(),
    }
}

fn next_square(reader: &mut Reader) -> Result<Square, Misread> {
    let t = reader.tokens.next().ok_or(Misread::Missing("a square"))?;
    square(t).ok_or_else(|| Misread::Malformed { word: t.to_string(), want: "is not a square" })
}

/// Applies one change to `draft`; returns its label. `word`: the change as written.
fn apply(draft: &mut Draft, change: Change, word: &str, reader: &mut Reader) -> Result<String, Misread> {
    let language = draft.language;
    let name = words(language).changes[CHANGES.iter().position(|&c| c == change).unwrap_or(0)];
    match change {
        Change::Move => {
            let (from, to) = (next_square(reader)?, next_square(reader)?);
            let label = format!("{}-->{to}", man(language, &draft.board, from));
            let piece = draft.board.remove_piece_at(from).ok_or(Misread::EmptySquare(from))?;
            draft.board.set_piece_at(to, piece);
            Ok(label)
        }
        Change::Exchange => {
            let (a, b) = (next_square(reader)?, next_square(reader)?);
            let label = format!("{}<-->{}", man(language, &draft.board, a), man(language, &draft.board, b));
            let (pa, pb) = (draft.board.remove_piece_at(a), draft.board.remove_piece_at(b));
            if let Some(p) = pa {
                draft.board.set_piece_at(b, p);
            }
            if let Some(p) = pb {
                draft.board.set_piece_at(a, p);
            }
            Ok(label)
        }
        Change::Remove => {
            let sq = next_square(reader)?;
            let label = format!("-{}", man(language, &draft.board, sq));
            draft.board.remove_piece_at(sq).ok_or(Misread::EmptySquare(sq))?;
            Ok(label)
        }
        Change::Add => {
            let t = reader.tokens.next().ok_or(Misread::Missing("a colour"))?;
            let color = colour_word(language, t)?
                .ok_or_else(|| Misread::Malformed { word: t.to_string(), want: "is not a colour" })?;
            let mut labels = Vec::new();
            while let Some(t) = reader.tokens.peek() {
                match piece_word(language, t) {
                    PieceWord::Men(role, sqs) => {
                        for sq in sqs {
                            let occupied = draft.board.piece_at(sq).is_some();
                            draft.board.set_piece_at(sq, Piece { color, role });
                            let plus = if occupied { "" } else { "+" };
                            labels.push(format!("{plus}{}", man(language, &draft.board, sq)));
                        }
                    }
                    PieceWord::Fairy(name) => {
                        return Err(Misread::Fairy("fairy pieces").within(format!("{name} ({t})")));
                    }
                    PieceWord::None => break,
                }
                reader.tokens.next();
            }
            if labels.is_empty() {
                return Err(Misread::Missing("a man"));
            }
            Ok(labels.join("  "))
        }
        Change::Rotate => {
            let t = reader.tokens.next().ok_or(Misread::Missing("the degrees"))?;
            let f: fn(i32, i32) -> (i32, i32) = match t {
                "90" => |f, r| (7 - r, f),
                "180" => |f, r| (7 - f, 7 - r),
                "270" => |f, r| (r, 7 - f),
                _ => return Err(Misread::Malformed { word: t.to_string(), want: "is not 90, 180 or 270" }),
            };
            draft.board = map_board(&draft.board, |sq| by_coords(f, sq))?;
            Ok(format!("{name} {t}"))
        }
        Change::Mirror => {
            let axis = reader.tokens.next().ok_or(Misread::Missing("the axis"))?.to_ascii_lowercase();
            let f: fn(i32, i32) -> (i32, i32) = match axis.as_str() {
                "a1<-->h1" => |f, r| (7 - f, r),
                "a1<-->a8" => |f, r| (f, 7 - r),
                "a1<-->h8" => |f, r| (r, f),
                "a8<-->h1" => |f, r| (7 - r, 7 - f),
                _ => {
                    let want = "is not a1<-->h1, a1<-->a8, a1<-->h8 or a8<-->h1";
                    return Err(Misread::Malformed { word: axis, want });
                }
            };
            draft.board = map_board(&draft.board, |sq| by_coords(f, sq))?;
            Ok(format!("{name} {axis}"))
        }
        Change::Shift => {
            let (a, b) = (next_square(reader)?, next_square(reader)?);
            let (df, dr) = (coords(b).0 - coords(a).0, coords(b).1 - coords(a).1);
            draft.board = map_board(&draft.board, |sq| square_at(coords(sq).0 + df, coords(sq).1 + dr))?;
            Ok(format!("{name} {a} ==> {b}"))
        }
        Change::PolishType => {
            let mut out = Board::empty();
            for (sq, p) in draft.board.clone() {
                out.set_piece_at(sq, Piece { color: !p.color, role: p.role });
            }
            draft.board = out;
            Ok(name.to_string())
        }
        Change::Substitute => {
            let role = |reader: &mut Reader| -> Result<Role, Misread> {
                let t = reader.tokens.next().ok_or(Misread::Missing("a piece"))?;
                let mut chars = t.chars();
                match (chars.next().and_then(|c| language.role(c)), chars.next()) {
                    (Some(role), None) => Ok(role),
                    _ => Err(Misread::Fairy("fairy pieces").within(format!("'{t}'"))),
                }
            };
            let (from, to) = (role(reader)?, role(reader)?);
            for (sq, p) in draft.board.clone() {
                if p.role == from {
                    draft.board.set_piece_at(sq, Piece { color: p.color, role: to });
                }
            }
            Ok(format!("{} ==> {}", language.letter(from), language.letter(to)))
        }
        Change::Stipulation => {
            let t = reader.tokens.next().ok_or(Misread::Missing("the stipulation"))?;
            draft.read_stipulation(t)?;
            Ok(draft.stip.map(|s| s.to_string()).unwrap_or_default())
        }
        Change::Continued => Err(Misread::ContinuedLate(word.to_string())),
        Change::Condition => Err(Misread::Fairy("fairy conditions")),
        Change::StructuredStipulation => Err(Misread::Fairy("structured stipulations")),
    }
}

/// The square `f` maps `sq` to, by file and rank (0 to 7), or None off the board.
fn by_coords(f: fn(i32, i32) -> (i32, i32), sq: Square) -> Option<Square> {
    let (file, rank) = coords(sq);
    let (a, b) = f(file, rank);
    square_at(a, b)
}

/// `board` with every man moved by `f` (None: off the board, an error).
fn map_board(board: &Board, f: impl Fn(Square) -> Option<Square>) -> Result<Board, Misread> {
    let mut out = Board::empty();
    for (sq, piece) in board.clone() {
        let to = f(sq).ok_or(Misread::OffBoard(sq))?;
        out.set_piece_at(to, piece);
    }
    Ok(out)
}

fn square_at(file: i32, rank: i32) -> Option<Square> {
    ((0..8).contains(&file) && (0..8).contains(&rank))
        .then(|| Square::from_coords(File::new(file as u32), Rank::new(rank as u32)))
}

fn coords(sq: Square) -> (i32, i32) {
    (sq.file() as i32, sq.rank() as i32)
}
