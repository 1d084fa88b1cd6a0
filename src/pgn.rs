//! Writing game scores as PGN: the Seven Tag Roster, `TimeControl`, moves in
//! SAN with check marks, and `[%clk h:mm:ss]` after every move when a clock
//! was present — the shape lichess relays and LiveChess round folders use;
//! and reading PGN games back (with `pgn-reader`), every move checked legal.

use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{Chess, Move, Position};

use crate::table::MoveRecord;

/// The tags of a game, in the order they are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tags {
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    pub time_control: String,
    /// Further tags (`WhiteElo`, …), written after the roster.
    pub extra: Vec<(String, String)>,
}

impl Default for Tags {
    fn default() -> Tags {
        Tags {
            event: "?".into(),
            site: "?".into(),
            date: "????.??.??".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
            time_control: "?".into(),
            extra: Vec::new(),
        }
    }
}

impl Tags {
    /// Tags from `(name, value)` pairs such as a recording's `# game:`
    /// comments; unknown names go to `extra`.
    pub fn from_pairs(pairs: &[(String, String)]) -> Tags {
        let mut t = Tags::default();
        let mut clock_setting = None;
        for (k, v) in pairs {
            match k.as_str() {
                "Event" => t.event = v.clone(),
                "Site" => t.site = v.clone(),
                "Date" => t.date = v.clone(),
                "Round" => t.round = v.clone(),
                "White" => t.white = v.clone(),
                "Black" => t.black = v.clone(),
                "TimeControl" => t.time_control = v.clone(),
                "ClockSetting" => clock_setting = Some(v.clone()),
                "Result" => {}
                _ => t.extra.push((k.clone(), v.clone())),
            }
        }
        // PGN's TimeControl is "seconds+increment"; LiveChess writes prose
        // ("15 min/game + 10 sec/move"), which lichess does not read.
        let pgn_like = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || b"+/:*-?".contains(&b))
        };
        if !pgn_like(&t.time_control) {
            if let Some(cs) = clock_setting.filter(|c| pgn_like(c)) {
                t.time_control = cs;
            } else if t.time_control != "?" {
                t.time_control = "?".into();
            }
        }
        t
    }
}

/// `h:mm:ss` for a remaining time in ms (rounded down to the second).
pub fn clk(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The whole game as PGN text, ending with a blank line.
pub fn write(tags: &Tags, moves: &[MoveRecord], result: &str) -> String {
    let mut out = String::new();
    let roster = [
        ("Event", &tags.event),
        ("Site", &tags.site),
        ("Date", &tags.date),
        ("Round", &tags.round),
        ("White", &tags.white),
        ("Black", &tags.black),
        ("Result", &result.to_string()),
        ("TimeControl", &tags.time_control),
    ];
    for (k, v) in roster {
        out.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
    }
    for (k, v) in &tags.extra {
        out.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
    }
    out.push('\n');
    let mut tokens: Vec<String> = Vec::new();
    for m in moves {
        if m.ply % 2 == 1 {
            tokens.push(format!("{}.", m.ply.div_ceil(2)));
        }
        tokens.push(m.san.clone());
        if let Some(ms) = m.clock_ms {
            tokens.push(format!("{{[%clk {}]}}", clk(ms)));
        }
    }
    tokens.push(result.to_string());
    let mut line = String::new();
    for tok in tokens {
        if !line.is_empty() && line.len() + 1 + tok.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&tok);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// A game read from PGN: its tags and its moves, legal from the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<Move>,
    /// The SAN of each move as written in the file.
    pub sans: Vec<String>,
    pub result: String,
}

impl PgnGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a PGN text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    #[error("game {game}, ply {ply}: {san} is not a legal move ({why})")]
    Illegal {
        game: usize,
        ply: usize,
        san: String,
        why: String,
    },
    #[error("{0}")]
    Io(String),
}

struct Collect {
    game: usize,
}

