//! A simulated table on pseudo-terminals: the traffic of a simulated game
//! (or any recording) played to the daemon through real serial ports, with
//! the devices answering the host's commands as TMB1/TMC1 devices do.
//!
//! The daemon opens the slave side by a path, exactly as it opens
//! `/dev/touchmove/board-…`; here the path is a symbolic link in a folder
//! of the caller's, so that a device can be "unplugged" (its master closed,
//! the link removed) and "plugged back" (a new pseudo-terminal, the link
//! pointing at it), as udev's stable names behave for a real USB device.
//!
//! Playback starts when the host first asks the board who it is (`I`), and
//! pauses while no host has the port open, so nothing is written into a
//! port nobody reads. Board lines are renumbered (`seq`) because the board
//! inserts snapshots of its own when the host asks for one; snapshots
//! always show the occupancy the board has sent so far.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use crate::wire::{frame, unframe, Direction, Record};

/// The least time between lines of different devices.
const DEVICE_SWITCH: Duration = Duration::from_millis(5);

/// One simulated device's port and state.
struct Port {
    master: Option<TTYPort>,
    /// Bumped at every unplug: the reader of an old master stops.
    generation: u64,
    /// A host has the port open (it spoke since the last read error).
    connected: bool,
    /// The host has asked `I` at least once.
    greeted: bool,
}

struct Shared {
    board: Mutex<Port>,
    clock: Mutex<Port>,
    /// Board state: next seq, occupancy, device milliseconds.
    board_state: Mutex<(u16, u64, u32)>,
    wake: Condvar,
    wake_lock: Mutex<()>,
    stop: AtomicBool,
    /// Recording lines written so far.
    written: AtomicUsize,
    /// The last of them, as written.
    last: Mutex<Option<String>>,
    /// Lines the playback may write (tests hold it back to act between).
    gate: AtomicUsize,
    /// While held at the gate, the board sends a snapshot this often, as a
    /// real board's heartbeat does (0: never; default 1 s).
    idle_heartbeat_ms: std::sync::atomic::AtomicU64,
    serial: String,
    links: PathBuf,
}

impl Shared {
    /// The board's or the clock's port.
    fn port(&self, board: bool) -> &Mutex<Port> {
        if board {
            &self.board
        } else {
            &self.clock
        }
    }
}

/// A simulated table; dropping it stops the playback and closes the ports.
pub struct PtyTable {
    shared: Arc<Shared>,
    player: Option<JoinHandle<()>>,
    /// Device lines of the recording.
    pub total: usize,
}

impl PtyTable {
    /// Starts a table playing `records` (their `>` lines) at `speed` times
    /// their pace, with symbolic links `board` and (if the recording has
    /// clock lines) `clock` in `links`.
    pub fn start(
        records: Vec<Record>,
        speed: f64,
        links: &Path,
        serial: &str,
    ) -> std::io::Result<PtyTable> {
        let records: Vec<Record> = records
            .into_iter()
            .filter(|r| r.dir == Direction::FromDevice)
            .collect();
        let has_clock = records
            .iter()
            .any(|r| r.device == crate::wire::Device::Clock);
        let empty = || Port {
            master: None,
            generation: 0,
            connected: false,
            greeted: false,
        };
        let shared = Arc::new(Shared {
            board: Mutex::new(empty()),
            clock: Mutex::new(empty()),
            board_state: Mutex::new((0, first_occupancy(&records), 0)),
            wake: Condvar::new(),
            wake_lock: Mutex::new(()),
            stop: AtomicBool::new(false),
            written: AtomicUsize::new(0),
            last: Mutex::new(None),
            gate: AtomicUsize::new(usize::MAX),
            idle_heartbeat_ms: std::sync::atomic::AtomicU64::new(1000),
            serial: serial.to_string(),
            links: links.to_path_buf(),
        });
        plug(&shared, true)?;
        if has_clock {
            plug(&shared, false)?;
        }
        let total = records.len();
        let sh = shared.clone();
        let player = std::thread::Builder::new()
            .name("sim-player".into())
            .spawn(move || play(&sh, &records, speed))?;
        Ok(PtyTable {
            shared,
            player: Some(player),
            total,
        })
    }

    /// The path the daemon opens for the board.
    pub fn board_path(&self) -> PathBuf {
        self.shared.links.join("board")
    }

    /// The path for the clock.
    pub fn clock_path(&self) -> PathBuf {
        self.shared.links.join("clock")
    }

    /// Recording lines written so far.
    pub fn written(&self) -> usize {
        self.shared.written.load(Ordering::SeqCst)
    }

    /// The last recording line written, as written (renumbered).
    pub fn last_line(&self) -> Option<String> {
        self.shared.last.lock().expect("last lock").clone()
    }

    /// Lets the playback write lines up to (not including) `n`.
    pub fn set_gate(&self, n: usize) {
        self.shared.gate.store(n, Ordering::SeqCst);
        self.notify();
    }

