//! The simulated devices on one table, and the host's clock that records them.
//!
//! A [`Table`] owns host time. Everything the person does happens "now";
//! letting time pass ([`Table::advance`]) is what makes the devices speak on
//! their own: the board's heartbeat snapshots, the clock's once-a-second
//! reports, a flag falling. Each device keeps its own `seq` and its own
//! millisecond counter, started at an arbitrary value as a real device's
//! uptime would be, so that consumers cannot mistake it for host time.

use shakmaty::{Bitboard, ByColor, Color, Square};

use crate::wire::tmrec::Entry;
use crate::wire::{BoardMsg, ClockCommand, ClockMode, ClockMsg, Device, Direction, Record};

use super::rng::Rng;

/// How often a running clock reports its times.
const CLOCK_REPORT_MS: u64 = 1000;

/// A device's `seq` and millisecond counters.
#[derive(Debug, Clone)]
struct Counters {
    seq: u16,
    ms_at_zero: u32,
}

impl Counters {
    fn new(rng: &mut Rng) -> Counters {
        Counters {
            seq: 0,
            ms_at_zero: rng.next_u64() as u32,
        }
    }

    /// The `(seq, ms)` for a line sent at host time `t`, counting the line.
    fn stamp(&mut self, t: u64) -> (u16, u32) {
        let seq = self.seq;
        self.seq = seq.wrapping_add(1);
        // The device counter wraps at 2^32: only the low 32 bits of t count.
        (seq, self.ms_at_zero.wrapping_add(t as u32))
    }
}

/// The reed-switch board: what is on it, physically, right now.
#[derive(Debug, Clone)]
struct Board {
    occupied: Bitboard,
    counters: Counters,
}

/// The chess clock: its faces and which one runs.
#[derive(Debug, Clone)]
struct Clock {
    faces: ByColor<u64>,
    increment_ms: u64,
    running: Option<Color>,
    flagged: ByColor<bool>,
    next_report: u64,
    counters: Counters,
}

impl Clock {
    /// The host time of the clock's next line of its own accord, if any.
    fn next_due(&self, now: u64) -> Option<u64> {
        let side = self.running?;
        let flag = (!self.flagged[side]).then(|| now + self.faces[side]);
        Some(flag.map_or(self.next_report, |f| f.min(self.next_report)))
    }

    fn run_for(&mut self, ms: u64) {
        if let Some(side) = self.running {
            self.faces[side] = self.faces[side].saturating_sub(ms);
        }
    }
}

/// Host time, the devices, and the recording of what they said.
#[derive(Debug)]
pub(crate) struct Table {
    now: u64,
    entries: Vec<Entry>,
    board: Board,
    clock: Option<Clock>,
    heartbeat_ms: u64,
    /// None before power-up and with heartbeats off.
    next_heartbeat: Option<u64>,
    rng: Rng,
}

impl Table {
    /// A table whose board stands ready with `occupied` on it; nothing is
    /// said until [`Table::power_up`].
    pub(crate) fn new(occupied: Bitboard, heartbeat_ms: u64, mut rng: Rng) -> Table {
        Table {
            now: 0,
            entries: Vec::new(),
            board: Board {
                occupied,
                counters: Counters::new(&mut rng),
            },
            clock: None,
            heartbeat_ms,
            next_heartbeat: None,
            rng,
        }
    }

    pub(crate) fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    pub(crate) fn comment(&mut self, text: String) {
        self.entries.push(Entry::Comment(text));
    }

    /// The board says hello and sends its power-up snapshot.
    pub(crate) fn power_up(&mut self, serial: &str) {
        let hello = BoardMsg::Hello {
            fw: "1.0.0".into(),
            serial: serial.into(),
        };
        self.record(Device::Board, Direction::FromDevice, hello.line());
        self.pause(1, 5);
        self.snapshot();
        // Heartbeats count from the power-up snapshot.
        self.next_heartbeat = (self.heartbeat_ms > 0).then(|| self.now + self.heartbeat_ms);
    }

    /// The clock says hello and the host sets it (both faces `base_ms`,
    /// Fischer increment); it stays stopped until [`Table::start_clock`].
    pub(crate) fn connect_clock(&mut self, serial: &str, base_ms: u64, increment_ms: u64) {
        self.pause(2, 20);
        let hello = ClockMsg::Hello {
            fw: "1.0.0".into(),
            serial: serial.into(),
        };
        self.record(Device::Clock, Direction::FromDevice, hello.line());
        self.clock = Some(Clock {
            faces: ByColor::new_with(|_| base_ms),
            increment_ms,
            running: None,
            flagged: ByColor::new_with(|_| false),
            next_report: 0,
            counters: Counters::new(&mut self.rng),
        });
        self.pause(5, 40);
        let set = ClockCommand::Set {
            white_ms: base_ms,
            black_ms: base_ms,
            increment_ms,
            mode: ClockMode::Fischer,
        };
        self.host_command(set);
        self.clock_report();
    }

    /// The host starts `side`'s face (the arbiter starts the round).
    pub(crate) fn start_clock(&mut self, side: Color) {
        if self.clock.is_none() {
            return;
        }
        self.host_command(ClockCommand::Start(side));
        if let Some(clock) = &mut self.clock {
            clock.running = Some(side);
        }
        self.clock_report();
    }

