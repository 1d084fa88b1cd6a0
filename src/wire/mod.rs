//! The wire: the line framing shared by the board (TMB1) and the clock
//! (TMC1), their messages, and TMREC recordings of both.
//!
//! Everything here is exact to `protocol/` in the shared docs. A line that
//! does not frame, check or parse is rejected whole with an error that says
//! why; nothing is ever inferred from a bad line (TMB1, "What a host must
//! never do").

pub mod frame;
pub mod tmb1;
pub mod tmc1;
pub mod tmrec;

pub use frame::{checksum, frame, unframe, FrameError, MAX_LINE};
pub use tmb1::{BoardCommand, BoardMsg};
pub use tmc1::{ClockCommand, ClockMode, ClockMsg};
pub use tmrec::{Device, Direction, Entry, Record, Recording, TmrecError};

use shakmaty::{Bitboard, Color, Square};

/// Why a framed body is not a message we know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MsgError {
    #[error("unknown message {0:?}")]
    Unknown(String),
    #[error("message {msg}: expected {expected} fields, found {found}")]
    FieldCount {
        msg: &'static str,
        expected: usize,
        found: usize,
    },
    #[error("message {msg}: field {field} is {value:?}, {why}")]
    Field {
        msg: &'static str,
        field: &'static str,
        value: String,
        why: &'static str,
    },
}

/// Any error reading one line off a device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error(transparent)]
    Msg(#[from] MsgError),
}

pub(crate) struct Fields<'a> {
    msg: &'static str,
    parts: Vec<&'a str>,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(
        msg: &'static str,
        body: &'a str,
        expected: usize,
        rest_ok: bool,
    ) -> Result<Self, MsgError> {
        let parts: Vec<&str> = body.split(' ').collect();
        let ok = if rest_ok {
            parts.len() >= expected
        } else {
            parts.len() == expected
        };
        if !ok {
            return Err(MsgError::FieldCount {
                msg,
                expected,
                found: parts.len(),
            });
        }
        Ok(Fields { msg, parts })
    }

    pub(crate) fn str(&self, i: usize) -> &'a str {
        self.parts[i]
    }

    pub(crate) fn rest(&self, i: usize) -> String {
        self.parts[i..].join(" ")
    }

    fn bad(&self, i: usize, field: &'static str, why: &'static str) -> MsgError {
        MsgError::Field {
            msg: self.msg,
            field,
            value: self.parts[i].to_string(),
            why,
        }
    }

    pub(crate) fn square(&self, i: usize) -> Result<Square, MsgError> {
        let s = self.parts[i];
        let b = s.as_bytes();
        if b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1]) {
            Ok(Square::from_coords(
                shakmaty::File::new(u32::from(b[0] - b'a')),
                shakmaty::Rank::new(u32::from(b[1] - b'1')),
            ))
        } else {
            Err(self.bad(i, "square", "not a square a1..h8"))
        }
    }

    fn decimal(&self, i: usize, field: &'static str) -> Result<u64, MsgError> {
        let s = self.parts[i];
        if s.is_empty() || s.len() > 20 || !s.bytes().all(|c| c.is_ascii_digit()) {
            return Err(self.bad(i, field, "not a decimal number"));
        }
        s.parse().map_err(|_| self.bad(i, field, "out of range"))
    }

    pub(crate) fn u16(&self, i: usize, field: &'static str) -> Result<u16, MsgError> {
        let v = self.decimal(i, field)?;
        u16::try_from(v).map_err(|_| self.bad(i, field, "out of range 0-65535"))
    }

    pub(crate) fn u32(&self, i: usize, field: &'static str) -> Result<u32, MsgError> {
        let v = self.decimal(i, field)?;
        u32::try_from(v).map_err(|_| self.bad(i, field, "out of 32-bit range"))
    }

    pub(crate) fn u64(&self, i: usize, field: &'static str) -> Result<u64, MsgError> {
        self.decimal(i, field)
    }

    pub(crate) fn occupancy(&self, i: usize) -> Result<Bitboard, MsgError> {
        let s = self.parts[i];
        if s.len() != 16 || !s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(self.bad(i, "occ", "not 16 lowercase hex digits"));
        }
        u64::from_str_radix(s, 16)
            .map(Bitboard)
            .map_err(|_| self.bad(i, "occ", "not hex"))
    }

    pub(crate) fn side(&self, i: usize) -> Result<Color, MsgError> {
        match self.parts[i] {
            "W" => Ok(Color::White),
            "B" => Ok(Color::Black),
            _ => Err(self.bad(i, "side", "not W or B")),
        }
    }

    pub(crate) fn hello(&self) -> Result<(String, String), MsgError> {
        let serial = self.parts[2];
        if serial.is_empty()
            || serial.len() > 24
            || !serial
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-')
        {
            return Err(self.bad(2, "serial", "not 1-24 of [A-Za-z0-9-]"));
        }
        Ok((self.parts[1].to_string(), serial.to_string()))
    }
}

/// `OK …` / `NO …`, the reply both devices give to a host command.
pub(crate) fn reply_body(ok: bool, text: &str) -> String {
    format!("{} {text}", if ok { "OK" } else { "NO" })
}

/// Reads a reply body (it starts with `OK` or `NO`).
pub(crate) fn parse_reply(body: &str) -> (bool, String) {
    (body.starts_with("OK"), body[2..].trim_start().to_string())
}

/// A square as the wire writes it (`e4`).
pub fn square_name(sq: Square) -> String {
    sq.to_string()
}

/// `W` or `B`.
pub fn side_letter(c: Color) -> char {
    match c {
        Color::White => 'W',
        Color::Black => 'B',
    }
}
