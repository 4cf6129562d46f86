//! The orthodox subset of Popeye's input language, so that problemists can run the files
//! they have: `begin`/`end`, `title`, `author`, `origin`, `remark`, `pieces white ...
//! black ...`, `stipulation`, `option` (vari, try, set, threat n, nothreat, defence n,
//! maxsolutions n, maxtime n, postkey, noboard, movenumbers), `twin` with `move`,
//! `exchange`, `add`, `remove`, `rotate`, `mirror`, `shift`, `stipulation` and `cont`,
//! and `next`. Keywords take Popeye's abbreviations (any unique prefix) in any case.
//! Anything fairy (conditions, fairy pieces, options beyond these) is an error naming
//! the word: nothing is guessed.
//!
//! As in Popeye, a king and a rook on their home squares may castle, no en passant
//! capture is open in the diagram, White moves first except in help play (Black first,
//! `h#n.5` White first), and `postkey` gives the move to the defender.

use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, File, FromSetup, Piece, Rank, Role, Setup, Square};

use crate::error::PopeyeError;
use crate::problem::stipulation::Stipulation;
use crate::problem::tree::Show;

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
}

/// One problem of an input file.
#[derive(Clone, Debug, Default)]
pub struct PopeyeProblem {
    pub title: Vec<String>,
    pub author: Vec<String>,
    pub origin: Vec<String>,
    pub twins: Vec<Twin>,
}

/// The input's keywords; a unique prefix stands for its word.
const KEYWORDS: &[&str] = &[
    "begin",
    "end",
    "next",
    "title",
    "author",
    "origin",
    "remark",
    "pieces",
    "stipulation",
    "option",
    "twin",
    // Popeye's words outside the orthodox subset: named in the error.
    "condition",
    "sstipulation",
    "forsyth",
    "protocol",
    "award",
    "zeroposition",
    "layout",
    "language",
    "input",
];

/// Popeye's options; those not read here are named in the error.
const OPTIONS: &[&str] = &[
    "variation",
    "try",
    "setplay",
    "threat",
    "nothreat",
    "defence",
    "maxsolutions",
    "postkeyplay",
    "noboard",
    "movenumbers",
    "maxtime",
    "trivialtriesavoid",
    "nullmoves",
    "whitetoplay",
    "startmovenumber",
    "uptomovenumber",
    "nowk",
    "nobk",
    "duplex",
    "maxflightsquares",
    "enpassant",
    "castlingmutuallyexclusive",
    "noshortvariations",
    "halfduplex",
    "nontrivial",
    "intelligent",
    "nocastling",
    "quodlibet",
    "stoponshortsolutions",
    "beep",
    "suppressgrid",
    "writegrid",
    "keepmatingpiece",
    "lastcapture",
    "goalisend",
    "matesin1",
];

/// The word of `list` that `token` names: itself or its unique prefix.
fn word<'a>(token: &str, list: &[&'a str]) -> Option<&'a str> {
    let t = token.to_ascii_lowercase();
    if let Some(&w) = list.iter().find(|&&w| w == t) {
        return Some(w);
    }
    let mut found = list.iter().filter(|w| w.starts_with(&t));
    match (found.next(), found.next()) {
        (Some(&w), None) if t.len() >= 2 => Some(w),
        _ => None,
    }
}

/// A problem being read: its pieces, stipulation and options.
#[derive(Clone, Debug, Default)]
struct Draft {
    board: Board,
    stip: Option<Stipulation>,
    show: Show,
    tries: bool,
    refutations: usize,
    max_solutions: Option<usize>,
    max_time: Option<u64>,
}

