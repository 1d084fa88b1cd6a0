//! One device's link: from received lines to table [`Event`]s.
//!
//! It checks each line (framing, checksum, message), follows the device's
//! `seq` counter, and turns what it finds into events the table can judge:
//! a damaged line becomes [`Event::BoardDamaged`] at its place in the order,
//! a jump in `seq` becomes [`Event::BoardLost`] with the number of lines
//! missing, a hello becomes a restart. Nothing is inferred from a bad line
//! (TMB1, "What a host must never do").

use crate::table::Event;
use crate::wire::{BoardMsg, ClockMsg, LineError};

/// Counts of what a link has seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub lines: u64,
    pub bad: u64,
    pub lost: u64,
}

/// Follows the `seq` counter of one device.
#[derive(Debug, Clone, Default)]
struct Seq {
    next: Option<u16>,
    /// Damaged lines since the last good one: each took one seq number.
    damaged: u32,
}

impl Seq {
    /// How many lines are missing before a line with `seq` (not counting
    /// damaged lines already reported).
    fn gap(&mut self, seq: u16) -> u32 {
        let missing = match self.next {
            Some(n) => u32::from(seq.wrapping_sub(n)),
            None => 0,
        };
        self.next = Some(seq.wrapping_add(1));
        let damaged = std::mem::take(&mut self.damaged);
        missing.saturating_sub(damaged)
    }
}

/// The board's link.
#[derive(Debug, Clone, Default)]
pub struct BoardLink {
    seq: Seq,
    pub stats: LinkStats,
}

impl BoardLink {
    /// Reads one line. On a bad line, returns the error (for the log) and
    /// the event that tells the table a line was lost here.
    pub fn feed(&mut self, raw: &str) -> (Vec<Event>, Option<LineError>) {
        self.stats.lines += 1;
        let msg = match BoardMsg::parse_line(raw) {
            Ok(m) => m,
            Err(e) => {
                self.stats.bad += 1;
                self.seq.damaged += 1;
                return (vec![Event::BoardDamaged], Some(e));
            }
        };
        let mut out = Vec::new();
        if let Some(seq) = msg.seq() {
            let gap = self.seq.gap(seq);
            if gap > 0 {
                self.stats.lost += u64::from(gap);
                out.push(Event::BoardLost { lines: gap });
            }
        }
        match msg {
            BoardMsg::Hello { serial, .. } => {
                self.seq = Seq::default();
                out.push(Event::BoardHello { serial });
            }
            BoardMsg::Lift { square, .. } => out.push(Event::Lift(square)),
            BoardMsg::Place { square, .. } => out.push(Event::Place(square, None)),
            BoardMsg::Snapshot { occupied, .. } => out.push(Event::Snapshot(occupied)),
            BoardMsg::Fault { code, text, .. } => out.push(Event::BoardFault { code, text }),
            BoardMsg::Reply { .. } => {}
        }
        (out, None)
    }
}

/// The clock's link.
#[derive(Debug, Clone, Default)]
pub struct ClockLink {
    seq: Seq,
    pub stats: LinkStats,
}

impl ClockLink {
    pub fn feed(&mut self, raw: &str) -> (Vec<Event>, Option<LineError>) {
        self.stats.lines += 1;
        let msg = match ClockMsg::parse_line(raw) {
            Ok(m) => m,
            Err(e) => {
                self.stats.bad += 1;
                self.seq.damaged += 1;
                return (vec![Event::ClockLost], Some(e));
            }
        };
        let mut out = Vec::new();
        if let Some(seq) = msg.seq() {
            let gap = self.seq.gap(seq);
            if gap > 0 {
                self.stats.lost += u64::from(gap);
                out.push(Event::ClockLost);
            }
        }
        match msg {
            ClockMsg::Hello { serial, .. } => {
                self.seq = Seq::default();
                out.push(Event::ClockHello { serial });
            }
            ClockMsg::Press {
                side,
                white_ms,
                black_ms,
                ..
            } => out.push(Event::Press {
                side,
                white_ms,
                black_ms,
            }),
            ClockMsg::Time {
                white_ms,
                black_ms,
                running,
                ..
            } => out.push(Event::ClockTime {
                white_ms,
                black_ms,
                running,
            }),
            ClockMsg::Flag { side, .. } => out.push(Event::Flag { side }),
            ClockMsg::Reply { .. } => {}
        }
        (out, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::frame;
    use shakmaty::Square;

    #[test]
    fn a_damaged_line_is_one_loss_not_two() {
        let mut link = BoardLink::default();
        link.feed(&frame("S ffff00000000ffff 0 1"));
        let (ev, err) = link.feed("L e2 1 50*00");
        assert_eq!(ev, vec![Event::BoardDamaged]);
        assert!(err.is_some());
        let (ev, _) = link.feed(&frame("P e4 2 60"));
        assert_eq!(ev, vec![Event::Place(Square::E4, None)]);
        let (ev, _) = link.feed(&frame("S ffff00001000efff 5 70"));
        assert_eq!(
            ev[0],
            Event::BoardLost { lines: 2 },
            "seq 3 and 4 never came"
        );
    }

    #[test]
    fn seq_wraps_and_hello_resets() {
        let mut link = BoardLink::default();
        link.feed(&frame("L e2 65535 1"));
        let (ev, _) = link.feed(&frame("P e4 0 2"));
        assert_eq!(ev, vec![Event::Place(Square::E4, None)]);
        link.feed(&frame("TMB1 1.0.0 X"));
        let (ev, _) = link.feed(&frame("S ffff00000000ffff 0 3"));
        assert_eq!(ev.len(), 1, "no gap after a restart: {ev:?}");
    }
}
