//! Popeye's input words in its three languages (English, German, French), as
//! Popeye 4.104 reads and writes them. A keyword may be abbreviated to any prefix that
//! names it alone in its list, in any letter case ([`lookup`]).

pub use crate::problem::language::Language;

/// What a keyword of a list names: its place in the list, or why it names none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    Found(usize),
    Unknown,
    Ambiguous,
}

/// The entry of `list` that `token` names, as Popeye reads it: the first entry `token`
/// starts, if `token` is all of it or no later entry starts with `token` too.
pub fn lookup(list: &[&str], token: &str) -> Lookup {
    let starts = |entry: &&str| {
        entry.len() >= token.len() && entry.as_bytes()[..token.len()].eq_ignore_ascii_case(token.as_bytes())
    };
    if token.is_empty() {
        return Lookup::Unknown;
    }
    let Some(first) = list.iter().position(starts) else { return Lookup::Unknown };
    if list[first].len() == token.len() || !list[first + 1..].iter().any(starts) {
        Lookup::Found(first)
    } else {
        Lookup::Ambiguous
    }
}

/// The commands of a problem, in Popeye's order (a prefix is read as the first one it
/// names alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Remark,
    StructuredStipulation,
    Author,
    Origin,
    Pieces,
    Condition,
    Option,
    Stipulation,
    Protocol,
    Separator,
    Title,
    LaTeX,
    LaTeXPieces,
    Award,
    GameArray,
    Forsyth,
}

pub const COMMANDS: [Command; 16] = [
    Command::Remark,
    Command::StructuredStipulation,
    Command::Author,
    Command::Origin,
    Command::Pieces,
    Command::Condition,
    Command::Option,
    Command::Stipulation,
    Command::Protocol,
    Command::Separator,
    Command::Title,
    Command::LaTeX,
    Command::LaTeXPieces,
    Command::Award,
    Command::GameArray,
    Command::Forsyth,
];

/// Popeye's options, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    Defence,
    SetPlay,
    WhiteToPlay,
    Variation,
    MoveNumbers,
    StartMoveNumber,
    NoWk,
    Duplex,
    NoBk,
    Threat,
    NoThreat,
    Try,
    MaxSolutions,
    MaxFlightsquares,
    Search,
    MultiSolutions,
    NoSymmetry,
    NonTrivial,
    KeepMatingPiece,
    EnPassant,
    NoBoard,
    NoShortVariations,
    HalfDuplex,
    PostKeyPlay,
    Intelligent,
    MaxTime,
    NoCastling,
    Quodlibet,
    StopOnShortSolutions,
    Beep,
    SuppressGrid,
    WriteGrid,
    CastlingMutuallyExclusive,
    GoalIsEnd,
    Unpublished,
    NullMoves,
    UpToMoveNumber,
    TrivialTriesAvoid,
    MatesIn1,
}

pub const OPTIONS: [Opt; 39] = [
    Opt::Defence,
    Opt::SetPlay,
    Opt::WhiteToPlay,
    Opt::Variation,
    Opt::MoveNumbers,
    Opt::StartMoveNumber,
    Opt::NoWk,
    Opt::Duplex,
    Opt::NoBk,
    Opt::Threat,
    Opt::NoThreat,
    Opt::Try,
    Opt::MaxSolutions,
    Opt::MaxFlightsquares,
    Opt::Search,
    Opt::MultiSolutions,
    Opt::NoSymmetry,
    Opt::NonTrivial,
    Opt::KeepMatingPiece,
    Opt::EnPassant,
    Opt::NoBoard,
    Opt::NoShortVariations,
    Opt::HalfDuplex,
    Opt::PostKeyPlay,
    Opt::Intelligent,
    Opt::MaxTime,
    Opt::NoCastling,
    Opt::Quodlibet,
    Opt::StopOnShortSolutions,
    Opt::Beep,
    Opt::SuppressGrid,
    Opt::WriteGrid,
    Opt::CastlingMutuallyExclusive,
    Opt::GoalIsEnd,
    Opt::Unpublished,
    Opt::NullMoves,
    Opt::UpToMoveNumber,
    Opt::TrivialTriesAvoid,
    Opt::MatesIn1,
];

