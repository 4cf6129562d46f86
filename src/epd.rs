//! EPD mate suites: parsing `FEN bm #N;` lines and judging results against them.
//!
//! Accepted lines: a 4- or 6-field FEN followed by `;`-separated operations, of which
//! `bm #N` (N > 0: the side to move mates in N; N < 0: it is mated in |N|) is read, and
//! `id "..."` and `PV: ...` are kept; any other operation is ignored. Blank lines and
//! lines starting with `#` are skipped. This module never reads stdin.

use shakmaty::Chess;
use shakmaty::variant::{Variant, VariantPosition};

use crate::chess::game::Game;
use crate::chess::position::parse_fen;
use crate::error::EpdError;
use crate::proof::verify::verify_line;
use crate::search::Outcome;
use crate::variant::game::parse_variant_fen;

/// One suite position.
#[derive(Clone, Debug)]
pub struct EpdEntry<G: Game = Chess> {
    /// The position.
    pub pos: G,
    /// The FEN as written (4 or 6 fields).
    pub fen: String,
    /// The suite's mate: positive, the side to move mates in N; negative, it is mated.
    pub bm: Option<i32>,
    /// The `id` operation, if any.
    pub id: Option<String>,
    /// The suite's line (`PV:` operation), if any, as UCI words.
    pub pv: Option<String>,
    /// A chess problem's stipulation (`stip "s#3"` operation), if any, as written.
    pub stip: Option<String>,
}

/// Parses one line. `Ok(None)` for blank and comment lines.
pub fn parse_line(line: &str) -> Result<Option<EpdEntry>, EpdError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.len() < 4 {
        return Err(EpdError::NoFen);
    }
    let mut n = 4;
    // Optional halfmove and fullmove counters.
    if tokens.len() >= 6 && tokens[4].parse::<u32>().is_ok() && tokens[5].trim_end_matches(';').parse::<u32>().is_ok() {
        n = 6;
    }
    let fen_tokens: Vec<&str> = tokens[..n].iter().map(|t| t.trim_end_matches(';')).collect();
    let fen = fen_tokens.join(" ");
    let pos = parse_fen(&fen)?;
    let Operations { bm, id, pv, stip } = operations(&tokens[n..].join(" "))?;
    Ok(Some(EpdEntry { pos, fen, bm, id, pv, stip }))
}

/// The operations of a suite line that pnmate reads: `bm #N`, `id "..."`, `PV: ...` and
/// `stip "..."`.
struct Operations {
    bm: Option<i32>,
    id: Option<String>,
    pv: Option<String>,
    stip: Option<String>,
}

/// Reads the [`Operations`] of a suite line from the text after its FEN.
fn operations(rest: &str) -> Result<Operations, EpdError> {
    let (mut bm, mut id, mut pv, mut stip) = (None, None, None, None);
    for op in rest.split(';') {
        let op = op.trim();
        if let Some(v) = op.strip_prefix("bm ") {
            let v = v.trim();
            let value = v.strip_prefix('#').and_then(|n| n.parse::<i32>().ok()).filter(|&n| n != 0);
            match value {
                Some(n) => bm = Some(n),
                None => return Err(EpdError::BadBm(v.to_string())),
            }
        } else if let Some(v) = op.strip_prefix("id ") {
            id = Some(v.trim().trim_matches('"').to_string());
        } else if let Some(v) = op.strip_prefix("PV:") {
            pv = Some(v.trim().to_string());
        } else if let Some(v) = op.strip_prefix("stip ") {
            stip = Some(v.trim().trim_matches('"').to_string());
        }
    }
    Ok(Operations { bm, id, pv, stip })
}

