//! A problem as it is read: its board, stipulation and options, until `EndProblem` or a
//! twin makes positions of it.

use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, File, FromSetup, Piece, Rank, Role, Setup, Square};

use super::tokens::Tokens;
use super::words::{Language, Lookup, OPTIONS, Opt, lookup, words};
use super::{Duplex, PopeyeProblem, Twin};
use crate::error::Misread;
use crate::problem::stipulation::{Play, Stipulation};
use crate::problem::tree::Show;

/// A problem being read.
#[derive(Clone, Debug)]
pub struct Draft {
    pub language: Language,
    pub board: Board,
    pub stip: Option<Stipulation>,
    show: Show,
    tries: bool,
    refutations: usize,
    max_solutions: Option<usize>,
    max_time: Option<u64>,
    white_to_play: bool,
    duplex: Duplex,
    /// `option enpassant`: the square a pawn just crossed.
    en_passant: Option<Square>,
    /// `option nocastling`: squares whose men may not castle.
    no_castling: Bitboard,
}

/// A square, as written in any case.
pub fn square(t: &str) -> Option<Square> {
    t.to_ascii_lowercase().parse().ok()
}

/// The squares of a run such as `a2b3g7`, or None if it is not one.
fn squares(run: &str) -> Option<Vec<Square>> {
    if run.is_empty() || !run.len().is_multiple_of(2) || !run.is_ascii() {
        return None;
    }
    (0..run.len()).step_by(2).map(|i| square(&run[i..i + 2])).collect()
}

/// The number after option `what`.
fn number(tokens: &mut Tokens, what: &str) -> Result<u64, Misread> {
    let n = tokens.next().ok_or(Misread::Missing("its number"))?;
    n.parse()
        .map_err(|_| Misread::Malformed { word: n.to_string(), want: "is not a number" })
        .map_err(|e| e.within(format!("option {what}")))
}

/// What a word of a piece list is.
pub enum PieceWord {
    /// Orthodox men: their role and squares.
    Men(Role, Vec<Square>),
    /// A fairy piece, by its name in the input.
    Fairy(String),
    /// No piece: the next command.
    None,
}

/// Reads a piece word as Popeye writes one: the piece's letter (or a fairy piece's one or
/// two) and its squares (`pa2b3g7`, German `bd4f2`).
pub fn piece_word(language: Language, token: &str) -> PieceWord {
    let t = token.to_ascii_lowercase();
    if !t.is_ascii() {
        return PieceWord::None;
    }
    for walk in 1..=2 {
        if t.len() > walk
            && let Some(sqs) = squares(&t[walk..])
        {
            let name = &t[..walk];
            return match (walk, language.role(name.chars().next().unwrap_or(' '))) {
                (1, Some(role)) => PieceWord::Men(role, sqs),
                _ if name.chars().all(|c| c.is_ascii_alphanumeric()) => PieceWord::Fairy(name.to_string()),
                _ => PieceWord::None,
            };
        }
    }
    PieceWord::None
}

/// The colour a word names: White or Black; Err for the fairy ones (neutral, total
/// invisible); None for no colour word.
pub fn colour_word(language: Language, token: &str) -> Result<Option<Color>, Misread> {
    match lookup(&words(language).colours, token) {
        Lookup::Found(0) => Ok(Some(Color::White)),
        Lookup::Found(1) => Ok(Some(Color::Black)),
        Lookup::Found(_) => Err(Misread::Fairy("neutral and invisible men").within(format!("pieces: {token}"))),
        _ => Ok(None),
    }
}

impl Draft {
    pub fn new(language: Language) -> Draft {
        Draft {
            language,
            board: Board::empty(),
            stip: None,
            show: Show::default(),
            tries: false,
            refutations: 1,
            max_solutions: None,
            max_time: None,
            white_to_play: false,
            duplex: Duplex::Off,
            en_passant: None,
            no_castling: Bitboard::EMPTY,
        }
    }

    /// Reads `pieces white ... black ...` onto the board; a man on an occupied square
    /// replaces the one there.
    pub fn read_pieces(&mut self, tokens: &mut Tokens) -> Result<(), Misread> {
        let mut color = None;
        while let Some(t) = tokens.peek() {
            match piece_word(self.language, t) {
                PieceWord::Men(role, sqs) => {
                    let color = color
                        .ok_or_else(|| Misread::Malformed { word: t.to_string(), want: "comes before the colour" })
                        .map_err(|e| e.within("pieces"))?;
                    for sq in sqs {
                        self.board.set_piece_at(sq, Piece { color, role });
                    }
                }
                PieceWord::Fairy(name) => {
                    return Err(Misread::Fairy("fairy pieces").within(format!("pieces: {name} ({t})")));
                }
                PieceWord::None => match colour_word(self.language, t)? {
                    Some(c) => color = Some(c),
                    None => {
                        // A piece attribute (royal, paralysing, ...) is fairy; anything
                        // else is the next command.
                        if color.is_some() && is_attribute(t) {
                            return Err(Misread::Fairy("fairy piece attributes").within(format!("pieces: {t}")));
                        }
                        break;
                    }
                },
            }
            tokens.next();
        }
        Ok(())
    }