/// The changes of a twin, in Popeye's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Move,
    Exchange,
    Stipulation,
    StructuredStipulation,
    Add,
    Remove,
    Continued,
    Rotate,
    Condition,
    PolishType,
    Mirror,
    Shift,
    Substitute,
}

pub const CHANGES: [Change; 13] = [
    Change::Move,
    Change::Exchange,
    Change::Stipulation,
    Change::StructuredStipulation,
    Change::Add,
    Change::Remove,
    Change::Continued,
    Change::Rotate,
    Change::Condition,
    Change::PolishType,
    Change::Mirror,
    Change::Shift,
    Change::Substitute,
];

/// One language's words.
pub struct Words {
    pub begin: &'static str,
    /// `EndProblem` and `NextProblem`.
    pub ends: [&'static str; 2],
    /// `Twin` and `ZeroPosition`.
    pub twins: [&'static str; 2],
    pub commands: [&'static str; 16],
    pub options: [&'static str; 39],
    /// White, Black, Neutral, TotalInvisible.
    pub colours: [&'static str; 4],
    pub changes: [&'static str; 13],
}

const ENGLISH: Words = Words {
    begin: "beginproblem",
    ends: ["endproblem", "nextproblem"],
    twins: ["twin", "zeroposition"],
    commands: [
        "remark",
        "sstipulation",
        "author",
        "origin",
        "pieces",
        "condition",
        "option",
        "stipulation",
        "protocol",
        "\n",
        "title",
        "LaTeX",
        "LaTeXPieces",
        "award",
        "InitialGameArray",
        "Forsyth",
    ],
    options: [
        "Defence",
        "SetPlay",
        "WhiteToPlay",
        "Variations",
        "MoveNumbers",
        "StartMoveNumber",
        "NoWk",
        "Duplex",
        "NoBk",
        "Threat",
        "NoThreat",
        "Try",
        "MaxSolutions",
        "MaxFlightsquares",
        "Search",
        "MultiSolutions",
        "NoSymmetry",
        "NonTrivial",
        "KeepMatingPiece",
        "EnPassant",
        "NoBoard",
        "NoShortVariations",
        "HalfDuplex",
        "PostKeyPlay",
        "Intelligent",
        "MaxTime",
        "NoCastling",
        "Quodlibet",
        "StopOnShortSolutions",
        "Beep",
        "SuppressGrid",
        "WriteGrid",
        "CastlingMutuallyExclusive",
        "GoalIsEnd",
        "unpublishedoption",
        "NullMoves",
        "UpToMoveNumber",
        "TrivialTriesAvoid",
        "MatesIn1",
    ],
    colours: ["White", "Black", "Neutral", "TotalInvisible"],
    changes: [
        "move",
        "exchange",
        "stipulation",
        "sstipulation",
        "add",
        "remove",
        "continued",
        "rotate",
        "condition",
        "PolishType",
        "mirror",
        "shift",
        "substitute",
    ],
};

const GERMAN: Words = Words {
    begin: "AnfangProblem",
    ends: ["EndeProblem", "WeiteresProblem"],
    twins: ["Zwilling", "NullStellung"],
    commands: [
        "Bemerkung",
        "sForderung",
        "Autor",
        "Quelle",
        "Steine",
        "Bedingung",
        "Option",
        "Forderung",
        "Protokoll",
        "\n",
        "Titel",
        "LaTeX",
        "LaTeXSteine",
        "Auszeichnung",
        "PartieAnfangsStellung",
        "Forsyth",
    ],
    options: [
        "Widerlegung",
        "Satzspiel",
        "WeissBeginnt",
        "Varianten",
        "Zugnummern",
        "StartZugnummer",
        "OhneWk",
        "Duplex",
        "OhneSk",
        "Drohung",
        "OhneDrohung",
        "Verfuehrung",
        "MaxLoesungen",
        "MaxFluchtFelder",
        "Suchen",
        "MehrereLoesungen",
        "KeineSymmetrie",
        "NichtTrivial",
        "HalteMattsetzendenStein",
        "EnPassant",
        "OhneBrett",
        "OhneKurzVarianten",
        "HalbDuplex",
        "NachSchluessel",
        "Intelligent",
        "MaxZeit",
        "KeineRochade",
        "Quodlibet",
        "StopNachKurzloesungen",
        "Pieps",
        "OhneGitter",
        "ZeichneGitter",
        "RochadenGegenseitigAusschliessend",
        "ZielIstEnde",
        "nichtpublizierteoption",
        "NullZuege",
        "BisZugnummer",
        "TrivialeFehlversucheUnterdruecken",
        "MattsIn1",
    ],
    colours: ["Weiss", "Schwarz", "Neutral", "TotalUnsichtbar"],
    changes: [
        "versetze",
        "tausche",
        "Forderung",
        "SForderung",
        "hinzufuegen",
        "entferne",
        "ferner",
        "Drehung",
        "Bedingung",
        "Farbwechsel",
        "Spiegelung",
        "Verschiebung",
        "ersetze",
    ],
};

const FRENCH: Words = Words {
    begin: "DebutProbleme",
    ends: ["FinProbleme", "asuivre"],
    twins: ["jumeau", "zeroposition"],
    commands: [
        "remarque",
        "senonce",
        "auteur",
        "source",
        "pieces",
        "condition",
        "option",
        "enonce",
        "protocol",
        "\n",
        "titre",
        "LaTeX",
        "PiecesLaTeX",
        "prix",
        "PositionInitialePartie",
        "Forsyth",
    ],
    options: [
        "Defense",
        "Apparent",
        "ApparentSeul",
        "Variantes",
        "Trace",
        "Enroute",
        "SansRB",
        "Duplex",
        "SansRN",
        "Menace",
        "SansMenace",
        "Essais",
        "MaxSolutions",
        "MaxCasesFuites",
        "Search",
        "MultiSolutions",
        "NonSymetrique",
        "NonTrivial",
        "RetiensPieceMatante",
        "EnPassant",
        "SansEchiquier",
        "SansVariantesCourtes",
        "DemiDuplex",
        "ApresCle",
        "Intelligent",
        "MaxTemps",
        "SansRoquer",
        "Quodlibet",
        "FinApresSolutionsCourtes",
        "Bip",
        "SansGrille",
        "AjouteGrille",
        "RoquesMutuellementExclusifs",
        "ButEstFin",
        "optionnonpubliee",
        "CoupsVides",
        "JusquAuCoup",
        "TrivialEssaiSupprimer",
        "MatsEn1",
    ],
    colours: ["Blanc", "Noir", "Neutre", "TotalInvisible"],
    changes: [
        "deplacement",
        "echange",
        "enonce",
        "senonce",
        "ajoute",
        "ote",
        "enplus",
        "rotation",
        "condition",
        "CouleurEchange",
        "miroir",
        "translation",
        "remplace",
    ],
};

/// The input words of `language`.
pub fn words(language: Language) -> &'static Words {
    match language {
        Language::English => &ENGLISH,
        Language::German => &GERMAN,
        Language::French => &FRENCH,
    }
}

/// The language whose `BeginProblem` `token` names, trying Popeye's order.
pub fn language_of_begin(token: &str) -> Option<Language> {
    Language::ALL.into_iter().find(|&l| lookup(&[words(l).begin], token) == Lookup::Found(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyword_is_read_from_any_prefix_that_names_it_alone() {
        let w = words(Language::English);
        assert_eq!(lookup(&w.commands, "stip"), Lookup::Found(7));
        assert_eq!(lookup(&w.commands, "STIPULATION"), Lookup::Found(7));
        assert_eq!(lookup(&w.commands, "s"), Lookup::Ambiguous);
        assert_eq!(lookup(&w.commands, "pie"), Lookup::Found(4));
        assert_eq!(lookup(&w.commands, "circe"), Lookup::Unknown);
        // "Duplex" is whole, though "DuplexX" is none and "Du" names it alone.
        assert_eq!(lookup(&w.options, "du"), Lookup::Found(7));
        assert_eq!(lookup(&words(Language::German).changes, "hinzu"), Lookup::Found(4));
        assert_eq!(lookup(&words(Language::German).changes, "verse"), Lookup::Found(0));
        assert_eq!(language_of_begin("beginproblem"), Some(Language::English));
        assert_eq!(language_of_begin("Anfang"), Some(Language::German));
        assert_eq!(language_of_begin("debut"), Some(Language::French));
        assert_eq!(language_of_begin("begin2"), None);
    }
}
