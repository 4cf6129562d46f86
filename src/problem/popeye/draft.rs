//! A problem as it is read: its board, stipulation and options, until `EndProblem` or a
//! twin makes positions of it.

use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, File, FromSetup, Piece, Rank, Role, Setup, Square};

use super::tokens::Tokens;
use super::words::{Language, Lookup, OPTIONS, Opt, lookup, words};
use super::{Duplex, PopeyeProblem, Twin};
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
fn number(tokens: &mut Tokens, what: &str) -> Result<u64, String> {
    let n = tokens.next().ok_or_else(|| format!("option {what}: a number is missing"))?;
    n.parse().map_err(|_| format!("option {what}: '{n}' is not a number"))
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
pub fn colour_word(language: Language, token: &str) -> Result<Option<Color>, String> {
    match lookup(&words(language).colours, token) {
        Lookup::Found(0) => Ok(Some(Color::White)),
        Lookup::Found(1) => Ok(Some(Color::Black)),
        Lookup::Found(_) => Err(format!("pieces: {token}: neutral and invisible men are fairy and are not read")),
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
    pub fn read_pieces(&mut self, tokens: &mut Tokens) -> Result<(), String> {
        let mut color = None;
        while let Some(t) = tokens.peek() {
            match piece_word(self.language, t) {
                PieceWord::Men(role, sqs) => {
                    let color = color.ok_or_else(|| format!("pieces: '{t}' before the colour"))?;
                    for sq in sqs {
                        self.board.set_piece_at(sq, Piece { color, role });
                    }
                }
                PieceWord::Fairy(name) => return Err(format!("pieces: {name} ({t}): fairy pieces are not read")),
                PieceWord::None => match colour_word(self.language, t)? {
                    Some(c) => color = Some(c),
                    None => {
                        // A piece attribute (royal, paralysing, ...) is fairy; anything
                        // else is the next command.
                        if color.is_some() && is_attribute(t) {
                            return Err(format!("pieces: {t}: fairy piece attributes are not read"));
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
    pub fn read_forsyth(&mut self, text: &str) -> Result<(), String> {
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
                '=' => return Err(format!("forsyth {text}: neutral men are fairy and are not read")),
                '.' => return Err(format!("forsyth {text}: fairy pieces are not read")),
                c if c.is_ascii_alphabetic() => {
                    let role = self
                        .language
                        .role(c)
                        .ok_or_else(|| format!("forsyth {text}: '{c}' is a fairy piece, which is not read"))?;
                    let color =
                        forced.take().unwrap_or(if c.is_ascii_uppercase() { Color::White } else { Color::Black });
                    if index >= 64 {
                        return Err(format!("forsyth {text}: more than 64 squares"));
                    }
                    let sq = Square::from_coords(File::new((index % 8) as u32), Rank::new(7 - (index / 8) as u32));
                    self.board.set_piece_at(sq, Piece { color, role });
                    index += 1;
                }
                _ => return Err(format!("forsyth {text}: '{c}' is not read")),
            }
        }
        Ok(())
    }

    /// `InitialGameArray`: the men of the game's start.
    pub fn read_game_array(&mut self) {
        self.board = Board::default();
    }

    pub fn read_stipulation(&mut self, text: &str) -> Result<(), String> {
        self.stip = Some(text.parse().map_err(|e: crate::error::StipulationError| format!("stipulation {e}"))?);
        Ok(())
    }

    /// Reads options until a word that is none (the next command).
    pub fn read_options(&mut self, tokens: &mut Tokens) -> Result<(), String> {
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
                    let run = tokens.next().ok_or("option enpassant: the squares are missing")?;
                    let sqs =
                        squares(run).ok_or_else(|| format!("option enpassant: '{run}' is not a run of squares"))?;
                    // The pawn's start, the square it crossed, its arrival.
                    let [_, crossed, _] = sqs[..] else {
                        return Err(format!("option enpassant {run}: want a double step, as in e2e3e4"));
                    };
                    self.en_passant = Some(crossed);
                }
                Opt::NoCastling => {
                    let run = tokens.next().ok_or("option nocastling: the squares are missing")?;
                    let sqs =
                        squares(run).ok_or_else(|| format!("option nocastling: '{run}' is not a run of squares"))?;
                    for sq in sqs {
                        self.no_castling.add(sq);
                    }
                }
                _ => {
                    return Err(format!("option {}: not read (it leaves orthodox solving)", OPTIONS_NAMES[i]));
                }
            }
        }
        Ok(())
    }

    /// The problem read, with `twins` (labels and drafts; none: the diagram alone).
    pub fn finish(&self, mut problem: PopeyeProblem, twins: Vec<(String, Draft)>) -> Result<PopeyeProblem, String> {
        if twins.is_empty() && problem.zero {
            return Err("zeroposition without twins".into());
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
    pub fn twin(&self, label: String) -> Result<Twin, String> {
        let mut stip = self.stip.ok_or("no stipulation")?;
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
    fn position(&self, turn: Color) -> Result<Chess, String> {
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
        Chess::from_setup(setup, CastlingMode::Standard).map_err(|e| format!("the position is not legal chess: {e}"))
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
