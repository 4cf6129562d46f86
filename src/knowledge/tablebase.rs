//! Syzygy tablebases: exact win/draw/loss values (WDL) and distances to the next capture
//! or pawn move (DTZ) of positions with few men, read through `shakmaty-syzygy`.
//!
//! WDL values assume a fresh 50-move count. A higher clock only helps the defender, so a
//! value that is no win for the attacker with a fresh count is no win at any clock: that
//! is the only kind of value the prover acts on ([`SyzygyTables::wins`]). A win is
//! only a hint: the search still has to find and prove the mate within the clock it has.
//!
//! A probe that fails (a missing or unreadable table, a corrupt file) is "unknown", never
//! a value.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;
use shakmaty::{Board, Chess, Color, Move, Position, Role};
use shakmaty_syzygy::filesystem::{Filesystem, OsFilesystem, RandomAccessFile, ReadHint};
use shakmaty_syzygy::{Tablebase, Wdl};

use crate::chess::node::Node;
use crate::knowledge::Exact;

/// Tables up to this size are read into memory when first probed: a probe then costs
/// no system call. Larger ones (5 men and up) are read from the file per probe.
const IN_MEMORY_BYTES: u64 = 16 << 20;

/// The separator of directories in `SyzygyPath`, as Stockfish reads it.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// A loaded set of tables, shared by every search thread.
pub struct SyzygyTables {
    tablebase: Tablebase<Chess>,
    /// The most men a probed position may have: the largest table, or less when the
    /// probe limit says so.
    max_men: usize,
    /// Successful probes (UCI `tbhits`).
    hits: AtomicU64,
    cache: Cache,
    /// Which side to move each pawnless DTZ table stores, by (first side's, second
    /// side's) material ([`material_key`]): true for the first side of its name.
    stored: FxHashMap<(u32, u32), bool>,
}

impl std::fmt::Debug for SyzygyTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyzygyTables").field("max_men", &self.max_men).finish_non_exhaustive()
    }
}

/// What loading found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Table files found (WDL and DTZ).
    pub files: usize,
    /// The most men of any table found.
    pub men: usize,
    /// One line per directory or table file that could not be read, or is not a table.
    pub problems: Vec<String>,
}

impl Loaded {
    /// One line for `info string`.
    pub fn summary(&self) -> String {
        if self.files == 0 {
            "no Syzygy tables found".to_string()
        } else {
            format!("found {} Syzygy table files, up to {} men", self.files, self.men)
        }
    }
}

impl SyzygyTables {
    /// Loads every table in `paths` (directories separated by [`PATH_SEPARATOR`]; empty
    /// and `<empty>` mean none), probing positions of at most `probe_limit` men. None when
    /// no table was found; the problems are reported either way.
    pub fn load(paths: &str, probe_limit: usize) -> (Option<Arc<SyzygyTables>>, Loaded) {
        let mut tablebase = Tablebase::with_filesystem(Arc::new(Memory::default()));
        let mut loaded = Loaded::default();
        let mut stored = FxHashMap::default();
        for dir in paths.split(PATH_SEPARATOR).map(str::trim) {
            if dir.is_empty() || dir == "<empty>" {
                continue;
            }
            match tablebase.add_directory(dir) {
                Ok(n) => {
                    loaded.files += n;
                    loaded.problems.extend(read_headers(Path::new(dir), &mut stored));
                }
                Err(e) => loaded.problems.push(format!("cannot read Syzygy directory '{dir}': {e}")),
            }
        }
        loaded.men = tablebase.max_pieces();
        if loaded.files == 0 {
            return (None, loaded);
        }
        let max_men = loaded.men.min(probe_limit);
        let tables = SyzygyTables { tablebase, max_men, hits: AtomicU64::new(0), cache: Cache::new(), stored };
        (Some(Arc::new(tables)), loaded)
    }

    /// The most men of a probed position.
    pub fn max_men(&self) -> usize {
        self.max_men
    }

    /// Probes that found a value so far.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Whether `pos` is a position the tables are asked about: no castling rights and
    /// at most [`SyzygyTables::max_men`] men.
    #[inline]
    pub fn covers(&self, pos: &Chess) -> bool {
        pos.board().occupied().count() <= self.max_men && pos.castles().is_empty()
    }

    /// The WDL value of `pos` for its side to move, assuming a fresh 50-move count.
    pub fn wdl(&self, pos: &Chess) -> Option<Wdl> {
        if !self.covers(pos) {
            return None;
        }
        let wdl = self.tablebase.probe_wdl_after_zeroing(pos).ok()?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(wdl)
    }

