//! The command line: `solve`, `epd` and `bench` through the real binary.

use std::process::Command;

fn pnmate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pnmate")).args(args).output().expect("run pnmate");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn solve_prints_the_verdict_and_the_line() {
    let (code, out, _) = pnmate(&["solve", "2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - -", "--mate", "3"]);
    assert_eq!(code, 0);
    assert!(out.contains("result  mate in 2 (proven shortest)"), "{out}");
    assert!(out.contains("pv      h5a5 "), "{out}");
    assert!(out.contains("san     1. Qa5 "), "{out}");
    for key in ["nodes   ", "time    ", "nps     "] {
        assert!(out.contains(key), "{out}");
    }
}

#[test]
fn solve_json_has_the_documented_fields() {
    let (code, out, _) = pnmate(&["solve", "8/6k1/4K3/8/8/8/8/6R1 b - -", "--json", "--hash", "8"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "mated");
    assert_eq!(v["moves"], -4);
    assert_eq!(v["exact"], true);
    assert_eq!(v["pv"].as_array().unwrap().len(), 8);
    assert_eq!(v["fen"], "8/6k1/4K3/8/8/8/8/6R1 b - - 0 1");
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["time_ms"].is_u64());
    let (_, out, _) = pnmate(&["solve", "8/8/4k3/8/8/2B5/8/4K3 w - -", "--mate", "4", "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "nomate");
    assert_eq!(v["within"], 4);
    assert_eq!(v["pv"].as_array().unwrap().len(), 0);
    let (_, out, _) = pnmate(&["solve", "8/8/p7/8/K7/8/6R1/7k w - -", "--nodes", "50", "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "unknown");
}

#[test]
fn solve_rejects_bad_input_with_status_2() {
    for fen in [
        "",
        "garbage",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2q b - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
    ] {
        let (code, out, err) = pnmate(&["solve", fen]);
        assert_eq!(code, 2, "'{fen}': {out} {err}");
        assert_eq!(err.lines().count(), 1, "one-line error for '{fen}': {err}");
        assert!(!err.contains("panicked"));
    }
    for args in [
        vec!["solve", "6k1/5ppp/8/8/8/8/8/R5K1 w - -", "--mate", "0"],
        vec!["solve", "6k1/5ppp/8/8/8/8/8/R5K1 w - -", "--time", "-1"],
        vec!["solve", "6k1/5ppp/8/8/8/8/8/R5K1 w - -", "--hash", "0"],
        vec!["solve", "6k1/5ppp/8/8/8/8/8/R5K1 w - -", "--nodes", "many"],
        vec!["solve"],
        vec!["frobnicate"],
    ] {
        let (code, _, err) = pnmate(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}
