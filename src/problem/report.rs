//! A solved problem as problemists read it: Popeye's text, or one JSON object (fields in
//! docs/problems.md).

use shakmaty::{Chess, Move, Position};

use super::language::Language;
use super::notation;
use super::solve::{Solved, Verdict};
use super::stipulation::Stipulation;
use super::tree::{self, Tree};
use super::verify::played;

/// The solving written as Popeye's output writes a solution in `lang`: each key as
/// `   1.Se8-c7 # !`, each help or series solution on a line of its own; then how it ended.
pub fn report_text(pos: &Chess, stip: Stipulation, solved: &Solved, lang: Language) -> String {
    let mut out = String::new();
    if let Some(tree) = &solved.tree {
        out.push_str(&notation::tree_text(pos, tree, lang));
        out.push('\n');
    } else if stip.battle() {
        for &key in &solved.keys {
            out.push_str(&format!("   1.{} !\n", notation::move_text(pos, key, lang)));
        }
    } else {
        if let (Some(set), Ok(before)) = (&solved.set_play, pos.clone().swap_turn()) {
            // Help set play first, then a blank line, as Popeye prints it.
            for line in set {
                out.push_str(&notation::line_text(&before, line, false, true, lang));
                out.push('\n');
            }
            out.push('\n');
        }
        for line in &solved.solutions {
            out.push_str(&notation::line_text(pos, line, stip.series_side().is_some(), stip.half, lang));
            out.push('\n');
        }
    }
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let summary = match solved.verdict {
        Verdict::Solution if stip.battle() => format!("{stip}: {}", count(solved.keys.len(), "key")),
        Verdict::Solution if solved.capped => {
            format!(
                "{stip}: {}, the cap (--max-solutions); there may be more",
                count(solved.solutions.len(), "solution")
            )
        }
        Verdict::Solution => format!("{stip}: {}", count(solved.solutions.len(), "solution")),
        Verdict::NoSolution => format!("{stip}: no solution"),
        Verdict::Unknown => format!("{stip}: unknown (the limits ran out; what is listed is proven)"),
    };
    out.push_str(&format!("{summary}, {} nodes\n", solved.nodes));
    out
}

/// The solving as one JSON object (fields in docs/problems.md).
pub fn report_json(stip: Stipulation, solved: &Solved) -> serde_json::Value {
    let result = match solved.verdict {
        Verdict::Solution => "solution",
        Verdict::NoSolution => "no solution",
        Verdict::Unknown => "unknown",
    };
    serde_json::json!({
        "stipulation": stip.to_string(),
        "result": result,
        "keys": solved.keys.iter().map(|&m| uci(m)).collect::<Vec<_>>(),
        "tree": solved.tree.as_ref().map(tree_json),
        "solutions": solved.solutions.iter().map(|l| played(l).into_iter().map(uci).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "set_play": solved.set_play.as_ref().map(|set| set.iter().map(|l| l.iter().map(|&m| uci(m)).collect::<Vec<_>>()).collect::<Vec<_>>()),
        "capped": solved.capped,
        "nodes": solved.nodes,
    })
}

fn uci(m: Move) -> String {
    m.to_uci(shakmaty::CastlingMode::Standard).to_string()
}

/// A battle solution as JSON: its first moves (keys and tries) and set play.
fn tree_json(tree: &Tree) -> serde_json::Value {
    let first: Vec<_> = tree
        .first
        .iter()
        .map(|f| {
            let mut v = attack_json(&f.attack);
            v["key"] = f.refutations.is_empty().into();
            v["refutations"] = f.refutations.iter().map(|&m| uci(m)).collect::<Vec<_>>().into();
            v
        })
        .collect();
    serde_json::json!({
        "first": first,
        "set_play": tree.set_play.as_ref().map(|d| defences_json(d)),
        "postkey": tree.postkey.as_ref().map(play_json),
    })
}

fn attack_json(a: &tree::Attack) -> serde_json::Value {
    let mut v = play_json(&a.play);
    v["move"] = a.mv.map(uci).into();
    v
}

fn play_json(p: &tree::Play) -> serde_json::Value {
    serde_json::json!({
        "threat": p.threat.as_ref().map(|t| t.iter().map(attack_json).collect::<Vec<_>>()),
        "defences": defences_json(&p.defences),
    })
}

fn defences_json(defences: &[tree::Defence]) -> serde_json::Value {
    defences
        .iter()
        .map(|d| {
            serde_json::json!({
                "move": uci(d.mv),
                "refutes": d.refutes,
                "continuations": d.continuations.iter().map(attack_json).collect::<Vec<_>>(),
            })
        })
        .collect::<Vec<_>>()
        .into()
}