    /// The DTZ of `pos` in plies, signed for its side to move (positive: a win), with
    /// rounding ignored (it may be one ply more than the true distance).
    pub fn dtz(&self, pos: &Chess) -> Option<i32> {
        if !self.covers(pos) {
            return None;
        }
        let dtz = self.tablebase.probe_dtz(pos).ok()?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(dtz.ignore_rounding().0)
    }

    /// The tables' move at `pos` for a player without a proven mate ([`SyzygyTables::best_move`]),
    /// when it is among `allowed` (empty: all), with a score in centipawns: a win, a loss,
    /// or 0 for a draw (1 and -1 where the 50-move rule saves the game).
    pub fn play(&self, pos: &Chess, allowed: &[Move]) -> Option<(Move, i32)> {
        let best = self.best_move(pos)?;
        if !allowed.is_empty() && !allowed.contains(&best) {
            return None;
        }
        let cp = match self.wdl(pos)? {
            Wdl::Win => TABLE_WIN_CP,
            Wdl::CursedWin => 1,
            Wdl::Draw => 0,
            Wdl::BlessedLoss => -1,
            Wdl::Loss => -TABLE_WIN_CP,
        };
        Some((best, cp))
    }

    /// The move a player makes from `pos` by the tables' values (for a fresh 50-move count):
    /// the move that keeps the best result, and among those, for a win, a zeroing move
    /// first, then the lowest DTZ; for a loss, the longest defence; for a draw, any move
    /// that keeps it. None when `pos` is not covered or a probe fails.
    pub fn best_move(&self, pos: &Chess) -> Option<Move> {
        if !self.covers(pos) {
            return None;
        }
        let (m, _) = self.tablebase.best_move(pos).ok()??;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(m)
    }
}

/// The score of a table win, in centipawns: far above any material edge, below the
/// engine's largest reported score, and never a mate score (the prover alone reports
/// those).
const TABLE_WIN_CP: i32 = 9_000;

/// How many times a ply of DTZ a move that is not the fastest way to the next capture,
/// pawn move or mate adds to its initial proof number: enough that a proof follows the
/// tables' line before it tries another winning move (docs/design.md).
pub(crate) const STRAY_PN: u32 = 1 << 20;

/// The largest initial proof number the tables give.
const MAX_PN: u32 = 1 << 29;

/// Positions whose values the tables remember (16 bytes each): every search thread
/// shares them, and they stay valid as long as the tables are loaded.
const CACHE_SLOTS: usize = 1 << 20;

/// Bits of a cached position's values: the WDL (plus 2) in bits 0-7, flags, the DTZ in
/// bits 32-63.
const WDL_KNOWN: u64 = 1 << 8;
const DTZ_KNOWN: u64 = 1 << 9;
const PROBED: u64 = 1 << 10;
/// The DTZ bits hold a lower bound only (a child found off the tables' line).
const DTZ_ABOVE: u64 = 1 << 11;

/// The cache bits of a known WDL.
fn wdl_bits(wdl: Wdl) -> u64 {
    WDL_KNOWN | (wdl as i32 + 2) as u64
}

/// The WDL cached in `values`, if known.
fn wdl_of(values: u64) -> Option<Wdl> {
    (values & WDL_KNOWN != 0).then_some(match values & 0xff {
        0 => Wdl::Loss,
        1 => Wdl::BlessedLoss,
        2 => Wdl::Draw,
        3 => Wdl::CursedWin,
        _ => Wdl::Win,
    })
}

/// What the tables know of positions probed before, shared by threads without locks: a
/// slot holds the hash XOR the values and the values, so a slot torn by two writers
/// reads as empty.
struct Cache {
    slots: Box<[[AtomicU64; 2]]>,
}

impl Cache {
    fn new() -> Cache {
        Cache { slots: (0..CACHE_SLOTS).map(|_| [AtomicU64::new(0), AtomicU64::new(0)]).collect() }
    }

    #[inline]
    fn get(&self, hash: u64) -> u64 {
        let [check, values] = &self.slots[(hash as usize) & (CACHE_SLOTS - 1)];
        let values = values.load(Ordering::Relaxed);
        if check.load(Ordering::Relaxed) ^ values == hash { values } else { 0 }
    }

