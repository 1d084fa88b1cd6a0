//! Durable storage in SQLite (SPEC.md, "Storage").
//!
//! The raw log is the truth: every line read from a device, every line sent
//! to one, and the host's own notes (a device lost or opened, time passing
//! that made the table act) are appended, with the host time, *before* the
//! table acts on them. Games, moves and alerts are derived from it and
//! rewritten in one transaction whenever they change, so a crash or a power
//! cut leaves either the old or the new derived rows, and a restart rebuilds
//! every table by replaying its log.
//!
//! WAL and `synchronous=FULL`: a line is on the disk when `append` returns
//! (a Raspberry Pi's SD card loses what sits in the page cache when the
//! power goes).

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};

use crate::table::{Alert, MoveRecord};

/// Schema versions, applied in order; `PRAGMA user_version` says how many
/// have been applied. Never edit one that has shipped: add the next.
const MIGRATIONS: &[&str] = &[
    // 1: the raw log and the derived tables.
    "CREATE TABLE raw_log (
        id INTEGER PRIMARY KEY,
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        host_ms INTEGER NOT NULL,
        device TEXT NOT NULL CHECK (device IN ('board', 'clock')),
        dir TEXT NOT NULL CHECK (dir IN ('>', '<', '!')),
        line TEXT NOT NULL
    );
    CREATE INDEX raw_log_by_table ON raw_log (round, board, id);
    CREATE TABLE games (
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        white TEXT NOT NULL,
        black TEXT NOT NULL,
        result TEXT NOT NULL,
        pgn TEXT NOT NULL,
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY (round, board)
    );
    CREATE TABLE moves (
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        ply INTEGER NOT NULL,
        san TEXT NOT NULL,
        uci TEXT NOT NULL,
        t_ms INTEGER NOT NULL,
        clock_ms INTEGER,
        PRIMARY KEY (round, board, ply)
    );
    CREATE TABLE alerts (
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        n INTEGER NOT NULL,
        ply INTEGER NOT NULL,
        kind TEXT NOT NULL,
        article TEXT,
        severity TEXT NOT NULL,
        side TEXT,
        squares TEXT NOT NULL,
        t_ms INTEGER NOT NULL,
        detail TEXT NOT NULL,
        claim_closed_ms INTEGER,
        PRIMARY KEY (round, board, n)
    );
    CREATE TABLE decisions (
        id INTEGER PRIMARY KEY,
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        host_ms INTEGER NOT NULL,
        action TEXT NOT NULL,
        payload TEXT NOT NULL
    );",
];

/// Why the store failed, with the database file.
#[derive(Debug, thiserror::Error)]
#[error("{}: {what}: {source}", path.display())]
pub struct StoreError {
    pub path: PathBuf,
    pub what: &'static str,
    #[source]
    pub source: rusqlite::Error,
}

/// Which way a logged line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// `>`: read from the device.
    In,
    /// `<`: sent to the device.
    Out,
    /// `!`: the host's note (`lost`, `opened`, `tick`).
    Note,
}

impl Dir {
    fn code(self) -> &'static str {
        match self {
            Dir::In => ">",
            Dir::Out => "<",
            Dir::Note => "!",
        }
    }

    fn parse(s: &str) -> Option<Dir> {
        match s {
            ">" => Some(Dir::In),
            "<" => Some(Dir::Out),
            "!" => Some(Dir::Note),
            _ => None,
        }
    }
}

/// One row of the raw log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRow {
    pub id: i64,
    pub host_ms: u64,
    /// `true`: the board; `false`: the clock.
    pub board: bool,
    pub dir: Dir,
    pub line: String,
}

/// A stored game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGame {
    pub round: u32,
    pub board: u32,
    pub white: String,
    pub black: String,
    pub result: String,
    pub pgn: String,
}