    /// While the playback is held at the gate, send a heartbeat snapshot
    /// every `ms` (0: none), as an idle real board does.
    pub fn set_idle_heartbeat(&self, ms: u64) {
        self.shared.idle_heartbeat_ms.store(ms, Ordering::SeqCst);
    }

    /// Whether the playback is over (every line written, or the player
    /// stopped).
    pub fn done(&self) -> bool {
        self.written() >= self.total || self.player.as_ref().is_none_or(|h| h.is_finished())
    }

    /// Unplugs a device: its master is closed (the host reads end of file
    /// or an error) and its link removed.
    pub fn unplug(&self, board: bool) {
        let port = self.shared.port(board);
        let mut p = port.lock().expect("port lock");
        p.master = None;
        p.connected = false;
        p.greeted = false;
        p.generation += 1;
        let _ = std::fs::remove_file(
            self.shared
                .links
                .join(if board { "board" } else { "clock" }),
        );
    }

    /// Plugs a device back: a new pseudo-terminal behind the same link; a
    /// board restarts its seq at 0, as after power-up.
    pub fn replug(&self, board: bool) -> std::io::Result<()> {
        if board {
            self.shared.board_state.lock().expect("state lock").0 = 0;
        }
        plug(&self.shared, board)
    }

    fn notify(&self) {
        let _g = self.shared.wake_lock.lock().expect("wake lock");
        self.shared.wake.notify_all();
    }
}

impl Drop for PtyTable {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.notify();
        if let Some(h) = self.player.take() {
            let _ = h.join();
        }
        for board in [true, false] {
            let port = self.shared.port(board);
            if let Ok(mut p) = port.lock() {
                p.master = None;
                p.generation += 1;
            }
        }
    }
}