/// Parses one line of a `variant` suite; `Ok(None)` for blank and comment lines. The FEN
/// is everything before the first operation (a crazyhouse FEN carries its pockets, a
/// three-check FEN its counters, in either form).
pub fn parse_variant_line(variant: Variant, line: &str) -> Result<Option<EpdEntry<VariantPosition>>, EpdError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let ops_at = tokens
        .iter()
        .position(|t| *t == "bm" || *t == "id" || *t == "stip" || t.ends_with(';'))
        .unwrap_or(tokens.len());
    if ops_at < 2 {
        return Err(EpdError::NoFen);
    }
    let fen = tokens[..ops_at].join(" ");
    let pos = parse_variant_fen(variant, &fen)?;
    let Operations { bm, id, pv, stip } = operations(&tokens[ops_at..].join(" "))?;
    Ok(Some(EpdEntry { pos, fen, bm, id, pv, stip }))
}

/// How a result compares with the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Judgement {
    /// Mate of the suite's length, line verified.
    Best,
    /// Shorter than the suite's mate, line verified.
    Better,
    /// A verified mate longer than the suite's (or the suite gives none).
    Found,
    /// A proven "no mate within N" where the suite has no mate within N.
    NoMate,
    /// Nothing proven.
    Unknown,
    /// A claim that contradicts the suite (wrong sign, or no-mate where it has one).
    Wrong,
    /// A mate claim whose line does not replay to checkmate with the claimed length.
    BadLine,
}

impl Judgement {
    /// True for the three mate verdicts with a verified line.
    pub fn is_found(self) -> bool {
        matches!(self, Judgement::Best | Judgement::Better | Judgement::Found)
    }
}

/// Judges an outcome against the suite's `bm`, replaying the line independently of the
/// search that produced it.
pub fn judge<G: Game>(entry: &EpdEntry<G>, outcome: &Outcome) -> Judgement {
    match outcome {
        Outcome::Mate { .. } | Outcome::Mated { .. } => {
            let Some(mate) = outcome.mate() else { return Judgement::BadLine };
            let moves = mate.signed();
            if verify_line(&entry.pos, outcome.pv(), mate, &[]).is_err() {
                return Judgement::BadLine;
            }
            against_bm(entry.bm, moves)
        }
        Outcome::NoMate { moves } => match entry.bm {
            Some(bm) if bm.unsigned_abs() <= *moves => Judgement::Wrong,
            _ => Judgement::NoMate,
        },
        Outcome::Unknown => Judgement::Unknown,
    }
}

/// How a verified mate of `moves` (signed, from the side to move's view) compares with the
/// suite's `bm`.
pub fn against_bm(bm: Option<i32>, moves: i32) -> Judgement {
    match bm {
        None => Judgement::Found,
        Some(bm) if (bm > 0) != (moves > 0) => Judgement::Wrong,
        Some(bm) if moves.abs() < bm.abs() => Judgement::Better,
        Some(bm) if moves.abs() == bm.abs() => Judgement::Best,
        Some(_) => Judgement::Found,
    }
}

/// The by-length rows of the summary table.
pub const LENGTH_BANDS: [(u32, u32, &str); 4] =
    [(1, 5, "#1-#5"), (6, 10, "#6-#10"), (11, 20, "#11-#20"), (21, u32::MAX, "#21+")];

