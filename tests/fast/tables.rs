//! The exact tables as a user meets them: built beside the search (never holding up
//! `stop` or a bestmove), stored in the cache directory, read back by the next engine,
//! and built again when a stored file cannot be trusted.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{Session, assert_mating_line, field, pv_of};

/// A fresh cache directory of this test.
fn cache_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pnmate-tables-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The binary with its tables stored in `dir`.
fn pnmate_in(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pnmate"));
    c.arg("--tables-cache").arg(dir);
    c
}

fn run(mut c: Command, args: &[&str]) -> (i32, String, String) {
    let out = c.args(args).output().expect("run pnmate");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// K+R v K, the lone king to move and mated in 14.
const KRK: &str = "8/8/3k4/8/8/8/8/R3K3 b - - 0 1";

/// One UCI search of `fen` under `go`, in a fresh engine with its tables in `dir`; the
/// lines up to bestmove.
fn uci_search(dir: &Path, fen: &str, go: &str) -> Vec<String> {
    let mut s = Session::start_with(pnmate_in(dir));
    s.send("uci");
    s.until(Duration::from_secs(10), |l| l == "uciok");
    s.send(&format!("position fen {fen}"));
    s.send(go);
    let lines = s.until_bestmove(Duration::from_secs(60));
    s.send("quit");
    assert!(s.exited_within(Duration::from_secs(10)));
    lines
}

/// The final mate line of a search: its score and pv.
fn last_mate(lines: &[String]) -> (i32, Vec<String>) {
    let line = lines.iter().rev().find(|l| l.contains(" score mate ")).expect("a proven mate");
    (field(line, "mate").unwrap().parse().unwrap(), pv_of(line))
}

#[test]
fn a_second_engine_reads_what_the_first_stored() {
    let dir = cache_dir("second");
    // The first engine builds K+R v K (waiting for it: a search of fixed nodes) and stores it.
    let first = uci_search(&dir, KRK, "go nodes 2000000");
    assert!(first.iter().any(|l| l.starts_with("info string built the KRvK distance-to-mate table")), "{first:#?}");
    assert!(dir.join("KRvK.dtm").is_file());
    assert_eq!(last_mate(&first).0, -14, "{first:#?}");
    // The second reads it: nothing is built, and the mate is proven from the table at once.
    let second = uci_search(&dir, KRK, "go nodes 2000000");
    assert!(!second.iter().any(|l| l.contains("built the")), "{second:#?}");
    let (mate, pv) = last_mate(&second);
    assert_eq!(mate, -14);
    assert_mating_line(KRK, &pv, 28);
    let (code, out, _) = run(pnmate_in(&dir), &["tables", "list"]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.starts_with("KRvK ") && !l.contains("unusable")), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_corrupted_or_truncated_file_is_built_again() {
    let dir = cache_dir("corrupt");
    let (code, out, err) = run(pnmate_in(&dir), &["tables", "build", "KRvK"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().any(|l| l.starts_with("KRvK     built in")), "{out}");
    let file = dir.join("KRvK.dtm");
    let good = std::fs::read(&file).unwrap();
    for (what, bad) in [
        ("its checksum fails", {
            let mut b = good.clone();
            b[good.len() / 2] ^= 0x10;
            b
        }),
        ("of another ending, layout or length", good[..good.len() - 100].to_vec()),
        ("of another format version", {
            let mut b = good.clone();
            b[8] = 99;
            b
        }),
    ] {
        std::fs::write(&file, &bad).unwrap();
        let (_, list, _) = run(pnmate_in(&dir), &["tables", "list"]);
        assert!(list.lines().any(|l| l.starts_with("KRvK") && l.contains("unusable")), "{what}: {list}");
        // The search is told, rebuilds the table, and proves the exact mate with it.
        let lines = uci_search(&dir, KRK, "go nodes 2000000");
        let told = format!("info string the stored KRvK table in {} is not used ({what})", dir.display());
        assert!(lines.iter().any(|l| l.starts_with(&told)), "{what}: {lines:#?}");
        assert!(lines.iter().any(|l| l.starts_with("info string built the KRvK")), "{what}: {lines:#?}");
        assert_eq!(last_mate(&lines).0, -14, "{what}");
        assert_eq!(std::fs::read(&file).unwrap(), good, "{what}: the rebuilt file is the same table");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stop_isready_and_quit_are_answered_during_a_build() {
    // K+Q v K+P needs nine tables, four of them of four men: the search goes on without
    // them, says which one is being built, and answers `stop` at once, before that build
    // ends.
    let dir = cache_dir("stop");
    let mut s = Session::start_with(pnmate_in(&dir));
    s.send("uci");
    s.until(Duration::from_secs(10), |l| l == "uciok");
    s.send("position fen 8/2K5/8/8/8/Q7/3p4/5k2 w - - 0 1");
    s.send("go infinite");
    let before = s.until(Duration::from_secs(30), |l| l.starts_with("info string building the KQvK"));
    let building = before.last().unwrap().split_whitespace().nth(4).unwrap().to_string();
    s.send("stop");
    let after = s.until_bestmove(Duration::from_secs(10));
    let built = format!("info string built the {building} ");
    assert!(!after.iter().any(|l| l.starts_with(&built)), "the bestmove waited for {building}: {after:#?}");
    s.send("isready");
    let ready = s.until(Duration::from_secs(10), |l| l == "readyok");
    assert!(!ready.iter().any(|l| l.starts_with(&built)), "readyok waited for {building}: {ready:#?}");
    s.send("quit");
    assert!(s.exited_within(Duration::from_secs(10)), "quit waited for the build");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_directory_that_cannot_be_written_keeps_the_tables_in_memory() {
    // A file where the directory should be: nothing can be stored there.
    let blocker = cache_dir("readonly");
    std::fs::write(&blocker, b"not a directory").unwrap();
    let dir = blocker.join("tables");
    let lines = uci_search(&dir, KRK, "go nodes 2000000");
    assert!(lines.iter().any(|l| l.starts_with("info string cannot store tables in ")), "{lines:#?}");
    assert_eq!(last_mate(&lines).0, -14, "{lines:#?}");
    std::fs::remove_file(&blocker).ok();
}