    /// Sends a command to the clock and records its `OK` a moment later.
    fn host_command(&mut self, cmd: ClockCommand) {
        let tag = cmd.body().split(' ').next().unwrap_or("").to_string();
        self.record(Device::Clock, Direction::ToDevice, cmd.line());
        self.pause(1, 4);
        let reply = ClockMsg::Reply {
            ok: true,
            text: tag,
        };
        self.record(Device::Clock, Direction::FromDevice, reply.line());
    }

    /// A piece leaves `square`.
    pub(crate) fn lift(&mut self, square: Square) {
        debug_assert!(
            self.board.occupied.contains(square),
            "lift of empty {square}"
        );
        self.board.occupied.discard(square);
        let (seq, ms) = self.board.counters.stamp(self.now);
        self.board_line(BoardMsg::Lift { square, seq, ms });
    }

    /// A piece is put on `square`.
    pub(crate) fn place(&mut self, square: Square) {
        debug_assert!(
            !self.board.occupied.contains(square),
            "place on full {square}"
        );
        self.board.occupied.add(square);
        let (seq, ms) = self.board.counters.stamp(self.now);
        self.board_line(BoardMsg::Place { square, seq, ms });
    }

    /// `side` presses its clock button: its face gains the increment and
    /// stops, the other face starts. Nothing happens without a clock.
    pub(crate) fn press(&mut self, side: Color) {
        let now = self.now;
        let Some(clock) = &mut self.clock else {
            return;
        };
        if !clock.flagged[side] {
            clock.faces[side] = clock.faces[side].saturating_add(clock.increment_ms);
        }
        clock.running = Some(!side);
        clock.next_report = now + CLOCK_REPORT_MS;
        let (seq, ms) = clock.counters.stamp(now);
        let msg = ClockMsg::Press {
            side,
            white_ms: clock.faces.white,
            black_ms: clock.faces.black,
            seq,
            ms,
        };
        self.record(Device::Clock, Direction::FromDevice, msg.line());
    }

    /// Lets `ms` of host time pass, with every line the devices send of
    /// their own accord meanwhile.
    pub(crate) fn advance(&mut self, ms: u64) {
        let end = self.now + ms;
        while let Some(at) = self.next_due().filter(|&at| at <= end) {
            self.run_until(at);
            self.fire_due();
        }
        self.run_until(end);
    }

    /// Lets a random time in `lo..=hi` ms pass.
    fn pause(&mut self, lo: u64, hi: u64) {
        let ms = self.rng.between(lo, hi);
        self.advance(ms);
    }

    fn next_due(&self) -> Option<u64> {
        let heartbeat = self.next_heartbeat;
        let clock = self.clock.as_ref().and_then(|c| c.next_due(self.now));
        match (heartbeat, clock) {
            (Some(h), Some(c)) => Some(h.min(c)),
            (h, c) => h.or(c),
        }
    }

    fn run_until(&mut self, at: u64) {
        if let Some(clock) = &mut self.clock {
            clock.run_for(at - self.now);
        }
        self.now = at;
    }

    /// Sends whatever is due at this very moment.
    fn fire_due(&mut self) {
        if let Some(due) = self.next_heartbeat.filter(|&due| due <= self.now) {
            self.snapshot();
            self.next_heartbeat = Some(due + self.heartbeat_ms);
        }
        let Some(clock) = &mut self.clock else {
            return;
        };
        let Some(side) = clock.running else {
            return;
        };
        if clock.faces[side] == 0 && !clock.flagged[side] {
            clock.flagged[side] = true;
            let (seq, ms) = clock.counters.stamp(self.now);
            let flag = ClockMsg::Flag { side, seq, ms };
            self.record(Device::Clock, Direction::FromDevice, flag.line());
        }
        if self
            .clock
            .as_ref()
            .is_some_and(|c| c.next_report <= self.now)
        {
            self.clock_report();
        }
    }

    fn snapshot(&mut self) {
        let (seq, ms) = self.board.counters.stamp(self.now);
        let occupied = self.board.occupied;
        self.board_line(BoardMsg::Snapshot { occupied, seq, ms });
    }

    /// A `T` report of both faces, which also schedules the next one.
    fn clock_report(&mut self) {
        let now = self.now;
        let Some(clock) = &mut self.clock else {
            return;
        };
        clock.next_report = now + CLOCK_REPORT_MS;
        let (seq, ms) = clock.counters.stamp(now);
        let msg = ClockMsg::Time {
            white_ms: clock.faces.white,
            black_ms: clock.faces.black,
            running: clock.running,
            seq,
            ms,
        };
        self.record(Device::Clock, Direction::FromDevice, msg.line());
    }

    fn board_line(&mut self, msg: BoardMsg) {
        self.record(Device::Board, Direction::FromDevice, msg.line());
    }

    fn record(&mut self, device: Device, dir: Direction, line: String) {
        self.entries.push(Entry::Record(Record {
            t_ms: self.now,
            device,
            dir,
            line,
        }));
    }
}
