//! The certificate's header: its rules, root, claim and the sections it announces
//! (FORMAT.md, "Header").

use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{CastlingMode, Color, Setup, fen::Fen};

use crate::Invalid;
use crate::problem::Stip;
use crate::reader::Reader;
use crate::shape::{Kind, Shape};

/// The certificate's first line.
const MAGIC: &str = "pnmate-certificate 1";
/// The header line of a certificate with tablebase leaves.
const TABLEBASES: &str = "tablebases syzygy";
/// The rules of a chess certificate.
const RULES: &str = "pnmate-1";
/// The rules of a variant's certificate: its wins take the place of mate.
/// Version 1 lacked the racing kings leaf rule, which only raises leaf values: its
/// certificates are read with version 2's rules.
const VARIANT_RULES: &str = "pnmate-variant-2";
/// The rules of a chess problem's certificate: its stipulation's.
const PROBLEM_RULES: &str = "pnmate-problem-1";
/// The certificate's last bytes.
pub const TRAILER: &[u8] = b"END\n";

/// The parsed header.
pub struct Header {
    /// The root, in chess or the variant the header names.
    pub root: VariantPosition,
    /// Whether the certificate announces tablebase leaves.
    pub tablebases: bool,
    pub claim: (String, u32),
    pub shortest: Option<bool>,
    pub shapes: Vec<Shape>,
    /// A chess problem's stipulation.
    pub stipulation: Option<Stip>,
}

/// Reads the header, up to its `data` line.
pub fn read_header(r: &mut Reader) -> Result<Header, Invalid> {
    if r.line()? != MAGIC {
        return Err(format!("the first line is not `{MAGIC}`").into());
    }
    let rules = r.line()?;
    let mut stipulation = None;
    let variant = if rules == format!("rules {RULES}") {
        Variant::Chess
    } else if rules == format!("rules {PROBLEM_RULES}") {
        let line = r.line()?;
        let text = line.strip_prefix("stipulation ").ok_or("a problem's certificate names its stipulation next")?;
        stipulation = Some(Stip::parse(text).ok_or_else(|| format!("unknown stipulation `{text}`"))?);
        Variant::Chess
    } else if rules == format!("rules {VARIANT_RULES}") || rules == "rules pnmate-variant-1" {
        let line = r.line()?;
        let name = line.strip_prefix("variant ").ok_or("a variant certificate names its variant next")?;
        match Variant::from_uci(name) {
            Ok(Variant::Chess) | Err(_) => return Err(format!("unknown variant `{name}`").into()),
            Ok(v) => v,
        }
    } else {
        return Err(format!("unknown rules: `{rules}`").into());
    };
    let fen = r.line()?;
    let fen = fen.strip_prefix("fen ").ok_or("the position must be given as `fen <FEN>`")?;
    let setup: Setup = fen.parse::<Fen>().map_err(|e| format!("bad FEN: {e}"))?.into_setup();
    let root = match VariantPosition::from_setup(variant, setup.clone(), CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(_) => VariantPosition::from_setup(variant, setup, CastlingMode::Chess960)
            .map_err(|e| format!("illegal root position: {e}"))?,
    };
    if r.line()? != "history none" {
        return Err("only certificates without game history (`history none`) are supported".into());
    }
    let mut claim = r.line()?;
    let tablebases = claim == TABLEBASES;
    if tablebases {
        claim = r.line()?;
    }
    let claim = claim.strip_prefix("claim ").ok_or("the fifth line must be `claim ...`")?;
    let (what, n) = claim.split_once(' ').ok_or("bad claim line")?;
    let n: u32 = n.parse().map_err(|_| "bad claim length")?;
    if n > 100_000 {
        return Err("the claim's length is out of range".into());
    }
    let mut shortest = None;
    let mut shapes = Vec::new();
    loop {
        let line = r.line()?;
        if line == "data" {
            break;
        }
        if let Some(v) = line.strip_prefix("shortest ") {
            shortest = Some(match v {
                "yes" => true,
                "no" => false,
                _ => return Err("`shortest` must be yes or no".into()),
            });
        } else if let Some(v) = line.strip_prefix("section ") {
            let f: Vec<&str> = v.split(' ').collect();
            let [kind, who, plies, nodes] = f[..] else { return Err(format!("bad section line `{line}`").into()) };
            let kind = match kind {
                "proof" => Kind::Proof,
                "disproof" => Kind::Disproof,
                _ => return Err(format!("bad section kind `{kind}`").into()),
            };
            let attacker = match who {
                "white" => Color::White,
                "black" => Color::Black,
                _ => return Err(format!("bad attacker `{who}`").into()),
            };
            let plies = plies.parse().map_err(|_| "bad section plies")?;
            let nodes: usize = nodes.parse().map_err(|_| "bad section size")?;
            if nodes == 0 || nodes > u32::MAX as usize {
                return Err("a section needs between 1 and 2^32 - 1 nodes".into());
            }
            shapes.push(Shape { kind, attacker, plies, nodes });
        } else {
            return Err(format!("unknown header line `{line}`").into());
        }
    }
    Ok(Header { root, tablebases, claim: (what.to_string(), n), shortest, shapes, stipulation })
}
