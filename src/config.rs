//! The daemon's configuration: one TOML file (SPEC.md, "Configuration").
//!
//! Every problem is reported with the file, the line and the field it is
//! in, and all problems are reported at once (`touchmove check-config`), so
//! an organiser setting up a hall fixes the file in one pass. Unknown keys
//! are errors: a misspelt `displaced_ms` silently ignored would leave a
//! default the organiser did not choose.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::laws::{Category, Edition};
use crate::table;

/// The default place of the config file.
pub const DEFAULT_PATH: &str = "/etc/touchmove/touchmove.toml";

/// One problem in a config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    /// 1-based line, 0 when the problem is the file as a whole.
    pub line: usize,
    /// The key the problem is in (`table[2].device`), or empty.
    pub field: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// All problems found in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    tournament: Option<String>,
    round: Option<Spanned<i64>>,
    laws: Option<Spanned<String>>,
    category: Option<Spanned<String>>,
    time_control: Option<Spanned<String>>,
    set_clocks: Option<bool>,
    state_dir: Option<PathBuf>,
    touch_min_ms: Option<Spanned<i64>>,
    release_min_ms: Option<Spanned<i64>>,
    displaced_ms: Option<Spanned<i64>>,
    apply_penalties: Option<bool>,
    http: Option<RawHttp>,
    mqtt: Option<RawMqtt>,
    lichess: Option<RawLichess>,
    #[serde(default)]
    table: Vec<Spanned<RawTable>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHttp {
    bind: Option<Spanned<String>>,
    token_file: Option<PathBuf>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMqtt {
    url: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLichess {
    base_url: Option<String>,
    round_id: Spanned<String>,
    token_file: PathBuf,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    board: Spanned<i64>,
    device: Spanned<String>,
    clock: Option<Spanned<String>>,
    white: Option<String>,
    black: Option<String>,
    white_fide_id: Option<u64>,
    black_fide_id: Option<u64>,
}

/// A checked configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The file it was read from.
    pub file: PathBuf,
    pub tournament: String,
    pub round: u32,
    pub time_control: String,
    pub set_clocks: bool,
    pub state_dir: PathBuf,
    /// What the table needs: laws, category, thresholds, penalties.
    pub table: table::Config,
    pub http: Http,
    pub mqtt: Option<String>,
    pub lichess: Option<Lichess>,
    pub tables: Vec<TableConfig>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Http {
    pub bind: std::net::SocketAddr,
    pub token_file: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Lichess {
    pub base_url: String,
    pub round_id: String,
    pub token_file: PathBuf,
}

/// One table: a board, perhaps a clock, and who plays there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableConfig {
    /// The board number (PGN `Round "R.B"`).
    pub board: u32,
    pub device: PathBuf,
    pub clock: Option<PathBuf>,
    pub white: String,
    pub black: String,
    pub white_fide_id: Option<u64>,
    pub black_fide_id: Option<u64>,
}

impl Config {
    /// The SQLite database: `<state_dir>/touchmove.db`.
    pub fn database(&self) -> PathBuf {
        self.state_dir.join("touchmove.db")
    }
}

/// Reads and checks a config file.
pub fn load(path: &Path) -> Result<Config, ConfigErrors> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ConfigErrors(vec![ConfigError {
            file: path.to_path_buf(),
            line: 0,
            field: String::new(),
            message: format!("cannot read: {e}"),
        }])
    })?;
    parse(&text, path)
}