/// Index of the band a suite mate length falls in.
pub fn band(bm: i32) -> usize {
    let n = bm.unsigned_abs();
    LENGTH_BANDS.iter().position(|&(lo, hi, _)| (lo..=hi).contains(&n)).unwrap_or(LENGTH_BANDS.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_format_variants() {
        let e = parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm #1; ep; 00:00;").unwrap().unwrap();
        assert_eq!(e.bm, Some(1));
        assert_eq!(e.fen, "6k1/5ppp/8/8/8/8/8/R5K1 w - -");
        let e = parse_line("8/6k1/8/8/5R2/8/4K3/8 b - - 3 40 bm #-8; PV: g7h8 f4g4; id \"krk 7\";").unwrap().unwrap();
        assert_eq!(e.bm, Some(-8));
        assert_eq!(e.pv.as_deref(), Some("g7h8 f4g4"));
        assert_eq!(e.id.as_deref(), Some("krk 7"));
        assert_eq!(e.fen, "8/6k1/8/8/5R2/8/4K3/8 b - - 3 40");
        let e = parse_line("8/6k1/8/8/5R2/8/4K3/8 b - -").unwrap().unwrap();
        assert_eq!(e.bm, None);
        let e = parse_line("8/6k1/8/8/5R2/8/4K3/8 b - - id \"x\"; bm #-8;").unwrap().unwrap();
        assert_eq!(e.bm, Some(-8));
        assert!(parse_line("").unwrap().is_none());
        assert!(parse_line("   # comment").unwrap().is_none());
    }

    #[test]
    fn rejects_malformed_lines() {
        assert_eq!(parse_line("hello").unwrap_err(), EpdError::NoFen);
        assert!(matches!(parse_line("8/8/8/8/8/8/8/8 w - - bm #1;"), Err(EpdError::Setup(_))));
        assert!(matches!(parse_line("8/6k1/8/8/5R2/8/4K3/8 b - - bm #x;"), Err(EpdError::BadBm(_))));
        assert!(matches!(parse_line("8/6k1/8/8/5R2/8/4K3/8 b - - bm #0;"), Err(EpdError::BadBm(_))));
        assert!(matches!(parse_line("8/6k1/8/8/5R2/8/4K3/8 b - - bm 4;"), Err(EpdError::BadBm(_))));
    }

    #[test]
    fn variant_lines_with_pockets_and_counters_parse_and_claims_are_judged() {
        let zh = parse_variant_line(Variant::Crazyhouse, "k7/8/1K6/8/8/8/8/8[Q] w - - 0 1 bm #1; source x;")
            .unwrap()
            .unwrap();
        assert_eq!((zh.fen.as_str(), zh.bm), ("k7/8/1K6/8/8/8/8/8[Q] w - - 0 1", Some(1)));
        let three =
            parse_variant_line(Variant::ThreeCheck, "4k3/8/8/8/8/8/8/3QK3 w - - 1+3 0 1 bm #1;").unwrap().unwrap();
        let check = "d1e2".parse::<shakmaty::uci::UciMove>().unwrap().to_move(&three.pos).unwrap();
        let quiet = "d1d2".parse::<shakmaty::uci::UciMove>().unwrap().to_move(&three.pos).unwrap();
        let win = |pv| Outcome::Mate { moves: 1, exact: true, pv };
        assert_eq!(judge(&three, &win(vec![check])), Judgement::Best);
        assert_eq!(judge(&three, &win(vec![quiet])), Judgement::BadLine);
        assert_eq!(judge(&three, &Outcome::NoMate { moves: 1 }), Judgement::Wrong);
        assert!(parse_variant_line(Variant::Crazyhouse, "bm #1;").is_err());
        assert!(parse_variant_line(Variant::Crazyhouse, "# comment").unwrap().is_none());
    }

    #[test]
    fn judges_claims() {
        let e = parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm #1;").unwrap().unwrap();
        let m = shakmaty::uci::UciMove::from_ascii(b"a1a8").unwrap().to_move(&e.pos).unwrap();
        let bad = shakmaty::uci::UciMove::from_ascii(b"a1a7").unwrap().to_move(&e.pos).unwrap();
        let mate = |pv| Outcome::Mate { moves: 1, exact: true, pv };
        assert_eq!(judge(&e, &mate(vec![m])), Judgement::Best);
        assert_eq!(judge(&e, &mate(vec![bad])), Judgement::BadLine);
        assert_eq!(judge(&e, &Outcome::NoMate { moves: 1 }), Judgement::Wrong);
        assert_eq!(judge(&e, &Outcome::Unknown), Judgement::Unknown);
        let e2 = parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm #3;").unwrap().unwrap();
        assert_eq!(judge(&e2, &mate(vec![m])), Judgement::Better);
        assert_eq!(judge(&e2, &Outcome::NoMate { moves: 2 }), Judgement::NoMate);
        let e3 = parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm #-1;").unwrap().unwrap();
        assert_eq!(judge(&e3, &mate(vec![m])), Judgement::Wrong);
    }

    #[test]
    fn bands() {
        assert_eq!(band(1), 0);
        assert_eq!(band(-5), 0);
        assert_eq!(band(6), 1);
        assert_eq!(band(20), 2);
        assert_eq!(band(126), 3);
    }
}
