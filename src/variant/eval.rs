//! The variants' static evaluation, for the fallback search's leaves and the order of
//! MultiPV's unproven moves; never a claim. Antichess values material inverted (giving
//! men away is the goal), crazyhouse counts the men in hand, king of the hill and racing
//! kings reward the king's way to its goal, three-check the checks given, and where men
//! can be dropped or checks decide, the danger around each king counts.

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{Bitboard, Color, Position, Role};

use crate::knowledge::eval::mobility;

/// A man's value in centipawns (the king's is not counted).
fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 300,
        Role::Bishop => 320,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// The material of `side` on the board and in hand.
pub(crate) fn material(pos: &VariantPosition, side: Color) -> i32 {
    let board = pos.board();
    let on_board: i32 = Role::ALL.iter().map(|&r| value(r) * (board.by_piece(r.of(side))).count() as i32).sum();
    let in_hand = pos.pockets().map_or(0, |p| Role::ALL.iter().map(|&r| value(r) * i32::from(p[side][r])).sum());
    on_board + in_hand
}

/// The danger to `side`'s king where the enemy can drop men or must only give checks: the
/// enemy's attacks on the king and the squares around it, and (with men in the enemy's
/// hand) the empty squares there that no man of `side` but its king guards, where a drop
/// lands.
fn king_danger(pos: &VariantPosition, side: Color) -> i32 {
    let board = pos.board();
    let Some(king) = board.king_of(side) else { return 0 };
    let zone = shakmaty::attacks::king_attacks(king) | Bitboard::from_square(king);
    let occupied = board.occupied();
    let attacks: i32 = zone.into_iter().map(|sq| board.attacks_to(sq, !side, occupied).count() as i32).sum();
    let in_hand = pos.pockets().map_or(0, |p| {
        let hand = &p[!side];
        i32::from(hand.pawn) + 2 * i32::from(hand.knight + hand.bishop + hand.rook) + 3 * i32::from(hand.queen)
    });
    // A square only the king guards is a hole: a supported drop there cannot be taken.
    let guarded = |sq| (board.attacks_to(sq, side, occupied) & !board.kings()).any();
    let holes = (zone & !occupied).into_iter().filter(|&sq| !guarded(sq)).count() as i32;
    let shield = (zone & board.by_color(side)).count() as i32;
    (30 * attacks + 8 * holes * in_hand - 10 * shield).max(0)
}

/// A static score of `pos` from the side to move's view, in centipawns.
pub fn evaluate(pos: &VariantPosition) -> i32 {
    let us = pos.turn();
    let board = pos.board();
    let balance = |f: &dyn Fn(Color) -> i32| f(us) - f(!us);
    let king_steps = |side: Color, goal: Bitboard| {
        board.king_of(side).map_or(8, |k| goal.into_iter().map(|s| k.distance(s)).min().unwrap_or(8) as i32)
    };
    match pos.variant() {
        // Fewer men is better: each man costs the same, whatever it is.
        Variant::Antichess => -balance(&|side| 100 * board.by_color(side).count() as i32),
        Variant::KingOfTheHill => {
            balance(&|side| material(pos, side) + 2 * mobility(board, side) - 60 * king_steps(side, Bitboard::CENTER))
        }
        Variant::RacingKings => balance(&|side| {
            let rank = board.king_of(side).map_or(0, |k| u32::from(k.rank()) as i32);
            material(pos, side) / 4 + 150 * rank
        }),
        Variant::ThreeCheck => balance(&|side| {
            // shakmaty counts, per side, the checks it has still to give.
            let given = pos.remaining_checks().map_or(0, |r| 3 - i32::from(r[side]));
            material(pos, side) + 2 * mobility(board, side) + 400 * given * given - king_danger(pos, side)
        }),
        Variant::Crazyhouse => {
            balance(&|side| material(pos, side) + 2 * mobility(board, side) - king_danger(pos, side))
        }
        _ => balance(&|side| material(pos, side) + 2 * mobility(board, side)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::game::parse_variant_fen;

    fn eval(variant: Variant, fen: &str) -> i32 {
        evaluate(&parse_variant_fen(variant, fen).unwrap())
    }

    #[test]
    fn three_check_values_the_checks_a_side_has_given() {
        // White to move has given two checks (one left to give): far better for White
        // than the same board where Black has given them.
        let white_gave = eval(Variant::ThreeCheck, "4k3/pppp4/8/8/8/8/5PPP/6K1 w - - 1+3 0 1");
        let black_gave = eval(Variant::ThreeCheck, "4k3/pppp4/8/8/8/8/5PPP/6K1 w - - 3+1 0 1");
        assert!(white_gave > black_gave + 1000, "{white_gave} vs {black_gave}");
    }

    #[test]
    fn crazyhouse_fears_drops_beside_a_bare_king() {
        // The same men, Black with a queen in hand: White's king with its pawn shield is
        // safer than the one in the open.
        let sheltered = eval(Variant::Crazyhouse, "4k3/pppp4/8/8/8/8/5PPP/6K1[q] w - - 0 1");
        let open = eval(Variant::Crazyhouse, "4k3/pppp4/8/8/4K3/8/5PPP/8[q] w - - 0 1");
        assert!(sheltered > open + 50, "{sheltered} vs {open}");
    }
}
