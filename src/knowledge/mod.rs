//! What pnmate knows about particular material, behind one interface.
//!
//! The search is generic: the df-pn core, the driver and its schedule never test which
//! pieces stand on the board. They ask this module instead:
//! - [`Knowledge`] and [`Guide`]: the initial proof numbers of a node's moves (df-pn+),
//!   and which quiet moves a call that only looks for mates may set aside ([`Narrowing`]);
//! - [`ending`]: how far the driver's bounds go in an ending of few men;
//! - [`evaluate`] (with [`material_edge`] and [`piece_value`]): a static score for the
//!   fallback and the order of MultiPV's moves.
//!
//! Knowledge only orders the search and sets its first numbers: no answer here proves
//! or disproves anything, so a wrong answer costs nodes, never soundness. A source of
//! exact values (tablebases) or another game's rules (variants) enters through this same
//! door.
//!
//! Inside: [`material`] says which ending a position is, [`progress`] measures how far a
//! defending king is from mate, [`queen_rook`] and [`rook_mate`] are fitted models of two
//! endings (their tables generated into `fitted/`), [`mating`] remembers the moves that
//! mated in the current call.

pub(crate) mod eval;
mod fitted;
pub(crate) mod material;
pub(crate) mod mating;
pub(crate) mod progress;
pub(crate) mod queen_rook;
pub(crate) mod rook_mate;
pub(crate) mod turned;

use shakmaty::{Board, Color, Move, Position};

pub(crate) use eval::{evaluate, material_edge, piece_value};

use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use material::{MAX_MEN, armed_defender, bishops_mate, quiet_mate};
use mating::MatingMoves;
use progress::{Flights, Heavy, Kings};

/// Initial proof number of a quiet attacker move where nothing more is known: the
/// defender is unconstrained, so such a move is much harder to prove than a check.
const QUIET_PN: u32 = 8;

/// Initial proof number of a defender's capture: taking attacker material usually makes
/// the mate harder than a quiet reply does.
const DEFENDER_CAPTURE_PN: u32 = 2;

/// How many times its progress number a quiet attacker move starts at against an armed
/// defender ([`Kings::armed`]) and in K+Q v K+R: once expanded, the defender's node sums a
/// dozen replies where a bare king has a few, so the attacker's node should expand every
/// quiet move once before it goes deeper.
const ARMED_QUIET_SCALE: u32 = 4;

/// How many times its number of evasions a check starts at against an armed defender:
/// each evasion is a reply with its own progress number.
const ARMED_CHECK_SCALE: u32 = 2;

/// How many quiet moves an attacker node keeps where [`Guide::narrowing`] allows it.
pub const NARROW_QUIET: usize = 10;

/// What one df-pn solver knows beyond the rules: the attacker, whether the current
/// call's root is an ending with a fitted model, and the moves that mated in this
/// solver's calls.
pub struct Knowledge {
    attacker: Color,
    /// Whether the current call's root is an ending with a fitted model of its mate
    /// distance ([`Heavy`]): only then do the call's nodes of that ending use it.
    models: bool,
    mating: MatingMoves,
}

impl Knowledge {
    /// Knowledge for a solver of `attacker`'s mates.
    pub fn new(attacker: Color) -> Knowledge {
        Knowledge { attacker, models: false, mating: MatingMoves::new() }
    }

    /// A df-pn call starts at `root`.
    pub fn begin_call(&mut self, root: &Board) {
        self.models = Heavy::of(root, self.attacker).is_some();
    }

    /// `best` proved an attacker node.
    #[inline]
    pub fn learn_mate(&mut self, best: MoveCode) {
        self.mating.insert(best);
    }

    /// What is known at `node`, for the moves of one expansion.
    #[inline]
    pub fn at(&self, node: &Node) -> Guide<'_> {
        Guide { kings: Kings::of(node, self.attacker, self.models), mating: &self.mating, attacker: self.attacker }
    }
}

