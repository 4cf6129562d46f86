//! A variant's local expansion: the df-pn core's [`Expand`] for lichess's variants.
//!
//! A node's end comes from the variant ([`Game::standing`]), so a win may fall on either
//! side's move (in antichess the defender takes the attacker's last man), and the first
//! numbers come from the variant's knowledge ([`VariantGuide`]). Every child is played
//! when its node is expanded: its standing needs its legal moves, which also give its
//! number of replies.

use shakmaty::variant::VariantPosition;
use shakmaty::{Color, Move, MoveList, Position};

use crate::chess::game::{Game, Standing};
use crate::chess::mate_len::Plies;
use crate::chess::movecode::MoveCode;
use crate::chess::node::Node;
use crate::chess::rules::clock_after;
use crate::dfpn::children::{Child, Expansion, MoveClass};
use crate::dfpn::expand::{Expand, Expander};
use crate::dfpn::pndn::PnDn;
use crate::dfpn::tree::RootMoves;
use crate::dfpn::value::Value;
use crate::knowledge::variants::VariantGuide;
use crate::variant::game::end_without_moves;

impl Expand for VariantPosition {
    type Knowledge<'t> = VariantGuide;
    type Oracle = ();
    const DEFENDER_LEAF: u32 = 0;

    fn knowledge(root: &VariantPosition, attacker: Color, _oracle: &()) -> VariantGuide {
        VariantGuide::new(root.variant(), attacker)
    }

    /// A node's children with their first values, or its value when it is decided
    /// without a search: over, won, out of plies, drawn by a claim, or settled by a child.
    fn expand(
        e: &mut Expander<'_, '_, Self>,
        node: &Node<Self>,
        r: Plies,
        or: bool,
        ply: usize,
        root: RootMoves,
        children: &mut Vec<Child>,
    ) -> Expansion {
        let decided = |v| Expansion::Decided(v, MoveCode::NONE);
        let attacker = e.tree.attacker;
        let moves = node.pos.legal_moves();
        match node.pos.rule_end(&moves, attacker) {
            Standing::Won => return decided(Value::proven(Plies::ZERO)),
            Standing::Over => return decided(Value::disproven(Plies::INFINITE)),
            Standing::Open => {}
        }
        // The defender claims a repetition on its own turn.
        if !or
            && e.tree.repetitions.is_some_and(|reps| {
                reps.claims_here(node.hash, ply == 0 && e.tree.at_game_root)
                    || moves.iter().any(|&m| reps.claims_by_moving_to(node.child_hash(m)))
            })
        {
            return decided(Value::disproven(Plies::INFINITE));
        }
        if r == Plies::ZERO {
            return decided(Value::disproven(Plies::new(1)));
        }
        let least = Plies::new(node.pos.least_plies_to_win(attacker));
        if r < least {
            return decided(Value::disproven(least));
        }
        let mut restricted = MoveList::new();
        let moves: &[Move] = if root == RootMoves::Restricted {
            e.tree.node_moves(node, root, &mut restricted);
            &restricted
        } else {
            &moves
        };
        let within = r.pred();
        let (tt, keys) = (e.tree.tt, e.tree.keys);
        children.reserve(moves.len());
        // Every child is probed below: its bucket is asked for first, from the hash the move
        // gives without playing it, so that the misses overlap the children's work.
        for &m in moves {
            if let Some(h) = node.pos.hash_after(node.hash, m) {
                tt.prefetch(keys.key(h, clock_after(node.clock(), m), within));
            }
        }
        let guide = *e.knowledge;
        let antichess = matches!(node.pos, VariantPosition::Antichess(_));
        for &m in moves {
            let child = node.play(m);
            e.monitor.count(1);
            // A child's moves are generated where they are needed now: a check's evasions
            // (and its mate), an attacker's mobility after a reply, antichess's ends and
            // replies. Elsewhere the variant's own end is read alone; a stalemate then shows
            // when the child is expanded.
            let needs_moves = !or || antichess || child.pos.is_check();
            let mut wins_next = false;
            let (end, replies) = if needs_moves {
                let replies = child.pos.legal_moves();
                let end = child.pos.standing(&replies, attacker);
                wins_next =
                    !or && within > Plies::ZERO && end == Standing::Open && wins_at_once(&guide, &child, &replies);
                (end, replies.len())
            } else {
                (end_without_moves(&child.pos, attacker), 0)
            };
            let (class, pn) = if or {
                guide.attacker_move(&node.pos, m, &child.pos, replies)
            } else {
                (MoveClass::Check, guide.defender_move(m))
            };
            let child_least = Plies::new(child.pos.least_plies_to_win(attacker));
            let key = keys.of(&child, within);
            let value = match end {
                Standing::Won => Value::proven(Plies::ZERO),
                Standing::Open if wins_next => Value::proven(Plies::new(1)),
                Standing::Over => Value::disproven(Plies::INFINITE),
                // Too far from the goal for the plies left: no need to ask the table.
                Standing::Open if within < child_least => Value::disproven(child_least),
                Standing::Open => e.tree.known(key, within).unwrap_or_else(|| {
                    // An attacker's node is disproven only when every move fails: its first
                    // disproof number is its number of moves (mobility).
                    let dn = if or { 1 } else { replies.max(1) as u32 };
                    Value::open(PnDn(pn), PnDn(dn))
                }),
            };
            // A win at once decides an attacker's node, a refutation a defender's.
            if or && value.is_proven() && value.mate.at_most == Plies::ZERO {
                return Expansion::Decided(Value::proven(Plies::new(1)), MoveCode::of(m));
            }
            if !or && value.is_disproven() && !value.path_dependent {
                return Expansion::Decided(Value::disproven(value.mate.at_least.succ()), MoveCode::of(m));
            }
            if !or && within == Plies::ZERO && !value.is_proven() {
                // A reply that does not lose at once, and no ply left to win after it.
                return Expansion::Decided(Value::disproven(Plies::new(2)), MoveCode::of(m));
            }
            children.push(Child { mv: m, key, value, class, probed: true });
        }
        if or && within == Plies::ZERO {
            // No move wins at once, and no ply is left after it.
            return decided(Value::disproven(Plies::new(2)));
        }
        if children.is_empty() {
            // A restricted root none of whose moves is legal.
            return decided(Value::disproven(Plies::INFINITE));
        }
        children.sort_by_key(|c| c.class);
        Expansion::Open
    }
}

