//! The rules a node of a section can break, each with the words the checker prints.

use std::fmt;

/// Why a node of a section is invalid.
#[derive(Debug)]
pub enum Broken {
    /// No listed edge leads to it from the root.
    Unreached,
    /// Its hash is not the hash of the position its parents lead to.
    HashMismatch,
    /// A tablebase leaf where the header announces none.
    UnannouncedTableLeaf,
    /// A final position (met, never met, a tablebase leaf) that lists moves.
    FinalListsMoves,
    /// A child reached from two parents as two different positions.
    TwoPositions {
        child: usize,
    },
    /// A move code that is not among the moves the rules give (`what`: legal, allowed).
    NotAMove {
        code: u16,
        what: &'static str,
    },
    /// A move listed twice (in UCI).
    ListedTwice {
        uci: String,
    },
    /// A child index not below its parent's.
    ChildNotBefore {
        child: usize,
    },
    /// A disproof reaches the attacker's win (`checkmate`: by mate).
    WonHere {
        checkmate: bool,
    },
    AttackerWithoutMove,
    OverWithoutWin,
    /// Drawn by the 75-move rule or insufficient material.
    Drawn,
    /// A node of a proof where the attacker chooses lists other than one move.
    NotOneMove,
    Stalemate,
    FiftyMoveClaim,
    InsufficientMaterial,
    /// A node of a proof lists some of the replies only.
    SomeReplies {
        listed: usize,
        of: usize,
        what: &'static str,
    },
    /// A node of a disproof where the attacker chooses refutes some of its moves only.
    SomeRefuted {
        listed: usize,
        of: usize,
        whose: &'static str,
        what: &'static str,
    },
    /// A defender's node of a disproof lists more than one reply.
    DefenderGivesSeveral,
    /// A problem's proof reaches a node where its stipulation can no longer be met.
    CannotBeMet,
    /// A problem's disproof reaches a node where its stipulation is met.
    MetHere,
    /// A tablebase leaf without the tables to probe it.
    NoTables,
    TableLeafWithCastling,
    TableLeafOutsideChess,
    /// The tables could not be probed: shakmaty-syzygy's reason.
    Probe(shakmaty_syzygy::SyzygyError),
    /// A tablebase leaf the tables call a win for the attacker.
    TablesSayWin,
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Broken::Unreached => f.write_str("not reached from the root"),
            Broken::HashMismatch => f.write_str("its hash names another position"),
            Broken::UnannouncedTableLeaf => f.write_str("a tablebase leaf where none may be"),
            Broken::FinalListsMoves => f.write_str("a final position lists moves"),
            Broken::TwoPositions { child } => write!(f, "node {child} is reached as two different positions"),
            Broken::NotAMove { code, what } => write!(f, "move code {code} is not {what}"),
            Broken::ListedTwice { uci } => write!(f, "move {uci} is listed twice"),
            Broken::ChildNotBefore { child } => write!(f, "child index {child} is not smaller than the node's"),
            Broken::WonHere { checkmate: true } => f.write_str("checkmate: the attacker mates here"),
            Broken::WonHere { checkmate: false } => f.write_str("the attacker has won here"),
            Broken::AttackerWithoutMove => f.write_str("the attacker has no legal move"),
            Broken::OverWithoutWin => f.write_str("the game is over without the attacker's win"),
            Broken::Drawn => f.write_str("drawn (75-move rule or insufficient material)"),
            Broken::NotOneMove => f.write_str("a node of the attacker's choice in a proof gives exactly one move"),
            Broken::Stalemate => f.write_str("stalemate, not checkmate"),
            Broken::FiftyMoveClaim => f.write_str("the defender may claim a 50-move draw"),
            Broken::InsufficientMaterial => f.write_str("the attacker has insufficient mating material"),
            Broken::SomeReplies { listed, of, what } => write!(f, "lists {listed} of the {of} {what} replies"),
            Broken::SomeRefuted { listed, of, whose, what } => {
                write!(f, "refutes {listed} of {whose}{of} {what} moves")
            }
            Broken::DefenderGivesSeveral => f.write_str("a defender's node of a disproof gives at most one reply"),
            Broken::CannotBeMet => f.write_str("the stipulation can no longer be met"),
            Broken::MetHere => f.write_str("the stipulation is met here"),
            Broken::NoTables => f.write_str("a tablebase leaf: give --syzygy with the tables"),
            Broken::TableLeafWithCastling => f.write_str("a tablebase leaf with castling rights"),
            Broken::TableLeafOutsideChess => f.write_str("a tablebase leaf outside chess"),
            Broken::Probe(e) => write!(f, "cannot probe the tables: {e}"),
            Broken::TablesSayWin => f.write_str("a tablebase leaf where the tables say the attacker wins"),
        }
    }
}
