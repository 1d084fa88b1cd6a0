//! TMC1: what the chess clock says and what the host may ask of it.

use shakmaty::Color;

use super::{frame, side_letter, unframe, Fields, LineError, MsgError};

/// A message from the clock to the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockMsg {
    /// Power-up or the reply to `I`.
    Hello { fw: String, serial: String },
    /// `side` pressed: its face stopped, the other started. Times are after
    /// the press, increment included. This completes a move (Article 6.2).
    Press {
        side: Color,
        white_ms: u64,
        black_ms: u64,
        seq: u16,
        ms: u32,
    },
    /// A time report; `running` is the face that runs, `None` if stopped.
    Time {
        white_ms: u64,
        black_ms: u64,
        running: Option<Color>,
        seq: u16,
        ms: u32,
    },
    /// That side's time reached zero.
    Flag { side: Color, seq: u16, ms: u32 },
    /// `OK …` or `NO …`.
    Reply { ok: bool, text: String },
}

impl ClockMsg {
    pub fn parse_line(raw: &str) -> Result<ClockMsg, LineError> {
        Ok(ClockMsg::parse_body(unframe(raw)?)?)
    }

    pub fn parse_body(body: &str) -> Result<ClockMsg, MsgError> {
        let tag = body.split(' ').next().unwrap_or("");
        match tag {
            "TMC1" => {
                let f = Fields::new("TMC1", body, 3, false)?;
                let (fw, serial) = f.hello()?;
                Ok(ClockMsg::Hello { fw, serial })
            }
            "C" => {
                let f = Fields::new("C", body, 6, false)?;
                Ok(ClockMsg::Press {
                    side: f.side(1)?,
                    white_ms: f.u64(2, "wms")?,
                    black_ms: f.u64(3, "bms")?,
                    seq: f.u16(4, "seq")?,
                    ms: f.u32(5, "ms")?,
                })
            }
            "T" => {
                let f = Fields::new("T", body, 6, false)?;
                let running = match f.str(3) {
                    "-" => None,
                    _ => Some(f.side(3)?),
                };
                Ok(ClockMsg::Time {
                    white_ms: f.u64(1, "wms")?,
                    black_ms: f.u64(2, "bms")?,
                    running,
                    seq: f.u16(4, "seq")?,
                    ms: f.u32(5, "ms")?,
                })
            }
            "F" => {
                let f = Fields::new("F", body, 4, false)?;
                Ok(ClockMsg::Flag {
                    side: f.side(1)?,
                    seq: f.u16(2, "seq")?,
                    ms: f.u32(3, "ms")?,
                })
            }
            "OK" | "NO" => {
                let (ok, text) = super::parse_reply(body);
                Ok(ClockMsg::Reply { ok, text })
            }
            _ => Err(MsgError::Unknown(tag.to_string())),
        }
    }

    pub fn body(&self) -> String {
        match self {
            ClockMsg::Hello { fw, serial } => format!("TMC1 {fw} {serial}"),
            ClockMsg::Press {
                side,
                white_ms,
                black_ms,
                seq,
                ms,
            } => format!("C {} {white_ms} {black_ms} {seq} {ms}", side_letter(*side)),
            ClockMsg::Time {
                white_ms,
                black_ms,
                running,
                seq,
                ms,
            } => {
                let run = running.map_or('-', side_letter);
                format!("T {white_ms} {black_ms} {run} {seq} {ms}")
            }
            ClockMsg::Flag { side, seq, ms } => format!("F {} {seq} {ms}", side_letter(*side)),
            ClockMsg::Reply { ok, text } => super::reply_body(*ok, text),
        }
    }

    pub fn line(&self) -> String {
        frame(&self.body())
    }

    pub fn seq(&self) -> Option<u16> {
        match self {
            ClockMsg::Press { seq, .. }
            | ClockMsg::Time { seq, .. }
            | ClockMsg::Flag { seq, .. } => Some(*seq),
            ClockMsg::Hello { .. } | ClockMsg::Reply { .. } => None,
        }
    }
}

/// How the clock adds time per move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockMode {
    Fischer,
    Delay,
    None,
}

/// A command from the host to the clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockCommand {
    Identify,
    Set {
        white_ms: u64,
        black_ms: u64,
        increment_ms: u64,
        mode: ClockMode,
    },
    Start(Color),
    Stop,
    Adjust {
        white_ms: u64,
        black_ms: u64,
    },
    Message(String),
}

impl ClockCommand {
    pub fn body(&self) -> String {
        match self {
            ClockCommand::Identify => "I".into(),
            ClockCommand::Set {
                white_ms,
                black_ms,
                increment_ms,
                mode,
            } => {
                let mode = match mode {
                    ClockMode::Fischer => "fischer",
                    ClockMode::Delay => "delay",
                    ClockMode::None => "none",
                };
                format!("N {white_ms} {black_ms} {increment_ms} {mode}")
            }
            ClockCommand::Start(side) => format!("R {}", side_letter(*side)),
            ClockCommand::Stop => "Z".into(),
            ClockCommand::Adjust { white_ms, black_ms } => format!("A {white_ms} {black_ms}"),
            ClockCommand::Message(text) if text.is_empty() => "M".into(),
            ClockCommand::Message(text) => format!("M {text}"),
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
            ClockMsg::parse_line("C W 5412000 5400000 1 18100*3E").unwrap(),
            ClockMsg::Press {
                side: Color::White,
                white_ms: 5_412_000,
                black_ms: 5_400_000,
                seq: 1,
                ms: 18100
            }
        );
        let t = ClockMsg::parse_line("T 5412000 5399000 B 2 19100*39").unwrap();
        assert!(matches!(
            t,
            ClockMsg::Time {
                running: Some(Color::Black),
                ..
            }
        ));
        assert_eq!(t.line(), "T 5412000 5399000 B 2 19100*39");
        assert_eq!(
            ClockMsg::parse_line("OK N*6A").unwrap(),
            ClockMsg::Reply {
                ok: true,
                text: "N".into()
            }
        );
        assert_eq!(
            ClockCommand::Set {
                white_ms: 5_400_000,
                black_ms: 5_400_000,
                increment_ms: 30_000,
                mode: ClockMode::Fischer
            }
            .line(),
            "N 5400000 5400000 30000 fischer*1D"
        );
        assert_eq!(ClockCommand::Start(Color::White).line(), "R W*25");
    }

    #[test]
    fn rejects_what_is_not_tmc1() {
        for body in ["C X 1 2 3 4", "T 1 2 Q 3 4", "F W 1", "C W 1 2 3", "Z"] {
            assert!(ClockMsg::parse_body(body).is_err(), "{body}");
        }
    }
}