/// Whether the attacker, to move at `node` with legal `moves`, has a move that wins on
/// the spot by the variant's goal (see [`VariantGuide::on_the_spot`]), confirmed by
/// playing it, where no rule has drawn the game first. `node`'s game goes on by the
/// variant's own rules. Saves expanding `node`.
fn wins_at_once(guide: &VariantGuide, node: &Node<VariantPosition>, moves: &MoveList) -> bool {
    let attacker = guide.attacker();
    let Some(spot) = guide.on_the_spot(&node.pos) else { return false };
    !node.pos.rule_draws(moves, attacker)
        && moves.iter().any(|&m| {
            spot.admits(&node.pos, m) && {
                let mut after = node.pos.clone();
                after.play_unchecked(m);
                end_without_moves(&after, attacker) == Standing::Won
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfpn::monitor::{Control, Monitor};
    use crate::dfpn::tree::Cycles;
    use crate::dfpn::{Call, Question, Solver};
    use crate::tt::TranspositionTable;
    use crate::variant::game::parse_variant_fen;
    use shakmaty::variant::Variant;

    /// Solves `fen` of `variant` for the side to move (or `attacker`) within `plies`,
    /// counting its nodes.
    fn solve_for(variant: Variant, fen: &str, attacker: Option<Color>, plies: u16) -> (Value, u64) {
        let node = Node::new(parse_variant_fen(variant, fen).unwrap());
        let tt = TranspositionTable::new(4);
        let mut monitor = Monitor::new(Control::new(), Some(2_000_000));
        let attacker = attacker.unwrap_or(node.pos.turn());
        let question = Question { attacker, root_moves: None, repetitions: None, oracle: &() };
        let mut solver = Solver::new(&tt, &mut monitor, &node.pos, question);
        let call = Call { budget: None, root: RootMoves::All, game_root: true, cycles: Cycles::Search };
        let v = solver.solve_value(&node, Plies::new(plies), call);
        (v, monitor.nodes())
    }

    fn solve(variant: Variant, fen: &str, plies: u16) -> Value {
        solve_for(variant, fen, None, plies).0
    }

    #[test]
    fn wins_of_each_kind_are_proven_at_their_length() {
        // King of the hill: Kd4 reaches the centre at once.
        let v = solve(Variant::KingOfTheHill, "7k/8/8/8/8/2K5/8/8 w - - 0 1", 1);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(1), "{v:?}");
        // Antichess: White gives its last man away; Black must take it (two plies).
        let v = solve(Variant::Antichess, "8/8/8/8/8/8/1p6/2R5 w - - 0 1", 2);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(2), "{v:?}");
        assert!(solve(Variant::Antichess, "8/8/8/8/8/8/1p6/2R5 w - - 0 1", 1).is_disproven());
        // Atomic: Qxf7 explodes the pawn and the king beside it.
        let v = solve(Variant::Atomic, "4k3/5p2/8/7Q/8/8/8/4K3 w - - 0 1", 1);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(1), "{v:?}");
    }

    #[test]
    fn racing_kings_wins_are_disproven_below_the_king_s_distance_and_proven_at_it() {
        // White's king three ranks from the goal, Black's seven: Kh6-h7-h8.
        let fen = "8/8/8/7K/8/8/8/k7 w - - 0 1";
        let v = solve(Variant::RacingKings, fen, 4);
        assert!(v.is_disproven() && v.mate.at_least == Plies::new(5), "{v:?}");
        let v = solve(Variant::RacingKings, fen, 5);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(5), "{v:?}");
    }

    #[test]
    fn a_reply_that_allows_the_last_check_is_proven_without_expanding_it() {
        // Three-check, White has given two: whatever Black's king does, a rook check wins.
        let (v, nodes) = solve_for(Variant::ThreeCheck, "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 +2+0", Some(Color::White), 2);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(2), "{v:?}");
        // The root and its five replies: none of them is expanded.
        assert_eq!(nodes, 6);
    }

    #[test]
    fn a_bound_too_short_is_disproven() {
        let v = solve(Variant::KingOfTheHill, "7k/8/8/8/8/8/8/K7 w - - 0 1", 3);
        assert!(v.is_disproven() && !v.path_dependent, "{v:?}");
        let v = solve(Variant::KingOfTheHill, "7k/8/8/8/8/8/8/K7 w - - 0 1", 5);
        assert!(v.is_proven() && v.mate.at_most == Plies::new(5), "Ka1-b2-c3-d4: {v:?}");
    }
}
