//! `touchmove record`: a live table's serial traffic to a TMREC file, for
//! an arbiter's evidence or a bug report; `touchmove replay` plays it back
//! through the table.
//!
//! The devices are read by the daemon's own device tasks (same opening,
//! same reconnecting), and every line is written and flushed as it comes,
//! so a recording cut short by a crash keeps everything up to it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use crate::daemon::device::{self, DeviceId};
use crate::daemon::Msg;
use crate::wire::{BoardCommand, ClockCommand};

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{}: {source}", path.display())]
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start the device runtime: {0}")]
    Runtime(std::io::Error),
}

/// Records until SIGINT or SIGTERM (or `stop` receives a message).
pub fn record(
    board: &Path,
    clock: Option<&Path>,
    out: &Path,
    stop: Option<mpsc::Receiver<()>>,
) -> Result<u64, RecordError> {
    let err = |source| RecordError::Output {
        path: out.to_path_buf(),
        source,
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).map_err(err)?);
    writeln!(file, "# tmrec 1").map_err(err)?;
    writeln!(
        file,
        "# recorded by touchmove {}: board {}{}",
        env!("CARGO_PKG_VERSION"),
        board.display(),
        clock.map_or(String::new(), |c| format!(", clock {}", c.display()))
    )
    .map_err(err)?;
    file.flush().map_err(err)?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(RecordError::Runtime)?;
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut commands = Vec::new();
    for (k, path) in [Some(board), clock].into_iter().enumerate() {
        let Some(path) = path else {
            commands.push(None);
            continue;
        };
        let (ctx, crx) = tokio::sync::mpsc::unbounded_channel();
        let id = DeviceId {
            table: 0,
            board: k == 0,
            path: path.to_path_buf(),
        };
        runtime.spawn(device::run(id, tx.clone(), crx));
        commands.push(Some(ctx));
    }
    {
        let tx = tx.clone();
        runtime.spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let (Ok(mut term), Ok(mut int)) = (
                signal(SignalKind::terminate()),
                signal(SignalKind::interrupt()),
            ) else {
                return;
            };
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            let _ = tx.send(Msg::Shutdown);
        });
    }
    if let Some(stop) = stop {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let _ = stop.recv();
            let _ = tx.send(Msg::Shutdown);
        });
    }
    drop(tx);
    let start = Instant::now();
    let mut lines = 0u64;
    let name = |board: bool| if board { "board" } else { "clock" };
    while let Ok(msg) = rx.recv() {
        let t = start.elapsed().as_millis();
        match msg {
            Msg::Shutdown => break,
            Msg::Line { board, line, .. } => {
                writeln!(file, "{t} {}> {line}", name(board)).map_err(err)?;
                lines += 1;
            }
            Msg::Opened { board, .. } => {
                writeln!(file, "# {t}: {} opened", name(board)).map_err(err)?;
                let asks = if board {
                    vec![BoardCommand::Identify.line(), BoardCommand::Snapshot.line()]
                } else {
                    vec![ClockCommand::Identify.line()]
                };
                for line in asks {
                    writeln!(file, "{t} {}< {line}", name(board)).map_err(err)?;
                    if let Some(Some(c)) = commands.get(usize::from(!board)) {
                        let _ = c.send(format!("{line}\n"));
                    }
                }
            }
            Msg::Lost { board, .. } => {
                writeln!(file, "# {t}: {} lost", name(board)).map_err(err)?;
            }
        }
        file.flush().map_err(err)?;
    }
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    Ok(lines)
}