    /// Reads a `forsyth` position (men given by the input language's letters, upper case
    /// White) onto the board, leaving the other squares as they are.
    pub fn read_forsyth(&mut self, text: &str) -> Result<(), Misread> {
        let mut index = 0usize;
        let mut chars = text.chars().peekable();
        let mut forced: Option<Color> = None;
        while let Some(c) = chars.next() {
            match c {
                '/' => {}
                '0'..='9' => {
                    let mut n = c.to_digit(10).unwrap_or(0) as usize;
                    while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                        n = n * 10 + d as usize;
                        chars.next();
                    }
                    index += n;
                }
                '+' => forced = Some(Color::White),
                '-' => forced = Some(Color::Black),
                '=' => return Err(Misread::Fairy("neutral men").within(format!("forsyth {text}"))),
                '.' => return Err(Misread::Fairy("fairy pieces").within(format!("forsyth {text}"))),
                c if c.is_ascii_alphabetic() => {
                    let role = self
                        .language
                        .role(c)
                        .ok_or_else(|| Misread::Fairy("fairy pieces").within(format!("forsyth {text}: '{c}'")))?;
                    let color =
                        forced.take().unwrap_or(if c.is_ascii_uppercase() { Color::White } else { Color::Black });
                    if index >= 64 {
                        return Err(Misread::Malformed { word: text.to_string(), want: "has more than 64 squares" }
                            .within("forsyth"));
                    }
                    let sq = Square::from_coords(File::new((index % 8) as u32), Rank::new(7 - (index / 8) as u32));
                    self.board.set_piece_at(sq, Piece { color, role });
                    index += 1;
                }
                _ => {
                    return Err(Misread::Malformed { word: c.to_string(), want: "is no man nor a number of squares" }
                        .within(format!("forsyth {text}")));
                }
            }
        }
        Ok(())
    }

    /// `InitialGameArray`: the men of the game's start.
    pub fn read_game_array(&mut self) {
        self.board = Board::default();
    }

    pub fn read_stipulation(&mut self, text: &str) -> Result<(), Misread> {
        self.stip = Some(text.parse::<Stipulation>()?);
        Ok(())
    }

    /// Reads options until a word that is none (the next command).
    pub fn read_options(&mut self, tokens: &mut Tokens) -> Result<(), Misread> {
        while let Some(t) = tokens.peek() {
            let Lookup::Found(i) = lookup(&words(self.language).options, t) else { break };
            tokens.next();
            match OPTIONS[i] {
                Opt::Variation => self.show.variations = true,
                Opt::Try => self.tries = true,
                Opt::SetPlay => self.show.set_play = true,
                Opt::Threat => self.show.max_threat = Some(number(tokens, t)? as u16),
                Opt::NoThreat => self.show.threats = false,
                Opt::Defence => self.refutations = number(tokens, t)? as usize,
                Opt::MaxSolutions => self.max_solutions = Some(number(tokens, t)? as usize),
                Opt::MaxTime => self.max_time = Some(number(tokens, t)?),
                Opt::PostKeyPlay => self.show.postkey = true,
                Opt::WhiteToPlay => self.white_to_play = true,
                Opt::Duplex => self.duplex = Duplex::Both,
                Opt::HalfDuplex => self.duplex = Duplex::Only,
                Opt::Intelligent | Opt::Beep => {
                    // An optional number (solutions per final position; beeps).
                    if tokens.peek().is_some_and(|n| n.parse::<u64>().is_ok()) {
                        tokens.next();
                    }
                }
                Opt::NoBoard | Opt::MoveNumbers | Opt::SuppressGrid | Opt::WriteGrid | Opt::NoShortVariations => {}
                Opt::EnPassant => {
                    let within = |e: Misread| e.within("option enpassant");
                    let run = tokens.next().ok_or(Misread::Missing("the run of squares")).map_err(within)?;
                    let malformed = |want| within(Misread::Malformed { word: run.to_string(), want });
                    let sqs = squares(run).ok_or_else(|| malformed("is not a run of squares"))?;
                    // The pawn's start, the square it crossed, its arrival.
                    let [_, crossed, _] = sqs[..] else {
                        return Err(malformed("is not a double step, as e2e3e4 is"));
                    };
                    self.en_passant = Some(crossed);
                }
                Opt::NoCastling => {
                    let within = |e: Misread| e.within("option nocastling");
                    let run = tokens.next().ok_or(Misread::Missing("the run of squares")).map_err(within)?;
                    let sqs = squares(run).ok_or_else(|| {
                        within(Misread::Malformed { word: run.to_string(), want: "is not a run of squares" })
                    })?;
                    for sq in sqs {
                        self.no_castling.add(sq);
                    }
                }
                _ => {
                    let context = format!("option {}", OPTIONS_NAMES[i]);
                    return Err(Misread::Fairy("options outside orthodox solving").within(context));
                }
            }
        }
        Ok(())
    }

    /// The problem read, with `twins` (labels and drafts; none: the diagram alone).
    pub fn finish(&self, mut problem: PopeyeProblem, twins: Vec<(String, Draft)>) -> Result<PopeyeProblem, Misread> {
        if twins.is_empty() && problem.zero {
            return Err(Misread::ZeroWithoutTwins);
        }
        if twins.is_empty() {
            problem.twins.push(self.twin(String::new())?);
        } else {
            if !problem.zero {
                problem.twins.push(self.twin("a)".into())?);
            }
            for (label, draft) in twins {
                problem.twins.push(draft.twin(label)?);
            }
        }
        Ok(problem)
    }

    /// The twin this draft describes, labelled `label`.
    pub fn twin(&self, label: String) -> Result<Twin, Misread> {
        let mut stip = self.stip.ok_or(Misread::NoStipulation)?;
        if self.white_to_play && stip.play == Play::Help && !stip.half {
            // White moves first: h#n becomes h#(n-1).5.
            stip.moves -= 1;
            stip.half = true;
        }
        let mut show = self.show;
        show.tries = self.tries.then_some(self.refutations.max(1));
        let first = if show.postkey { !stip.first_mover() } else { stip.first_mover() };
        let pos = self.position(first)?;
        Ok(Twin {
            label,
            pos,
            stip,
            show,
            max_solutions: self.max_solutions,
            max_time: self.max_time,
            duplex: self.duplex,
        })
    }

    /// The position with `turn` to move, castling where a king and a rook stand on their
    /// home squares and `option nocastling` names neither.
    fn position(&self, turn: Color) -> Result<Chess, Misread> {
        let board = &self.board;
        let mut rights = Bitboard::EMPTY;
        for color in Color::ALL {
            let back = color.fold_wb(Rank::First, Rank::Eighth);
            let king = Square::from_coords(File::E, back);
            if board.piece_at(king) == Some(Piece { color, role: Role::King }) && !self.no_castling.contains(king) {
                for file in [File::A, File::H] {
                    let rook = Square::from_coords(file, back);
                    if board.piece_at(rook) == Some(Piece { color, role: Role::Rook })
                        && !self.no_castling.contains(rook)
                    {
                        rights.add(rook);
                    }
                }
            }
        }
        let mut setup = Setup::empty();
        setup.board = board.clone();
        setup.turn = turn;
        setup.castling_rights = rights;
        setup.ep_square = self.en_passant;
        Chess::from_setup(setup, CastlingMode::Standard).map_err(|e| Misread::Illegal(e.to_string()))
    }
}