/// Checks a config text; `file` names it in the errors.
pub fn parse(text: &str, file: &Path) -> Result<Config, ConfigErrors> {
    let mut errs = Errors {
        text,
        file,
        list: Vec::new(),
    };
    let raw: Raw = match toml::from_str(text) {
        Ok(r) => r,
        Err(e) => {
            let line = e.span().map_or(0, |s| errs.line_of(s.start));
            let message = e.message().trim().to_string();
            let field = field_in(&message);
            errs.list.push(ConfigError {
                file: file.to_path_buf(),
                line,
                field,
                message,
            });
            return Err(ConfigErrors(errs.list));
        }
    };
    let mut cfg = table::Config::default();
    let round = match &raw.round {
        Some(r) => errs.range(r, "round", 1, 9999).unwrap_or(1) as u32,
        None => 1,
    };
    if let Some(l) = &raw.laws {
        match Edition::parse(l.get_ref()) {
            Some(e) => cfg.laws = e,
            None => errs.at(
                l.span(),
                "laws",
                format!(
                    "{:?} is not an edition (fide-2023 or fide-2001)",
                    l.get_ref()
                ),
            ),
        }
    }
    if let Some(c) = &raw.category {
        match Category::parse(c.get_ref()) {
            Some(k) => cfg.category = k,
            None => errs.at(
                c.span(),
                "category",
                format!(
                    "{:?} is not a category (standard, rapid or blitz)",
                    c.get_ref()
                ),
            ),
        }
    }
    let time_control = match &raw.time_control {
        Some(tc) => {
            if !valid_time_control(tc.get_ref()) {
                errs.at(
                    tc.span(),
                    "time_control",
                    format!(
                        "{:?} is not a PGN TimeControl (e.g. \"5400+30\", \"40/5400:1800+30\", \"-\")",
                        tc.get_ref()
                    ),
                );
            }
            tc.get_ref().clone()
        }
        None => "?".to_string(),
    };
    if let Some(v) = &raw.touch_min_ms {
        if let Some(v) = errs.range(v, "touch_min_ms", 10, 5000) {
            cfg.touch_min_ms = v as u64;
        }
    }
    if let Some(v) = &raw.release_min_ms {
        if let Some(v) = errs.range(v, "release_min_ms", 10, 5000) {
            cfg.release_min_ms = v as u64;
        }
    }
    if let Some(v) = &raw.displaced_ms {
        if let Some(v) = errs.range(v, "displaced_ms", 500, 600_000) {
            cfg.displaced_ms = v as u64;
        }
    }
    cfg.apply_penalties = raw.apply_penalties.unwrap_or(false);
    if raw.set_clocks == Some(true) {
        let tc = raw.time_control.as_ref().map(|t| t.get_ref().as_str());
        if tc.and_then(clock_setting).is_none() {
            let line = raw
                .time_control
                .as_ref()
                .map_or(0, |t| errs.line_of(t.span().start));
            errs.list.push(ConfigError {
                file: file.to_path_buf(),
                line,
                field: "set_clocks".into(),
                message: format!(
                    "set_clocks needs a time_control of one period, \"base+increment\" in seconds (e.g. \"5400+30\"), not {tc:?}"
                ),
            });
        }
    }
    let http = match &raw.http {
        Some(h) => {
            let bind = match &h.bind {
                Some(b) => match b.get_ref().parse() {
                    Ok(a) => a,
                    Err(_) => {
                        errs.at(
                            b.span(),
                            "http.bind",
                            format!("{:?} is not an address:port", b.get_ref()),
                        );
                        default_bind()
                    }
                },
                None => default_bind(),
            };
            Http {
                bind,
                token_file: h.token_file.clone(),
            }
        }
        None => Http {
            bind: default_bind(),
            token_file: None,
        },
    };
    let mqtt = raw.mqtt.as_ref().map(|m| {
        let url = m.url.get_ref();
        if !url.starts_with("mqtt://") && !url.starts_with("tcp://") {
            errs.at(
                m.url.span(),
                "mqtt.url",
                format!("{url:?} must start with mqtt:// (e.g. mqtt://127.0.0.1:1883)"),
            );
        }
        url.clone()
    });
    let lichess = raw.lichess.as_ref().map(|l| {
        if l.round_id.get_ref().trim().is_empty() {
            errs.at(
                l.round_id.span(),
                "lichess.round_id",
                "must not be empty".into(),
            );
        }
        Lichess {
            base_url: l
                .base_url
                .clone()
                .unwrap_or_else(|| "https://lichess.org".into()),
            round_id: l.round_id.get_ref().clone(),
            token_file: l.token_file.clone(),
        }
    });
    let mut tables = Vec::new();
    if raw.table.is_empty() {
        errs.list.push(ConfigError {
            file: file.to_path_buf(),
            line: 0,
            field: "table".into(),
            message: "no [[table]]: at least one table (board number and device) is needed".into(),
        });
    }
    for (i, t) in raw.table.iter().enumerate() {
        let key = |k: &str| format!("table[{}].{k}", i + 1);
        let t = t.get_ref();
        let board = errs.range(&t.board, &key("board"), 1, 9999).unwrap_or(0) as u32;
        if let Some(first) = tables.iter().position(|o: &TableConfig| o.board == board) {
            errs.at(
                t.board.span(),
                &key("board"),
                format!("board {board} is also table[{}]", first + 1),
            );
        }
        let device = PathBuf::from(t.device.get_ref());
        if t.device.get_ref().trim().is_empty() {
            errs.at(t.device.span(), &key("device"), "must not be empty".into());
        }
        let clock = t.clock.as_ref().map(|c| {
            if c.get_ref().trim().is_empty() {
                errs.at(c.span(), &key("clock"), "must not be empty".into());
            }
            PathBuf::from(c.get_ref())
        });
        for (j, o) in tables.iter().enumerate() {
            let o: &TableConfig = o;
            let mut used = vec![&o.device];
            used.extend(o.clock.iter());
            if used.contains(&&device) {
                errs.at(
                    t.device.span(),
                    &key("device"),
                    format!("{} is also used by table[{}]", device.display(), j + 1),
                );
            }
            if let (Some(c), Some(span)) = (&clock, t.clock.as_ref().map(|c| c.span())) {
                if used.contains(&c) {
                    errs.at(
                        span,
                        &key("clock"),
                        format!("{} is also used by table[{}]", c.display(), j + 1),
                    );
                }
            }
        }
        if clock.as_ref() == Some(&device) {
            errs.at(
                t.device.span(),
                &key("clock"),
                "the clock and the board cannot be the same device".into(),
            );
        }
        tables.push(TableConfig {
            board,
            device,
            clock,
            white: t.white.clone().unwrap_or_else(|| "?".into()),
            black: t.black.clone().unwrap_or_else(|| "?".into()),
            white_fide_id: t.white_fide_id.filter(|&n| n > 0),
            black_fide_id: t.black_fide_id.filter(|&n| n > 0),
        });
    }
    if !errs.list.is_empty() {
        errs.list.sort_by_key(|e| e.line);
        return Err(ConfigErrors(errs.list));
    }
    Ok(Config {
        file: file.to_path_buf(),
        tournament: raw.tournament.unwrap_or_else(|| "?".into()),
        round,
        time_control,
        set_clocks: raw.set_clocks.unwrap_or(false),
        state_dir: raw
            .state_dir
            .unwrap_or_else(|| PathBuf::from("/var/lib/touchmove")),
        table: cfg,
        http,
        mqtt,
        lichess,
        tables,
    })
}

