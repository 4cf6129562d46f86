//! A problem's certificate: the proof that its stipulation is met, or the disproof that it
//! is not, built by the extractor of `crate::proof::certify` from what the table holds
//! after solving (src/proof/FORMAT.md, "Problems").

use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;
use shakmaty::variant::Variant;

use super::game::Problem;
use crate::chess::node::Node;
use crate::dfpn::monitor::{Control, Monitor};
use crate::error::CertError;
use crate::proof::certificate::{Certificate, Claim, Kind};
use crate::proof::certify::{CertBudget, Certified, section};
use crate::tt::TranspositionTable;

/// The certificate of a chess problem: the proof that `root`'s stipulation is met within
/// `plies` (`solution`), or the disproof that it is not, from what `tt` holds after
/// solving it (re-searching where it lost entries). The attacker is the side that moves
/// first in the stipulation; in help play every node is the attacker's choice.
pub fn certify_problem(
    root: &Problem,
    solution: bool,
    plies: u32,
    tt: &TranspositionTable,
) -> Result<Certified, CertError> {
    let node = Node::new(root.clone());
    let mut monitor = Monitor::new(Control::new(), None);
    let limits = CertBudget::default();
    let mut budget = limits.search_nodes;
    let kind = if solution { Kind::Proof } else { Kind::Disproof };
    let built = section(&node, tt, &mut monitor, &mut budget, (limits, &()), (kind, root.stip.first_mover(), plies));
    let section = built.map_err(|e| e.of(if solution { "proof" } else { "disproof" }))?;
    let moves = u32::from(root.stip.moves);
    let claim = if solution { Claim::Solution(moves) } else { Claim::NoSolution(moves) };
    let fen = Fen::from_position(&root.pos, EnPassantMode::Legal).to_string();
    let certificate = Certificate {
        variant: Variant::Chess,
        fen,
        stipulation: Some(root.stip.to_string()),
        claim,
        shortest: false,
        sections: vec![section],
    };
    Ok(Certified { certificate, note: None })
}