/// The input's tokens, with the rest of a line where a keyword takes it.
struct Tokens<'a> {
    lines: Vec<&'a str>,
    line: usize,
    col: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Tokens<'a> {
        Tokens { lines: text.lines().collect(), line: 0, col: 0 }
    }

    fn skip_space(&mut self) {
        while self.line < self.lines.len() {
            let rest = &self.lines[self.line][self.col..];
            let trimmed = rest.trim_start();
            if trimmed.is_empty() {
                self.line += 1;
                self.col = 0;
            } else {
                self.col += rest.len() - trimmed.len();
                return;
            }
        }
    }

    fn peek(&mut self) -> Option<&'a str> {
        self.skip_space();
        let rest = &self.lines.get(self.line)?[self.col..];
        Some(rest.split_whitespace().next().unwrap_or(""))
    }

    fn next(&mut self) -> Option<&'a str> {
        let t = self.peek()?;
        self.col += t.len();
        Some(t)
    }

    /// The rest of the current line, after the keyword just read.
    fn rest_of_line(&mut self) -> String {
        let Some(line) = self.lines.get(self.line) else { return String::new() };
        let rest = line[self.col..].trim().to_string();
        self.line += 1;
        self.col = 0;
        rest
    }

    fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, String> {
        let t = self.next().ok_or_else(|| format!("{what}: a number is missing"))?;
        t.parse().map_err(|_| format!("{what}: '{t}' is not a number"))
    }

    fn square(&mut self, what: &str) -> Result<Square, String> {
        let t = self.next().ok_or_else(|| format!("{what}: a square is missing"))?;
        parse_square(t).ok_or_else(|| format!("{what}: '{t}' is not a square"))
    }
}

fn parse_square(t: &str) -> Option<Square> {
    t.to_ascii_lowercase().parse().ok()
}

/// The orthodox piece of Popeye's English letter (S for the knight).
fn role_of(letter: &str) -> Option<Role> {
    match letter.to_ascii_lowercase().as_str() {
        "k" => Some(Role::King),
        "q" => Some(Role::Queen),
        "r" => Some(Role::Rook),
        "b" => Some(Role::Bishop),
        "s" => Some(Role::Knight),
        "p" => Some(Role::Pawn),
        _ => None,
    }
}

/// Pieces written as Popeye does: a letter and its squares (`pa2b3g7`).
fn pieces_of(token: &str, color: Color) -> Result<Vec<(Piece, Square)>, String> {
    let t = token.to_ascii_lowercase();
    // The letters before the first square (a file letter and a digit).
    let split = t.find(|c: char| c.is_ascii_digit()).and_then(|i| i.checked_sub(1)).unwrap_or(t.len());
    let (letters, squares) = t.split_at(split);
    let role = role_of(letters)
        .ok_or_else(|| format!("piece '{token}': only orthodox pieces (K, Q, R, B, S, P) are read, no fairy pieces"))?;
    if squares.is_empty() || squares.len() % 2 != 0 {
        return Err(format!("piece '{token}': want a letter and squares, as in pa2b3"));
    }
    (0..squares.len())
        .step_by(2)
        .map(|i| {
            parse_square(&squares[i..i + 2])
                .map(|sq| (Piece { color, role }, sq))
                .ok_or_else(|| format!("piece '{token}': '{}' is not a square", &squares[i..i + 2]))
        })
        .collect()
}

/// Whether `token` starts a new directive (a keyword) rather than continuing one.
fn is_keyword(token: &str) -> bool {
    word(token, KEYWORDS).is_some()
}

fn side_of(token: &str) -> Option<Color> {
    match token.to_ascii_lowercase().as_str() {
        "white" | "w" => Some(Color::White),
        "black" | "b" => Some(Color::Black),
        _ => None,
    }
}

/// Popeye's name of the piece on a square: `wRd1`.
fn piece_name(board: &Board, sq: Square) -> String {
    match board.piece_at(sq) {
        Some(p) => {
            let letter = match p.role {
                Role::Knight => 'S',
                r => r.upper_char(),
            };
            format!("{}{letter}{sq}", if p.color == Color::White { 'w' } else { 'b' })
        }
        None => sq.to_string(),
    }
}

/// The square `f` maps `sq` to, by file and rank (0 to 7), or None off the board.
fn by_coords(f: fn(i32, i32) -> (i32, i32), sq: Square) -> Option<Square> {
    let (file, rank) = coords(sq);
    let (a, b) = f(file, rank);
    square_at(a, b)
}

