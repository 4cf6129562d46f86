//! The engine's options, each defined once: its UCI name, type, range and default. The
//! UCI handshake lists [`OPTIONS`]; `setoption` finds the option here and parses the
//! value against its type; the engine applies the parsed [`Setting`] by the option's
//! [`OptionId`], and a new engine applies every default the same way.

use crate::error::OptionError;
use crate::variant::game::VARIANT_NAMES;

/// The type, range and default of an option, as UCI declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An integer in `min..=max`.
    Spin {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
        /// Value of a new engine.
        default: i64,
    },
    /// A switch.
    Check {
        /// Value of a new engine.
        default: bool,
    },
    /// An action without a value.
    Button,
    /// A free text (`type string`); its default is the empty string.
    Text,
    /// A directory (`type string`) whose default is the platform's cache directory for
    /// pnmate ([`crate::knowledge::exact::file::default_dir`]); empty: none.
    CacheDir,
    /// One of a list of names (`type combo`), matched case-insensitively.
    Combo {
        /// Value of a new engine.
        default: &'static str,
        /// The names allowed.
        values: &'static [&'static str],
    },
}

/// A value for an option, checked against its [`Kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    /// For a spin option.
    Number(i64),
    /// For a check option.
    Flag(bool),
    /// For a button.
    Press,
    /// For a string option (`<empty>` reads as the empty string, as UCI GUIs send it).
    Text(String),
}

/// Which option a setting is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionId {
    /// Table size in MB.
    Hash,
    /// Search threads.
    Threads,
    /// Empties the table.
    ClearHash,
    /// Root moves reported, each with its own result.
    MultiPv,
    /// Time kept back per move for the GUI's overhead, in ms.
    MoveOverhead,
    /// Listed so that GUIs show their ponder switch; `go ponder` works regardless.
    Ponder,
    /// Chess960 castling notation.
    Chess960,
    /// Win/draw/loss figures beside scores.
    ShowWdl,
    /// Tablebase directories.
    SyzygyPath,
    /// The most men of a position the tablebases are probed for.
    SyzygyProbeLimit,
    /// The game's rules: chess or one of lichess's variants.
    Variant,
    /// Where the exact tables are stored (empty: in memory only).
    TablesCache,
}

/// One engine option.
pub struct EngineOption {
    /// The UCI name (matched case-insensitively).
    pub name: &'static str,
    /// Type, range and default.
    pub kind: Kind,
    /// What the engine sets with it.
    pub id: OptionId,
}

impl EngineOption {
    /// The `option name ...` line of the UCI handshake.
    pub fn uci_line(&self) -> String {
        match self.kind {
            Kind::Spin { min, max, default } => {
                format!("option name {} type spin default {default} min {min} max {max}", self.name)
            }
            Kind::Check { default } => format!("option name {} type check default {default}", self.name),
            Kind::Button => format!("option name {} type button", self.name),
            Kind::Text => format!("option name {} type string default <empty>", self.name),
            Kind::CacheDir => {
                let dir = default_cache_dir();
                let dir = if dir.is_empty() { "<empty>".to_string() } else { dir };
                format!("option name {} type string default {dir}", self.name)
            }
            Kind::Combo { default, values } => {
                let vars: String = values.iter().map(|v| format!(" var {v}")).collect();
                format!("option name {} type combo default {default}{vars}", self.name)
            }
        }
    }

    /// The setting of a new engine (None for buttons).
    pub fn default_setting(&self) -> Option<Setting> {
        match self.kind {
            Kind::Spin { default, .. } => Some(Setting::Number(default)),
            Kind::Check { default } => Some(Setting::Flag(default)),
            Kind::Button => None,
            Kind::Text => Some(Setting::Text(String::new())),
            Kind::CacheDir => Some(Setting::Text(default_cache_dir())),
            Kind::Combo { default, .. } => Some(Setting::Text(default.to_string())),
        }
    }

    /// Checks `value` (the text after `value`, if any) against the option's type.
    pub fn parse(&self, value: Option<&str>) -> Result<Setting, OptionError> {
        let name = self.name;
        match self.kind {
            Kind::Spin { min, max, .. } => {
                let v = value.ok_or(OptionError::NoValue(name))?.trim();
                match v.parse::<i64>() {
                    Ok(n) if (min..=max).contains(&n) => Ok(Setting::Number(n)),
                    _ => Err(OptionError::OutOfRange { name, value: v.to_string(), min, max }),
                }
            }
            Kind::Check { .. } => match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
                Some("true") => Ok(Setting::Flag(true)),
                Some("false") => Ok(Setting::Flag(false)),
                _ => Err(OptionError::NotAFlag(name)),
            },
            Kind::Button => Ok(Setting::Press),
            Kind::Text | Kind::CacheDir => {
                let v = value.map(str::trim).unwrap_or_default();
                Ok(Setting::Text(if v == "<empty>" { String::new() } else { v.to_string() }))
            }
            Kind::Combo { values, .. } => {
                let v = value.ok_or(OptionError::NoValue(name))?.trim();
                match values.iter().find(|allowed| allowed.eq_ignore_ascii_case(v)) {
                    Some(allowed) => Ok(Setting::Text(allowed.to_string())),
                    None => Err(OptionError::NotAChoice { name, value: v.to_string(), values: values.join(", ") }),
                }
            }
        }
    }
}