    #[inline]
    fn set(&self, hash: u64, values: u64) {
        let [check, slot] = &self.slots[(hash as usize) & (CACHE_SLOTS - 1)];
        check.store(hash ^ values, Ordering::Relaxed);
        slot.store(values, Ordering::Relaxed);
    }
}

impl SyzygyTables {
    /// The WDL of `node` for its side to move, fresh count.
    fn cached_wdl(&self, node: &Node) -> Option<Wdl> {
        let mut values = self.cache.get(node.hash);
        if values & PROBED == 0 {
            values = PROBED | self.wdl(&node.pos).map_or(0, wdl_bits);
            self.cache.set(node.hash, values);
        }
        wdl_of(values)
    }

    /// Probes `node`'s DTZ before its WDL, when nothing is cached: one probe then gives
    /// both where the DTZ leaves no doubt about the WDL (1 to 99 plies either way, which
    /// rounding cannot carry past the 50-move rule); elsewhere the WDL is probed as well.
    fn prime(&self, node: &Node) {
        if self.cache.get(node.hash) & PROBED != 0 || !self.covers(&node.pos) {
            return;
        }
        let Ok(dtz) = self.tablebase.probe_dtz(&node.pos) else { return };
        self.hits.fetch_add(1, Ordering::Relaxed);
        let n = dtz.ignore_rounding().0;
        let wdl = match n {
            -99..=-1 => Wdl::Loss,
            1..=99 => Wdl::Win,
            _ => return,
        };
        let values = PROBED | wdl_bits(wdl) | DTZ_KNOWN | u64::from(n.unsigned_abs()) << 32;
        self.cache.set(node.hash, values);
    }

    /// The DTZ of `node` in plies (unsigned; 0 when unknown), once its WDL is cached.
    fn cached_dtz(&self, node: &Node) -> u32 {
        let values = self.cache.get(node.hash);
        if values & DTZ_KNOWN != 0 {
            return (values >> 32) as u32;
        }
        if values & PROBED == 0 {
            return 0;
        }
        let dtz = self.dtz(&node.pos).map_or(0, i32::unsigned_abs);
        self.remember_dtz(node, dtz);
        dtz
    }

    /// Whether `attacker` can force a mate from `node` as far as the tables say: Some(false)
    /// holds at any clock (a higher clock only helps the defender).
    #[inline]
    pub fn wins(&self, node: &Node, attacker: Color) -> Option<bool> {
        if !self.covers(&node.pos) {
            return None;
        }
        let wdl = self.cached_wdl(node)?;
        Some(if node.pos.turn() == attacker { wdl == Wdl::Win } else { wdl == Wdl::Loss })
    }

    /// Whether a DTZ probe of `pos` reads its table directly: DTZ tables store one side
    /// to move, and a probe of the other side searches its moves. None where unknown
    /// (tables with pawns).
    fn direct(&self, pos: &Chess) -> Option<bool> {
        let (white, black) = (material_key(pos.board(), Color::White), material_key(pos.board(), Color::Black));
        if white == black && white & 0xf == 0 {
            return Some(true);
        }
        let white_first = if let Some(&first) = self.stored.get(&(white, black)) {
            first
        } else {
            !*self.stored.get(&(black, white))?
        };
        Some(white_first == (pos.turn() == Color::White))
    }

    /// At a node the tables call won for `attacker`: for the attacker to move, the node's
    /// distance in plies to its next capture, pawn move or mate along the tables' line
    /// (0 when unknown); 0 for the defender to move. Probed where the table stores the
    /// node's side; else found from its moves (zeroing ones count 0), whose side it stores.
    pub fn won(&self, node: &Node, attacker: Color) -> Option<u32> {
        if self.wins(node, attacker) != Some(true) {
            return None;
        }
        if node.pos.turn() != attacker {
            return Some(0);
        }
        let values = self.cache.get(node.hash);
        if values & DTZ_KNOWN != 0 || self.direct(&node.pos) == Some(true) {
            return Some(self.cached_dtz(node));
        }
        let mut fastest = None;
        for m in node.pos.legal_moves() {
            let child = node.play(m);
            self.prime(&child);
            if self.wins(&child, attacker) == Some(true) {
                let n = if m.is_zeroing() { 0 } else { self.cached_dtz(&child) };
                fastest = Some(fastest.map_or(n, |f: u32| f.min(n)));
            }
        }
        let dtz = fastest.map_or(0, |f| f + 1);
        self.remember_dtz(node, dtz);
        Some(dtz)
    }

