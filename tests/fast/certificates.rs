//! Proof certificates: written by `pnmate solve --proof` and `pnmate epd --proofs`, checked
//! by the independent `pnmate-check`, and forged ones rejected, each for its own reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use pnmate::chess::node::Node;
use pnmate::chess::position::to_fen;
use pnmate::proof::{CertNode, Certificate, Claim, Kind, Section, move_code};
use shakmaty::{CastlingMode, Chess, Color, Position, fen::Fen, uci::UciMove};

/// White mates in 2 (1. Qf3 Kd6 2. Qd5#).
const MATE2: &str = "8/1R6/8/4k3/1K4B1/2N4Q/8/8 w - - 0 1";
/// Black is mated in 6 (KR v K).
const MATED6: &str = "8/7k/8/8/8/8/3K4/6R1 b - - 0 1";
/// Neither side mates within 3 (K+Q v K, the king far from the edge).
const NOMATE3: &str = "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1";

fn run(bin: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin).args(args).output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check(file: &Path) -> (i32, String) {
    let (code, out, _) = run(env!("CARGO_BIN_EXE_pnmate-check"), &[file.to_str().unwrap()]);
    (code, out.trim().to_string())
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pnmate-certs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `solve --proof` on `fen` with `--mate mate`: the certificate's path.
fn certify(dir: &Path, fen: &str, mate: u32) -> PathBuf {
    let file = dir.join("c.cert");
    let (code, out, err) = run(
        env!("CARGO_BIN_EXE_pnmate"),
        &["--tables-cache=", "solve", fen, "--mate", &mate.to_string(), "--proof", file.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("proof   {}: ", file.display())), "{out}");
    file
}

fn load(file: &Path) -> Certificate {
    Certificate::from_bytes(&std::fs::read(file).unwrap()).unwrap()
}

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

/// Writes `cert` and returns the checker's verdict on it.
fn verdict_of(dir: &Path, cert: &Certificate) -> (i32, String) {
    let file = dir.join("forged.cert");
    std::fs::write(&file, cert.to_bytes()).unwrap();
    check(&file)
}

fn assert_rejected(dir: &Path, cert: &Certificate, reason: &str) {
    let (code, out) = verdict_of(dir, cert);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("invalid: ") && out.contains(reason), "want `{reason}`, got `{out}`");
}