/// Creates a pseudo-terminal for a device, points its link at it, and
/// starts the thread that answers the host's commands.
fn plug(shared: &Arc<Shared>, board: bool) -> std::io::Result<()> {
    let (master, slave) = TTYPort::pair().map_err(std::io::Error::other)?;
    // The master is opened without close-on-exec: a daemon started as a
    // child process would inherit it and keep the port alive after an
    // unplug.
    close_on_exec(&master)?;
    let name = slave
        .name()
        .ok_or_else(|| std::io::Error::other("pseudo-terminal without a name"))?;
    drop(slave);
    let link = shared.links.join(if board { "board" } else { "clock" });
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&name, &link)?;
    let mut reader = master.try_clone_native().map_err(std::io::Error::other)?;
    close_on_exec(&reader)?;
    let generation = {
        let port = shared.port(board);
        let mut p = port.lock().expect("port lock");
        p.master = Some(master);
        p.connected = false;
        p.greeted = false;
        p.generation += 1;
        p.generation
    };
    let sh = shared.clone();
    std::thread::Builder::new()
        .name("sim-commands".into())
        .spawn(move || {
            let _ = reader.set_timeout(Duration::from_millis(50));
            let mut pending = Vec::new();
            let mut buf = [0u8; 256];
            loop {
                if sh.stop.load(Ordering::SeqCst) {
                    return;
                }
                {
                    let port = sh.port(board);
                    if port.lock().expect("port lock").generation != generation {
                        return;
                    }
                }
                match reader.read(&mut buf) {
                    Ok(0) => std::thread::sleep(Duration::from_millis(20)),
                    Ok(n) => {
                        pending.extend_from_slice(&buf[..n]);
                        while let Some(i) = pending.iter().position(|&b| b == b'\n') {
                            let line: Vec<u8> = pending.drain(..=i).collect();
                            let line = String::from_utf8_lossy(&line).to_string();
                            answer(&sh, board, &line);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                    Err(_) => {
                        // No host has the port open (EIO on the master).
                        let port = sh.port(board);
                        port.lock().expect("port lock").connected = false;
                        pending.clear();
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            }
        })?;
    Ok(())
}

/// The occupancy of the recording's first board snapshot (what the board
/// shows before play starts).
fn first_occupancy(records: &[Record]) -> u64 {
    records
        .iter()
        .filter(|r| r.device == crate::wire::Device::Board)
        .find_map(|r| {
            let body = unframe(&r.line).ok()?;
            let f: Vec<&str> = body.split(' ').collect();
            (f.len() == 4 && f[0] == "S")
                .then(|| u64::from_str_radix(f[1], 16).ok())
                .flatten()
        })
        .unwrap_or(0)
}

fn close_on_exec(port: &TTYPort) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = port.as_raw_fd();
    // SAFETY: fcntl on a descriptor this port owns, with integer arguments.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Answers one host command, as the device would.
fn answer(sh: &Shared, board: bool, raw: &str) {
    let Ok(body) = unframe(raw) else { return };
    let cmd = body.split(' ').next().unwrap_or("");
    let port = sh.port(board);
    let mut replies = Vec::new();
    match (board, cmd) {
        (true, "I") => replies.push(frame(&format!("TMB1 1.0.0 {}", sh.serial))),
        (false, "I") => replies.push(frame(&format!("TMC1 1.0.0 {}-CLK", sh.serial))),
        (true, "S") => replies.push(snapshot(sh)),
        (_, other) => replies.push(frame(&format!("OK {other}"))),
    }
    {
        let mut p = port.lock().expect("port lock");
        p.connected = true;
        if cmd == "I" {
            p.greeted = true;
        }
        if let Some(m) = p.master.as_mut() {
            for r in replies {
                let _ = m.write_all(format!("{r}\n").as_bytes());
            }
        }
    }
    let _g = sh.wake_lock.lock().expect("wake lock");
    sh.wake.notify_all();
}

/// A snapshot line of the board's current occupancy, taking a seq.
fn snapshot(sh: &Shared) -> String {
    let mut st = sh.board_state.lock().expect("state lock");
    let (seq, occ, ms) = *st;
    st.0 = seq.wrapping_add(1);
    frame(&format!("S {occ:016x} {seq} {ms}"))
}

/// Plays the recording's device lines in order, at `speed`.
fn play(sh: &Shared, records: &[Record], speed: f64) {
    let mut last_t = records.first().map_or(0, |r| r.t_ms);
    let mut last_beat = Instant::now();
    for (i, r) in records.iter().enumerate() {
        // Wait for the gate, and for a host on the port this line goes to.
        let board = r.device == crate::wire::Device::Board;
        loop {
            if sh.stop.load(Ordering::SeqCst) {
                return;
            }
            let open = {
                let port = sh.port(board);
                let p = port.lock().expect("port lock");
                p.master.is_some() && p.connected && p.greeted
            };
            if open && i < sh.gate.load(Ordering::SeqCst) {
                break;
            }
            let every = sh.idle_heartbeat_ms.load(Ordering::SeqCst);
            if every > 0 && last_beat.elapsed() >= Duration::from_millis(every) {
                last_beat = Instant::now();
                let mut p = sh.board.lock().expect("port lock");
                if p.connected && p.greeted {
                    let line = snapshot(sh);
                    if let Some(m) = p.master.as_mut() {
                        let _ = m.write_all(format!("{line}\n").as_bytes());
                    }
                }
            }
            let g = sh.wake_lock.lock().expect("wake lock");
            let _ = sh.wake.wait_timeout(g, Duration::from_millis(50));
        }
        let mut due =
            Duration::from_secs_f64(r.t_ms.saturating_sub(last_t) as f64 / 1000.0 / speed);
        // Two devices are two ports: lines on different ports closer than a
        // few milliseconds may be read in either order, which no real table
        // produces at its pace (a hand takes longer than that).
        if i > 0 && records[i - 1].device != r.device {
            due = due.max(DEVICE_SWITCH);
        }
        let started = Instant::now();
        while started.elapsed() < due {
            if sh.stop.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(
                due.saturating_sub(started.elapsed())
                    .min(Duration::from_millis(50)),
            );
        }
        last_t = r.t_ms;
        let line = if board {
            renumber(sh, &r.line)
        } else {
            Some(r.line.clone())
        };
        if let Some(line) = line {
            let port = sh.port(board);
            let mut p = port.lock().expect("port lock");
            if let Some(m) = p.master.as_mut() {
                let _ = m.write_all(format!("{line}\n").as_bytes());
            }
            *sh.last.lock().expect("last lock") = Some(line);
        }
        sh.written.fetch_add(1, Ordering::SeqCst);
    }
}

/// A recorded board line with this board's seq (and, for a snapshot, its
/// occupancy); `None` for lines the simulated board sends by itself only
/// when asked (hello). Damaged lines go out as recorded (still taking a
/// seq, as the damaged original did).
fn renumber(sh: &Shared, raw: &str) -> Option<String> {
    let mut st = sh.board_state.lock().expect("state lock");
    let Ok(body) = unframe(raw) else {
        st.0 = st.0.wrapping_add(1);
        return Some(raw.to_string());
    };
    let f: Vec<&str> = body.split(' ').collect();
    let (seq, occ, _) = *st;
    let line = match (f.first().copied(), f.len()) {
        (Some("TMB1"), _) => return None,
        (Some(kind @ ("L" | "P")), 4) => {
            let sq: shakmaty::Square = f[1].parse().ok()?;
            let bit = 1u64 << (sq as u32);
            st.1 = if kind == "L" { occ & !bit } else { occ | bit };
            st.2 = f[3].parse().unwrap_or(st.2);
            frame(&format!("{kind} {} {seq} {}", f[1], f[3]))
        }
        (Some("S"), 4) => {
            // The recorded snapshot is what the board showed.
            st.1 = u64::from_str_radix(f[1], 16).unwrap_or(occ);
            st.2 = f[3].parse().unwrap_or(st.2);
            frame(&format!("S {:016x} {seq} {}", st.1, f[3]))
        }
        (Some("E"), n) if n >= 4 => frame(&format!("E {} {seq} {}", f[1], f[3..].join(" "))),
        _ => return Some(raw.to_string()),
    };
    st.0 = seq.wrapping_add(1);
    Some(line)
}