/// Every option, in handshake order.
pub const OPTIONS: &[EngineOption] = &[
    EngineOption { name: "Hash", kind: Kind::Spin { min: 1, max: MAX_HASH_MB, default: 64 }, id: OptionId::Hash },
    EngineOption { name: "Threads", kind: Kind::Spin { min: 1, max: MAX_THREADS, default: 1 }, id: OptionId::Threads },
    EngineOption { name: "Clear Hash", kind: Kind::Button, id: OptionId::ClearHash },
    EngineOption { name: "MultiPV", kind: Kind::Spin { min: 1, max: 256, default: 1 }, id: OptionId::MultiPv },
    EngineOption {
        name: "Move Overhead",
        kind: Kind::Spin { min: 0, max: 5000, default: 30 },
        id: OptionId::MoveOverhead,
    },
    EngineOption { name: "Ponder", kind: Kind::Check { default: false }, id: OptionId::Ponder },
    EngineOption { name: "UCI_Chess960", kind: Kind::Check { default: false }, id: OptionId::Chess960 },
    EngineOption { name: "UCI_ShowWDL", kind: Kind::Check { default: false }, id: OptionId::ShowWdl },
    EngineOption { name: "SyzygyPath", kind: Kind::Text, id: OptionId::SyzygyPath },
    EngineOption {
        name: "SyzygyProbeLimit",
        kind: Kind::Spin { min: 0, max: 7, default: 7 },
        id: OptionId::SyzygyProbeLimit,
    },
    EngineOption {
        name: "UCI_Variant",
        kind: Kind::Combo { default: "chess", values: &VARIANT_NAMES },
        id: OptionId::Variant,
    },
    EngineOption { name: "TablesCache", kind: Kind::CacheDir, id: OptionId::TablesCache },
];

/// The platform's cache directory for the exact tables, as text (empty where there is
/// none).
fn default_cache_dir() -> String {
    crate::knowledge::exact::file::default_dir().map(|d| d.display().to_string()).unwrap_or_default()
}

/// The largest table, in MB (UCI `Hash`, CLI `--hash`).
pub const MAX_HASH_MB: i64 = 65536;

/// The most search threads (UCI `Threads`, CLI `--threads`).
pub const MAX_THREADS: i64 = 1024;

/// The option called `name` (case-insensitive, surrounding blanks ignored).
pub fn find(name: &str) -> Option<&'static EngineOption> {
    let name = name.trim();
    OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_checks_types_and_ranges() {
        let hash = find("hash").unwrap();
        assert_eq!(hash.parse(Some(" 128 ")), Ok(Setting::Number(128)));
        assert!(hash.parse(Some("0")).is_err());
        assert!(hash.parse(Some("lots")).is_err());
        assert!(hash.parse(None).is_err());
        assert_eq!(find("Clear Hash").unwrap().parse(None), Ok(Setting::Press));
        assert!(find("NoSuchOption").is_none());
        assert_eq!(hash.uci_line(), "option name Hash type spin default 64 min 1 max 65536");
        let syzygy = find("syzygypath").unwrap();
        assert_eq!(syzygy.uci_line(), "option name SyzygyPath type string default <empty>");
        assert_eq!(syzygy.parse(Some("<empty>")), Ok(Setting::Text(String::new())));
        assert_eq!(syzygy.parse(Some(" /tb/wdl:/tb/dtz ")), Ok(Setting::Text("/tb/wdl:/tb/dtz".into())));
        assert_eq!(syzygy.parse(None), Ok(Setting::Text(String::new())));
        let wdl = find("UCI_ShowWDL").unwrap();
        assert_eq!(wdl.uci_line(), "option name UCI_ShowWDL type check default false");
        assert_eq!(wdl.parse(Some("TRUE")), Ok(Setting::Flag(true)));
        let variant = find("uci_variant").unwrap();
        assert_eq!(
            variant.uci_line(),
            "option name UCI_Variant type combo default chess var chess var antichess var atomic var crazyhouse \
             var horde var kingofthehill var racingkings var 3check"
        );
        assert_eq!(variant.parse(Some("Atomic")), Ok(Setting::Text("atomic".into())));
        assert!(variant.parse(Some("shogi")).is_err());
    }
}
