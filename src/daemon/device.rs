//! One serial device (a board or a clock): open it by its stable name, read
//! lines, write commands, and when it goes away (an unplugged USB device
//! reads EOF or fails) say so and try again with backoff until it is back.
//! A device missing at start is picked up when it appears.
//!
//! Lines go to the core thread as [`Msg`]s stamped with the host time they
//! arrived; the core stores each one before the table sees it.

use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio_serial::SerialPortBuilderExt;

use super::Msg;

/// The longest line TMB1/TMC1 allow is 80 bytes; anything much longer is
/// noise and is cut off, not buffered without end.
const MAX_LINE: usize = 256;

/// A board sends a snapshot every heartbeat period (the daemon sets 1 s):
/// silent for three periods, it is treated as disconnected (TMB1) and the
/// port is opened again. Clocks have no heartbeat.
const BOARD_SILENCE: Duration = Duration::from_secs(3);

/// Backoff between attempts to open a missing device.
const BACKOFF_MIN: Duration = Duration::from_millis(200);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// Which device of which table.
#[derive(Debug, Clone)]
pub struct DeviceId {
    pub table: usize,
    pub board: bool,
    pub path: PathBuf,
}

impl DeviceId {
    pub fn name(&self) -> &'static str {
        if self.board {
            "board"
        } else {
            "clock"
        }
    }
}

/// The runtime the device tasks run on: one worker thread is plenty for a
/// few dozen serial ports that each send a few lines a second.
pub fn io_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("touchmove-io")
        .enable_all()
        .build()
}

/// Starts one table's device tasks on `runtime`: the board, and the clock
/// if there is one. Returns their command senders, `[board, clock]`.
pub fn spawn_table(
    runtime: &tokio::runtime::Runtime,
    table: usize,
    board: &std::path::Path,
    clock: Option<&std::path::Path>,
    core: &Sender<Msg>,
) -> [Option<UnboundedSender<String>>; 2] {
    let mut pair = [None, None];
    for (k, path) in [Some(board), clock].into_iter().enumerate() {
        let Some(path) = path else { continue };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let id = DeviceId {
            table,
            board: k == 0,
            path: path.to_path_buf(),
        };
        runtime.spawn(run(id, core.clone(), rx));
        pair[k] = Some(tx);
    }
    pair
}

/// Sends [`Msg::Shutdown`] on SIGTERM (systemd stopping the unit) or
/// SIGINT (Ctrl-C).
pub fn stop_on_signals(runtime: &tokio::runtime::Runtime, core: &Sender<Msg>) {
    let core = core.clone();
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
        let _ = core.send(Msg::Shutdown);
    });
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Runs one device for as long as the daemon runs.
pub async fn run(id: DeviceId, core: Sender<Msg>, mut commands: UnboundedReceiver<String>) {
    let mut backoff = BACKOFF_MIN;
    let mut told_missing = false;
    loop {
        let port = tokio_serial::new(id.path.to_string_lossy(), 115_200).open_native_async();
        let port = match port {
            Ok(p) => p,
            Err(e) => {
                if !told_missing {
                    tracing::warn!(
                        "table {} {} {}: cannot open ({e}); retrying until it appears",
                        id.table + 1,
                        id.name(),
                        id.path.display()
                    );
                    told_missing = true;
                }
                // Commands for an absent device are dropped: it is asked
                // for what it needs (hello, snapshot) when it is back.
                while commands.try_recv().is_ok() {}
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
                continue;
            }
        };
        tracing::info!(
            "table {} {} {}: open",
            id.table + 1,
            id.name(),
            id.path.display()
        );
        told_missing = false;
        backoff = BACKOFF_MIN;
        while commands.try_recv().is_ok() {}
        if core
            .send(Msg::Opened {
                table: id.table,
                board: id.board,
                host_ms: now_ms(),
            })
            .is_err()
        {
            return;
        }
        let (read, mut write) = tokio::io::split(port);
        let mut reader = BufReader::new(read);
        let mut buf = Vec::with_capacity(96);
        let silence = tokio::time::sleep(BOARD_SILENCE);
        tokio::pin!(silence);
        let why = loop {
            tokio::select! {
                () = &mut silence, if id.board => {
                    break format!("silent for {} s (no heartbeat)", BOARD_SILENCE.as_secs());
                }
                r = read_line(&mut reader, &mut buf) => match r {
                    Ok(true) => {
                        silence.as_mut().reset(tokio::time::Instant::now() + BOARD_SILENCE);
                        let line = String::from_utf8_lossy(&buf).trim_end_matches(['\r', '\n']).to_string();
                        buf.clear();
                        if line.is_empty() {
                            continue;
                        }
                        let msg = Msg::Line { table: id.table, board: id.board, line, host_ms: now_ms() };
                        if core.send(msg).is_err() {
                            return;
                        }
                    }
                    Ok(false) => break "end of file (unplugged?)".to_string(),
                    Err(e) => break e.to_string(),
                },
                cmd = commands.recv() => match cmd {
                    Some(line) => {
                        if let Err(e) = write.write_all(line.as_bytes()).await {
                            break format!("write failed: {e}");
                        }
                        let _ = write.flush().await;
                    }
                    None => return,
                },
            }
        };
        tracing::warn!(
            "table {} {} {}: lost ({why}); waiting for it to come back",
            id.table + 1,
            id.name(),
            id.path.display()
        );
        if core
            .send(Msg::Lost {
                table: id.table,
                board: id.board,
                host_ms: now_ms(),
            })
            .is_err()
        {
            return;
        }
        tokio::time::sleep(BACKOFF_MIN).await;
    }
}

/// Reads up to and including `\n` into `buf` (cut at [`MAX_LINE`]);
/// `Ok(false)` at end of file.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
) -> std::io::Result<bool> {
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            return Ok(false);
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let take = (MAX_LINE.saturating_sub(buf.len())).min(i + 1);
                buf.extend_from_slice(&available[..take]);
                r.consume(i + 1);
                return Ok(true);
            }
            None => {
                let n = available.len();
                let take = MAX_LINE.saturating_sub(buf.len()).min(n);
                buf.extend_from_slice(&available[..take]);
                r.consume(n);
            }
        }
    }
}