/// What is known at one node: the first proof numbers of its moves.
#[derive(Clone, Copy)]
pub struct Guide<'k> {
    /// The kings and the ending, in a position of at most [`MAX_MEN`] men.
    kings: Option<Kings>,
    mating: &'k MatingMoves,
    attacker: Color,
}

impl Guide<'_> {
    /// Initial proof number of an attacker's quiet move: [`QUIET_PN`], or in a few-men
    /// position one more than a defender's reply to it starts with (see [`Guide::reply`]),
    /// one less when the move already mated in this call.
    #[inline]
    pub fn quiet(&self, m: Move) -> u32 {
        self.kings.map_or(QUIET_PN, |k| {
            let pn = 1 + reply_pn(k.after(m)) - u32::from(self.mating.contains(m));
            if k.armed || k.queen_v_rook() { ARMED_QUIET_SCALE * pn } else { pn }
        })
    }

    /// Initial proof number of an attacker's capture or promotion that does not check.
    #[inline]
    pub fn tactical(&self) -> u32 {
        QUIET_PN
    }

    /// Initial proof number of an attacker's check that leaves `evasions` replies: the
    /// evasions (df-pn+); in K+Q v K+R, where the queen checks on most moves, a check that
    /// takes nothing starts as a quiet move would, so the fitted model ranks it.
    #[inline]
    pub fn check(&self, m: Move, evasions: u32) -> u32 {
        match self.kings {
            Some(k) if k.queen_v_rook() && !m.is_capture() => self.quiet(m),
            Some(k) if k.armed => ARMED_CHECK_SCALE * evasions,
            _ => evasions,
        }
    }

    /// Initial proof number of a defender's reply `m`: a capture starts higher; in a
    /// few-men position, the further the reply leaves the defending king from mate, the
    /// larger.
    #[inline]
    pub fn reply(&self, m: Move) -> u32 {
        if m.is_capture() { DEFENDER_CAPTURE_PN } else { self.kings.map_or(1, |k| reply_pn(k.after(m))) }
    }

    /// Whether an attacker node at `node` may keep only its [`NARROW_QUIET`] most
    /// promising quiet moves in a call that only looks for mates: in a quiet mate of a
    /// lone king, and in K+Q v K+R, whose model ranks the queen's moves. Elsewhere the
    /// move that stops a pawn or wins a piece can be a quiet one ranked low.
    #[inline]
    pub fn narrowing(&self, node: &Node) -> Option<Narrowing> {
        let kings = self.kings?;
        (kings.queen_v_rook() || quiet_mate(node.pos.board(), self.attacker))
            .then_some(Narrowing { kings, attacker: self.attacker })
    }
}

/// Initial proof number of a defender's quiet reply in a few-men position: one more than
/// the progress distance it leaves.
#[inline]
fn reply_pn(kings: Kings) -> u32 {
    1 + kings.distance()
}

/// How the quiet moves of a narrowed node are ranked: by their proof number, then by the
/// defending king's flights they leave (fewer first), which are also added to the kept
/// moves' proof numbers.
#[derive(Clone, Copy)]
pub struct Narrowing {
    kings: Kings,
    attacker: Color,
}

impl Narrowing {
    /// The defending king's flights at `node`, to count after each quiet move.
    pub fn flights(&self, node: &Node) -> Flights {
        Flights::new(node, self.attacker, self.kings)
    }
}

/// How far the driver's bounds go in an ending of few men.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The longest mate the ending can have (moves), where it is known.
    pub longest_mate: Option<u32>,
    /// The long call's budget in multiples of one ladder call's: high where the ladder's
    /// short bounds hardly ever prove a mate (quiet mates, an armed defender).
    pub long_share: u64,
    /// Which far bounds are worth asking beside the long call.
    pub far: FarBounds,
}

/// Which far bounds a round asks beside its long call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FarBounds {
    /// None: the long call proves these mates sooner with every far bound's budget
    /// (two bishops, whose mates take at most 19 moves).
    None,
    /// Up to the long call's bound: a longer mate needs a pawn move or capture to beat the
    /// 50-move claim (quiet mates of a lone king).
    UpToLong,
    /// Up to the ending's longest mate, where it is known; else all.
    UpToLongestMate,
}