    /// Caches `dtz` as the DTZ of `node`, whose WDL is cached.
    fn remember_dtz(&self, node: &Node, dtz: u32) {
        let values = self.cache.get(node.hash);
        if values & PROBED != 0 {
            self.cache.set(node.hash, (values & 0xffff_ffff & !DTZ_ABOVE) | DTZ_KNOWN | (u64::from(dtz) << 32));
        }
    }

    /// The DTZ of `child` (the defender to move, lost) where it is at most `limit`, found
    /// from its replies, whose side the table stores: one more than the largest DTZ of a
    /// reply that does not zero (one where every reply zeroes). None as soon as a reply
    /// goes beyond `limit`, or a probe fails. The replies' values stay cached for their
    /// own expansion.
    fn dtz_by_replies(&self, child: &Node, attacker: Color, limit: u32) -> Option<u32> {
        let mut longest = 0;
        for r in child.pos.legal_moves() {
            if r.is_zeroing() {
                continue;
            }
            let reply = child.play(r);
            if self.wins(&reply, attacker) != Some(true) {
                return None;
            }
            let n = self.cached_dtz(&reply);
            if n == 0 || n + 1 > limit {
                return None;
            }
            longest = longest.max(n);
        }
        Some(longest + 1)
    }

    /// What the tables say after `m` at `node`, a won node of DTZ `dtz`: no win, or a win
    /// with the move's initial proof number where `m` is the attacker's (None for a
    /// defender's reply, whose number the caller chooses). An attacker's move starts at
    /// one more than half its child's DTZ, plus [`STRAY_PN`] per ply it is slower than the
    /// tables' line (its child's DTZ more than one ply below the node's); a zeroing move
    /// starts a new count and loses none. A child whose DTZ the table does not store is
    /// only tested for being on the line ([`SyzygyTables::dtz_by_replies`]): off it, it counts
    /// as one ply slower; once `on_line` says a move of this node is on it, the others
    /// are not tested. None when a probe fails.
    pub fn after(&self, node: &Node, m: Move, dtz: u32, attacker: Color, on_line: &Cell<bool>) -> Option<Exact> {
        let child = node.play(m);
        let defender = child.pos.turn() != attacker;
        let direct = if defender { self.direct(&child.pos) } else { None };
        if defender && direct != Some(false) {
            self.prime(&child);
        }
        if direct == Some(false) && on_line.get() && self.cache.get(child.hash) & DTZ_KNOWN == 0 {
            // A move on the line is known: the others wait untested, as one ply slower.
            return Some(Exact::Win(Some(STRAY_PN + 1 + dtz / 2)));
        }
        if !self.wins(&child, attacker)? {
            return Some(Exact::NoWin);
        }
        if !defender {
            return Some(Exact::Win(None));
        }
        let values = self.cache.get(child.hash);
        let n = if values & DTZ_KNOWN == 0 && direct == Some(false) {
            let limit = dtz.saturating_sub(1);
            if values & DTZ_ABOVE != 0 && (values >> 32) as u32 > limit {
                dtz
            } else if let Some(n) = self.dtz_by_replies(&child, attacker, limit) {
                self.remember_dtz(&child, n);
                on_line.set(true);
                n
            } else {
                // Off the line: one ply slower, and the child remembers it is beyond `limit`.
                self.cache.set(child.hash, (values & 0xffff_ffff) | DTZ_ABOVE | (u64::from(limit) + 1) << 32);
                dtz
            }
        } else {
            self.cached_dtz(&child)
        };
        let lost = if dtz == 0 || m.is_zeroing() { 0 } else { n.saturating_sub(dtz - 1) };
        Some(Exact::Win(Some(lost.saturating_mul(STRAY_PN).saturating_add(1 + n / 2).min(MAX_PN))))
    }
}

