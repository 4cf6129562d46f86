//! Variant suites: `FEN bm #N; ...` lines, where the FEN is everything before `bm` (a
//! crazyhouse FEN carries its pockets, a three-check FEN its counters, in either form),
//! and the judging of a variant search's outcome against them, its line replayed.

use shakmaty::Position;
use shakmaty::variant::{Variant, VariantPosition};

use crate::epd::{Judgement, against_bm};
use crate::error::EpdError;
use crate::search::Outcome;
use crate::variant::game::parse_variant_fen;
use crate::variant::search::verify_variant_line;

/// One position of a variant suite.
#[derive(Clone, Debug)]
pub struct VariantEntry {
    /// The position.
    pub pos: VariantPosition,
    /// The FEN as written.
    pub fen: String,
    /// The suite's win: positive, the side to move wins in N; negative, it loses in |N|.
    pub bm: Option<i32>,
}

/// Parses one line of a `variant` suite; `Ok(None)` for blank and comment lines.
pub fn parse_variant_line(variant: Variant, line: &str) -> Result<Option<VariantEntry>, EpdError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let ops_at = tokens.iter().position(|t| *t == "bm" || t.ends_with(';')).unwrap_or(tokens.len());
    if ops_at < 2 {
        return Err(EpdError::NoFen);
    }
    let fen = tokens[..ops_at].join(" ");
    let pos = parse_variant_fen(variant, &fen)?;
    let mut bm = None;
    for op in tokens[ops_at..].join(" ").split(';') {
        if let Some(v) = op.trim().strip_prefix("bm ") {
            let v = v.trim();
            bm = Some(
                v.strip_prefix('#')
                    .and_then(|n| n.parse::<i32>().ok())
                    .filter(|&n| n != 0)
                    .ok_or_else(|| EpdError::BadBm(v.to_string()))?,
            );
        }
    }
    Ok(Some(VariantEntry { pos, fen, bm }))
}

/// Judges a variant search's outcome against the suite, replaying its line with the
/// variant's rules: legal, of the claimed length (`2M - 1` or `2M` plies for a win in M,
/// as the win falls on the winner's move or the loser's), won by the claimant.
pub fn judge_variant(entry: &VariantEntry, outcome: &Outcome) -> Judgement {
    let side = entry.pos.turn();
    let (moves, attacker, pv) = match outcome {
        Outcome::Mate { moves, pv, .. } => (*moves as i32, side, pv),
        Outcome::Mated { moves, pv, .. } => (-(*moves as i32), !side, pv),
        Outcome::NoMate { moves } => {
            return match entry.bm {
                Some(bm) if bm.unsigned_abs() <= *moves => Judgement::Wrong,
                _ => Judgement::NoMate,
            };
        }
        Outcome::Unknown => return Judgement::Unknown,
    };
    if pv.len().div_ceil(2) != moves.unsigned_abs() as usize || !verify_variant_line(&entry.pos, attacker, pv, &[]) {
        return Judgement::BadLine;
    }
    against_bm(entry.bm, moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_pockets_and_counters_parse_and_claims_are_judged() {
        let zh = parse_variant_line(Variant::Crazyhouse, "k7/8/1K6/8/8/8/8/8[Q] w - - 0 1 bm #1; source x;")
            .unwrap()
            .unwrap();
        assert_eq!((zh.fen.as_str(), zh.bm), ("k7/8/1K6/8/8/8/8/8[Q] w - - 0 1", Some(1)));
        let three =
            parse_variant_line(Variant::ThreeCheck, "4k3/8/8/8/8/8/8/3QK3 w - - 1+3 0 1 bm #1;").unwrap().unwrap();
        let check = "d1e2".parse::<shakmaty::uci::UciMove>().unwrap().to_move(&three.pos).unwrap();
        let quiet = "d1d2".parse::<shakmaty::uci::UciMove>().unwrap().to_move(&three.pos).unwrap();
        let win = |pv| Outcome::Mate { moves: 1, exact: true, pv };
        assert_eq!(judge_variant(&three, &win(vec![check])), Judgement::Best);
        assert_eq!(judge_variant(&three, &win(vec![quiet])), Judgement::BadLine);
        assert_eq!(judge_variant(&three, &Outcome::NoMate { moves: 1 }), Judgement::Wrong);
        assert!(parse_variant_line(Variant::Crazyhouse, "bm #1;").is_err());
        assert!(parse_variant_line(Variant::Crazyhouse, "# comment").unwrap().is_none());
    }
}