/// `board` with every piece moved by `f` (None: off the board, an error).
fn map_board(board: &Board, f: impl Fn(Square) -> Option<Square>, what: &str) -> Result<Board, String> {
    let mut out = Board::empty();
    for (sq, piece) in board.clone() {
        let to = f(sq).ok_or_else(|| format!("twin {what}: {sq} leaves the board"))?;
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

impl Draft {
    /// Reads `pieces white ... black ...` onto the board.
    fn read_pieces(&mut self, tokens: &mut Tokens) -> Result<(), String> {
        let mut color = None;
        while let Some(t) = tokens.peek() {
            if is_keyword(t) {
                break;
            }
            tokens.next();
            if let Some(c) = side_of(t) {
                color = Some(c);
            } else if t.eq_ignore_ascii_case("neutral") {
                return Err("pieces: neutral pieces are fairy and are not read".into());
            } else {
                let c = color.ok_or_else(|| format!("pieces: '{t}' before 'white' or 'black'"))?;
                for (piece, sq) in pieces_of(t, c)? {
                    self.board.set_piece_at(sq, piece);
                }
            }
        }
        Ok(())
    }

    fn read_stipulation(&mut self, tokens: &mut Tokens) -> Result<String, String> {
        let t = tokens.next().ok_or("stipulation: missing")?;
        self.stip = Some(t.parse().map_err(|e: crate::error::StipulationError| e.to_string())?);
        Ok(t.to_string())
    }

    fn read_options(&mut self, tokens: &mut Tokens) -> Result<(), String> {
        while let Some(t) = tokens.peek() {
            if is_keyword(t) {
                break;
            }
            tokens.next();
            match word(t, OPTIONS) {
                Some("variation") => self.show.variations = true,
                Some("try") => self.tries = true,
                Some("setplay") => self.show.set_play = true,
                Some("threat") => self.show.max_threat = Some(tokens.number("option threat")?),
                Some("nothreat") => self.show.threats = false,
                Some("defence") => self.refutations = tokens.number("option defence")?,
                Some("maxsolutions") => self.max_solutions = Some(tokens.number("option maxsolutions")?),
                Some("maxtime") => self.max_time = Some(tokens.number("option maxtime")?),
                Some("postkeyplay") => self.show.postkey = true,
                Some("noboard") | Some("movenumbers") => {}
                Some(other) => return Err(format!("option {other}: not read (only orthodox solving options are)")),
                None => return Err(format!("option '{t}': unknown")),
            }
        }
        Ok(())
    }

    /// Applies one twin change read from `tokens`; returns its label.
    fn twin_change(&mut self, change: &str, tokens: &mut Tokens) -> Result<String, String> {
        let lower = change.to_ascii_lowercase();
        match lower.as_str() {
            "move" => {
                let (from, to) = (tokens.square("twin move")?, tokens.square("twin move")?);
                let label = format!("{}-->{to}", piece_name(&self.board, from));
                let piece = self.board.remove_piece_at(from).ok_or(format!("twin move: {from} is empty"))?;
                self.board.set_piece_at(to, piece);
                Ok(label)
            }
            "exchange" => {
                let (a, b) = (tokens.square("twin exchange")?, tokens.square("twin exchange")?);
                let label = format!("{}<-->{}", piece_name(&self.board, a), piece_name(&self.board, b));
                let (pa, pb) = (self.board.remove_piece_at(a), self.board.remove_piece_at(b));
                if let Some(p) = pa {
                    self.board.set_piece_at(b, p);
                }
                if let Some(p) = pb {
                    self.board.set_piece_at(a, p);
                }
                Ok(label)
            }
            "remove" => {
                let sq = tokens.square("twin remove")?;
                let label = format!("-{}", piece_name(&self.board, sq));
                self.board.remove_piece_at(sq).ok_or(format!("twin remove: {sq} is empty"))?;
                Ok(label)
            }
            "add" => {
                let side = tokens.next().and_then(side_of).ok_or("twin add: want white or black")?;
                let t = tokens.next().ok_or("twin add: a piece is missing")?;
                let mut labels = Vec::new();
                for (piece, sq) in pieces_of(t, side)? {
                    self.board.set_piece_at(sq, piece);
                    labels.push(format!("+{}", piece_name(&self.board, sq)));
                }
                Ok(labels.join("  "))
            }
            "rotate" => {
                let degrees: u32 = tokens.number("twin rotate")?;
                let f: fn(i32, i32) -> (i32, i32) = match degrees {
                    90 => |f, r| (7 - r, f),
                    180 => |f, r| (7 - f, 7 - r),
                    270 => |f, r| (r, 7 - f),
                    _ => return Err(format!("twin rotate {degrees}: want 90, 180 or 270")),
                };
                self.board = map_board(&self.board, |sq| by_coords(f, sq), "rotate")?;
                Ok(format!("rotate {degrees}"))
            }
            "mirror" => {
                let axis = tokens.next().ok_or("twin mirror: an axis is missing")?.to_ascii_lowercase();
                let f: fn(i32, i32) -> (i32, i32) = match axis.as_str() {
                    "a1<-->h1" => |f, r| (7 - f, r),
                    "a1<-->a8" => |f, r| (f, 7 - r),
                    "a1<-->h8" => |f, r| (r, f),
                    _ => return Err(format!("twin mirror {axis}: want a1<-->h1, a1<-->a8 or a1<-->h8")),
                };
                self.board = map_board(&self.board, |sq| by_coords(f, sq), "mirror")?;
                Ok(format!("mirror {axis}"))
            }
            "shift" => {
                let (a, b) = (tokens.square("twin shift")?, tokens.square("twin shift")?);
                let (df, dr) = (coords(b).0 - coords(a).0, coords(b).1 - coords(a).1);
                self.board = map_board(&self.board, |sq| square_at(coords(sq).0 + df, coords(sq).1 + dr), "shift")?;
                Ok(format!("shift {a} ==> {b}"))
            }
            _ if word(change, KEYWORDS) == Some("stipulation") => self.read_stipulation(tokens),
            _ => Err(format!(
                "twin {change}: not read (move, exchange, add, remove, rotate, mirror, shift, stipulation are)"
            )),
        }
    }

    /// The twin this draft describes, labelled `label`.
    fn twin(&self, label: String) -> Result<Twin, String> {
        let stip = self.stip.ok_or("the problem has no stipulation")?;
        let mut show = self.show;
        show.tries = self.tries.then_some(self.refutations.max(1));
        let first = if show.postkey { !stip.first_mover() } else { stip.first_mover() };
        let pos = position(&self.board, first)?;
        Ok(Twin { label, pos, stip, show, max_solutions: self.max_solutions, max_time: self.max_time })
    }
}

/// The position of `board` with `turn` to move, castling where a king and a rook stand
/// on their home squares.
fn position(board: &Board, turn: Color) -> Result<Chess, String> {
    let mut rights = Bitboard::EMPTY;
    for color in Color::ALL {
        let back = color.fold_wb(Rank::First, Rank::Eighth);
        let king = Square::from_coords(File::E, back);
        if board.piece_at(king) == Some(Piece { color, role: Role::King }) {
            for file in [File::A, File::H] {
                let rook = Square::from_coords(file, back);
                if board.piece_at(rook) == Some(Piece { color, role: Role::Rook }) {
                    rights.add(rook);
                }
            }
        }
    }
    let mut setup = Setup::empty();
    setup.board = board.clone();
    setup.turn = turn;
    setup.castling_rights = rights;
    Chess::from_setup(setup, CastlingMode::Standard).map_err(|e| format!("the position is not legal chess: {e}"))
}

/// Reads every problem of a Popeye input file.
pub fn parse(text: &str) -> Result<Vec<PopeyeProblem>, PopeyeError> {
    let mut tokens = Tokens::new(text);
    read_problems(&mut tokens)
        .map_err(|message| PopeyeError { line: tokens.line.min(tokens.lines.len().max(1) - 1) + 1, message })
}

fn read_problems(tokens: &mut Tokens) -> Result<Vec<PopeyeProblem>, String> {
    let mut problems = Vec::new();
    match tokens.next() {
        Some(t) if word(t, KEYWORDS) == Some("begin") => {}
        Some(t) => return Err(format!("'{t}': the input starts with 'begin'")),
        None => return Err("the input is empty".into()),
    }
    'problems: loop {
        let mut problem = PopeyeProblem::default();
        let mut draft = Draft { board: Board::empty(), refutations: 1, ..Draft::default() };
        let mut twins: Vec<(String, Draft)> = Vec::new();
        loop {
            let Some(t) = tokens.next() else { break 'problems };
            match word(t, KEYWORDS) {
                Some("title") => problem.title.push(tokens.rest_of_line()),
                Some("author") => problem.author.push(tokens.rest_of_line()),
                Some("origin") => problem.origin.push(tokens.rest_of_line()),
                Some("remark") => {
                    tokens.rest_of_line();
                }
                Some("pieces") => draft.read_pieces(tokens)?,
                Some("stipulation") => {
                    draft.read_stipulation(tokens)?;
                }
                Some("option") => draft.read_options(tokens)?,
                Some("twin") => {
                    let cont = tokens.peek().is_some_and(|t| t.eq_ignore_ascii_case("cont"));
                    if cont {
                        tokens.next();
                    }
                    let mut twin = if cont {
                        twins.last().map(|(_, d)| d.clone()).unwrap_or_else(|| draft.clone())
                    } else {
                        draft.clone()
                    };
                    let mut labels = Vec::new();
                    while let Some(change) = tokens.peek() {
                        // A stipulation is a twin's change too; any other keyword ends it.
                        if is_keyword(change) && word(change, KEYWORDS) != Some("stipulation") {
                            break;
                        }
                        tokens.next();
                        labels.push(twin.twin_change(change, tokens)?);
                    }
                    let letter = (b'b' + twins.len() as u8) as char;
                    let prefix = if cont { "+" } else { "" };
                    twins.push((format!("{prefix}{letter}) {}", labels.join("  ")), twin));
                }
                Some("next") | Some("end") => {
                    let end = word(t, KEYWORDS) == Some("end");
                    if twins.is_empty() {
                        problem.twins.push(draft.twin(String::new())?);
                    } else {
                        problem.twins.push(draft.twin("a)".into())?);
                        for (label, twin) in twins.drain(..) {
                            problem.twins.push(twin.twin(label)?);
                        }
                    }
                    problems.push(problem);
                    if end {
                        break 'problems;
                    }
                    continue 'problems;
                }
                Some("begin") => return Err("'begin' inside a problem".into()),
                Some(fairy) => return Err(format!("{fairy}: not read (fairy or outside the orthodox subset)")),
                None => return Err(format!("'{t}': unknown word")),
            }
        }
    }
    if problems.is_empty() {
        return Err("no problem before the end of the input ('end' missing)".into());
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::EnPassantMode;
    use shakmaty::fen::Fen;

    fn fen(pos: &Chess) -> String {
        Fen::from_position(pos, EnPassantMode::Legal).to_string()
    }

    #[test]
    fn a_problem_reads_with_abbreviations_and_twins() {
        let text = "BeGin\ntit A twin test\nauth Some One\npie white kc6 rd1 black ka8 pa7\nstip #2\n\
                    opt vari try noboard\ntwin move d1 d2\ntwin cont remove a7\ntwin rotate 180\n\
                    twin remove a7 rotate 90\ntwin mirror a1<-->h1\ntwin shift a1 b1\n\
                    twin add white qh1 stip h#1\nend\n";
        let problems = parse(text).unwrap();
        assert_eq!(problems.len(), 1);
        let p = &problems[0];
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
    fn castling_is_open_where_king_and_rook_stand_at_home() {
        let problems = parse("begin pieces white ke1 rh1 ra2 black ke8 ra8 stip #2 end").unwrap();
        assert_eq!(fen(&problems[0].twins[0].pos), "r3k3/8/8/8/8/8/R7/4K2R w Kq - 0 1");
    }

    #[test]
    fn fairy_words_are_refused_by_name() {
        let err = |text: &str| parse(text).unwrap_err().message;
        assert!(err("begin pieces white ka1 black ka8 cond circe stip #2 end").starts_with("condition"));
        assert!(err("begin pieces white ka1 nrb2 black ka8 stip #2 end").contains("fairy pieces"));
        assert!(err("begin pieces white ka1 black ka8 stip #2 opt nowk end").starts_with("option nowk"));
        assert!(err("begin pieces white ka1 black ka8 stip exact-#2 end").contains("unknown stipulation"));
        assert!(err("begin pieces white ka1 black ka8 stip #2").contains("'end' missing"));
    }
}