struct Movetext {
    tags: Vec<(String, String)>,
    pos: Chess,
    moves: Vec<Move>,
    sans: Vec<String>,
    result: String,
    error: Option<PgnError>,
}

impl Visitor for Collect {
    type Tags = Vec<(String, String)>;
    type Movetext = Movetext;
    type Output = Result<PgnGame, PgnError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.game += 1;
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Movetext {
            tags,
            pos: Chess::default(),
            moves: Vec::new(),
            sans: Vec::new(),
            result: "*".into(),
            error: None,
        })
    }

    fn begin_variation(
        &mut self,
        _movetext: &mut Self::Movetext,
    ) -> ControlFlow<Self::Output, pgn_reader::Skip> {
        ControlFlow::Continue(pgn_reader::Skip(true))
    }

    fn san(&mut self, mt: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if mt.error.is_some() {
            return ControlFlow::Continue(());
        }
        match san_plus.san.to_move(&mt.pos) {
            Ok(m) => {
                mt.pos.play_unchecked(m);
                mt.moves.push(m);
                mt.sans.push(san_plus.to_string());
            }
            Err(e) => {
                mt.error = Some(PgnError::Illegal {
                    game: self.game,
                    ply: mt.moves.len() + 1,
                    san: san_plus.to_string(),
                    why: e.to_string(),
                })
            }
        }
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        mt: &mut Self::Movetext,
        outcome: shakmaty::Outcome,
    ) -> ControlFlow<Self::Output> {
        mt.result = outcome.to_string();
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mt: Self::Movetext) -> Self::Output {
        if let Some(e) = mt.error {
            return Err(e);
        }
        Ok(PgnGame {
            tags: mt.tags,
            moves: mt.moves,
            sans: mt.sans,
            result: mt.result,
        })
    }
}

/// Reads every game of a PGN text (standard start position), each move
/// checked legal; variations are skipped.
pub fn read_games(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut reader = Reader::new(std::io::Cursor::new(text.as_bytes()));
    let mut visitor = Collect { game: 0 };
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut visitor) {
            Ok(Some(g)) => games.push(g?),
            Ok(None) => break,
            Err(e) => return Err(PgnError::Io(e.to_string())),
        }
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Completion;

    fn rec(ply: u32, san: &str, clock_ms: Option<u64>) -> MoveRecord {
        MoveRecord {
            ply,
            san: san.into(),
            uci: String::new(),
            t_ms: 0,
            clock_ms,
            completed_by: Completion::Press,
        }
    }

    #[test]
    fn writes_clock_comments_and_roster() {
        let pgn = write(
            &Tags::default(),
            &[rec(1, "e4", Some(5_412_000)), rec(2, "e5", Some(5_399_999))],
            "*",
        );
        assert!(pgn.starts_with("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n[TimeControl \"?\"]\n\n"));
        assert!(
            pgn.contains("1. e4 {[%clk 1:30:12]} e5 {[%clk 1:29:59]} *"),
            "{pgn}"
        );
    }

    #[test]
    fn reads_back_what_it_writes() {
        let pgn = write(
            &Tags::default(),
            &[
                rec(1, "e4", Some(60_000)),
                rec(2, "e5", None),
                rec(3, "Qh5", None),
            ],
            "*",
        );
        let games = read_games(&pgn).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].sans, vec!["e4", "e5", "Qh5"]);
        assert_eq!(games[0].tag("Event"), Some("?"));
        assert!(matches!(
            read_games("1. e4 e5 2. Ke3 *"),
            Err(PgnError::Illegal {
                game: 1,
                ply: 3,
                ..
            })
        ));
    }

    #[test]
    fn livechess_prose_time_control_gives_way_to_the_clock_setting() {
        let t = Tags::from_pairs(&[
            ("TimeControl".into(), "15 min/game + 10 sec/move".into()),
            ("ClockSetting".into(), "900+10".into()),
        ]);
        assert_eq!(t.time_control, "900+10");
    }
}
