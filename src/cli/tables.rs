//! `pnmate tables`: build, list and verify the exact tables stored on this machine.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clap::Subcommand;
use indicatif::ProgressBar;

use pnmate::knowledge::exact::{self, DTM_MEN, Material, Origin, Progress, all_materials, closure};

use super::error::CliError;
use super::report::progress_bar;

/// What `pnmate tables` does.
#[derive(Subcommand, Debug)]
pub enum TablesCommand {
    /// Build and store the named endings (as KQvKP) with every ending they lead to, or
    /// every ending of up to --men men; print each table's time and size.
    Build {
        /// Endings to build, as KQvKP (either side first).
        endings: Vec<String>,
        /// Build every ending of three up to this many men.
        #[arg(long, value_parser = clap::value_parser!(u8).range(3..=DTM_MEN as i64))]
        men: Option<u8>,
    },
    /// List the tables stored in the cache directory.
    List,
    /// Compare every position of the stored tables (or the named endings') with the
    /// Syzygy WDL tables in DIR; exit status 1 on any disagreement.
    Verify {
        /// Syzygy table directories, separated by ':' (';' on Windows).
        #[arg(long)]
        syzygy: String,
        /// Endings to check (default: every stored one Syzygy covers).
        endings: Vec<String>,
    },
}

/// The endings named on the command line, or why one is not an ending.
fn named(endings: &[String]) -> Result<Vec<Material>, CliError> {
    endings.iter().map(|e| Material::named(e).ok_or_else(|| CliError::Ending(e.clone()))).collect()
}

/// Megabytes, for the listings.
fn mb(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// Runs `pnmate tables`; returns the exit status.
pub fn run(command: &TablesCommand) -> Result<i32, CliError> {
    match command {
        TablesCommand::Build { endings, men } => build(endings, *men),
        TablesCommand::List => list(),
        TablesCommand::Verify { syzygy, endings } => verify(syzygy, endings),
    }
}

fn build(endings: &[String], men: Option<u8>) -> Result<i32, CliError> {
    let mut wanted = named(endings)?;
    if let Some(men) = men {
        wanted.extend(all_materials(usize::from(men)));
    }
    if wanted.is_empty() {
        return Err(CliError::NothingToBuild);
    }
    let mut order: Vec<Material> = Vec::new();
    for m in wanted {
        for sub in closure(m) {
            if !order.contains(&sub) {
                order.push(sub);
            }
        }
    }
    order.sort_by_key(|m| (m.men(), m.pawns()));
    let store = exact::store();
    match store.cache() {
        Some(dir) => eprintln!("storing in {}", dir.display()),
        None => eprintln!("no cache directory (--tables-cache is empty): the tables are built and dropped"),
    }
    let bar = progress_bar(order.len());
    let (mut built, mut total, mut failed) = (Duration::ZERO, 0u64, 0);
    for m in order {
        bar.set_message(m.to_string());
        let progress = Arc::new(Progress::default());
        let prepared = with_ticker(&bar, m, &progress, || store.prepare(m, &progress));
        total += prepared.bytes as u64;
        let how = match prepared.origin {
            Origin::Built(took) => {
                built += took;
                format!("built in {:>6} ms", took.as_millis())
            }
            Origin::Stored => "already stored     ".to_string(),
        };
        let place = match &prepared.stored {
            Ok(_) => String::new(),
            Err(e) => {
                failed += 1;
                format!("  not stored: {e}")
            }
        };
        bar.suspend(|| println!("{:8} {how} {:>7.1} MB{place}", m.to_string(), mb(prepared.bytes as u64)));
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!("{:.1} MB of tables, {} ms of builds", mb(total), built.as_millis());
    Ok(if failed > 0 { 1 } else { 0 })
}

/// Runs `work` with a thread that shows `progress` on `bar` meanwhile.
fn with_ticker<T>(bar: &ProgressBar, m: Material, progress: &Progress, work: impl FnOnce() -> T) -> T {
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let first = progress.first.load(std::sync::atomic::Ordering::Relaxed);
                let stage = if first < 1000 {
                    format!("first pass {}%", first / 10)
                } else {
                    format!("ply {}", progress.plies.load(std::sync::atomic::Ordering::Relaxed))
                };
                bar.set_message(format!("{m}: {stage}"));
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        // The ticker stops however the work ends (a panic too, which the scope then raises).
        struct Done<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let _done = Done(&done);
        work()
    })
}

fn list() -> Result<i32, CliError> {
    let Some(dir) = exact::store().cache() else { return Err(CliError::NoCache("")) };
    let files = match exact::file::list(&dir) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(CliError::io(dir, e)),
    };
    println!("{}", dir.display());
    let mut total = 0;
    for (name, material, bytes) in &files {
        total += bytes;
        let state = if material.is_some() { "" } else { "  (unusable: built again when needed)" };
        println!("{name:8} {:>7.1} MB{state}", mb(*bytes));
    }
    let usable = files.iter().filter(|f| f.1.is_some()).count();
    println!("{usable} tables, {:.1} MB", mb(total));
    Ok(0)
}

fn verify(syzygy: &str, endings: &[String]) -> Result<i32, CliError> {
    let mut tb = shakmaty_syzygy::Tablebase::<shakmaty::Chess>::new();
    let mut found = 0;
    for dir in std::env::split_paths(syzygy) {
        found += tb
            .add_directory(&dir)
            .map_err(|e| CliError::SyzygyDir { path: dir.display().to_string(), reason: e.to_string() })?;
    }
    let covered =
        |m: &Material| std::env::split_paths(syzygy).any(|d| Path::new(&d).join(format!("{m}.rtbw")).is_file());
    let materials = if endings.is_empty() {
        let dir = exact::store().cache().ok_or(CliError::NoCache(": name the endings"))?;
        let stored = exact::file::list(&dir).map_err(|e| CliError::io(&dir, e))?;
        stored.into_iter().filter_map(|(_, m, _)| m).collect()
    } else {
        named(endings)?
    };
    let materials: Vec<Material> = materials.into_iter().filter(covered).collect();
    if materials.is_empty() {
        return Err(CliError::NothingToVerify(found));
    }
    let (mut compared, mut disagree) = (0, 0);
    for m in materials {
        let table = exact::store().wait(m, &|| false).ok_or_else(|| CliError::Table(m.to_string()))?;
        let v = exact::verify(&table, &tb);
        for example in &v.examples {
            eprintln!("{m}: {example}");
        }
        println!("{:8} {:>9} positions  {:>3} disagree", m.to_string(), v.compared, v.disagree);
        compared += v.compared;
        disagree += v.disagree;
    }
    println!("{compared} positions compared, {disagree} disagree");
    Ok(if disagree == 0 { 0 } else { 1 })
}
