//! The fallback move chooser: a small alpha-beta search used when no mate is proven, so
//! that a game goes on sensibly and in time. It claims nothing: its scores are
//! evaluations, never reported as mates. It is written once over the game: each game
//! gives its evaluation ([`Expand::evaluate`]) and the few rules of [`AlphaBeta`] (how a
//! position ends, when standing pat is no option, when a pass is safe), and chess its
//! fast leaf capture generator.
//!
//! It scores any repetition of a game position, or of one on its own path, as a draw, and
//! a position where the 50-move rule applies as a draw, so a winning side keeps making
//! progress instead of shuffling between positions it may legally repeat until the
//! 50-move rule ends the game (docs/design.md, "Fallback repetitions"). It polls the stop
//! flag and its deadline every few hundred nodes.
//!
//! How it searches: iterative deepening principal variation search with a table of its
//! own (best move and bounds per position, kept by the engine between a game's moves),
//! late quiet moves reduced by about ln(depth) ln(index) / 2 and the latest ones pruned
//! near the leaves, reverse futility near the leaves, null move for the side not behind in
//! material, one extra ply for a check with at most two replies, table move, killer and
//! history ordering, and a quiescence search of captures (of every evasion when in check).

mod game;
mod search;
mod table;

pub use game::AlphaBeta;
pub use search::{Choice, choose_move};
pub use table::{MATE_BOUND, ScoreTable};

#[cfg(test)]
mod tests {
    use super::game::{captures, needs_full_moves};
    use super::table::{MATE, from_table, to_table};
    use super::*;
    use crate::chess::node::Node;
    use crate::chess::position::{parse_fen, uci};
    use crate::dfpn::monitor::Control;
    use crate::variant::game::{VARIANT_NAMES, parse_variant_fen, variant_named};
    use shakmaty::variant::Variant;
    use shakmaty::variant::VariantPosition;
    use shakmaty::{Chess, Color};
    use shakmaty::{Move, Position};
    use std::time::Duration;
    use std::time::Instant;

    fn best(fen: &str, history: &[u64], ms: u64, depth: u32) -> String {
        let pos = parse_fen(fen).unwrap();
        uci(choose_move(&pos, &[], history, Duration::from_millis(ms), depth, None, None).unwrap().best)
    }

    #[test]
    fn the_first_pass_ends_whatever_the_clock_says() {
        // With no time left (after `stop`, or a prover that used the move's time), the
        // move still comes from a whole one-ply pass with its captures searched: cut off
        // after its first nodes, the pass scored the later moves by their static
        // evaluation alone, blind to the piece they leave en prise.
        let fens = [
            // Nf6 mates; cut off, the pass took the bishop on d1.
            "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/R7/4k3/8/5K2/8/8/6q1 b - - 55 28",
        ];
        for fen in fens {
            let pos = parse_fen(fen).unwrap();
            let pass = |time| choose_move(&pos, &[], &[], time, 1, None, None).unwrap();
            let (whole, cut) = (pass(Duration::from_secs(60)), pass(Duration::ZERO));
            assert_eq!((uci(cut.best), cut.score), (uci(whole.best), whole.score), "{fen}");
        }
    }

    #[test]
    fn takes_a_free_queen_and_respects_searchmoves() {
        assert_eq!(best("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", &[], 200, 4), "d1d5");
        let pos = parse_fen("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1").unwrap();
        let only: Vec<Move> = pos.legal_moves().into_iter().filter(|m| uci(*m) == "e1f2").collect();
        let c = choose_move(&pos, &only, &[], Duration::from_millis(50), 4, None, None).unwrap();
        assert_eq!(uci(c.best), "e1f2");
    }

    #[test]
    fn does_not_box_in_a_king_whose_rook_checks_to_stalemate() {
        // 11 plies deep the fallback once played Qc7 (+890): a draw by rook checks and
        // stalemate, the desperado's trap that the evaluation scores as a near-draw.
        assert_ne!(best("k7/8/8/8/1r6/8/7Q/7K w - - 0 1", &[], 60_000, 11), "h2c7");
    }

