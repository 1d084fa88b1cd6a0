//! One table as the daemon runs it: the configured players, the device
//! links and the pure [`Table`], fed from raw-log rows.
//!
//! Live lines and a restart's rebuild go through the very same
//! [`Station::apply`]: a row is stored first, then applied, so replaying
//! the stored rows gives the table it had before a crash.

use crate::config::{Config, TableConfig};
use crate::link::{BoardLink, ClockLink};
use crate::pgn::{self, Tags};
use crate::store::{Dir, GameRows, LogRow};
use crate::table::{Effect, Event, Table};
use crate::wire::LineError;

/// Host notes in the raw log (`!` rows).
pub const NOTE_LOST: &str = "lost";
pub const NOTE_OPENED: &str = "opened";
pub const NOTE_TICK: &str = "tick";

const DAY_MS: u64 = 86_400_000;

#[derive(Debug)]
pub struct Station {
    pub round: u32,
    pub cfg: TableConfig,
    pub table: Table,
    board: BoardLink,
    clock: ClockLink,
    /// UTC midnight of the table's first logged row: table times are
    /// milliseconds since then, so the evidence reads as time of day (UTC).
    base: Option<u64>,
    /// The latest table time given (table times never go back).
    last_t: u64,
    tags: Tags,
}

impl Station {
    pub fn new(config: &Config, cfg: &TableConfig) -> Station {
        let mut tags = Tags {
            event: config.tournament.clone(),
            site: "?".into(),
            date: "????.??.??".into(),
            round: format!("{}.{}", config.round, cfg.board),
            white: cfg.white.clone(),
            black: cfg.black.clone(),
            time_control: config.time_control.clone(),
            extra: Vec::new(),
        };
        if let Some(id) = cfg.white_fide_id {
            tags.extra.push(("WhiteFideId".into(), id.to_string()));
        }
        if let Some(id) = cfg.black_fide_id {
            tags.extra.push(("BlackFideId".into(), id.to_string()));
        }
        Station {
            round: config.round,
            cfg: cfg.clone(),
            table: Table::new(config.table.clone()),
            board: BoardLink::default(),
            clock: ClockLink::default(),
            base: None,
            last_t: 0,
            tags,
        }
    }

    /// The table time of a host time (ms since the Unix epoch).
    pub fn time(&mut self, host_ms: u64) -> u64 {
        let base = *self.base.get_or_insert_with(|| {
            let midnight = host_ms - host_ms % DAY_MS;
            self.tags.date = utc_date(midnight);
            midnight
        });
        self.last_t = self.last_t.max(host_ms.saturating_sub(base));
        self.last_t
    }

    /// Applies one stored row; returns the table's effects and, for a
    /// device line discarded as damaged, why.
    pub fn apply(&mut self, row: &LogRow) -> (Vec<Effect>, Option<LineError>) {
        let t = self.time(row.host_ms);
        match row.dir {
            Dir::Out => (Vec::new(), None),
            Dir::In => {
                let (events, err) = if row.board {
                    self.board.feed(&row.line)
                } else {
                    self.clock.feed(&row.line)
                };
                let mut effects = Vec::new();
                for ev in events {
                    effects.extend(self.table.handle(t, ev));
                }
                (effects, err)
            }
            Dir::Note => {
                let board = row.board;
                let effects = match row.line.as_str() {
                    NOTE_LOST => self.table.handle(t, Event::DeviceLost { board }),
                    NOTE_OPENED => self.table.handle(t, Event::DeviceOpened { board }),
                    _ => self.table.tick(t),
                };
                (effects, None)
            }
        }
    }

    /// The game as PGN.
    pub fn pgn(&self) -> String {
        pgn::write(&self.tags, &self.table.moves(), self.table.result())
    }

    /// The derived rows of this game, for the store.
    pub fn save<'a>(
        &'a self,
        pgn: &'a str,
        moves: &'a [crate::table::MoveRecord],
        host_ms: u64,
    ) -> GameRows<'a> {
        GameRows {
            round: self.round,
            board: self.cfg.board,
            white: &self.cfg.white,
            black: &self.cfg.black,
            result: self.table.result(),
            pgn,
            moves,
            alerts: self.table.alerts(),
            host_ms,
        }
    }
}

/// Whether effects change what is stored about the game.
pub fn changes_game(effects: &[Effect]) -> bool {
    effects.iter().any(|e| {
        matches!(
            e,
            Effect::Move(_)
                | Effect::Alert(_)
                | Effect::ClaimClosed { .. }
                | Effect::GameOver { .. }
                | Effect::Retracted { .. }
                | Effect::Corrected { .. }
        )
    })
}

/// `YYYY.MM.DD` of a UTC midnight (ms since the epoch), for the PGN Date.
fn utc_date(ms: u64) -> String {
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = (ms / DAY_MS) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_civil_dates() {
        assert_eq!(utc_date(0), "1970.01.01");
        // 2026-11-22T00:00:00Z
        assert_eq!(utc_date(1_795_305_600_000), "2026.11.22");
        // 2024-02-29 (a leap day)
        assert_eq!(utc_date(1_709_164_800_000), "2024.02.29");
    }
}
