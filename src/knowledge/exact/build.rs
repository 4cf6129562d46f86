//! The build of one ending's table: by the bit-parallel sweep where it goes, node by node
//! where en passant can occur.

use super::material::Material;
use super::moves::Built;
use super::progress::Progress;
use super::table::DtmTable;

/// Builds the table of `material` from the built tables of the materials its captures and
/// promotions lead to (all of them must be in `built`), saying how far it has got in
/// `progress`.
pub(crate) fn build(material: Material, built: &Built, progress: &Progress) -> DtmTable {
    super::sweep::build(material, built, progress).unwrap_or_else(|| super::nodes::build(material, built, progress))
}
