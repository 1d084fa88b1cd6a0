//! What the table is told: the meaning of device lines, already checked and
//! sequenced by [`crate::link`], each with the host time it arrived.

use shakmaty::{Bitboard, Color, Piece, Square};

/// One thing that happened at the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The board said hello: it restarted, and its lines since the last
    /// snapshot may be lost.
    BoardHello { serial: String },
    /// A board line arrived damaged and was discarded (it is one lost line,
    /// at this very place in the order of events).
    BoardDamaged,
    /// The board's seq jumped: this many lines were lost just before the
    /// next event.
    BoardLost { lines: u32 },
    /// A square became empty.
    Lift(Square),
    /// A square became occupied. A board that senses piece identity (DGT
    /// style) says which piece; a reed-switch board says `None`.
    Place(Square, Option<Piece>),
    /// The board's whole occupancy.
    Snapshot(Bitboard),
    /// The board reported a fault of its own.
    BoardFault { code: String, text: String },
    /// The clock said hello (restarted).
    ClockHello { serial: String },
    /// A clock line arrived damaged, or its seq jumped.
    ClockLost,
    /// `side` pressed the clock; times are after the press.
    Press {
        side: Color,
        white_ms: u64,
        black_ms: u64,
    },
    /// A time report; `running` is the face that runs.
    ClockTime {
        white_ms: u64,
        black_ms: u64,
        running: Option<Color>,
    },
    /// A flag fell.
    Flag { side: Color },
    /// The host lost a device (an unplug: its serial port read EOF or
    /// failed). `board` false: the clock.
    DeviceLost { board: bool },
    /// The host opened a device (at start, or again after a loss) and asked
    /// it to identify itself and, for a board, for a snapshot: its hello is
    /// a reply, not a restart, and the board is read again from the
    /// snapshot.
    DeviceOpened { board: bool },
}