fn default_bind() -> std::net::SocketAddr {
    std::net::SocketAddr::from(([127, 0, 0, 1], 8080))
}

/// The TMC1 `N` setting of a PGN TimeControl of one period, `base+inc` or
/// `base` (seconds); `None` for anything a clock cannot be set to this way
/// (with `set_clocks = true` such a time control is a config error; without
/// it the clocks are set by hand).
pub fn clock_setting(tc: &str) -> Option<crate::wire::ClockCommand> {
    let (base, inc) = tc.split_once('+').unwrap_or((tc, "0"));
    let base: u64 = base.parse().ok()?;
    let inc: u64 = inc.parse().ok()?;
    Some(crate::wire::ClockCommand::Set {
        white_ms: base * 1000,
        black_ms: base * 1000,
        increment_ms: inc * 1000,
        mode: if inc > 0 {
            crate::wire::ClockMode::Fischer
        } else {
            crate::wire::ClockMode::None
        },
    })
}

/// PGN TimeControl: `?`, `-`, `*N`, `N`, `N+I`, or `moves/N[+I]` periods
/// joined by `:`.
fn valid_time_control(tc: &str) -> bool {
    if tc == "?" || tc == "-" {
        return true;
    }
    let num = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    tc.split(':').all(|period| {
        let period = period.strip_prefix('*').unwrap_or(period);
        let (moves, rest) = match period.split_once('/') {
            Some((m, r)) => (Some(m), r),
            None => (None, period),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (b, Some(i)),
            None => (rest, None),
        };
        moves.is_none_or(num) && num(base) && inc.is_none_or(num)
    })
}

/// The key a serde message names (`unknown field `foo``), if any.
fn field_in(message: &str) -> String {
    for marker in ["unknown field `", "missing field `", "duplicate key `"] {
        if let Some(rest) = message.split(marker).nth(1) {
            if let Some(end) = rest.find('`') {
                return rest[..end].to_string();
            }
        }
    }
    String::new()
}

struct Errors<'a> {
    text: &'a str,
    file: &'a Path,
    list: Vec<ConfigError>,
}

