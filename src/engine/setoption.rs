//! The UCI options, applied to the engine (their names and ranges are in
//! `crate::options`).

use std::sync::Arc;
use std::time::Duration;

use super::{Engine, Root};
use crate::error::{OptionError, UciError};
use crate::knowledge::exact;
use crate::knowledge::tablebase::SyzygyTables;
use crate::options::{OptionId, Setting, find as find_option};
use crate::tt::TranspositionTable;
use crate::variant::variant_named;

impl Engine {
    /// Sets an option by its UCI name (case-insensitive). Returns a remark for the user
    /// when the value is accepted with one.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<Option<String>, UciError> {
        let bad = |reason: String| UciError::BadArguments { command: "setoption".into(), reason };
        let option = find_option(name).ok_or_else(|| bad(format!("unknown option '{}'", name.trim())))?;
        let setting = option.parse(value).map_err(|e| bad(e.to_string()))?;
        self.apply(option.id, setting).map_err(|e| bad(e.to_string()))
    }

    /// Applies a checked setting of option `id`; returns a remark for the user, if any.
    pub(super) fn apply(&mut self, id: OptionId, setting: Setting) -> Result<Option<String>, OptionError> {
        let number = || if let Setting::Number(n) = setting { n } else { 0 };
        let flag = matches!(setting, Setting::Flag(true));
        Ok(match id {
            OptionId::Hash => return self.set_hash_mb(number() as usize),
            OptionId::Threads => self.set_threads(number() as usize),
            OptionId::ClearHash => self.clear_hash(),
            OptionId::MultiPv => self.set_multipv(number() as usize),
            OptionId::MoveOverhead => self.set_move_overhead_ms(number() as u64),
            OptionId::Ponder => None,
            OptionId::Chess960 => self.set_chess960(flag),
            OptionId::ShowWdl => self.set_show_wdl(flag),
            OptionId::SyzygyPath => {
                let Setting::Text(path) = setting else { return Ok(None) };
                self.syzygy.path = path;
                self.load_tables()
            }
            OptionId::SyzygyProbeLimit => {
                self.syzygy.probe_limit = number() as usize;
                self.load_tables()
            }
            OptionId::Variant => {
                let Setting::Text(name) = setting else { return Ok(None) };
                self.set_variant(&name)
            }
            OptionId::TablesCache => {
                let Setting::Text(dir) = setting else { return Ok(None) };
                exact::store().set_cache((!dir.is_empty()).then(|| dir.into()));
                None
            }
        })
    }

    /// Loads the tables of the SyzygyPath option for positions within the probe limit;
    /// says what it found (nothing when the path is empty).
    pub(super) fn load_tables(&mut self) -> Option<String> {
        self.stop();
        let _ = self.wait();
        let (tables, loaded) = SyzygyTables::load(&self.syzygy.path, self.syzygy.probe_limit);
        self.syzygy.tables = tables;
        // The option reads `<empty>` as the empty string.
        if self.syzygy.path.trim().is_empty() {
            return None;
        }
        let summary = loaded.summary();
        let mut lines = loaded.problems;
        lines.push(summary);
        Some(lines.join("\n"))
    }

    /// The table, for exclusive use between searches (after [`Engine::stop`] and
    /// [`Engine::wait`]).
    pub(super) fn table_mut(&mut self) -> &mut TranspositionTable {
        if Arc::get_mut(&mut self.tt).is_none() {
            // Only a search thread shares the table, and it has ended; should one still
            // hold it, the engine goes on with a fresh table of the same size.
            self.tt = Arc::new(TranspositionTable::new(self.tt.size_mb()));
        }
        Arc::get_mut(&mut self.tt).expect("the table is not shared")
    }

    /// Resizes the table to `mb` megabytes (the Hash option); stops a running search.
    pub(crate) fn set_hash_mb(&mut self, mb: usize) -> Result<Option<String>, OptionError> {
        self.stop();
        let _ = self.wait();
        self.table_mut().resize(mb).map(|()| None).map_err(|e| OptionError::Allocation(e.to_string()))
    }

    /// Sets the number of search threads (the Threads option).
    pub(crate) fn set_threads(&mut self, n: usize) -> Option<String> {
        self.settings.threads = n.max(1);
        None
    }

    /// Whether scores come with win/draw/loss figures (the UCI_ShowWDL option).
    pub(crate) fn set_show_wdl(&mut self, on: bool) -> Option<String> {
        self.settings.show_wdl = on;
        None
    }

    /// Sets how many root moves a search reports (the MultiPV option).
    pub(crate) fn set_multipv(&mut self, k: usize) -> Option<String> {
        self.settings.multipv = k.max(1);
        None
    }

    /// Sets Chess960 notation for castling moves (the UCI_Chess960 option). Chess960
    /// positions are recognised from their castling rights whatever the setting.
    pub(crate) fn set_chess960(&mut self, on: bool) -> Option<String> {
        self.settings.chess960 = on;
        None
    }

    /// Sets the game's rules (the UCI_Variant option): the position becomes the variant's
    /// start until the next `position`. The table's keys are salted per variant, so what
    /// it holds of another variant is never read as this one's.
    pub(crate) fn set_variant(&mut self, name: &str) -> Option<String> {
        let variant = variant_named(name)?;
        if variant != self.variant {
            self.variant = variant;
            self.pos = Root::start(variant);
            self.history.clear();
            self.repeated.clear();
            self.position_error = None;
        }
        None
    }

    /// Forgets the table (the Clear Hash option); stops a running search.
    pub(crate) fn clear_hash(&mut self) -> Option<String> {
        self.stop();
        let _ = self.wait();
        self.table_mut().clear();
        self.fallback_tt.lock().unwrap_or_else(|e| e.into_inner()).clear();
        None
    }

    /// Sets the time kept in reserve per move (the Move Overhead option).
    pub(crate) fn set_move_overhead_ms(&mut self, ms: u64) -> Option<String> {
        self.settings.move_overhead = Duration::from_millis(ms);
        None
    }
}