/// English names of Popeye's options, for errors.
const OPTIONS_NAMES: [&str; 39] = [
    "defence",
    "setplay",
    "whitetoplay",
    "variations",
    "movenumbers",
    "startmovenumber",
    "nowk",
    "duplex",
    "nobk",
    "threat",
    "nothreat",
    "try",
    "maxsolutions",
    "maxflightsquares",
    "search",
    "multisolutions",
    "nosymmetry",
    "nontrivial",
    "keepmatingpiece",
    "enpassant",
    "noboard",
    "noshortvariations",
    "halfduplex",
    "postkeyplay",
    "intelligent",
    "maxtime",
    "nocastling",
    "quodlibet",
    "stoponshortsolutions",
    "beep",
    "suppressgrid",
    "writegrid",
    "castlingmutuallyexclusive",
    "goalisend",
    "unpublishedoption",
    "nullmoves",
    "uptomovenumber",
    "trivialtriesavoid",
    "matesin1",
];

/// Whether `token` is one of Popeye's piece attributes (royal, paralysing, ...), in any
/// of its languages: all are fairy.
fn is_attribute(token: &str) -> bool {
    const ATTRIBUTES: &[&str] = &[
        "royal",
        "kamikaze",
        "paralysing",
        "chameleon",
        "jigger",
        "volage",
        "functionary",
        "halfneutral",
        "hurdlecolourchanging",
        "protean",
        "magic",
        "uncapturable",
        "patrol",
        "frischauf",
        "bul",
        "dob",
        "anda",
        "andainverse",
        "alicea",
        "aliceb",
        "royale",
        "paralysante",
        "cameleon",
        "fonctionnaire",
        "demineutre",
        "protee",
        "magique",
        "imprenable",
        "patrouille",
        "koeniglich",
        "paralysierend",
        "chamaeleon",
        "beamter",
        "halbneutral",
        "proteisch",
        "magisch",
        "unschlagbar",
        "patrouille",
    ];
    let t = token.to_ascii_lowercase();
    t.len() >= 3 && ATTRIBUTES.iter().any(|a| a.starts_with(&t))
}
