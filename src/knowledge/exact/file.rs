//! Stored tables: one file per ending in the tables' cache directory, with a format
//! version and a checksum, written under a temporary name and renamed into place, and
//! read back by mapping it into memory.
//!
//! A file is `<ending>.dtm` (`KQvKP.dtm`): a header of [`HEADER`] bytes, then the table's
//! bytes (see [`DtmTable`]). The header, all numbers little-endian:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic `pnmateDT` |
//! | 8 | 4 | format version ([`VERSION`]) |
//! | 12 | 4 | header length (64) |
//! | 16 | 8 | the ending's name, padded with zero bytes |
//! | 24 | 8 | placements |
//! | 32 | 8 | length of the table's bytes |
//! | 40 | 4 | longest mate, in plies |
//! | 44 | 4 | zero |
//! | 48 | 8 | checksum of bytes 0-47 and of the table's bytes ([`checksum`]) |
//! | 56 | 8 | zero |
//!
//! A file that is short, of another version, of another ending or layout, or whose
//! checksum fails is never read as a table: the caller builds the table again.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::index::Layout;
use super::mapped::{Bytes, Mapping};
use super::material::Material;
use super::table::{DtmTable, Origin};

/// The file format's version: a file of another version is built again.
pub const VERSION: u32 = 1;

/// Bytes before the table's own.
pub const HEADER: usize = 64;

const MAGIC: &[u8; 8] = b"pnmateDT";

/// Why a stored table was not read.
#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    /// There is no file.
    #[error("not stored")]
    Missing,
    /// The file is not a table of this version and ending.
    #[error("{0}")]
    Invalid(&'static str),
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A 64-bit checksum of `bytes`: four lanes of multiply and shift over 8-byte words, then
/// the tail, then the lanes mixed. It finds truncation, stray bytes and bit flips; it is
/// not a defence against a forged file.
pub fn checksum(bytes: &[u8]) -> u64 {
    const P: [u64; 4] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5];
    let mut lanes = [1u64, 2, 3, 4];
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            let w = u64::from_le_bytes(chunk[8 * i..8 * i + 8].try_into().expect("eight bytes"));
            *lane = (*lane ^ w).wrapping_mul(P[i]);
            *lane ^= *lane >> 29;
        }
    }
    let mut h = bytes.len() as u64;
    for (i, &lane) in lanes.iter().enumerate() {
        h = (h ^ lane).wrapping_mul(P[i]).rotate_left(23);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(P[0]);
    }
    h ^= h >> 31;
    h.wrapping_mul(P[1]) ^ (h >> 29)
}

/// The file of `material` in `dir`.
pub fn path(dir: &Path, material: Material) -> PathBuf {
    dir.join(format!("{}.dtm", material.name()))
}

/// The header of a table of `layout` with `len` bytes and its longest mate, without its
/// checksum.
fn header(layout: &Layout, len: usize, longest: u32) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(HEADER as u32).to_le_bytes());
    let name = layout.material.name();
    h[16..16 + name.len()].copy_from_slice(name.as_bytes());
    h[24..32].copy_from_slice(&(layout.size as u64).to_le_bytes());
    h[32..40].copy_from_slice(&(len as u64).to_le_bytes());
    h[40..44].copy_from_slice(&longest.to_le_bytes());
    h
}

/// The checksum of a file: of its header's first 48 bytes and of the table's bytes.
fn file_checksum(head: &[u8], bytes: &[u8]) -> u64 {
    checksum(&head[..48]) ^ checksum(bytes).rotate_left(17)
}

/// Stores `table` in `dir` (made if missing): written under a temporary name of this
/// process, then renamed over `<ending>.dtm`, so that a reader (another engine too)
/// sees the old file or the new one, never part of one. Returns the file's length.
pub fn store(dir: &Path, table: &DtmTable) -> std::io::Result<u64> {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir)?;
    sweep_temporaries(dir);
    let bytes = table.bytes();
    let mut head = header(&table.layout, bytes.len(), table.longest);
    let sum = file_checksum(&head, bytes);
    head[48..56].copy_from_slice(&sum.to_le_bytes());
    let target = path(dir, table.material());
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
    let temporary = dir.join(format!("{}.dtm.tmp.{}.{serial}", table.material().name(), std::process::id()));
    let written = (|| {
        let mut f = File::create(&temporary)?;
        f.write_all(&head)?;
        f.write_all(bytes)?;
        f.flush()?;
        std::fs::rename(&temporary, &target)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    Ok((HEADER + bytes.len()) as u64)
}

/// Removes temporary files in `dir` older than an hour: what an engine killed while
/// writing left behind.
fn sweep_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > Duration::from_secs(3600));
        if name.to_string_lossy().contains(".dtm.tmp.") && stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Reads the stored table of `material` from `dir`, mapped into memory, after checking
/// its header and checksum.
pub fn load(dir: &Path, material: Material) -> Result<DtmTable, StoredError> {
    let file = match File::open(path(dir, material)) {
        Ok(f) => f,
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
            return Err(StoredError::Missing);
        }
        Err(e) => return Err(e.into()),
    };
    let len = file.metadata()?.len() as usize;
    if len < HEADER {
        return Err(StoredError::Invalid("shorter than its header"));
    }
    let layout = Layout::of(material);
    let mut head = [0u8; HEADER];
    (&file).read_exact(&mut head)?;
    if &head[..8] != MAGIC {
        return Err(StoredError::Invalid("not a pnmate table"));
    }
    if head[8..12] != VERSION.to_le_bytes() {
        return Err(StoredError::Invalid("of another format version"));
    }
    let longest = u32::from_le_bytes(head[40..44].try_into().expect("four bytes"));
    let expected = header(&layout, len - HEADER, longest);
    if head[..48] != expected[..48] || head[56..] != expected[56..] {
        return Err(StoredError::Invalid("of another ending, layout or length"));
    }
    let mapping = Mapping::new(&file, len, HEADER)?;
    let sum = u64::from_le_bytes(head[48..56].try_into().expect("eight bytes"));
    if file_checksum(&head, mapping.bytes()) != sum {
        return Err(StoredError::Invalid("its checksum fails"));
    }
    DtmTable::from_bytes(layout, Bytes::Mapped(mapping), longest, Origin::Stored)
        .ok_or(StoredError::Invalid("its en passant section is malformed"))
}

/// The platform's cache directory for pnmate's tables: `$XDG_CACHE_HOME/pnmate` (or
/// `~/.cache/pnmate`) on Linux and other Unix systems, `~/Library/Caches/pnmate` on
/// macOS, `%LOCALAPPDATA%\pnmate` on Windows. None where the environment names no home.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let base = if cfg!(windows) {
        var("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|h| h.join("Library").join("Caches"))
    } else {
        var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))
    };
    base.map(|b| b.join("pnmate"))
}

/// The stored tables in `dir`: each file's ending (None: not a table of this version)
/// and length, by name.
pub fn list(dir: &Path) -> std::io::Result<Vec<(String, Option<Material>, u64)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".dtm") else { continue };
        let material = Material::named(stem).filter(|&m| load(dir, m).is_ok());
        out.push((stem.to_string(), material, entry.metadata()?.len()));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_sees_every_change() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let sum = checksum(&bytes);
        for at in [0, 31, 32, 500, 999] {
            let mut changed = bytes.clone();
            changed[at] ^= 1;
            assert_ne!(checksum(&changed), sum, "a flipped bit at {at}");
        }
        assert_ne!(checksum(&bytes[..999]), sum, "truncated");
        assert_ne!(checksum(&[0; 64]), checksum(&[0; 65]), "zeros of another length");
    }
}
