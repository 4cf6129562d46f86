//! Exact distance to mate (DTM) of every position with at most four men, by retrograde
//! analysis: built the first time a search meets the material, beside the search, and
//! stored in the platform's cache directory for every later process.
//!
//! A table holds, for each placement of its men and each side to move, the plies to
//! mate with best play on both sides (odd: the side to move mates; even: it is mated), or
//! nothing (a draw: no side can force mate). DTM ignores the 50-move rule and
//! repetitions; the prover applies those (docs/design.md, "Exact small endings").
//!
//! Inside: [`material`] names endings and what they lead to, [`index`] numbers a
//! material's placements up to symmetry, [`moves`] and [`build`] are the retrograde
//! build, [`table`] holds one ending's values, [`file`] stores and maps them, [`store`]
//! is the process's tables and their builder thread, and [`probe`] is what one df-pn
//! call reads of them.

pub(crate) mod build;
pub mod file;
pub(crate) mod index;
pub(crate) mod mapped;
pub mod material;
pub(crate) mod moves;
pub(crate) mod nodes;
pub mod probe;
pub mod progress;
pub mod store;
pub(crate) mod sweep;
pub mod table;
pub mod verify;

pub use material::{DTM_MEN, Material, all_materials, closure};
pub use probe::{Exact, begin_search, exact_floor, longest_mate};
pub use progress::Progress;
pub use store::{DtmStore, Fetched, Prepared, store};
pub use table::{Code, Dtm, DtmTable, Origin};
pub use verify::{Verified, verify};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::parse_fen;
    use shakmaty::{Chess, EnPassantMode, Position};

    fn dtm(fen: &str) -> Dtm {
        let pos = parse_fen(fen).unwrap();
        let mut exact = Exact::default();
        exact.begin_call(pos.board(), crate::knowledge::SearchLimits::waiting());
        exact.value(&pos).unwrap()
    }

    /// The table of the ending called `name`, waited for.
    fn table(name: &str) -> std::sync::Arc<DtmTable> {
        store().wait(Material::named(name).unwrap(), &|| false).unwrap()
    }

    #[test]
    fn known_mate_lengths() {
        // K+Q v K: mated, mate in one, and the longest (10 moves).
        assert_eq!(dtm("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), Dtm::Loses(0));
        assert_eq!(dtm("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"), Dtm::Wins(1));
        assert_eq!(dtm("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"), Dtm::Draw, "stalemate");
        assert_eq!(dtm("8/8/8/8/8/8/2k5/K1q5 w - - 0 1"), Dtm::Loses(2), "Ka2 Qb2#");
        assert_eq!(dtm("8/8/8/4k3/8/8/8/K1N5 w - - 0 1"), Dtm::Draw);
        // The longest mates: K+Q v K in 10, K+R v K in 16 (Syzygy's lines agree).
        let longest = |name: &str| table(name).longest;
        assert_eq!(longest("KQvK"), 20, "mated in 20 plies with the lone king to move");
        assert_eq!(longest("KRvK"), 32);
        // En passant: the position with the right is worth the better for black of the
        // position without it and of the capture.
        let rank = |d: Dtm| match d {
            Dtm::Wins(n) => 1000 - n as i32,
            Dtm::Draw => 0,
            Dtm::Loses(n) => n as i32 - 1000,
        };
        let with = dtm("8/8/8/8/1pP5/8/8/K6k b - c3 0 1");
        let without = dtm("8/8/8/8/1pP5/8/8/K6k b - - 0 1");
        let capture = match dtm("8/8/8/8/8/2p5/8/K6k w - - 0 1") {
            Dtm::Wins(n) => Dtm::Loses(n + 1),
            Dtm::Loses(n) => Dtm::Wins(n + 1),
            Dtm::Draw => Dtm::Draw,
        };
        assert_eq!(rank(with), rank(without).max(rank(capture)), "{with:?} {without:?} {capture:?}");
    }

    /// Every `step`-th placement of each ending of the test tables (3-4 men, tests/syzygy)
    /// agrees with Syzygy's WDL, a cursed win counted as a win.
    #[test]
    fn agrees_with_the_syzygy_tables() {
        use shakmaty_syzygy::{Tablebase, Wdl};
        let mut tb = Tablebase::<Chess>::new();
        tb.add_directory(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy")).unwrap();
        for (name, step) in [("KQvK", 1), ("KRvK", 1), ("KBvK", 1), ("KNvK", 1), ("KBvKB", 7), ("KNNvK", 7)] {
            let table = table(name);
            let (mut n, mut seen, mut wins) = (0u64, 0u64, 0u64);
            table.each(|pos, dtm| {
                n += 1;
                if n % step != 0 {
                    return;
                }
                let wdl = tb.probe_wdl_after_zeroing(&pos).unwrap();
                let agrees = match dtm {
                    Dtm::Wins(d) => d % 2 == 1 && matches!(wdl, Wdl::Win | Wdl::CursedWin),
                    Dtm::Loses(d) => d % 2 == 0 && matches!(wdl, Wdl::Loss | Wdl::BlessedLoss),
                    Dtm::Draw => wdl == Wdl::Draw,
                };
                assert!(
                    agrees,
                    "{name}: {:?} {dtm:?} {wdl:?}",
                    shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal).to_string()
                );
                seen += 1;
                wins += u64::from(dtm != Dtm::Draw);
            });
            assert!(seen > 5_000, "{name}: {seen} positions");
            // The two rook and queen endings are won almost everywhere (K+B v K+B and
            // K+N+N v K have only the few mates their helpmate-like corners allow).
            if name == "KQvK" || name == "KRvK" {
                assert!(wins * 10 > seen * 9, "{name}: {wins} of {seen} won");
            }
        }
    }
}