/// Long call share where the ladder proves mates in its later rounds.
pub const LONG_SHARE: u64 = 16;

/// Long call share for quiet mates and an armed defender.
pub const QUIET_LONG_SHARE: u64 = 64;

/// How far the bounds go when `attacker` mates on `board`: None above [`MAX_MEN`] men,
/// where the driver asks no long call.
pub fn ending(board: &Board, attacker: Color) -> Option<Ending> {
    if board.occupied().count() > MAX_MEN {
        return None;
    }
    let quiet = quiet_mate(board, attacker);
    let long_share = if quiet || armed_defender(board, attacker) { QUIET_LONG_SHARE } else { LONG_SHARE };
    let far = if quiet && bishops_mate(board, attacker) {
        FarBounds::None
    } else if quiet {
        FarBounds::UpToLong
    } else {
        FarBounds::UpToLongestMate
    };
    Some(Ending { longest_mate: material::longest_mate(board, attacker), long_share, far })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::{parse_fen, uci};

    fn node(fen: &str) -> Node {
        Node::new(parse_fen(fen).unwrap())
    }

    fn find(node: &Node, text: &str) -> Move {
        node.pos.legal_moves().into_iter().find(|&m| uci(m) == text).unwrap()
    }

    #[test]
    fn outside_endings_the_numbers_are_df_pn_plus() {
        let n = node("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let k = Knowledge::new(Color::White);
        let guide = k.at(&n);
        assert_eq!(guide.quiet(find(&n, "a2a3")), QUIET_PN);
        assert_eq!(guide.tactical(), QUIET_PN);
        assert_eq!(guide.check(find(&n, "f1b5"), 7), 7, "a check starts at its evasions");
        assert_eq!(guide.reply(find(&n, "f3e5")), DEFENDER_CAPTURE_PN);
        assert!(guide.narrowing(&n).is_none());
        assert_eq!(ending(n.pos.board(), Color::White), None, "no long bound with 32 men");
    }

    #[test]
    fn in_a_quiet_mate_moves_that_drive_the_king_start_lower() {
        // K+B+B v K: the king's step towards the lone king against one away from it.
        let n = node("8/8/8/3k4/8/8/8/1BB1K3 w - - 0 1");
        let mut k = Knowledge::new(Color::White);
        k.begin_call(n.pos.board());
        let guide = k.at(&n);
        assert!(guide.quiet(find(&n, "e1e2")) < guide.quiet(find(&n, "e1f1")));
        assert!(guide.narrowing(&n).is_some(), "a lone king against minor pieces");
        let e = ending(n.pos.board(), Color::White).unwrap();
        assert_eq!((e.long_share, e.far, e.longest_mate), (QUIET_LONG_SHARE, FarBounds::None, None));
        // A move that mated before starts one lower.
        let before = guide.quiet(find(&n, "c1g5"));
        k.learn_mate(MoveCode::of(find(&n, "c1g5")));
        assert_eq!(k.at(&n).quiet(find(&n, "c1g5")), before - 1);
    }

    #[test]
    fn k_q_v_k_r_has_its_longest_mate_and_scales_its_moves() {
        let n = node("1k6/4K3/8/1r6/8/5Q2/8/8 w - - 0 1");
        let e = ending(n.pos.board(), Color::White).unwrap();
        assert_eq!((e.long_share, e.far, e.longest_mate), (LONG_SHARE, FarBounds::UpToLongestMate, Some(35)));
        let mut k = Knowledge::new(Color::White);
        k.begin_call(n.pos.board());
        let guide = k.at(&n);
        let quiet = find(&n, "f3h3");
        assert_eq!(guide.quiet(quiet) % ARMED_QUIET_SCALE, 0, "four times the progress number");
        let check = find(&n, "f3f8");
        assert_eq!(guide.check(check, 3), guide.quiet(check), "a check that takes nothing starts as a quiet move");
    }
}
