//! TMB1: what the reed-switch board says and what the host may ask of it.

use shakmaty::{Bitboard, Square};

use super::{frame, square_name, unframe, Fields, LineError, MsgError};

/// A message from the board to the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardMsg {
    /// Power-up, re-enumeration or the reply to `I`: the board restarted.
    Hello { fw: String, serial: String },
    /// A square became empty.
    Lift { square: Square, seq: u16, ms: u32 },
    /// A square became occupied.
    Place { square: Square, seq: u16, ms: u32 },
    /// The whole occupancy; reflects every event with a smaller seq.
    Snapshot {
        occupied: Bitboard,
        seq: u16,
        ms: u32,
    },
    /// The board reports a fault of its own.
    Fault {
        code: String,
        seq: u16,
        ms: u32,
        text: String,
    },
    /// `OK …` or `NO …`: a reply to a host command (no seq).
    Reply { ok: bool, text: String },
}

impl BoardMsg {
    /// Parses one received line (checksum included).
    pub fn parse_line(raw: &str) -> Result<BoardMsg, LineError> {
        Ok(BoardMsg::parse_body(unframe(raw)?)?)
    }

    /// Parses a checked body.
    pub fn parse_body(body: &str) -> Result<BoardMsg, MsgError> {
        let tag = body.split(' ').next().unwrap_or("");
        match tag {
            "TMB1" => {
                let f = Fields::new("TMB1", body, 3, false)?;
                let (fw, serial) = f.hello()?;
                Ok(BoardMsg::Hello { fw, serial })
            }
            "L" | "P" => {
                let f = Fields::new(if tag == "L" { "L" } else { "P" }, body, 4, false)?;
                let square = f.square(1)?;
                let seq = f.u16(2, "seq")?;
                let ms = f.u32(3, "ms")?;
                Ok(if tag == "L" {
                    BoardMsg::Lift { square, seq, ms }
                } else {
                    BoardMsg::Place { square, seq, ms }
                })
            }
            "S" => {
                let f = Fields::new("S", body, 4, false)?;
                Ok(BoardMsg::Snapshot {
                    occupied: f.occupancy(1)?,
                    seq: f.u16(2, "seq")?,
                    ms: f.u32(3, "ms")?,
                })
            }
            "E" => {
                let f = Fields::new("E", body, 4, true)?;
                Ok(BoardMsg::Fault {
                    code: f.str(1).to_string(),
                    seq: f.u16(2, "seq")?,
                    ms: f.u32(3, "ms")?,
                    text: f.rest(4),
                })
            }
            "OK" | "NO" => {
                let (ok, text) = super::parse_reply(body);
                Ok(BoardMsg::Reply { ok, text })
            }
            _ => Err(MsgError::Unknown(tag.to_string())),
        }
    }

    /// The body as the board writes it.
    pub fn body(&self) -> String {
        match self {
            BoardMsg::Hello { fw, serial } => format!("TMB1 {fw} {serial}"),
            BoardMsg::Lift { square, seq, ms } => format!("L {} {seq} {ms}", square_name(*square)),
            BoardMsg::Place { square, seq, ms } => format!("P {} {seq} {ms}", square_name(*square)),
            BoardMsg::Snapshot { occupied, seq, ms } => format!("S {:016x} {seq} {ms}", occupied.0),
            BoardMsg::Fault {
                code,
                seq,
                ms,
                text,
            } => {
                if text.is_empty() {
                    format!("E {code} {seq} {ms}")
                } else {
                    format!("E {code} {seq} {ms} {text}")
                }
            }
            BoardMsg::Reply { ok, text } => super::reply_body(*ok, text),
        }
    }

    /// The framed line (no newline).
    pub fn line(&self) -> String {
        frame(&self.body())
    }

    /// The sequence number, for messages that carry one.
    pub fn seq(&self) -> Option<u16> {
        match self {
            BoardMsg::Lift { seq, .. }
            | BoardMsg::Place { seq, .. }
            | BoardMsg::Snapshot { seq, .. }
            | BoardMsg::Fault { seq, .. } => Some(*seq),
            BoardMsg::Hello { .. } | BoardMsg::Reply { .. } => None,
        }
    }
}

/// A command from the host to the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardCommand {
    /// `I`: say hello.
    Identify,
    /// `S`: send a snapshot now.
    Snapshot,
    /// `H <ms>`: heartbeat period, 0 = off.
    Heartbeat(u32),
    /// `D <ms>`: debounce time, 5–500.
    Debounce(u32),
    /// `X <mask>`: light these squares.
    Leds(Bitboard),
    /// `B <ms>`: sound the buzzer, 0–2000.
    Buzzer(u32),
}

impl BoardCommand {
    pub fn body(&self) -> String {
        match self {
            BoardCommand::Identify => "I".into(),
            BoardCommand::Snapshot => "S".into(),
            BoardCommand::Heartbeat(ms) => format!("H {ms}"),
            BoardCommand::Debounce(ms) => format!("D {ms}"),
            BoardCommand::Leds(mask) => format!("X {:016x}", mask.0),
            BoardCommand::Buzzer(ms) => format!("B {ms}"),
        }
    }

    pub fn line(&self) -> String {
        frame(&self.body())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_protocol_example() {
        assert_eq!(
            BoardMsg::parse_line("TMB1 1.0.0 TMB-00042*1B").unwrap(),
            BoardMsg::Hello {
                fw: "1.0.0".into(),
                serial: "TMB-00042".into()
            }
        );
        assert_eq!(
            BoardMsg::parse_line("S ffff00001000efff 3 51012*75").unwrap(),
            BoardMsg::Snapshot {
                occupied: Bitboard(0xffff_0000_1000_efff),
                seq: 3,
                ms: 51012
            }
        );
        let l = BoardMsg::parse_line("L e2 1 50311*3C").unwrap();
        assert_eq!(
            l,
            BoardMsg::Lift {
                square: Square::E2,
                seq: 1,
                ms: 50311
            }
        );
        assert_eq!(l.line(), "L e2 1 50311*3C");
    }

    #[test]
    fn rejects_what_is_not_tmb1() {
        for body in [
            "L i2 1 5",
            "L e9 1 5",
            "L e2 65536 5",
            "L e2 1",
            "S ffff 1 2",
            "S FFFF00000000FFFF 1 2",
            "Q e2 1 2",
            "TMB1 1.0.0 bad_serial!",
            "P e2 -1 5",
        ] {
            assert!(BoardMsg::parse_body(body).is_err(), "{body}");
        }
    }

    #[test]
    fn commands_are_framed() {
        assert_eq!(BoardCommand::Snapshot.line(), "S*53");
        assert_eq!(BoardCommand::Leds(Bitboard(1)).body(), "X 0000000000000001");
    }
}
