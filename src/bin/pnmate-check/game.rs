//! The rules of chess and of lichess's variants, for a section of a game's certificate:
//! in a proof the attacker gives one move and every defence is answered; in a disproof
//! every attacking move is refuted by one defence (FORMAT.md, "Sections").

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{Chess, Color, Move, MoveList, Position};
use shakmaty_syzygy::{Tablebase, Wdl};

use crate::broken::Broken;
use crate::shape::{Kind, Shape};
use crate::walk::{Base, Judged, Rules};

/// The halfmove clock at which the game ends in a draw at the attacker's turn (75 moves).
const AUTOMATIC_DRAW_CLOCK: u32 = 150;

/// A game's rules for one section.
pub struct GameRules<'t> {
    kind: Kind,
    attacker: Color,
    /// Some when the header announces tablebase leaves, with the tables to probe them.
    leaves: Option<Option<&'t Tablebase<Chess>>>,
    /// What a defender's leaf of a disproof shows: in chess the defender never loses on
    /// its own move, so one ply without a win; in a variant it may (antichess's last man
    /// taken), so none.
    defender_leaf: u32,
}

impl<'t> GameRules<'t> {
    pub fn new(root: &VariantPosition, shape: &Shape, leaves: Option<Option<&'t Tablebase<Chess>>>) -> GameRules<'t> {
        let defender_leaf = if root.variant() == Variant::Chess { 1 } else { 0 };
        GameRules { kind: shape.kind, attacker: shape.attacker, leaves, defender_leaf }
    }

    /// A tablebase leaf: a chess position without castling rights that the tables say
    /// the attacker does not win.
    fn table_leaf(&self, pos: &VariantPosition, attacker_moves: bool) -> Result<Judged, Broken> {
        let tables = self.leaves.flatten().ok_or(Broken::NoTables)?;
        if pos.castles().any() {
            return Err(Broken::TableLeafWithCastling);
        }
        let VariantPosition::Chess(chess) = pos else { return Err(Broken::TableLeafOutsideChess) };
        let wdl = tables.probe_wdl_after_zeroing(chess).map_err(Broken::Probe)?;
        let attacker_wins = if attacker_moves { wdl == Wdl::Win } else { wdl == Wdl::Loss };
        if attacker_wins {
            return Err(Broken::TablesSayWin);
        }
        Ok(Judged { base: Base::Table, moves: MoveList::new() })
    }
}

impl Rules for GameRules<'_> {
    type Pos = VariantPosition;

    fn judge(&self, pos: &VariantPosition, listed: usize, table_leaf: bool) -> Result<Judged, Broken> {
        let attacker_moves = pos.turn() == self.attacker;
        if table_leaf {
            return self.table_leaf(pos, attacker_moves);
        }
        let legal = pos.legal_moves();
        let cannot_win = pos.has_insufficient_material(self.attacker);
        let end = ended(pos, &legal, self.attacker);
        let base = match (self.kind, attacker_moves) {
            // The attacker has won: mate, or the variant's own win.
            (Kind::Proof, _) if end == Some(true) => Base::Met,
            (Kind::Disproof, _) if end == Some(true) => {
                return Err(Broken::WonHere { checkmate: self.defender_leaf == 1 });
            }
            (Kind::Proof, true) => {
                if legal.is_empty() {
                    return Err(Broken::AttackerWithoutMove);
                }
                if end.is_some() {
                    return Err(Broken::OverWithoutWin);
                }
                if pos.halfmoves() >= AUTOMATIC_DRAW_CLOCK || cannot_win {
                    return Err(Broken::Drawn);
                }
                if listed != 1 {
                    return Err(Broken::NotOneMove);
                }
                Base::Inner
            }
            (Kind::Proof, false) => {
                if legal.is_empty() {
                    return Err(Broken::Stalemate);
                }
                if end.is_some() {
                    return Err(Broken::OverWithoutWin);
                }
                if fifty_move_claim(pos, &legal) {
                    return Err(Broken::FiftyMoveClaim);
                }
                if cannot_win {
                    return Err(Broken::InsufficientMaterial);
                }
                if listed != legal.len() {
                    return Err(Broken::SomeReplies { listed, of: legal.len(), what: "legal" });
                }
                Base::Inner
            }
            (Kind::Disproof, true) => {
                if end.is_some() || pos.halfmoves() >= AUTOMATIC_DRAW_CLOCK || cannot_win {
                    Base::Never
                } else if listed == 0 {
                    Base::Leaf(out_of_reach(pos, self.attacker))
                } else if listed != legal.len() {
                    return Err(Broken::SomeRefuted {
                        listed,
                        of: legal.len(),
                        whose: "the attacker's ",
                        what: "legal",
                    });
                } else {
                    Base::Min
                }
            }
            (Kind::Disproof, false) => {
                if end.is_some() || fifty_move_claim(pos, &legal) || cannot_win {
                    Base::Never
                } else if listed == 0 {
                    Base::Leaf(self.defender_leaf.max(out_of_reach(pos, self.attacker)))
                } else if listed > 1 {
                    return Err(Broken::DefenderGivesSeveral);
                } else {
                    Base::Min
                }
            }
        };
        Ok(Judged { base, moves: legal })
    }

    fn play(&self, pos: &VariantPosition, m: Move) -> VariantPosition {
        let mut after = pos.clone();
        after.play_unchecked(m);
        after
    }

    fn moves_are(&self) -> &'static str {
        "legal"
    }
}

/// How a game stands for `attacker` by the variant's rules: Some(true) when the attacker
/// has won, Some(false) when the game is over otherwise, None while it goes on.
fn ended(pos: &VariantPosition, legal: &MoveList, attacker: Color) -> Option<bool> {
    if let Some(known) = pos.variant_outcome().known() {
        return Some(known.winner() == Some(attacker));
    }
    if legal.is_empty() {
        return Some(pos.is_check() && pos.turn() != attacker);
    }
    None
}

/// Plies within which the rules alone rule out `attacker`'s win: in racing kings, a king
/// d ranks below the eighth needs d moves, which take 2d-1 plies from its own turn and 2d
/// from the other side's.
fn out_of_reach(pos: &VariantPosition, attacker: Color) -> u32 {
    let Some(king) = pos.board().king_of(attacker).filter(|_| pos.variant() == Variant::RacingKings) else {
        return 0;
    };
    let ranks = 7 - u32::from(king.rank());
    let least = if ranks == 0 {
        0
    } else if pos.turn() == attacker {
        2 * ranks - 1
    } else {
        2 * ranks
    };
    least.saturating_sub(1)
}

/// The defender may claim a draw under the 50-move rule before moving: the clock is at
/// 100, or at 99 with a move that does not reset it.
fn fifty_move_claim(pos: &VariantPosition, legal: &MoveList) -> bool {
    let clock = pos.halfmoves();
    clock >= 100 || (clock >= 99 && legal.iter().any(|m| !m.is_zeroing()))
}
