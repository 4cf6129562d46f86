//! The command line: `solve`, `epd` and `bench` through the real binary.

fn pnmate(args: &[&str]) -> (i32, String, String) {
    let out = crate::common::pnmate().args(args).output().expect("run pnmate");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn solve_prints_the_verdict_and_the_line() {
    let (code, out, _) = pnmate(&["solve", "8/1R6/8/4k3/1K4B1/2N4Q/8/8 w - -", "--mate", "3"]);
    assert_eq!(code, 0);
    assert!(out.contains("result  mate in 2 (proven shortest)"), "{out}");
    assert!(out.contains("pv      h3f3 "), "{out}");
    assert!(out.contains("san     1. Qf3 Kd6 2. Qd5#"), "{out}");
    for key in ["nodes   ", "time    ", "nps     "] {
        assert!(out.contains(key), "{out}");
    }
}

#[test]
fn solve_json_has_the_documented_fields() {
    let (code, out, _) = pnmate(&["solve", "8/6k1/8/8/5R2/8/4K3/8 b - - 1 1", "--json", "--hash", "8"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "mated");
    assert_eq!(v["moves"], -8);
    assert_eq!(v["exact"], true);
    assert_eq!(v["pv"].as_array().unwrap().len(), 16);
    assert_eq!(v["fen"], "8/6k1/8/8/5R2/8/4K3/8 b - - 1 1");
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["time_ms"].is_u64());
    let (_, out, _) = pnmate(&["solve", "8/8/4k3/8/8/2B5/8/4K3 w - -", "--mate", "4", "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "nomate");
    assert_eq!(v["within"], 4);
    assert_eq!(v["pv"].as_array().unwrap().len(), 0);
    let (_, out, _) = pnmate(&["solve", "8/6k1/6p1/8/7R/8/4K1P1/8 w - -", "--nodes", "50", "--json"]);
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

fn suite_path(name: &str) -> String {
    format!("{}/epd/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn count_positions(path: &str) -> usize {
    std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).count()
}

fn summary_value(out: &str, key: &str) -> usize {
    out.lines()
        .find_map(|l| l.strip_prefix(key).map(|v| v.split_whitespace().next().unwrap().parse().unwrap()))
        .unwrap_or_else(|| panic!("no '{key}' in {out}"))
}

#[test]
fn epd_runs_a_suite_end_to_end() {
    let path = suite_path("mated.epd");
    let n = count_positions(&path);
    let dir = std::env::temp_dir().join(format!("pnmate-epd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("r.json");
    let out_epd = dir.join("solved.epd");
    let (code, out, err) = pnmate(&[
        "epd",
        &path,
        "--mate",
        "bm",
        "--jobs",
        "2",
        "--hash",
        "8",
        "--results",
        json.to_str().unwrap(),
        "--out",
        out_epd.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(summary_value(&out, "positions"), n);
    assert_eq!(summary_value(&out, "found"), n);
    assert_eq!(summary_value(&out, "best"), n);
    assert_eq!(summary_value(&out, "shortest"), n, "go mate |bm| proves each one shortest");
    assert_eq!(summary_value(&out, "wrong"), 0);
    assert_eq!(summary_value(&out, "bad line"), 0);
    assert!(out.contains("#1-#5"), "{out}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(rows.len(), n);
    assert!(rows.iter().all(|r| r["verdict"] == "best" && r["moves"] == r["bm"]));
    let solved = std::fs::read_to_string(&out_epd).unwrap();
    assert_eq!(solved.lines().count(), n);
    assert!(solved.lines().all(|l| l.contains(" bm #-") && l.contains("; PV: ")));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn epd_reports_malformed_lines_and_goes_on() {
    let dir = std::env::temp_dir().join(format!("pnmate-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mixed.epd");
    std::fs::write(
        &file,
        "# a comment\n\n6k1/5ppp/8/8/8/8/8/R5K1 w - - bm #1;\nthis is not a position\n8/8/8/8/8/8/8/8 w - - bm #1;\n6k1/5ppp/8/8/8/8/8/R5K1 w - - bm #x;\n",
    )
    .unwrap();
    let (code, out, err) = pnmate(&["epd", file.to_str().unwrap(), "--mate", "bm"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(summary_value(&out, "positions"), 1);
    assert_eq!(summary_value(&out, "best"), 1);
    for line in [4, 5, 6] {
        assert!(err.contains(&format!("mixed.epd:{line}: skipped")), "line {line} not reported: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn epd_wrong_claims_exit_with_status_1() {
    // A suite that says "mated" where the side to move mates: the verified mate has the
    // wrong sign, so the claim is judged wrong against the suite.
    let dir = std::env::temp_dir().join(format!("pnmate-wrong-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("w.epd");
    std::fs::write(&file, "6k1/5ppp/8/8/8/8/8/R5K1 w - - bm #-1;\n").unwrap();
    let (code, out, _) = pnmate(&["epd", file.to_str().unwrap(), "--nodes", "10000"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(summary_value(&out, "wrong"), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn epd_shards_partition_a_suite_exactly() {
    let path = suite_path("mates.epd");
    let dir = std::env::temp_dir().join(format!("pnmate-shard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut seen = Vec::new();
    for i in 0..3 {
        let json = dir.join(format!("s{i}.json"));
        let shard = format!("{i}/3");
        let (code, _, err) =
            pnmate(&["epd", &path, "--nodes", "1", "--shard", &shard, "--results", json.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let rows: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        seen.extend(rows.into_iter().map(|r| r["fen"].as_str().unwrap().to_string()));
    }
    let all: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split(" bm ").next().unwrap().to_string())
        .collect();
    let mut sorted_seen = seen.clone();
    sorted_seen.sort();
    let mut sorted_all = all.clone();
    sorted_all.sort();
    assert_eq!(sorted_seen, sorted_all, "shards must cover every position exactly once");
    for bad in ["3/3", "1/0", "x", "1/2/3"] {
        let (code, _, _) = pnmate(&["epd", &path, "--nodes", "1", "--shard", bad]);
        assert_eq!(code, 2, "--shard {bad}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_prints_nodes_and_nps() {
    let (code, out, _) = pnmate(&["bench", "--nodes", "20000"]);
    assert_eq!(code, 0);
    let words: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(words.len(), 4, "{out}");
    assert_eq!((words[1], words[3]), ("nodes", "nps"));
    assert!(words[0].parse::<u64>().unwrap() > 0);
}

#[test]
fn solve_all_lists_every_key_with_its_length() {
    // Back-rank mates with both rooks and the queen: three keys, each a mate in one.
    let (code, out, err) = pnmate(&["solve", "6k1/5ppp/8/8/8/8/8/R2QR1K1 w - - 0 1", "--mate", "2", "--all"]);
    assert_eq!(code, 0, "{err}");
    for key in ["a1a8", "e1e8", "d1d8"] {
        assert!(out.contains(&format!("key     {key}  mate in 1 (proven shortest)  pv {key}\n")), "{out}");
    }
    assert!(out.contains("keys    3 first moves mating within 2\n"), "{out}");
    assert!(out.contains("others  35 proven not to mate within 2, 0 unknown"), "{out}");
    // A Chess960 castling key is written king takes rook.
    let (_, out, _) = pnmate(&["solve", "4rkr1/4p1p1/8/8/8/8/8/5K1R w H - 0 1", "--mate", "1", "--all"]);
    assert!(out.contains("key     f1h1  mate in 1 (proven shortest)  pv f1h1\n"), "{out}");
    assert!(out.contains("keys    1 first move mating within 1\n"), "{out}");
}

#[test]
fn epd_all_reports_positions_with_more_than_one_key() {
    let dir = std::env::temp_dir().join(format!("pnmate-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.epd");
    std::fs::write(&file, "6k1/5ppp/8/8/8/8/8/R2QR1K1 w - - bm #1;\n6k1/5ppp/8/8/8/8/8/R5K1 w - - bm #1;\n").unwrap();
    let (code, out, err) = pnmate(&["epd", file.to_str().unwrap(), "--mate", "bm", "--all", "--jobs", "1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(summary_value(&out, "keys > 1"), 1, "{out}");
    assert!(out.contains("  6k1/5ppp/8/8/8/8/8/R2QR1K1 w - -  keys: a1a8 #1, e1e8 #1, d1d8 #1\n"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Positions of at most four men are decided from their exact distance to mate: the
/// shortest mate is proven at once, its line replayed to checkmate. (A search of fixed
/// nodes waits for its tables; one of fixed time searches while they are built.)
#[test]
fn solve_proves_small_endings_exactly() {
    for (fen, mate, line_start) in [
        // K+Q v K+R (epd/public/KQvKR1000pv.epd's first position), mate in 7.
        ("1k2K3/8/8/8/4Q3/2r5/8/8 w - -", "mate in 7 (proven shortest)", "e4e5"),
        // K+B+N v K, mate in 33 from the far corner's side.
        ("8/8/8/8/8/8/8/kBNK4 w - - 0 1", "mate in", ""),
        // The lone king to move: mated in 16 (K+R v K).
        ("8/8/3k4/8/8/8/8/R3K3 b - - 0 1", "mated in", ""),
    ] {
        let (code, out, err) = pnmate(&["solve", fen, "--hash", "16", "--nodes", "1000000"]);
        assert_eq!(code, 0, "{fen}: {err}");
        assert!(out.contains(mate), "{fen}: {out}");
        let pv = out.lines().find_map(|l| l.strip_prefix("pv")).unwrap_or_default().trim().to_string();
        assert!(pv.starts_with(line_start), "{fen}: {pv}");
        let nodes: u64 = out.lines().find_map(|l| l.strip_prefix("nodes")).unwrap().trim().parse().unwrap();
        assert!(nodes < 5_000, "{fen}: decided from the table, not searched ({nodes} nodes)");
    }
}

#[test]
fn solve_stip_prints_popeye_s_solution_lines() {
    // h=2 from a random position, both solutions as Popeye 4.104 prints them.
    let (code, out, _) = pnmate(&["solve", "8/8/6k1/8/6p1/6Q1/2N5/2K5 b - - 0 1", "--stip", "h=2"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..2],
        ["  1.Kg6-g7 Qg3*g4 +   2.Kg7-h8 Qg4-g6 =", "  1.Kg6-h7 Qg3*g4   2.Kh7-h8 Qg4-g6 ="],
        "{out}"
    );
    assert!(lines[2].starts_with("h=2: 2 solutions, "), "{out}");
    let (code, out, _) = pnmate(&["solve", "k3n3/P7/1K6/3N4/8/8/8/8 w - - 0 1", "--stip", "#2", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!((v["result"].as_str(), v["keys"].to_string().as_str()), (Some("solution"), r#"["b6a6"]"#), "{out}");
}

#[test]
fn solve_stip_refuses_a_side_to_move_that_disagrees_and_fairy_words() {
    let (code, _, err) = pnmate(&["solve", "k7/8/pK6/8/8/8/8/6Q1 w - - 0 1", "--stip", "h#2"]);
    assert_eq!(code, 2);
    assert_eq!(err.trim(), "pnmate: h#2: Black moves first, but the position has White to move");
    let (code, _, err) = pnmate(&["solve", "k7/8/pK6/8/8/8/8/6Q1 w - - 0 1", "--stip", "dia3"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("pnmate: unknown stipulation 'dia3'"), "{err}");
}

/// A scratch file of this test process holding `text`.
fn scratch_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("pnmate-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn problem_solves_a_popeye_file_with_twins_and_variations() {
    let file = scratch_file(
        "twins.inp",
        "begin\ntitle Twins\npieces white kc6 rd1 black ka8 pa7\nstipulation #2\ntwin move d1 d2\nnext\n\
         pieces white ka6 rc6 black kb8 pc5\nstip #2\noption vari\nend\n",
    );
    let (code, out, err) = pnmate(&["problem", file.to_str().unwrap()]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| !l.is_empty()).collect();
    // Popeye 4.104 prints the same keys and labels for these twins and the second problem.
    assert_eq!(lines[0], "Twins");
    assert_eq!(lines[1], "a)");
    assert_eq!(lines[3], "   1.Rd1-d8 # !", "{out}");
    assert_eq!(lines[5], "b) wRd1-->d2");
    assert_eq!(lines[7], "   1.Rd2-d8 # !", "{out}");
    assert!(lines[9].starts_with("solution finished. Time = "), "{out}");
    assert_eq!(lines[11..13], ["   1.Rc6*c5 ! zugzwang.", "      1...Kb8-a8"], "{out}");
    assert_eq!(lines[13], "          2.Rc5-c8 #", "{out}");
    // A fairy problem is named and skipped; the orthodox one after it is solved.
    let file = scratch_file(
        "fairy.inp",
        "begin\npieces white ka1 black ka8\ncond circe\nstip #2\nnext\npieces white kb6 qc1 black ka8\nstip #1\nend\n",
    );
    let (code, out, _) = pnmate(&["problem", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("problem 1 skipped: line 3: condition circe: fairy conditions are not read"));
    assert!(out.contains("\n   1.Qc1-c8 # !\n"), "{out}");
    // A file of fairy problems only is refused with the first reason.
    std::fs::write(&file, "begin\npieces white ka1 black ka8\ncond circe\nstip #2\nend\n").unwrap();
    let (code, _, err) = pnmate(&["problem", file.to_str().unwrap()]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(code, 2);
    assert!(err.contains("line 3: condition circe: fairy conditions are not read"), "{err}");
}

#[test]
fn epd_solves_a_suite_of_stipulations() {
    let file = scratch_file(
        "problems.epd",
        "8/8/8/8/1p6/k7/p1Q5/K7 w - - stip \"s#2\";\nk7/7R/8/7R/4R3/8/8/3Q3K w - - stip \"r#2\";\n\
         8/8/R7/8/1K6/8/2pk4/8 b - - stip \"h#2\"; id \"h\";\n",
    );
    let (code, out, err) = pnmate(&["epd", file.to_str().unwrap(), "--time", "60", "--jobs", "1"]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(code, 0, "{out}{err}");
    let rows: Vec<String> = out.lines().map(|l| l.split_whitespace().take(6).collect::<Vec<_>>().join(" ")).collect();
    assert!(rows.contains(&"h#n 1 1 0 0 0".to_string()), "{out}");
    assert!(rows.contains(&"r#n 1 0 1 0 0".to_string()), "{out}");
    assert!(rows.contains(&"s#n 1 1 0 0 0".to_string()), "{out}");
    assert!(rows.contains(&"total 3 2 1 0 0".to_string()), "{out}");
}

#[test]
fn solve_stip_prints_the_variations_and_tries_as_popeye_does() {
    let (code, out, _) = pnmate(&[
        "solve",
        "1k6/8/K1R5/2p5/8/8/8/8 w - - 0 1",
        "--stip",
        "#2",
        "--variations",
        "--tries",
        "--threads",
        "2",
    ]);
    assert_eq!(code, 0);
    // Popeye 4.104's lines for the try 1.Kb6? and the key, with `option vari try`.
    for line in [
        "   1.Ka6-b6 ? zugzwang.",
        "    but",
        "      1...c5-c4 !",
        "   1.Rc6*c5 ! zugzwang.",
        "          2.Rc5-c8 #",
        "   1.Rc6-c8 + ?",
        "      1...Kb8*c8 !",
    ] {
        assert!(out.lines().any(|l| l == line), "{line} missing:\n{out}");
    }
}

#[test]
fn problem_reads_a_german_file_and_prints_help_set_play_as_popeye_does() {
    // Caillaud, Szachisty 1993, h#4 with set play, from Popeye's BEISPIEL/intell.inp;
    // Popeye 4.104 prints these lines (set play, a blank line, the solution).
    let file = scratch_file(
        "satz.inp",
        "anfangproblem\nautor Michel Caillaud\nforderung h#4\nsteine weiss kf1 th1 sh3\n\
         schwarz ka8 sb7c8 bf2f3h4\noption satz intelligent\nendeproblem\n",
    );
    let (code, out, err) = pnmate(&["problem", file.to_str().unwrap(), "--threads", "1"]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let set = lines.iter().position(|l| l.starts_with("  1...")).expect("set play");
    assert_eq!(
        lines[set..set + 3],
        [
            "  1...Sh3-g1   2.f2*g1=T + Kf1-f2   3.Tg1-a1 Th1-c1   4.Ta1-a7 Tc1*c8 #",
            "",
            "  1.Sc8-a7 Th1-g1   2.f2*g1=L Sh3-f4   3.Lg1-h2 Sf4-d5   4.Lh2-b8 Sd5-b6 #",
        ],
        "{out}"
    );
    assert!(lines.last().unwrap().starts_with("Loesung beendet. Zeit = "), "{out}");
}
