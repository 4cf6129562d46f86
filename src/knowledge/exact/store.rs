//! The process's exact tables: those in memory, the builds asked for, and the directory
//! they are stored in.
//!
//! A search never waits for a build unless it asks to (a search of fixed nodes, whose
//! result must not depend on the machine's speed): [`DtmStore::fetch`] answers at once,
//! with the table or with "pending", and a builder thread of its own builds what was
//! asked for, smallest first, the tables of the latest search's root ahead of the rest.
//! Each table is published the moment it is built, and stored in the cache directory,
//! from which the next process maps it instead of building it (see [`super::file`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use super::build::build;
use super::file::{self, StoredError};
use super::index::Layout;
use super::material::{Material, closure};
use super::moves::Built;
use super::progress::Progress;
use super::table::{DtmTable, Origin};

/// The most memory the tables built in memory take together between searches: as a
/// search begins, the tables used longest ago are dropped down to it (see
/// [`DtmStore::begin_search`]). Mapped tables are pages of their files, not counted.
pub const BUDGET_BYTES: usize = 48 << 20;

/// The build time per node [`DtmStore::estimate`] counts (about what this 2-core machine
/// takes: 1.7 s for K+Q v K+R's 3.8 M nodes).
const BUILD_PER_NODE: Duration = Duration::from_nanos(450);

/// How often a waiting search looks at its stop flag.
const WAIT_SLICE: Duration = Duration::from_millis(5);

/// The process's tables, shared by every search thread and kept across games.
pub struct DtmStore {
    state: Mutex<State>,
    /// Woken when a table is ready or a build is asked for.
    signal: Condvar,
    /// How many tables have become ready: a search that found one pending asks the store
    /// again only when this has changed.
    ready: AtomicU64,
    /// The build under way.
    progress: Mutex<Arc<Progress>>,
    /// Microseconds spent building tables in this process.
    built_micros: AtomicU64,
    /// Microseconds searches spent waiting for builds.
    waited_micros: AtomicU64,
}

#[derive(Default)]
struct State {
    tables: FxHashMap<Material, Arc<DtmTable>>,
    /// When each table was last asked for (a count of requests).
    used: FxHashMap<Material, u64>,
    clock: u64,
    /// Builds asked for, in order, each after the tables it reads.
    queue: Vec<Material>,
    /// The build under way.
    building: Option<Material>,
    /// Whether the builder thread runs.
    builder: bool,
    /// Where tables are stored (None: in memory only).
    cache: Option<PathBuf>,
    /// The latest search's root and every material it leads to: built first, never trimmed.
    root: Vec<Material>,
    /// What to tell the user, numbered from `notes_from`.
    notes: Vec<String>,
    notes_from: usize,
    /// Whether storing has failed in this directory (said once).
    store_failed: Option<PathBuf>,
    /// Tables whose stored file is unusable (said once): read again only after a build.
    unusable: Vec<Material>,
}

/// What [`DtmStore::fetch`] found.
pub enum Fetched {
    /// The table.
    Ready(Arc<DtmTable>),
    /// Asked for: it will be ready once built.
    Pending,
}

