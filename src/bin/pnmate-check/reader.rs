//! The certificate's bytes, read in order: header lines, varints and a section's nodes.

use crate::broken::Broken;
use crate::shape::{Kind, Shape};
use crate::{Invalid, format};

/// The edge count of a tablebase leaf.
const TABLEBASE_LEAF: u64 = 1023;

/// Reads a certificate's bytes in order.
pub struct Reader<'b> {
    pub bytes: &'b [u8],
    pub at: usize,
}

impl<'b> Reader<'b> {
    pub fn take(&mut self, n: usize) -> Result<&'b [u8], Invalid> {
        let s = self.bytes.get(self.at..self.at + n).ok_or_else(|| format("the file is truncated"))?;
        self.at += n;
        Ok(s)
    }

    pub fn line(&mut self) -> Result<String, Invalid> {
        let rest = &self.bytes[self.at..];
        let end = rest.iter().take(4096).position(|&b| b == b'\n').ok_or_else(|| format("the header is truncated"))?;
        let text = std::str::from_utf8(&rest[..end]).map_err(|_| format("the header is not UTF-8"))?.to_string();
        self.at += end + 1;
        Ok(text)
    }

    pub fn varint(&mut self) -> Result<u64, Invalid> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format("a number longer than 64 bits"))
    }
}

/// A section's nodes as read: each one's hash, where its edges start, the edges (move
/// code, child) and the tablebase leaves.
pub struct Nodes {
    pub hashes: Vec<u64>,
    pub starts: Vec<usize>,
    pub edges: Vec<(u16, u32)>,
    pub table_leaves: Vec<usize>,
}

/// Reads the nodes of a section; tablebase leaves only in a disproof that may have them.
pub fn read_nodes(r: &mut Reader, shape: &Shape, tablebases: bool) -> Result<Nodes, Invalid> {
    let n = shape.nodes;
    if n > (r.bytes.len() - r.at) / 9 {
        return Err(format("the file is truncated (fewer bytes than the announced nodes need)"));
    }
    let mut hashes = Vec::with_capacity(n);
    let mut starts = Vec::with_capacity(n + 1);
    let mut edges: Vec<(u16, u32)> = Vec::new();
    let mut table_leaves = Vec::new();
    for i in 0..n {
        hashes.push(u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes")));
        starts.push(edges.len());
        let k = r.varint()?;
        if k == TABLEBASE_LEAF {
            if !tablebases || shape.kind != Kind::Disproof {
                return Err(Invalid::Node { node: i, fen: None, why: Broken::UnannouncedTableLeaf });
            }
            table_leaves.push(i);
            continue;
        }
        if k > 512 {
            return Err(format("a node with more than 512 edges"));
        }
        for _ in 0..k {
            let code = u16::from_le_bytes(r.take(2)?.try_into().expect("2 bytes"));
            let child = r.varint()?;
            edges.push((code, u32::try_from(child).map_err(|_| format("child index out of range"))?));
        }
    }
    starts.push(edges.len());
    Ok(Nodes { hashes, starts, edges, table_leaves })
}
