//! Checks pnmate's distance-to-mate tables against Syzygy's WDL tables: every position of
//! every ending of at most four men whose Syzygy table is in DIR (or only the endings
//! named) must agree, a cursed win counting as a win and a blessed loss as a loss (DTM
//! ignores the 50-move rule).
//!
//! ```text
//! cargo run --release --example dtm_check -- DIR [KQvKR ...]
//! cargo run --release --example dtm_check -- --build [KQvKR ...]
//! ```
//!
//! Prints one line per ending (positions compared, disagreements, build time, size,
//! longest mate) and exits with status 1 on any disagreement. With `--build` it compares
//! nothing: it builds each ending with every ending it leads to, from nothing, and
//! prints the time and size of each table and of the whole.

use std::process::ExitCode;

use pnmate::dtm::{Dtm, Material, build_fresh, store};
use shakmaty::Chess;
use shakmaty_syzygy::{Tablebase, Wdl};

/// Every material of three or four men, in Syzygy's naming.
fn all_materials() -> Vec<String> {
    const ROLES: [char; 5] = ['Q', 'R', 'B', 'N', 'P'];
    let mut names = Vec::new();
    for (i, a) in ROLES.iter().enumerate() {
        names.push(format!("K{a}vK"));
        for b in &ROLES[i..] {
            names.push(format!("K{a}{b}vK"));
            names.push(format!("K{a}vK{b}"));
        }
    }
    names
}

/// Times the first request of each of `names`: its table and every one it leads to.
fn build_times(names: &[String]) -> ExitCode {
    for name in names {
        let Some(material) = Material::named(name) else {
            eprintln!("{name}: not a material of at most four men");
            return ExitCode::from(2);
        };
        let start = std::time::Instant::now();
        let tables = build_fresh(material);
        let all = start.elapsed();
        let bytes: usize = tables.iter().map(|t| t.bytes()).sum();
        let own = tables.last().expect("the requested table");
        println!(
            "{:8} table {:>5} ms {:>5.1} MB   with {:>2} sub-endings {:>5} ms {:>5.1} MB",
            name,
            own.built_in.as_millis(),
            own.bytes() as f64 / f64::from(1 << 20),
            tables.len() - 1,
            all.as_millis(),
            bytes as f64 / f64::from(1 << 20)
        );
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--build") {
        let names = if args.len() > 1 { args[1..].to_vec() } else { all_materials() };
        return build_times(&names);
    }
    let Some(dir) = args.first() else {
        eprintln!("usage: dtm_check SYZYGY_DIR [MATERIAL ...]");
        return ExitCode::from(2);
    };
    let mut tb = Tablebase::<Chess>::new();
    if let Err(e) = tb.add_directory(dir) {
        eprintln!("{dir}: {e}");
        return ExitCode::from(2);
    }
    let mut names: Vec<String> = args[1..].to_vec();
    if names.is_empty() {
        let mut found: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".rtbw").map(str::to_string))
            .filter(|n| n.len() <= 6)
            .collect();
        found.sort();
        names = found;
    }
    let (mut compared, mut wrong) = (0u64, 0u64);
    for name in &names {
        let Some(material) = Material::named(name) else {
            eprintln!("{name}: not a material of at most four men");
            return ExitCode::from(2);
        };
        // Only this ending's tables stay: the budget holds as for a search's start.
        store().trim(&shakmaty::Board::empty());
        let table = store().table(material);
        let (mut n, mut bad) = (0u64, 0u64);
        table.each(|pos, dtm| {
            let Ok(wdl) = tb.probe_wdl_after_zeroing(&pos) else { return };
            n += 1;
            let agrees = match dtm {
                Dtm::Wins(_) => matches!(wdl, Wdl::Win | Wdl::CursedWin),
                Dtm::Loses(_) => matches!(wdl, Wdl::Loss | Wdl::BlessedLoss),
                Dtm::Draw => wdl == Wdl::Draw,
            };
            if !agrees {
                if bad < 5 {
                    eprintln!(
                        "{name}: {} dtm {dtm:?} syzygy {wdl:?}",
                        shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    );
                }
                bad += 1;
            }
        });
        println!(
            "{:8} {:>9} positions  {:>3} disagree  built in {:>4} ms  {:>5.1} MB  longest mate {} plies",
            material.name(),
            n,
            bad,
            table.built_in.as_millis(),
            table.bytes() as f64 / f64::from(1 << 20),
            table.longest
        );
        compared += n;
        wrong += bad;
    }
    println!("{compared} positions compared, {wrong} disagree");
    if wrong == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
}
