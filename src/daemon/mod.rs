//! The daemon: every configured table's devices, the SQLite store and the
//! tables, wired together (`touchmove run`, and `touchmove demo` over
//! simulated devices).
//!
//! Threads: the device tasks run on a small tokio runtime and do nothing
//! but read lines and write commands. One core thread owns the store and
//! every [`Station`]: it appends each line to the raw log, *then* applies it
//! to the table, then stores what changed and sends what the table asks
//! for. One owner means no locks around the tables or the connection, and
//! an order of events that the log keeps exactly.
//!
//! The core waits on its channel with a timeout, so an idle daemon sleeps:
//! it wakes for device lines, and a few times a second to give the tables
//! the time (a mating move completes after it has stood `release_min_ms`)
//! and, under systemd, to ping the watchdog.

pub mod device;
mod notify;
pub mod station;

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use crate::config::Config;
use crate::store::{Dir, LogRow, Store, StoreError};
use crate::table::{Effect, Severity};
use device::now_ms;
pub use station::Station;
use station::{changes_game, NOTE_LOST, NOTE_OPENED, NOTE_TICK};

/// What reaches the core thread.
#[derive(Debug)]
pub enum Msg {
    /// A line read from a device.
    Line {
        table: usize,
        board: bool,
        line: String,
        host_ms: u64,
    },
    /// A device was opened (at start, or back after a loss).
    Opened {
        table: usize,
        board: bool,
        host_ms: u64,
    },
    /// A device went away.
    Lost {
        table: usize,
        board: bool,
        host_ms: u64,
    },
    /// Stop (SIGTERM, SIGINT, or the demo is over).
    Shutdown,
}

/// How often the tables are given the time when no line arrives.
const TICK: Duration = Duration::from_millis(250);

/// Why the daemon stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("cannot create the state directory {}: {source}", path.display())]
    StateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start the device runtime: {0}")]
    Runtime(std::io::Error),
}

/// Hooks for the demo and tests.
#[derive(Default)]
pub struct Hooks {
    /// A sender for [`Msg::Shutdown`] is handed out here (to stop the
    /// daemon from outside).
    pub shutdown: Option<Box<dyn FnOnce(Sender<Msg>) + Send>>,
}

/// Runs the daemon until SIGTERM/SIGINT (or, with the hooks, until every
/// game is over). Returns the final PGN of each table.
pub fn run(config: &Config, mut hooks: Hooks) -> Result<Vec<(u32, String)>, DaemonError> {
    std::fs::create_dir_all(&config.state_dir).map_err(|source| DaemonError::StateDir {
        path: config.state_dir.clone(),
        source,
    })?;
    let mut store = Store::open(&config.database())?;
    let mut stations: Vec<Station> = config
        .tables
        .iter()
        .map(|t| Station::new(config, t))
        .collect();
    // A restart: every table is rebuilt from its raw log, the derived rows
    // rewritten from the rebuilt table.
    for st in &mut stations {
        let log = store.log(st.round, st.cfg.board)?;
        let mut last = 0;
        for row in &log {
            st.apply(row);
            last = row.host_ms;
        }
        if !log.is_empty() {
            tracing::info!(
                "table {}: rebuilt from {} logged lines ({} moves, result {})",
                st.cfg.board,
                log.len(),
                st.table.moves().len(),
                st.table.result()
            );
            save(&mut store, st, last)?;
        }
    }

    let (tx, rx) = mpsc::channel::<Msg>();
    let runtime = device::io_runtime().map_err(DaemonError::Runtime)?;
    let devices: Vec<[Option<UnboundedSender<String>>; 2]> = config
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| device::spawn_table(&runtime, i, &t.device, t.clock.as_deref(), &tx))
        .collect();
    device::stop_on_signals(&runtime, &tx);
    if let Some(f) = hooks.shutdown.take() {
        f(tx.clone());
    }
    drop(tx);
    notify::ready(&format!("{} tables", stations.len()));

    let set_clocks = if config.set_clocks {
        crate::config::clock_setting(&config.time_control)
    } else {
        None
    };
    let mut core = Core {
        store,
        stations,
        devices,
        set_clocks,
    };
    let result = core.run(rx);
    notify::stopping();
    runtime.shutdown_timeout(Duration::from_secs(1));
    result?;
    Ok(core
        .stations
        .iter()
        .map(|s| (s.cfg.board, s.pgn()))
        .collect())
}

struct Core {
    store: Store,
    stations: Vec<Station>,
    /// Command senders per table: `[board, clock]`.
    devices: Vec<[Option<UnboundedSender<String>>; 2]>,
    /// The TMC1 `N` command for the round's time control, when the config
    /// says `set_clocks = true`.
    set_clocks: Option<crate::wire::ClockCommand>,
}