/// The process's tables.
pub fn store() -> &'static DtmStore {
    static STORE: OnceLock<DtmStore> = OnceLock::new();
    STORE.get_or_init(|| DtmStore {
        state: Mutex::new(State::default()),
        signal: Condvar::new(),
        ready: AtomicU64::new(0),
        progress: Mutex::new(Arc::new(Progress::default())),
        built_micros: AtomicU64::new(0),
        waited_micros: AtomicU64::new(0),
    })
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl DtmStore {
    /// Stores tables in `dir` from now on, and reads them from there (None: memory only).
    pub fn set_cache(&self, dir: Option<PathBuf>) {
        let mut state = lock(&self.state);
        state.cache = dir;
        state.store_failed = None;
        state.unusable.clear();
    }

    /// Where tables are stored, if anywhere.
    pub fn cache(&self) -> Option<PathBuf> {
        lock(&self.state).cache.clone()
    }

    /// How many tables have become ready in this process (see [`DtmStore::fetch`]).
    pub fn ready_count(&self) -> u64 {
        self.ready.load(Relaxed)
    }

    /// The table of `material` if it is in memory.
    pub fn get(&self, material: Material) -> Option<Arc<DtmTable>> {
        let mut state = lock(&self.state);
        state.clock += 1;
        let now = state.clock;
        let table = state.tables.get(&material).cloned()?;
        state.used.insert(material, now);
        Some(table)
    }

    /// The table of `material`: in memory, or read from the cache directory (with every
    /// stored table it leads to), or else asked of the builder, with every table it needs,
    /// and pending until built. Never waits for a build.
    pub fn fetch(&self, material: Material) -> Fetched {
        if let Some(t) = self.get(material) {
            return Fetched::Ready(t);
        }
        let dir = self.cache();
        let mut wanted = Vec::new();
        for m in closure(material) {
            let state = lock(&self.state);
            if state.tables.contains_key(&m) {
                continue;
            }
            // Asked for already, or found unusable on disk: the builder makes it.
            let asked = state.queue.contains(&m) || state.building == Some(m) || state.unusable.contains(&m);
            drop(state);
            match dir.as_deref().filter(|_| !asked).map(|d| self.read(d, m)) {
                Some(Ok(table)) => self.publish(table, None),
                _ => wanted.push(m),
            }
        }
        if wanted.is_empty() {
            return self.get(material).map_or(Fetched::Pending, Fetched::Ready);
        }
        self.ask(&wanted, false);
        Fetched::Pending
    }

    /// The table of `material`, waiting for it to be read or built; None if `stopped`
    /// says so first.
    pub fn wait(&self, material: Material, stopped: &dyn Fn() -> bool) -> Option<Arc<DtmTable>> {
        if let Fetched::Ready(t) = self.fetch(material) {
            return Some(t);
        }
        let start = Instant::now();
        let found = loop {
            if stopped() {
                break None;
            }
            let state = lock(&self.state);
            if let Some(t) = state.tables.get(&material) {
                break Some(Arc::clone(t));
            }
            let queued = state.queue.contains(&material) || state.building == Some(material);
            drop(state);
            if !queued {
                // Trimmed by another search since it was asked for: ask again.
                if let Fetched::Ready(t) = self.fetch(material) {
                    break Some(t);
                }
            }
            let state = lock(&self.state);
            if !state.tables.contains_key(&material) {
                let _ = self.signal.wait_timeout(state, WAIT_SLICE);
            }
        };
        self.waited_micros.fetch_add(start.elapsed().as_micros() as u64, Relaxed);
        found
    }

    /// A search of a position of `root`'s material begins (None: of more men): its tables
    /// go to the front of the builder's queue, and tables built in memory beyond
    /// [`BUDGET_BYTES`] are dropped, the longest unused first, sparing the root's.
    pub fn begin_search(&self, root: Option<Material>) {
        let mut state = lock(&self.state);
        state.root = root.map(closure).unwrap_or_default();
        let root = state.root.clone();
        let mut queue: Vec<Material> = root.iter().copied().filter(|m| state.queue.contains(m)).collect();
        queue.extend(state.queue.iter().copied().filter(|m| !root.contains(m)));
        state.queue = queue;
        let owned = |s: &State| s.tables.values().filter(|t| !t.is_mapped()).map(|t| t.size()).sum::<usize>();
        while owned(&state) > BUDGET_BYTES {
            let oldest = (state.tables.iter())
                .filter(|(m, t)| !t.is_mapped() && !root.contains(m))
                .min_by_key(|(m, _)| state.used.get(m).copied().unwrap_or(0))
                .map(|(m, _)| *m);
            let Some(m) = oldest else { break };
            state.tables.remove(&m);
        }
    }

    /// Asks the builder for `materials` (each after those it reads), ahead of the rest
    /// with `first`; starts the builder if it is not running.
    fn ask(&self, materials: &[Material], first: bool) {
        let mut state = lock(&self.state);
        let fresh: Vec<Material> = materials
            .iter()
            .copied()
            .filter(|m| !state.tables.contains_key(m) && state.building != Some(*m) && !state.queue.contains(m))
            .collect();
        if fresh.is_empty() {
            return;
        }
        if first {
            state.queue.splice(0..0, fresh);
        } else {
            state.queue.extend(fresh);
        }
        // Keep the latest root's tables at the front.
        let root = state.root.clone();
        state.queue.sort_by_key(|m| !root.contains(m));
        if !state.builder {
            let spawned = std::thread::Builder::new().name("pnmate-tables".into()).spawn(|| store().builder());
            state.builder = spawned.is_ok();
            if let Err(e) = spawned {
                state.notes.push(format!("error: cannot start the tables' builder thread: {e}"));
            }
        }
        self.signal.notify_all();
    }

    /// The builder thread: builds what is asked for, one table at a time, forever.
    fn builder(&self) {
        loop {
            let (material, built, dir) = {
                let mut state = lock(&self.state);
                let next = loop {
                    // The first queued table whose smaller tables are all in memory; one that
                    // lacks a dropped one asks for it first.
                    let ready = |s: &State, m: &Material| {
                        m.successors().iter().all(|sub| sub.n <= 2 || s.tables.contains_key(sub))
                    };
                    if let Some(i) = state.queue.iter().position(|m| ready(&state, m)) {
                        break state.queue.remove(i);
                    }
                    if let Some(&m) = state.queue.first() {
                        let lacking: Vec<Material> =
                            closure(m).into_iter().filter(|x| !state.tables.contains_key(x)).collect();
                        state.queue.retain(|x| !lacking.contains(x));
                        state.queue.splice(0..0, lacking);
                        continue;
                    }
                    state = self.signal.wait(state).unwrap_or_else(|e| e.into_inner());
                };
                state.building = Some(next);
                let built: Built = (next.successors().into_iter())
                    .filter_map(|sub| state.tables.get(&sub).map(|t| (sub, Arc::clone(t))))
                    .collect();
                (next, built, state.cache.clone())
            };
            // Another process may have stored it meanwhile.
            let stored = dir.as_deref().and_then(|d| self.read(d, material).ok());
            let table = stored.unwrap_or_else(|| {
                let progress = Arc::new(Progress::default());
                *lock(&self.progress) = Arc::clone(&progress);
                let table = build(material, &built, &progress);
                if let Origin::Built(took) = table.origin {
                    self.built_micros.fetch_add(took.as_micros() as u64, Relaxed);
                }
                table
            });
            let origin = table.origin;
            let (table, stored_in) = match (&dir, origin) {
                (Some(d), Origin::Built(_)) => self.keep(d, table),
                _ => (table, None),
            };
            if let Origin::Built(took) = origin {
                let place = stored_in.map_or(String::new(), |d| format!(", stored in {}", d.display()));
                lock(&self.state).notes.push(format!(
                    "built the {} distance-to-mate table in {} ms ({:.1} MB{place})",
                    material,
                    took.as_millis(),
                    table.size() as f64 / f64::from(1 << 20)
                ));
            }
            self.publish(table, Some(material));
        }
    }

    /// Stores a built `table` in `dir` and maps it back from there (its memory then counts
    /// as the file's pages); where it cannot be stored, keeps it in memory and says so once.
    fn keep(&self, dir: &Path, table: DtmTable) -> (DtmTable, Option<PathBuf>) {
        let material = table.material();
        match file::store(dir, &table) {
            Ok(_) => match file::load(dir, material) {
                Ok(mapped) => (mapped, Some(dir.to_path_buf())),
                Err(_) => (table, Some(dir.to_path_buf())),
            },
            Err(e) => {
                let mut state = lock(&self.state);
                if state.store_failed.as_deref() != Some(dir) {
                    state.store_failed = Some(dir.to_path_buf());
                    state
                        .notes
                        .push(format!("cannot store tables in {} ({e}): they are kept in memory only", dir.display()));
                }
                (table, None)
            }
        }
    }

    /// Reads the stored table of `material` from `dir`; a file that is there but cannot be
    /// trusted is said, and will be built again.
    fn read(&self, dir: &Path, material: Material) -> Result<DtmTable, StoredError> {
        let read = file::load(dir, material);
        if let Err(e @ (StoredError::Invalid(_) | StoredError::Io(_))) = &read {
            let mut state = lock(&self.state);
            if !state.unusable.contains(&material) {
                state.unusable.push(material);
                state.notes.push(format!(
                    "the stored {material} table in {} is not used ({e}): it is built again",
                    dir.display()
                ));
            }
        }
        read
    }

    /// Makes `table` ready (`built`: the builder's own build, now done).
    fn publish(&self, table: DtmTable, built: Option<Material>) {
        let mut state = lock(&self.state);
        let material = table.material();
        if built.is_some() {
            state.building = None;
        }
        state.queue.retain(|&m| m != material);
        state.unusable.retain(|&m| m != material);
        state.tables.entry(material).or_insert_with(|| Arc::new(table));
        self.ready.fetch_add(1, Relaxed);
        drop(state);
        self.signal.notify_all();
    }

    /// A rough time to build what `material`'s table needs and is neither in memory nor
    /// stored.
    pub fn estimate(&self, material: Material) -> Duration {
        let dir = self.cache();
        let state = lock(&self.state);
        let missing =
            |m: &Material| !state.tables.contains_key(m) && dir.as_deref().is_none_or(|d| !file::path(d, *m).is_file());
        estimate(material, missing)
    }

    /// What the builder is doing, for the user: the table under way and how far it has got,
    /// and how many more are asked for. None when it is idle.
    pub fn status(&self) -> Option<String> {
        let state = lock(&self.state);
        let material = state.building?;
        let queued = state.queue.len();
        drop(state);
        let progress = Arc::clone(&lock(&self.progress));
        let first = progress.first.load(Relaxed);
        let stage = if first < 1000 {
            format!("first pass {}%", first / 10)
        } else {
            format!("retrograde pass, ply {}", progress.plies.load(Relaxed))
        };
        let more = if queued > 0 { format!("; {queued} more to build") } else { String::new() };
        Some(format!("building the {material} distance-to-mate table ({stage}{more}); the search goes on without it"))
    }

    /// The notes for the user from number `*seen` on; moves `*seen` past them.
    pub fn notes_since(&self, seen: &mut usize) -> Vec<String> {
        let mut state = lock(&self.state);
        let end = state.notes_from + state.notes.len();
        let from = (*seen).clamp(state.notes_from, end);
        let out = state.notes[from - state.notes_from..].to_vec();
        *seen = end;
        // Old notes are dropped once they pile up.
        if state.notes.len() > 256 {
            state.notes_from += 128;
            state.notes.drain(..128);
        }
        out
    }

    /// The number the next note will have.
    pub fn notes_end(&self) -> usize {
        let state = lock(&self.state);
        state.notes_from + state.notes.len()
    }

    /// The time spent building tables in this process so far.
    pub fn building_time(&self) -> Duration {
        Duration::from_micros(self.built_micros.load(Relaxed))
    }

    /// The time searches of this process spent waiting for tables.
    pub fn waiting_time(&self) -> Duration {
        Duration::from_micros(self.waited_micros.load(Relaxed))
    }

    /// Makes `material`'s table ready now, on the calling thread rather than the
    /// builder's: read from the cache directory, or built (saying how far it has got in
    /// `progress`) and stored there. The tables it reads must be ready or stored (take
    /// the materials in [`closure`] order). For `pnmate tables build`.
    pub fn prepare(&self, material: Material, progress: &Arc<Progress>) -> Prepared {
        if let Some(t) = self.get(material) {
            return Prepared { origin: t.origin, bytes: t.size(), stored: Ok(self.cache()) };
        }
        let dir = self.cache();
        if let Some(t) = dir.as_deref().and_then(|d| file::load(d, material).ok()) {
            let prepared = Prepared { origin: t.origin, bytes: t.size(), stored: Ok(dir.clone()) };
            self.publish(t, None);
            return prepared;
        }
        let mut built = Built::default();
        for sub in material.successors().into_iter().filter(|sub| sub.n > 2) {
            if self.get(sub).is_none() {
                self.prepare(sub, &Arc::new(Progress::default()));
            }
            built.extend(self.get(sub).map(|t| (sub, t)));
        }
        lock(&self.state).building = Some(material);
        *lock(&self.progress) = Arc::clone(progress);
        let table = build(material, &built, progress);
        let origin = table.origin;
        let (table, stored) = match &dir {
            Some(d) => match file::store(d, &table) {
                Ok(_) => (file::load(d, material).unwrap_or(table), Ok(Some(d.clone()))),
                Err(e) => (table, Err(e.to_string())),
            },
            None => (table, Ok(None)),
        };
        let prepared = Prepared { origin, bytes: table.size(), stored };
        self.publish(table, Some(material));
        prepared
    }
}

/// What [`DtmStore::prepare`] did.
pub struct Prepared {
    /// Built now (with the time), or read from the cache directory.
    pub origin: Origin,
    /// The table's bytes.
    pub bytes: usize,
    /// Where it is stored (None: memory only), or why it could not be stored.
    pub stored: Result<Option<PathBuf>, String>,
}

/// A rough time to build the tables of `material`'s closure that are `missing`.
pub(crate) fn estimate(material: Material, missing: impl Fn(&Material) -> bool) -> Duration {
    let nodes: usize = closure(material).iter().filter(|m| missing(m)).map(|&m| 2 * Layout::of(m).size).sum();
    BUILD_PER_NODE * nodes as u32
}
