//! The claim and the sections it needs: a mate, a loss or no mate of a game (chess, a
//! variant), or a problem's solution or its absence (FORMAT.md, "Claims").

use shakmaty::variant::Variant;
use shakmaty::{Chess, Color, Position};
use shakmaty_syzygy::Tablebase;

use crate::Invalid;
use crate::game::GameRules;
use crate::header::{Header, TRAILER, read_header};
use crate::problem::{ProblemRules, Stip};
use crate::reader::Reader;
use crate::shape::Kind;
use crate::walk::walk;

fn claim(why: impl Into<String>) -> Invalid {
    Invalid::Claim(why.into())
}

/// Checks a whole certificate; the claim in words when it holds.
pub fn check(bytes: &[u8], tables: Option<&Tablebase<Chess>>, nodes_seen: &mut usize) -> Result<String, Invalid> {
    let mut r = Reader { bytes, at: 0 };
    let header = read_header(&mut r)?;
    let stm = header.root.turn();
    let (what, n) = (header.claim.0.as_str(), header.claim.1);
    if n == 0 {
        return Err(claim("the claim's length must be at least 1"));
    }
    let variant = header.root.variant();
    if let Some(stip) = &header.stipulation {
        return check_problem(&mut r, bytes, &header, stip, nodes_seen);
    }
    // The sections each claim needs: (kind, attacker, plies).
    let (needed, words) = match what {
        "mate" | "mated" if variant != Variant::Chess => {
            // A variant's win may fall on either side's move: the proof's plies say which,
            // and a shortest win refutes one ply less.
            let attacker = if what == "mate" { stm } else { !stm };
            let plies = header.shapes.first().map_or(0, |s| s.plies);
            if plies != 2 * n - 1 && plies != 2 * n {
                return Err(claim(format!(
                    "a win in {n} takes {} or {} plies, the proof says {plies}",
                    2 * n - 1,
                    2 * n
                )));
            }
            let shortest = header.shortest.ok_or("a win claim needs a `shortest` line")?;
            let mut needed = vec![(Kind::Proof, attacker, plies)];
            if shortest && plies > 1 {
                needed.push((Kind::Disproof, attacker, plies - 1));
            }
            let length =
                if what == "mate" { format!("{variant} win in {n}") } else { format!("{variant} loss in {n}") };
            (needed, format!("{length}, {}", if shortest { "shortest" } else { "upper bound only" }))
        }
        "nomate" if variant != Variant::Chess => {
            (vec![(Kind::Disproof, stm, 2 * n), (Kind::Disproof, !stm, 2 * n)], format!("no {variant} win within {n}"))
        }
        "mate" | "mated" => {
            let (attacker, plies) = if what == "mate" { (stm, 2 * n - 1) } else { (!stm, 2 * n) };
            let shortest = header.shortest.ok_or("a mate claim needs a `shortest` line")?;
            let mut needed = vec![(Kind::Proof, attacker, plies)];
            if shortest && n > 1 {
                needed.push((Kind::Disproof, attacker, plies - 2));
            }
            let length = if what == "mate" { format!("mate in {n}") } else { format!("mated in {n}") };
            (needed, format!("{length}, {}", if shortest { "shortest" } else { "upper bound only" }))
        }
        "nomate" => {
            (vec![(Kind::Disproof, stm, 2 * n - 1), (Kind::Disproof, !stm, 2 * n)], format!("no mate within {n}"))
        }
        _ => return Err(claim(format!("unknown claim `{what}`"))),
    };
    let announced: Vec<(Kind, Color, u32)> = header.shapes.iter().map(|s| (s.kind, s.attacker, s.plies)).collect();
    if announced != needed {
        return Err(claim(format!("the sections do not match the claim `{what} {n}`")));
    }
    for (number, shape) in header.shapes.iter().enumerate() {
        let tag = r.take(1)?[0];
        if tag != if shape.kind == Kind::Proof { b'P' } else { b'D' } {
            return Err(claim("wrong tag").in_section(number));
        }
        let leaves = header.tablebases.then_some(tables);
        let rules = GameRules::new(&header.root, shape, leaves);
        let value = walk(&mut r, &header.root, shape, &rules, leaves.is_some()).map_err(|e| e.in_section(number))?;
        *nodes_seen += shape.nodes;
        match shape.kind {
            Kind::Proof if value > shape.plies => {
                return Err(claim(format!(
                    "section {number}: the proof needs {value} plies, the claim allows {}",
                    shape.plies
                )));
            }
            Kind::Disproof if value < shape.plies => {
                return Err(claim(format!(
                    "section {number}: the disproof shows no mate within {value} plies, the claim needs {}",
                    shape.plies
                )));
            }
            _ => {}
        }
    }
    if r.take(TRAILER.len())? != TRAILER {
        return Err(claim("no END trailer after the last section"));
    }
    if r.at != bytes.len() {
        return Err(claim("bytes after the END trailer"));
    }
    Ok(words)
}

/// Checks a chess problem's certificate: `claim solution n` with the proof, or `claim
/// nosolution n` with the disproof, of the stipulation's plies from the first mover.
fn check_problem(
    r: &mut Reader,
    bytes: &[u8],
    header: &Header,
    stip: &Stip,
    nodes_seen: &mut usize,
) -> Result<String, Invalid> {
    let shakmaty::variant::VariantPosition::Chess(root) = &header.root else {
        return Err(claim("a problem is set in chess"));
    };
    let (what, n) = (header.claim.0.as_str(), header.claim.1);
    if n != stip.moves {
        return Err(claim(format!("the claim's length {n} is not the stipulation's {}", stip.moves)));
    }
    if root.turn() != stip.first_mover() {
        return Err(claim(format!("in {} the other side moves first", stip.text)));
    }
    let kind = match what {
        "solution" => Kind::Proof,
        "nosolution" => Kind::Disproof,
        _ => return Err(claim(format!("unknown claim `{what}` for a problem"))),
    };
    let [shape] = &header.shapes[..] else { return Err(claim("a problem's certificate has one section")) };
    if (shape.kind, shape.attacker, shape.plies) != (kind, stip.first_mover(), stip.plies()) {
        return Err(claim(format!("the section does not match the claim `{what} {n}`")));
    }
    if header.tablebases {
        return Err(claim("a problem's certificate has no tablebase leaves"));
    }
    let tag = r.take(1)?[0];
    if tag != if kind == Kind::Proof { b'P' } else { b'D' } {
        return Err(claim("wrong tag").in_section(0));
    }
    let rules = ProblemRules::new(stip, shape);
    let value = walk(r, root, shape, &rules, false).map_err(|e| e.in_section(0))?;
    *nodes_seen += shape.nodes;
    if kind == Kind::Proof && value > shape.plies {
        return Err(claim(format!("the proof needs {value} plies, the stipulation allows {}", shape.plies)));
    }
    if kind == Kind::Disproof && value < shape.plies {
        return Err(claim(format!("the disproof covers {value} plies, the stipulation has {}", shape.plies)));
    }
    if r.take(TRAILER.len())? != TRAILER || r.at != bytes.len() {
        return Err(claim("no END trailer right after the section"));
    }
    Ok(if kind == Kind::Proof { format!("{}: solution", stip.text) } else { format!("{}: no solution", stip.text) })
}