impl Errors<'_> {
    fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .bytes()
            .filter(|&b| b == b'\n')
            .count()
            + 1
    }

    fn at(&mut self, span: Range<usize>, field: &str, message: String) {
        let line = self.line_of(span.start);
        self.list.push(ConfigError {
            file: self.file.to_path_buf(),
            line,
            field: field.to_string(),
            message,
        });
    }

    fn range(&mut self, v: &Spanned<i64>, field: &str, min: i64, max: i64) -> Option<i64> {
        let n = *v.get_ref();
        if (min..=max).contains(&n) {
            Some(n)
        } else {
            self.at(
                v.span(),
                field,
                format!("{n} is out of range ({min} to {max})"),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
tournament = "Club Championship 2026"
round = 3
laws = "fide-2001"
category = "rapid"
time_control = "5400+30"
state_dir = "/tmp/tm"
touch_min_ms = 150

[http]
bind = "0.0.0.0:8080"

[[table]]
board = 1
device = "/dev/touchmove/board-TMB-00042"
clock = "/dev/touchmove/clock-CLK-7"
white = "Doe, Jane"
black = "Roe, Richard"
white_fide_id = 0

[[table]]
board = 2
device = "/dev/touchmove/board-TMB-00043"
"#;

    fn errors(text: &str) -> Vec<ConfigError> {
        parse(text, Path::new("t.toml")).unwrap_err().0
    }

    #[test]
    fn the_documented_shape_is_read() {
        let c = parse(GOOD, Path::new("t.toml")).unwrap();
        assert_eq!(c.round, 3);
        assert_eq!(c.table.laws, Edition::Fide2001);
        assert_eq!(c.table.category, Category::Rapid);
        assert_eq!(c.table.touch_min_ms, 150);
        assert_eq!(c.tables.len(), 2);
        assert_eq!(c.tables[0].white_fide_id, None, "0 means none");
        assert_eq!(c.tables[1].clock, None);
        assert_eq!(c.database(), Path::new("/tmp/tm/touchmove.db"));
        assert_eq!(c.http.bind.port(), 8080);
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let text = GOOD.replace("touch_min_ms = 150", "touch_min_msec = 150");
        let e = errors(&text);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].line, 8);
        assert_eq!(e[0].field, "touch_min_msec");
        assert!(
            e[0].to_string().starts_with("t.toml:8: touch_min_msec: "),
            "{}",
            e[0]
        );
    }

    #[test]
    fn every_bad_value_is_reported_at_once() {
        let text = GOOD
            .replace("\"fide-2001\"", "\"fide-1999\"")
            .replace("\"rapid\"", "\"bullet\"")
            .replace("board = 2", "board = 1")
            .replace("\"0.0.0.0:8080\"", "\"everywhere\"");
        let e = errors(&text);
        let got: Vec<(usize, &str)> = e.iter().map(|e| (e.line, e.field.as_str())).collect();
        assert_eq!(
            got,
            [
                (4, "laws"),
                (5, "category"),
                (11, "http.bind"),
                (22, "table[2].board")
            ]
        );
    }

    #[test]
    fn a_table_needs_a_device_and_two_tables_cannot_share_one() {
        let text = GOOD.replace(
            "/dev/touchmove/board-TMB-00043",
            "/dev/touchmove/clock-CLK-7",
        );
        let e = errors(&text);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].field, "table[2].device");
        assert!(e[0].message.contains("table[1]"), "{}", e[0].message);
        let e = errors("round = 1\n");
        assert_eq!(e[0].field, "table");
        let e = errors("[[table]]\nboard = 1\n");
        assert!(e[0].message.contains("device"), "{e:?}");
    }

    #[test]
    fn set_clocks_needs_a_time_control_a_clock_can_take() {
        let text = GOOD.replace("set_clocks", "x").replace(
            "time_control = \"5400+30\"",
            "time_control = \"40/5400:1800+30\"\nset_clocks = true",
        );
        let e = errors(&text);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!((e[0].line, e[0].field.as_str()), (6, "set_clocks"));
    }

    #[test]
    fn time_controls_follow_the_pgn_standard() {
        for ok in ["5400+30", "40/5400:1800+30", "-", "?", "*60", "900"] {
            assert!(valid_time_control(ok), "{ok}");
        }
        for bad in ["90 min", "5400+", "+30", "40/", ""] {
            assert!(!valid_time_control(bad), "{bad}");
        }
    }
}