impl Core {
    fn run(&mut self, rx: Receiver<Msg>) -> Result<(), DaemonError> {
        let mut last_tick = Instant::now();
        let watchdog = notify::watchdog_interval();
        let mut last_ping = Instant::now();
        loop {
            match rx.recv_timeout(TICK) {
                Ok(Msg::Shutdown) => return Ok(()),
                Ok(Msg::Line {
                    table,
                    board,
                    line,
                    host_ms,
                }) => self.take(table, board, Dir::In, &line, host_ms)?,
                Ok(Msg::Opened {
                    table,
                    board,
                    host_ms,
                }) => {
                    self.take(table, board, Dir::Note, NOTE_OPENED, host_ms)?;
                    // Who is there, heartbeats on, and where the pieces are.
                    let hello = if board {
                        vec![
                            crate::wire::BoardCommand::Identify.line(),
                            crate::wire::BoardCommand::Heartbeat(1000).line(),
                            crate::wire::BoardCommand::Snapshot.line(),
                        ]
                    } else {
                        let mut asks = vec![crate::wire::ClockCommand::Identify.line()];
                        // `set_clocks`: the round's time control, before the
                        // game starts only (never over a running game's times).
                        if let Some(set) = &self.set_clocks {
                            if self.stations[table].table.moves().is_empty() {
                                asks.push(set.line());
                            }
                        }
                        asks
                    };
                    for line in hello {
                        self.send(table, board, &line, host_ms)?;
                    }
                }
                Ok(Msg::Lost {
                    table,
                    board,
                    host_ms,
                }) => self.take(table, board, Dir::Note, NOTE_LOST, host_ms)?,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
            if last_tick.elapsed() >= TICK {
                last_tick = Instant::now();
                self.tick()?;
            }
            if let Some(every) = watchdog {
                if last_ping.elapsed() >= every {
                    notify::watchdog();
                    last_ping = Instant::now();
                }
            }
        }
    }

    /// Stores one row, then applies it and acts on the effects.
    fn take(
        &mut self,
        table: usize,
        board: bool,
        dir: Dir,
        line: &str,
        host_ms: u64,
    ) -> Result<(), DaemonError> {
        let st = &self.stations[table];
        let id = self
            .store
            .append(st.round, st.cfg.board, host_ms, board, dir, line)?;
        let row = LogRow {
            id,
            host_ms,
            board,
            dir,
            line: line.to_string(),
        };
        let (effects, err) = self.stations[table].apply(&row);
        if let Some(e) = err {
            tracing::warn!(
                "table {} {}: line discarded ({e}): {line:?}",
                self.stations[table].cfg.board,
                if board { "board" } else { "clock" }
            );
        }
        self.act(table, effects, host_ms)
    }

    /// Gives every table the time; a tick that made a table act is logged
    /// (so that a rebuild acts at the same time).
    fn tick(&mut self) -> Result<(), DaemonError> {
        let host_ms = now_ms();
        for i in 0..self.stations.len() {
            let st = &mut self.stations[i];
            if st.table.end().is_some() {
                continue;
            }
            let t = st.time(host_ms);
            let effects = st.table.tick(t);
            if effects.is_empty() {
                continue;
            }
            self.store
                .append(st.round, st.cfg.board, host_ms, true, Dir::Note, NOTE_TICK)?;
            self.act(i, effects, host_ms)?;
        }
        Ok(())
    }

    fn act(&mut self, table: usize, effects: Vec<Effect>, host_ms: u64) -> Result<(), DaemonError> {
        let board_no = self.stations[table].cfg.board;
        for e in &effects {
            match e {
                Effect::Board(cmd) => self.send(table, true, &cmd.line(), host_ms)?,
                Effect::Clock(cmd) => self.send(table, false, &cmd.line(), host_ms)?,
                Effect::Move(m) => tracing::info!("table {board_no}: {}. {}", m.ply, m.san),
                Effect::Alert(a) => {
                    let msg = format!(
                        "table {board_no}: {} (ply {}, {}): {}",
                        a.kind.name(),
                        a.ply,
                        a.article.unwrap_or("-"),
                        a.detail
                    );
                    match a.severity() {
                        Severity::Violation | Severity::Warning => tracing::warn!("{msg}"),
                        Severity::Info => tracing::info!("{msg}"),
                    }
                }
                _ => {}
            }
        }
        if changes_game(&effects) {
            let st = &self.stations[table];
            save(&mut self.store, st, host_ms)?;
        }
        if effects.iter().any(|e| matches!(e, Effect::GameOver { .. })) {
            let st = &self.stations[table];
            tracing::info!("table {board_no}: game over, {}", st.table.result());
        }
        Ok(())
    }

    /// Logs a command, then sends it (dropped if the device is away).
    fn send(
        &mut self,
        table: usize,
        board: bool,
        line: &str,
        host_ms: u64,
    ) -> Result<(), DaemonError> {
        let Some(tx) = &self.devices[table][usize::from(!board)] else {
            return Ok(());
        };
        let st = &self.stations[table];
        self.store
            .append(st.round, st.cfg.board, host_ms, board, Dir::Out, line)?;
        let _ = tx.send(format!("{line}\n"));
        Ok(())
    }
}

fn save(store: &mut Store, st: &Station, host_ms: u64) -> Result<(), StoreError> {
    let pgn = st.pgn();
    let moves = st.table.moves();
    store.save_game(&st.save(&pgn, &moves, host_ms))
}