/// A side's men other than the king as a number: four bits per role, pawns to queens.
fn material_key(board: &Board, color: Color) -> u32 {
    let ours = board.by_color(color);
    [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .iter()
        .enumerate()
        .map(|(i, &role)| ((board.by_role(role) & ours).count().min(15) as u32) << (4 * i))
        .sum()
}

/// The material key of one side of a table's name (`KQR` of `KQRvKB`).
fn name_key(side: &str) -> Option<u32> {
    let mut key = 0;
    for c in side.chars().skip(1) {
        let i = match c {
            'P' => 0,
            'N' => 1,
            'B' => 2,
            'R' => 3,
            'Q' => 4,
            _ => return None,
        };
        key += 1 << (4 * i);
    }
    Some(key)
}

/// The first bytes of a WDL and a DTZ table of standard chess.
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// Reads the head of every table file in `dir` once: one line for each that cannot be
/// opened or does not start like a table (its probes will fail and count as unknown, and
/// the user should know why), and for each pawnless DTZ table the side to move it stores,
/// into `stored`. That side is in the flags of the first block of data (the layout of
/// Syzygy's probing code: after the magic, a flags byte, an order byte, one byte per man,
/// word alignment, then the data's flags, whose lowest bit is the stored side: 0 for the
/// first side of the table's name). A DTZ table whose side is not read still probes, only
/// more slowly.
fn read_headers(dir: &Path, stored: &mut FxHashMap<(u32, u32), bool>) -> Vec<String> {
    const SINGLE_VALUE: u8 = 0x80;
    const HAS_PAWNS: u8 = 0x02;
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut problems = Vec::new();
    for path in entries.flatten().map(|e| e.path()) {
        let (magic, dtz) = match path.extension().and_then(|e| e.to_str()) {
            Some("rtbw") => (WDL_MAGIC, false),
            Some("rtbz") => (DTZ_MAGIC, true),
            _ => continue,
        };
        let mut header = [0u8; 32];
        let n = match File::open(&path).and_then(|mut f| f.read(&mut header)) {
            Ok(n) => n,
            Err(e) => {
                problems.push(format!("cannot read Syzygy table '{}': {e}", path.display()));
                continue;
            }
        };
        if n < 4 || header[..4] != magic {
            problems.push(format!("Syzygy table '{}' is corrupt (bad header)", path.display()));
            continue;
        }
        let Some(name) = path.file_stem().and_then(|n| n.to_str()).filter(|_| dtz) else { continue };
        let Some((first, second)) = name.split_once('v') else { continue };
        let (Some(a), Some(b)) = (name_key(first), name_key(second)) else { continue };
        let mut at = 6 + first.len() + second.len();
        at += at & 1;
        if n <= at || header[4] & HAS_PAWNS != 0 || header[at] & SINGLE_VALUE != 0 {
            continue;
        }
        stored.insert((a, b), header[at] & 1 == 0);
    }
    problems.sort();
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_side_of_each_dtz_table_is_read_from_its_header() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
        let tables = SyzygyTables::load(dir, 7).0.unwrap();
        let pos = |fen: &str| crate::chess::position::parse_fen(fen).unwrap();
        // K+R v K and K+Q v K store the side with the rook or queen to move.
        assert_eq!(tables.direct(&pos("8/8/8/3k4/8/8/8/R3K3 w - - 0 1")), Some(true));
        assert_eq!(tables.direct(&pos("8/8/8/3k4/8/8/8/R3K3 b - - 0 1")), Some(false));
        assert_eq!(tables.direct(&pos("8/8/8/3K4/8/8/8/q3k3 b - - 0 1")), Some(true), "colours mirrored");
        // Symmetric material without pawns: both sides; single-value tables (K+N+N v K,
        // drawn throughout): none read.
        assert_eq!(tables.direct(&pos("8/8/2b1k3/8/8/2B1K3/8/8 b - - 0 1")), Some(true));
        assert_eq!(tables.direct(&pos("8/8/8/4k3/8/8/8/2NNK3 w - - 0 1")), None);
    }
}

/// The filesystem the tables are read through: files of at most [`IN_MEMORY_BYTES`] are
/// read whole when first opened, larger ones are read per probe.
#[derive(Default)]
struct Memory {
    os: OsFilesystem,
}

impl Filesystem for Memory {
    fn regular_file_size(&self, path: &Path) -> io::Result<u64> {
        self.os.regular_file_size(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<PathBuf>> {
        self.os.read_dir(path)
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn RandomAccessFile>> {
        if self.os.regular_file_size(path)? <= IN_MEMORY_BYTES {
            Ok(Box::new(InMemory(std::fs::read(path)?)))
        } else {
            self.os.open(path)
        }
    }
}

struct InMemory(Vec<u8>);

impl RandomAccessFile for InMemory {
    fn read_at(&self, buf: &mut [u8], offset: u64, _hint: ReadHint) -> io::Result<usize> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(self.0.len());
        let n = buf.len().min(self.0.len() - start);
        buf[..n].copy_from_slice(&self.0[start..start + n]);
        Ok(n)
    }
}