/// The database; one thread owns it.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database and brings its schema up to
    /// date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let err = |what| {
            let path = path.to_path_buf();
            move |source| StoreError { path, what, source }
        };
        let conn = Connection::open(path).map_err(err("cannot open the database"))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err("cannot switch to WAL"))?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(err("cannot set synchronous=FULL"))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(err("cannot set the busy timeout"))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Opens an existing database for reading (export).
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        if !path.exists() {
            return Err(StoreError {
                path: path.to_path_buf(),
                what: "no database here",
                source: rusqlite::Error::InvalidPath(path.to_path_buf()),
            });
        }
        Store::open(path)
    }

    fn err(&self, what: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError {
            path: self.path.clone(),
            what,
            source,
        }
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version = self.version()?;
        if version > MIGRATIONS.len() {
            return Err(StoreError {
                path: self.path.clone(),
                what: "the database is newer than this touchmove (schema version too high)",
                source: rusqlite::Error::InvalidQuery,
            });
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
            let path = self.path.clone();
            let tx = self.conn.transaction().map_err(|source| StoreError {
                path: path.clone(),
                what: "cannot begin a migration",
                source,
            })?;
            tx.execute_batch(sql).map_err(|source| StoreError {
                path: path.clone(),
                what: "a schema migration failed",
                source,
            })?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)
                .map_err(|source| StoreError {
                    path: path.clone(),
                    what: "cannot record the schema version",
                    source,
                })?;
            tx.commit().map_err(|source| StoreError {
                path,
                what: "cannot commit a migration",
                source,
            })?;
        }
        Ok(())
    }

    /// The schema version.
    pub fn version(&self) -> Result<usize, StoreError> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))
            .map(|v| v as usize)
            .map_err(self.err("cannot read the schema version"))
    }

    /// Appends one line to the raw log; durable when it returns.
    pub fn append(
        &self,
        round: u32,
        board_no: u32,
        host_ms: u64,
        board: bool,
        dir: Dir,
        line: &str,
    ) -> Result<i64, StoreError> {
        self.conn
            .prepare_cached(
                "INSERT INTO raw_log (round, board, host_ms, device, dir, line)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    round,
                    board_no,
                    host_ms as i64,
                    if board { "board" } else { "clock" },
                    dir.code(),
                    line
                ])
            })
            .map_err(self.err("cannot append to the raw log"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// One table's raw log, in order.
    pub fn log(&self, round: u32, board_no: u32) -> Result<Vec<LogRow>, StoreError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT id, host_ms, device, dir, line FROM raw_log
                 WHERE round = ?1 AND board = ?2 ORDER BY id",
            )
            .map_err(self.err("cannot read the raw log"))?;
        let rows = st
            .query_map(params![round, board_no], |r| {
                let device: String = r.get(2)?;
                let dir: String = r.get(3)?;
                Ok(LogRow {
                    id: r.get(0)?,
                    host_ms: r.get::<_, i64>(1)? as u64,
                    board: device == "board",
                    dir: Dir::parse(&dir).unwrap_or(Dir::Note),
                    line: r.get(4)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.err("cannot read the raw log"))?;
        Ok(rows)
    }

    /// Rows in the raw log (all tables).
    pub fn log_len(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM raw_log", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(self.err("cannot count the raw log"))
    }

    /// Rewrites one game's derived rows (game, moves, alerts) in one
    /// transaction.
    pub fn save_game(&mut self, game: &GameRows<'_>) -> Result<(), StoreError> {
        let path = self.path.clone();
        let e = |what| {
            let path = path.clone();
            move |source| StoreError { path, what, source }
        };
        let tx = self
            .conn
            .transaction()
            .map_err(e("cannot begin a transaction"))?;
        let key = params![game.round, game.board];
        tx.execute(
            "INSERT INTO games (round, board, white, black, result, pgn, updated_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (round, board) DO UPDATE SET white = ?3, black = ?4,
               result = ?5, pgn = ?6, updated_ms = ?7",
            params![
                game.round,
                game.board,
                game.white,
                game.black,
                game.result,
                game.pgn,
                game.host_ms as i64
            ],
        )
        .map_err(e("cannot save the game"))?;
        tx.execute("DELETE FROM moves WHERE round = ?1 AND board = ?2", key)
            .map_err(e("cannot save the moves"))?;
        tx.execute("DELETE FROM alerts WHERE round = ?1 AND board = ?2", key)
            .map_err(e("cannot save the alerts"))?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO moves (round, board, ply, san, uci, t_ms, clock_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .map_err(e("cannot save the moves"))?;
            for m in game.moves {
                st.execute(params![
                    game.round,
                    game.board,
                    m.ply,
                    m.san,
                    m.uci,
                    m.t_ms as i64,
                    m.clock_ms.map(|c| c as i64)
                ])
                .map_err(e("cannot save the moves"))?;
            }
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO alerts (round, board, n, ply, kind, article, severity, side,
                       squares, t_ms, detail, claim_closed_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                )
                .map_err(e("cannot save the alerts"))?;
            for (n, a) in game.alerts.iter().enumerate() {
                let squares: Vec<String> = a.squares.iter().map(|s| s.to_string()).collect();
                st.execute(params![
                    game.round,
                    game.board,
                    n as i64,
                    a.ply,
                    a.kind.name(),
                    a.article,
                    format!("{:?}", a.severity()).to_lowercase(),
                    a.side.map(crate::table::color_name),
                    squares.join(" "),
                    a.t_ms as i64,
                    a.detail,
                    a.claim.and_then(|c| c.closed_ms).map(|t| t as i64)
                ])
                .map_err(e("cannot save the alerts"))?;
            }
        }
        tx.commit().map_err(e("cannot commit the game"))
    }

    /// The stored games, by round and board; `round` picks one round.
    pub fn games(&self, round: Option<u32>) -> Result<Vec<StoredGame>, StoreError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT round, board, white, black, result, pgn FROM games
                 WHERE ?1 IS NULL OR round = ?1 ORDER BY round, board",
            )
            .map_err(self.err("cannot read the games"))?;
        let rows = st
            .query_map(params![round], |r| {
                Ok(StoredGame {
                    round: r.get(0)?,
                    board: r.get(1)?,
                    white: r.get(2)?,
                    black: r.get(3)?,
                    result: r.get(4)?,
                    pgn: r.get(5)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(self.err("cannot read the games"))?;
        Ok(rows)
    }
}

/// What [`Store::save_game`] writes.
#[derive(Debug)]
pub struct GameRows<'a> {
    pub round: u32,
    pub board: u32,
    pub white: &'a str,
    pub black: &'a str,
    pub result: &'a str,
    pub pgn: &'a str,
    pub moves: &'a [MoveRecord],
    pub alerts: &'a [Alert],
    pub host_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_survives_reopening_and_the_schema_is_migrated_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        {
            let s = Store::open(&path).unwrap();
            assert_eq!(s.version().unwrap(), MIGRATIONS.len());
            s.append(1, 4, 1000, true, Dir::In, "L e2 1 50*3C").unwrap();
            s.append(1, 4, 1001, false, Dir::Note, "lost").unwrap();
            s.append(1, 5, 1002, true, Dir::Out, "S*53").unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.version().unwrap(), MIGRATIONS.len());
        let log = s.log(1, 4).unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].line, "L e2 1 50*3C");
        assert!(log[0].board && log[0].dir == Dir::In && log[0].host_ms == 1000);
        assert!(!log[1].board && log[1].dir == Dir::Note);
        assert_eq!(s.log_len().unwrap(), 3);
        let mode: String = s
            .conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let sync: i64 = s
            .conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2, "FULL");
    }

    #[test]
    fn a_newer_database_is_refused_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        {
            let c = Connection::open(&path).unwrap();
            c.pragma_update(None, "user_version", 99).unwrap();
        }
        let e = Store::open(&path).unwrap_err().to_string();
        assert!(e.contains("t.db") && e.contains("newer"), "{e}");
    }
}
