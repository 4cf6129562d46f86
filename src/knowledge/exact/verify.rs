//! The check of a table against Syzygy's WDL tables: every position must agree, a cursed
//! win counted as a win and a blessed loss as a loss (DTM ignores the 50-move rule).

use shakmaty::Chess;
use shakmaty::fen::Fen;
use shakmaty_syzygy::{Tablebase, Wdl};

use super::table::{Dtm, DtmTable};

/// What [`verify`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Positions compared (those Syzygy has a value for).
    pub compared: u64,
    /// Positions on which the two disagree.
    pub disagree: u64,
    /// The first few disagreements: the FEN, pnmate's value and Syzygy's.
    pub examples: Vec<String>,
}

/// Compares every position of `table` with `syzygy`'s WDL value.
pub fn verify(table: &DtmTable, syzygy: &Tablebase<Chess>) -> Verified {
    let mut out = Verified::default();
    table.each(|pos, dtm| {
        let Ok(wdl) = syzygy.probe_wdl_after_zeroing(&pos) else { return };
        out.compared += 1;
        let agrees = match dtm {
            Dtm::Wins(d) => d % 2 == 1 && matches!(wdl, Wdl::Win | Wdl::CursedWin),
            Dtm::Loses(d) => d % 2 == 0 && matches!(wdl, Wdl::Loss | Wdl::BlessedLoss),
            Dtm::Draw => wdl == Wdl::Draw,
        };
        if !agrees {
            out.disagree += 1;
            if out.examples.len() < 5 {
                let fen = Fen::from_position(&pos, shakmaty::EnPassantMode::Legal);
                out.examples.push(format!("{fen}: {dtm:?}, Syzygy {wdl:?}"));
            }
        }
    });
    out
}
