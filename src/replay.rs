//! Replaying TMREC recordings through the table, with the recorded times,
//! exactly as live traffic goes through it: each device line through its
//! [`link`](crate::link), each event into [`Table::handle`]. Needs no device
//! and no database.

use std::path::Path;

use serde::Serialize;

use crate::link::{BoardLink, ClockLink};
use crate::pgn::{self, Tags};
use crate::table::{self, Alert, Effect, MoveRecord, Table};
use crate::wire::{Device, Direction, LineError, Record, Recording};

/// What a replay found.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The name the recording was given (its path as on the command line).
    pub file: String,
    pub moves: Vec<MoveRecord>,
    pub result: &'static str,
    pub alerts: Vec<Alert>,
    pub pgn: String,
    /// Damaged recording lines and discarded device lines, each naming
    /// where it was.
    pub warnings: Vec<String>,
    /// Device lines fed to the table.
    pub events: u64,
}

/// Why a recording could not be replayed at all.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not text (UTF-8 expected at byte {at})")]
    NotText { path: String, at: usize },
}

/// Reads and replays one recording file.
pub fn replay_file(path: &Path, cfg: &table::Config) -> Result<Replay, ReplayError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| ReplayError::Read {
        path: name.clone(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| ReplayError::NotText {
        path: name.clone(),
        at: e.utf8_error().valid_up_to(),
    })?;
    Ok(replay(&Recording::parse(&text), &name, cfg))
}

/// Feeds recorded lines to a table one at a time, as the live driver does:
/// each line through its device's link, each event with the line's time.
#[derive(Debug)]
pub struct Feeder {
    pub table: Table,
    board: BoardLink,
    clock: ClockLink,
    last_t: u64,
    /// Events fed to the table.
    pub events: u64,
}

impl Feeder {
    pub fn new(cfg: &table::Config) -> Feeder {
        Feeder {
            table: Table::new(cfg.clone()),
            board: BoardLink::default(),
            clock: ClockLink::default(),
            last_t: 0,
            events: 0,
        }
    }

    /// Feeds one recorded line; lines the host sent are skipped. Returns
    /// the table's effects, and the reason a device line was discarded.
    pub fn feed(&mut self, r: &Record) -> (Vec<Effect>, Option<LineError>) {
        if r.dir != Direction::FromDevice {
            return (Vec::new(), None);
        }
        self.last_t = self.last_t.max(r.t_ms);
        let (evs, err) = match r.device {
            Device::Board => self.board.feed(&r.line),
            Device::Clock => self.clock.feed(&r.line),
        };
        let mut effects = Vec::new();
        for ev in evs {
            self.events += 1;
            effects.extend(self.table.handle(self.last_t, ev));
        }
        (effects, err)
    }

    /// The recording has ended.
    pub fn finish(&mut self) -> Vec<Effect> {
        self.table.finish(self.last_t + 1000)
    }
}

/// Replays a parsed recording.
pub fn replay(rec: &Recording, name: &str, cfg: &table::Config) -> Replay {
    let mut warnings: Vec<String> = rec
        .errors
        .iter()
        .map(|e| format!("{name}:{}: {}", e.line, e.why))
        .collect();
    let mut feeder = Feeder::new(cfg);
    for (n, r) in rec.records() {
        if let (_, Some(e)) = feeder.feed(r) {
            warnings.push(format!(
                "{name}:{n}: {} line discarded: {e}",
                r.device.name()
            ));
        }
    }
    feeder.finish();
    let table = &feeder.table;
    let moves = table.moves();
    let result = table.result();
    let tags = Tags::from_pairs(&rec.game_tags());
    let pgn = pgn::write(&tags, &moves, result);
    Replay {
        file: name.to_string(),
        moves,
        result,
        alerts: table.alerts().to_vec(),
        pgn,
        warnings,
        events: feeder.events,
    }
}

#[derive(Serialize)]
struct JsonAlert<'a> {
    ply: u32,
    kind: &'static str,
    article: Option<&'static str>,
    severity: table::Severity,
    side: Option<&'static str>,
    squares: Vec<String>,
    t_ms: u64,
    detail: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    claim: Option<JsonClaim>,
}

/// The opponent's claim window of an Article 4 alert (2023 4.8 / 2001 4.6).
#[derive(Serialize)]
struct JsonClaim {
    claimant: &'static str,
    opened_ms: u64,
    /// When the claimant first touched a piece; `null`: still open.
    closed_ms: Option<u64>,
}

#[derive(Serialize)]
struct JsonReplay<'a> {
    file: &'a str,
    moves: Vec<&'a str>,
    uci: Vec<&'a str>,
    result: &'a str,
    alerts: Vec<JsonAlert<'a>>,
    pgn: &'a str,
    warnings: &'a [String],
}

impl Replay {
    /// The one-line JSON document of SPEC.md, "replay --json".
    pub fn to_json(&self) -> String {
        let doc = JsonReplay {
            file: &self.file,
            moves: self.moves.iter().map(|m| m.san.as_str()).collect(),
            uci: self.moves.iter().map(|m| m.uci.as_str()).collect(),
            result: self.result,
            alerts: self
                .alerts
                .iter()
                .map(|a| JsonAlert {
                    ply: a.ply,
                    kind: a.kind.name(),
                    article: a.article,
                    severity: a.severity(),
                    side: a.side.map(side_name),
                    squares: a.squares.iter().map(|s| s.to_string()).collect(),
                    t_ms: a.t_ms,
                    detail: &a.detail,
                    claim: a.claim.map(|w| JsonClaim {
                        claimant: side_name(w.claimant),
                        opened_ms: w.opened_ms,
                        closed_ms: w.closed_ms,
                    }),
                })
                .collect(),
            pgn: &self.pgn,
            warnings: &self.warnings,
        };
        serde_json::to_string(&doc).expect("plain data serialises")
    }
}

fn side_name(c: shakmaty::Color) -> &'static str {
    match c {
        shakmaty::Color::White => "white",
        shakmaty::Color::Black => "black",
    }
}
