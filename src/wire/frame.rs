//! Line framing: `BODY*CC`, where `CC` is the XOR of every byte of `BODY`
//! as two uppercase hex digits (NMEA style). Both TMB1 and TMC1 use it.

/// Longest line a receiver accepts, in bytes, without the line ending.
pub const MAX_LINE: usize = 80;

/// Why a received line was discarded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("line is {0} bytes long, over the limit of 80")]
    TooLong(usize),
    #[error("line has no '*' checksum")]
    NoChecksum,
    #[error("checksum {0:?} is not two uppercase hex digits")]
    BadChecksumDigits(String),
    #[error("checksum {found} does not match the body (expected {expected})")]
    ChecksumMismatch { found: String, expected: String },
    #[error("body has a byte outside printable ASCII at column {0}")]
    NotPrintable(usize),
    #[error("line is empty")]
    Empty,
}

/// XOR of every byte of `body`.
pub fn checksum(body: &str) -> u8 {
    body.bytes().fold(0, |c, b| c ^ b)
}

/// Writes `body` as a line with its checksum, without the newline.
pub fn frame(body: &str) -> String {
    format!("{body}*{:02X}", checksum(body))
}

/// Checks a received line (with or without `\r\n` / `\n`) and returns its body.
pub fn unframe(raw: &str) -> Result<&str, FrameError> {
    let line = raw.strip_suffix('\n').unwrap_or(raw);
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.len() > MAX_LINE {
        return Err(FrameError::TooLong(line.len()));
    }
    if line.is_empty() {
        return Err(FrameError::Empty);
    }
    let star = line.rfind('*').ok_or(FrameError::NoChecksum)?;
    let (body, cc) = (&line[..star], &line[star + 1..]);
    if let Some(col) = body
        .bytes()
        .position(|b| !(0x20..=0x7e).contains(&b) || b == b'*')
    {
        return Err(FrameError::NotPrintable(col + 1));
    }
    if cc.len() != 2 || !cc.bytes().all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F')) {
        return Err(FrameError::BadChecksumDigits(cc.to_string()));
    }
    let expected = format!("{:02X}", checksum(body));
    if cc != expected {
        return Err(FrameError::ChecksumMismatch {
            found: cc.to_string(),
            expected,
        });
    }
    if body.is_empty() {
        return Err(FrameError::Empty);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_examples_check() {
        // The lines printed in protocol/TMB1.md and TMC1.md.
        for l in [
            "TMB1 1.0.0 TMB-00042*1B",
            "S ffff00000000ffff 0 12*40",
            "L e2 1 50311*3C",
            "P e4 2 50702*23",
            "S ffff00001000efff 3 51012*75",
            "TMC1 1.0.0 CLK-7*04",
            "C W 5412000 5400000 1 18100*3E",
        ] {
            assert!(unframe(l).is_ok(), "{l}");
            let body = unframe(l).unwrap();
            assert_eq!(frame(body), l);
        }
    }

    #[test]
    fn crlf_is_tolerated_and_damage_is_caught() {
        assert_eq!(unframe("L e2 1 50311*3C\r\n"), Ok("L e2 1 50311"));
        assert!(matches!(
            unframe("L e3 1 50311*3C"),
            Err(FrameError::ChecksumMismatch { .. })
        ));
        assert_eq!(unframe("L e2 1 50311"), Err(FrameError::NoChecksum));
        assert!(matches!(
            unframe("L e2*3c"),
            Err(FrameError::BadChecksumDigits(_))
        ));
        let long = frame(&"x".repeat(78));
        assert_eq!(unframe(&long), Err(FrameError::TooLong(81)));
        assert_eq!(unframe(&frame(&"x".repeat(77))).map(str::len), Ok(77));
    }
}
