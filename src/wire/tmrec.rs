//! TMREC: one table's serial traffic with host arrival times, as recorded
//! for evidence and bug reports, and replayed through the live code path.
//!
//! Reading never stops at a damaged line: each one becomes a [`TmrecError`]
//! naming its line number, and the rest of the recording is still read, so
//! that nothing after a damaged line is lost.

use std::fmt;

/// Which device a recorded line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    Board,
    Clock,
}

impl Device {
    pub fn name(self) -> &'static str {
        match self {
            Device::Board => "board",
            Device::Clock => "clock",
        }
    }
}

/// Which way a recorded line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `>`: the device sent it to the host. Replay feeds these.
    FromDevice,
    /// `<`: the host sent it to the device. Replay ignores these.
    ToDevice,
}

/// One recorded line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Host milliseconds since the recording started.
    pub t_ms: u64,
    pub device: Device,
    pub dir: Direction,
    /// The line as it arrived (checksum included, possibly damaged).
    pub line: String,
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = match self.dir {
            Direction::FromDevice => '>',
            Direction::ToDevice => '<',
        };
        write!(
            f,
            "{} {}{} {}",
            self.t_ms,
            self.device.name(),
            dir,
            self.line
        )
    }
}

/// A line of a recording file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// `# …` (the text after `#` and one space).
    Comment(String),
    Record(Record),
}

/// A recording line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct TmrecError {
    /// 1-based line number in the file.
    pub line: usize,
    pub why: String,
}

/// A whole recording: its entries in order, with the 1-based line number of
/// each, and the lines that could not be read.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    pub entries: Vec<(usize, Entry)>,
    pub errors: Vec<TmrecError>,
}

impl Recording {
    /// Reads a recording's text. Never fails as a whole: damaged lines are
    /// listed in `errors` and skipped.
    pub fn parse(text: &str) -> Recording {
        let mut rec = Recording::default();
        let mut last_t = 0u64;
        for (i, raw) in text.split('\n').enumerate() {
            let n = i + 1;
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if raw.trim().is_empty() {
                continue;
            }
            if let Some(c) = raw.strip_prefix('#') {
                let c = c.strip_prefix(' ').unwrap_or(c);
                rec.entries.push((n, Entry::Comment(c.to_string())));
                continue;
            }
            match parse_record(raw) {
                Ok(r) => {
                    if r.t_ms < last_t {
                        rec.errors.push(TmrecError {
                            line: n,
                            why: format!(
                                "time {} goes back (previous line was at {last_t})",
                                r.t_ms
                            ),
                        });
                    }
                    last_t = last_t.max(r.t_ms);
                    rec.entries.push((n, Entry::Record(r)));
                }
                Err(why) => rec.errors.push(TmrecError { line: n, why }),
            }
        }
        if !matches!(rec.entries.first(), Some((_, Entry::Comment(c))) if c.starts_with("tmrec 1"))
        {
            rec.errors.insert(
                0,
                TmrecError {
                    line: 1,
                    why: "missing the '# tmrec 1' header".into(),
                },
            );
        }
        rec
    }

    /// The device lines in order.
    pub fn records(&self) -> impl Iterator<Item = (usize, &Record)> {
        self.entries.iter().filter_map(|(n, e)| match e {
            Entry::Record(r) => Some((*n, r)),
            Entry::Comment(_) => None,
        })
    }

    /// The comments in order.
    pub fn comments(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().filter_map(|(_, e)| match e {
            Entry::Comment(c) => Some(c.as_str()),
            Entry::Record(_) => None,
        })
    }

    /// The `# game: Tag value` comments, as PGN tags.
    pub fn game_tags(&self) -> Vec<(String, String)> {
        self.comments()
            .filter_map(|c| c.strip_prefix("game: "))
            .filter_map(|c| c.split_once(' '))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// The generator's intent (`# expect-…` comments), for tests.
    pub fn expectations(&self) -> Expectations {
        let mut e = Expectations::default();
        for c in self.comments() {
            if let Some(rest) = c.strip_prefix("expect-move: ") {
                if let Some((ply, san)) = rest.split_once(' ') {
                    if let Ok(ply) = ply.parse() {
                        e.moves.push((ply, san.trim().to_string()));
                    }
                }
            } else if let Some(rest) = c.strip_prefix("expect-alert: ") {
                if let Some((ply, kind)) = rest.split_once(' ') {
                    if let Ok(ply) = ply.parse() {
                        e.alerts.push((ply, kind.trim().to_string()));
                    }
                }
            } else if let Some(rest) = c.strip_prefix("expect-result: ") {
                e.result = Some(rest.trim().to_string());
            }
        }
        e
    }

    /// Writes the recording back out (comments and records; damaged lines
    /// of the file itself are not part of it).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (_, e) in &self.entries {
            match e {
                Entry::Comment(c) => {
                    s.push_str("# ");
                    s.push_str(c);
                }
                Entry::Record(r) => s.push_str(&r.to_string()),
            }
            s.push('\n');
        }
        s
    }
}

/// What a generated recording says the table should find.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    /// `(ply, SAN)`, ply 1 = White's first move.
    pub moves: Vec<(u32, String)>,
    /// `(ply, kind)`.
    pub alerts: Vec<(u32, String)>,
    pub result: Option<String>,
}

fn parse_record(raw: &str) -> Result<Record, String> {
    let mut it = raw.splitn(3, ' ');
    let t = it.next().unwrap_or("");
    let dev = it.next().ok_or("expected '<t_ms> <device><dir> <line>'")?;
    let line = it.next().ok_or("no device line after the device field")?;
    if t.is_empty() || t.len() > 19 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "field t_ms: {t:?} is not a whole number of milliseconds"
        ));
    }
    let t_ms = t
        .parse()
        .map_err(|_| format!("field t_ms: {t:?} is out of range"))?;
    let (device, dir) = match dev {
        "board>" => (Device::Board, Direction::FromDevice),
        "board<" => (Device::Board, Direction::ToDevice),
        "clock>" => (Device::Clock, Direction::FromDevice),
        "clock<" => (Device::Clock, Direction::ToDevice),
        _ => {
            return Err(format!(
                "field device: {dev:?} is not board>, board<, clock> or clock<"
            ))
        }
    };
    Ok(Record {
        t_ms,
        device,
        dir,
        line: line.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "# tmrec 1\n0 board> TMB1 1.0.0 TMB-00042*1B\n3 board> S ffff00000000ffff 0 12*40\n5 clock> TMC1 1.0.0 CLK-7*04\n9 clock< N 5400000 5400000 30000 fischer*1D\n1200 board> L e2 1 50311*3C\n# expect-move: 1 e4\n";

    #[test]
    fn reads_and_writes_the_example() {
        let r = Recording::parse(EXAMPLE);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(r.records().count(), 5);
        let (_, clock_out) = r.records().nth(3).unwrap();
        assert_eq!(clock_out.dir, Direction::ToDevice);
        assert_eq!(r.expectations().moves, vec![(1, "e4".to_string())]);
        assert_eq!(r.to_text(), EXAMPLE);
    }

    #[test]
    fn a_damaged_line_is_named_and_the_rest_kept() {
        let r = Recording::parse("# tmrec 1\n10 board> L e2 1 5*00\nten board> x\n20 table> y\n30 board>\n40 clock> C W 1 2 3 4*00\n");
        let lines: Vec<usize> = r.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![3, 4, 5]);
        assert!(r.errors[0].to_string().contains("t_ms"));
        assert!(r.errors[1].to_string().contains("device"));
        assert_eq!(r.records().count(), 2);
    }
}