#[test]
fn solve_writes_certificates_the_checker_accepts() {
    let dir = scratch("solve");
    for (fen, mate, want) in [
        (MATE2, 3, "valid: mate in 2, shortest"),
        (MATED6, 8, "valid: mated in 6, shortest"),
        (NOMATE3, 3, "valid: no mate within 3"),
    ] {
        let file = certify(&dir, fen, mate);
        assert_eq!(check(&file), (0, want.to_string()), "{fen}");
        assert_eq!(load(&file).fen, fen);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn epd_writes_a_valid_certificate_for_every_proven_result() {
    let dir = scratch("epd");
    let (code, out, err) = run(
        env!("CARGO_BIN_EXE_pnmate"),
        &[
            "--tables-cache=",
            "epd",
            "epd/mates.epd",
            "epd/mated.epd",
            "epd/nomate.epd",
            "--mate",
            "bm",
            "--nodes",
            "1000000",
            "--shard",
            "0/2",
            "--proofs",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let count = |key: &str| -> usize {
        let line = out.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("no {key} in {out}"));
        line[key.len()..].split_whitespace().next().unwrap().parse().unwrap()
    };
    let proven = count("found") + count("no mate");
    assert!(proven >= 80, "{out}");
    // Only a disproof an exact table decided may go unwritten (its tree of every line is
    // too large): the draws of four men with a piece each.
    let unwritten: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with("not written: ")).collect();
    assert!(unwritten.iter().all(|l| l.contains("of an ending of four men or fewer is too large")), "{out}");
    assert!(unwritten.len() <= 5, "{out}");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), proven - unwritten.len());
    let args: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    let (code, out, _) = run(env!("CARGO_BIN_EXE_pnmate-check"), &args);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().filter(|l| l.contains(": valid: ")).count(), files.len(), "{out}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn forged_certificates_are_rejected_each_for_its_reason() {
    let dir = scratch("forged");
    let real = load(&certify(&dir, MATED6, 8));
    assert_eq!(verdict_of(&dir, &real).0, 0);
    let proof = 0;
    let disproof = 1;
    assert_eq!(real.sections[disproof].kind, Kind::Disproof);

    // A defender reply left out of the proof (defender nodes are those with 2+ edges).
    let mut c = real.clone();
    let node = c.sections[proof].nodes.iter_mut().find(|n| n.edges.len() >= 2).unwrap();
    node.edges.pop();
    assert_rejected(&dir, &c, "legal replies");

    // An attacker move that is not legal (a1a1).
    let mut c = real.clone();
    let node = c.sections[proof].nodes.iter_mut().find(|n| n.edges.len() == 1).unwrap();
    node.edges[0].0 = 0;
    assert_rejected(&dir, &c, "move code 0 is not legal");

    // A wrong length: the same proof claimed one move shorter.
    let mut c = real.clone();
    c.claim = Claim::Mated(5);
    c.shortest = false;
    c.sections.truncate(1);
    c.sections[proof].plies = 10;
    assert_rejected(&dir, &c, "the proof needs 12 plies, the claim allows 10");

    // A node whose hash names another position.
    let mut c = real.clone();
    c.sections[proof].nodes[0].hash ^= 1;
    assert_rejected(&dir, &c, "node 0: its hash names another position");

    // A truncated file.
    let bytes = real.to_bytes();
    let file = dir.join("truncated.cert");
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let (code, out) = check(&file);
    assert_eq!(code, 1);
    assert!(out.starts_with("invalid: ") && out.contains("truncated"), "{out}");

    // A disproof that skips one of the attacker's moves (attacker nodes of a disproof
    // are those with 2+ edges).
    let mut c = real.clone();
    let node = c.sections[disproof].nodes.iter_mut().find(|n| n.edges.len() >= 2).unwrap();
    node.edges.pop();
    assert_rejected(&dir, &c, "legal moves");

    // Claiming a shorter mate refuted without the refutation.
    let mut c = real.clone();
    c.sections.truncate(1);
    assert_rejected(&dir, &c, "the sections do not match the claim");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_stalemate_called_mate_is_rejected() {
    let dir = scratch("stalemate");
    // 1. Qf7 stalemates (the black king on h8 has no move and is not in check).
    let fen = "7k/8/6Q1/8/8/8/8/K7 w - - 0 1";
    let root = pos(fen);
    let m = UciMove::from_ascii(b"g6f7").unwrap().to_move(&root).unwrap();
    let mut after = root.clone();
    after.play_unchecked(m);
    assert!(after.is_stalemate());
    let cert = Certificate {
        variant: shakmaty::variant::Variant::Chess,
        fen: to_fen(&root),
        stipulation: None,
        claim: Claim::Mate(1),
        shortest: true,
        sections: vec![Section {
            kind: Kind::Proof,
            attacker: Color::White,
            plies: 1,
            nodes: vec![
                CertNode { hash: Node::new(after.clone()).hash, edges: vec![], tablebase: false },
                CertNode { hash: Node::new(root.clone()).hash, edges: vec![(move_code(m), 0)], tablebase: false },
            ],
        }],
    };
    assert_rejected(&dir, &cert, "stalemate, not checkmate");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_checker_uses_nothing_of_the_library() {
    let mut files = 0;
    for entry in std::fs::read_dir("src/bin/pnmate-check").unwrap() {
        let path = entry.unwrap().path();
        let source = std::fs::read_to_string(&path).unwrap();
        for forbidden in
            ["pnmate::", "use pnmate", "extern crate", "include!", "#[path", "crate::chess", "super::super"]
        {
            assert!(!source.contains(forbidden), "{}: pnmate-check must not use `{forbidden}`", path.display());
        }
        files += 1;
    }
    assert!(files >= 2, "the checker's sources are read");
}

/// `solve --stip --proof` on `fen`: the certificate's path.
fn certify_problem(dir: &Path, fen: &str, stip: &str) -> PathBuf {
    let file = dir.join(format!("{}.cert", stip.replace('#', "m").replace('=', "s")));
    let (code, out, err) = run(
        env!("CARGO_BIN_EXE_pnmate"),
        &["--tables-cache=", "solve", fen, "--stip", stip, "--proof", file.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("certificate: "), "{err}");
    file
}

#[test]
fn a_problem_certificate_of_each_kind_of_play_is_valid() {
    // Problems whose solutions Popeye 4.104 confirms (src/problem/tests.rs), and one
    // without: the reflexmate whose White must mate at once.
    let dir = scratch("problems");
    for (fen, stip, verdict) in [
        ("k3n3/P7/1K6/3N4/8/8/8/8 w - - 0 1", "#2", "solution"),
        ("8/4R3/3K4/5Q2/8/4R3/8/2k5 w - - 0 1", "=2", "solution"),
        ("8/8/8/8/1p6/k7/p1Q5/K7 w - - 0 1", "s#2", "solution"),
        ("k7/7R/8/7R/4R3/8/8/3Q3K w - - 0 1", "r#2", "no solution"),
        ("8/8/R7/8/1K6/8/2pk4/8 b - - 0 1", "h#2", "solution"),
        ("k5b1/8/1K6/8/8/8/8/7R w - - 0 1", "h#1.5", "solution"),
        ("8/8/6k1/8/6p1/6Q1/2N5/2K5 b - - 0 1", "h=2", "solution"),
        ("8/3P3K/2P5/8/8/8/8/1kBb4 w - - 0 1", "ser-#3", "solution"),
        ("8/1B6/3k4/8/K7/8/8/1Q6 b - - 0 1", "ser-h#3", "solution"),
        ("4k3/8/1Rr5/8/3Q4/3P4/8/3K4 b - - 0 1", "ser-h=3", "solution"),
    ] {
        let file = certify_problem(&dir, fen, stip);
        assert_eq!(check(&file), (0, format!("valid: {stip}: {verdict}")), "{fen} {stip}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_problem_certificate_read_under_another_stipulation_is_rejected() {
    // The h#2 proof ends in mate: read as a helpstalemate, its leaf is not the goal.
    let dir = scratch("problem-forged");
    let file = certify_problem(&dir, "8/8/R7/8/1K6/8/2pk4/8 b - - 0 1", "h#2");
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.windows(15).position(|w| w == b"stipulation h#2").unwrap();
    bytes[at + 13] = b'=';
    let forged = dir.join("forged.cert");
    std::fs::write(&forged, bytes).unwrap();
    let (code, out) = check(&forged);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the stipulation can no longer be met"), "{out}");
    std::fs::remove_dir_all(dir).unwrap();
}