    #[test]
    fn the_leaf_capture_generator_finds_every_legal_capture() {
        // Random games from an opening, a middlegame and an ending: wherever the leaves
        // use `captures` (out of check, no promotion or en passant pending), it must give
        // exactly the legal captures.
        let starts = [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2Q1RK1 w - - 0 10",
            "8/8/1r6/2k5/8/7K/4Q3/8 w - - 0 1",
        ];
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut checked = 0;
        for fen in starts {
            for _ in 0..20 {
                let mut pos = parse_fen(fen).unwrap();
                for _ in 0..40 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    if !pos.is_check() && !needs_full_moves(&pos) {
                        let mut want: Vec<String> = legal.iter().filter(|m| m.is_capture()).map(|&m| uci(m)).collect();
                        let mut got: Vec<String> = captures(&pos).iter().map(|&m| uci(m)).collect();
                        want.sort();
                        got.sort();
                        assert_eq!(
                            got,
                            want,
                            "{}",
                            shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                        );
                        checked += 1;
                    }
                    pos.play_unchecked(legal[rng.below(legal.len())]);
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn no_move_when_mated() {
        let pos = parse_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1").unwrap();
        assert_eq!(choose_move(&pos, &[], &[], Duration::from_millis(10), 3, None, None), None);
    }

    #[test]
    fn a_stop_ends_it_at_once() {
        let pos = parse_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
        let control = Control::new();
        control.stop();
        let started = Instant::now();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(30), 64, Some(&control), None).unwrap();
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        assert!(pos.legal_moves().contains(&c.best));
    }

    #[test]
    fn a_winning_side_does_not_repeat_the_game() {
        // KQ v K. Whatever the fallback plays here, put the position after that move into
        // the game's history: asked again, it must find another move that still wins.
        let pos = parse_fen("4k3/8/8/8/8/8/8/3QK3 w - - 6 20").unwrap();
        let first = choose_move(&pos, &[], &[], Duration::from_secs(10), 3, None, None).unwrap();
        let mut after = pos.clone();
        after.play_unchecked(first.best);
        let again = choose_move(&pos, &[], &[Node::new(after).hash], Duration::from_secs(10), 3, None, None).unwrap();
        assert_ne!(again.best, first.best, "repeats a game position");
        assert!(again.score > 500, "{again:?}");
    }

    #[test]
    fn wins_the_rook_with_a_queen_fork() {
        // K+Q v K+R: Qc3+ or Qe5+ checks the king on g7 and attacks the rook on b2.
        let pos = parse_fen("8/6k1/8/8/8/8/1r6/4Q1K1 w - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(10), 6, None, None).unwrap();
        assert!(["e1c3", "e1e5"].contains(&uci(c.best).as_str()), "{c:?}");
        assert!(c.score > 900, "{c:?}");
    }

    #[test]
    fn a_rook_check_that_skewers_the_queen_is_seen_at_the_horizon() {
        // Rh2+ drives the king off the second rank and Rxa2 takes the queen behind it.
        // One ply deep, the check is the last move searched: the replies to it must still
        // be searched (in check, no standing pat), or the check looks like nothing. (Six
        // replies and a small material edge for White: no check extension applies.)
        let pos = parse_fen("1n5k/7r/8/8/8/8/Q3K3/8 b - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(10), 1, None, None).unwrap();
        assert_eq!(uci(c.best), "h7h2", "{c:?}");
        assert!(c.score > 300, "{c:?}");
    }

    #[test]
    fn a_mate_keeps_its_length_through_the_table() {
        // Kg6 and Ra8 mate: three plies, whatever depth the table stored it at.
        let pos = parse_fen("7k/8/5K2/8/8/8/8/R7 w - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_secs(10), 8, None, None).unwrap();
        assert_eq!((uci(c.best).as_str(), c.score), ("f6g6", MATE - 3), "{c:?}");
        for score in [MATE - 7, -MATE + 4, 250, -30] {
            assert_eq!(from_table(to_table(score, 5), 5), score);
        }
    }

    #[test]
    fn a_kept_table_makes_the_next_search_cheaper() {
        // The same fixed-depth search twice: the second one starts from the first one's
        // table and needs far fewer nodes (a game's next move profits the same way).
        let pos = parse_fen("8/8/1r6/2k5/8/7K/4Q3/8 w - - 0 1").unwrap();
        let mut table = ScoreTable::new();
        let search =
            |t: &mut ScoreTable| choose_move(&pos, &[], &[], Duration::from_secs(60), 8, None, Some(t)).unwrap();
        let first = search(&mut table);
        let second = search(&mut table);
        assert_eq!(first.depth, 8);
        assert!(second.nodes * 2 < first.nodes, "{} then {}", first.nodes, second.nodes);
        table.clear();
        assert_eq!(search(&mut table).nodes, first.nodes);
    }

    /// Plays the fallback against itself from `fen` for at most `plies` plies at fixed
    /// depths (the attacker `deep`, the defender 4), with the game's positions as
    /// history; the positions reached.
    fn self_play(fen: &str, deep: u32, plies: usize) -> Vec<Chess> {
        let mut pos = parse_fen(fen).unwrap();
        let attacker = pos.turn();
        let mut history = Vec::new();
        let mut seen = vec![pos.clone()];
        for _ in 0..plies {
            let depth = if pos.turn() == attacker { deep } else { 4 };
            let Some(c) = choose_move(&pos, &[], &history, Duration::from_secs(60), depth, None, None) else { break };
            history.push(Node::new(pos.clone()).hash);
            pos.play_unchecked(c.best);
            seen.push(pos.clone());
        }
        seen
    }

    #[test]
    fn bishop_and_knight_drive_the_king_to_the_mating_corner() {
        // From the centre, searching 8 plies a move against a defender searching 4, the
        // fallback brings the king next to a corner of the bishop's colour (where the
        // prover's mates are short) within 40 moves: a1 or h8 with the dark-squared
        // bishop, a8 or h1 with the light one. With a corner step worth 25, as before,
        // the last start never got there (and at 6 plies a move, four of the six).
        use shakmaty::Square;
        let dark = [Square::A1, Square::H8];
        let light = [Square::A8, Square::H1];
        for (fen, corners) in [
            ("8/8/2k5/8/8/2N5/3B4/4K3 w - - 0 1", dark),
            ("8/8/2k5/8/8/2N5/2B5/4K3 w - - 0 1", light),
            ("8/8/4k3/8/8/2N5/3B4/4K3 w - - 0 1", dark),
            ("8/8/4k3/8/8/2N5/2B5/4K3 w - - 0 1", light),
            ("8/8/8/4k3/8/2N5/3B4/4K3 w - - 0 1", dark),
            ("8/8/8/4k3/8/2N5/2B5/4K3 w - - 0 1", light),
        ] {
            let games = self_play(fen, 8, 80);
            let near_corner = |p: &Chess| {
                let k = p.board().king_of(Color::Black).unwrap();
                corners.iter().any(|&c| k.distance(c) <= 1)
            };
            let last = shakmaty::fen::Fen::from_position(games.last().unwrap(), shakmaty::EnPassantMode::Legal);
            assert!(games.iter().any(near_corner), "from {fen}, never near {corners:?}: {last}");
        }
    }

    #[test]
    fn drives_a_lone_king_to_the_edge() {
        let pos = parse_fen("8/8/8/3k4/8/8/8/R3K3 w - - 0 1").unwrap();
        let c = choose_move(&pos, &[], &[], Duration::from_millis(300), 4, None, None).unwrap();
        assert!(c.score > 500, "{c:?}");
        let mut after = pos.clone();
        after.play_unchecked(c.best);
        let push = |p: &Chess| crate::knowledge::eval::mop_up(p, Color::White, 500);
        assert!(push(&after) >= push(&pos) - 30, "{} lets the king escape", uci(c.best));
    }

    /// The variants' fallback, at a fixed depth with a generous clock.
    fn choose_in(pos: &VariantPosition, history: &[u64], ms: u64, depth: u32) -> Choice {
        choose_move(pos, &[], history, Duration::from_millis(ms), depth, None, None).unwrap()
    }

    #[test]
    fn every_variant_gets_a_legal_move_from_its_start() {
        for variant in VARIANT_NAMES.map(|name| variant_named(name).unwrap()) {
            let pos = VariantPosition::new(variant);
            let c = choose_in(&pos, &[], 200, 3);
            assert!(pos.is_legal(c.best), "{variant:?}");
        }
    }

    #[test]
    fn the_fallback_takes_a_win_in_one_and_gives_men_away_in_antichess() {
        let koth = parse_variant_fen(Variant::KingOfTheHill, "7k/8/8/8/8/2K5/8/8 w - - 0 1").unwrap();
        let c = choose_in(&koth, &[], 5000, 2);
        assert_eq!(c.best.to(), shakmaty::Square::D4);
        // Antichess: White's rook can be taken on a1 or c1 only.
        let anti = parse_variant_fen(Variant::Antichess, "8/8/8/8/8/8/1p6/7R w - - 0 1").unwrap();
        let c = choose_in(&anti, &[], 5000, 3);
        assert!([shakmaty::Square::A1, shakmaty::Square::C1].contains(&c.best.to()), "{c:?}");
    }

    #[test]
    fn a_winning_side_does_not_repeat_the_game_in_a_variant() {
        // Crazyhouse K+Q v K: whatever the fallback plays, put the position after it into
        // the game's history; asked again, it must find another move that still wins.
        let pos = parse_variant_fen(Variant::Crazyhouse, "4k3/8/8/8/8/8/8/3QK3[] w - - 6 20").unwrap();
        let first = choose_in(&pos, &[], 10_000, 3);
        let mut after = pos.clone();
        after.play_unchecked(first.best);
        let again = choose_in(&pos, &[crate::chess::node::Node::new(after).hash], 10_000, 3);
        assert_ne!(again.best, first.best, "repeats a game position");
        assert!(again.score > 500, "{again:?}");
    }

    #[test]
    fn three_check_sees_the_third_check_at_the_horizon() {
        // White has given two checks; Bb5+ is the third, and one ply deep only the
        // quiescence's checks see that it wins.
        let pos = parse_variant_fen(Variant::ThreeCheck, "4k3/8/8/8/8/3B4/8/4K3 w - - 1+3 0 1").unwrap();
        let c = choose_in(&pos, &[], 10_000, 1);
        assert!(c.score > MATE_BOUND, "{c:?}");
    }
}
