//! Article 6.9 / 5.2.2 analysis: can White still checkmate, can Black, and
//! is the position dead.
//!
//! Both questions are *helpmate* questions (LAWS.md, Article 6): a side can
//! win if some series of legal moves, with the most unskilled counterplay,
//! ends in its checkmating the other king. Counting material is not enough
//! (a blocked pawn wall, a forced capture that leaves a bare king), so the
//! search is done by the `chasolver` crate, the Rust port of Ambrona's Chess
//! Unwinnability Analyzer ("A Practical Algorithm for Chess Unwinnability",
//! FUN 2022): it either finds a mating line or proves that none exists.
//!
//! Why `chasolver`: it is the reference implementation of that algorithm,
//! it is MIT-licensed (compatible with this project's GPL-3.0-or-later), and
//! its author reports it deciding every timeout position of the lichess
//! database; it also agrees with all 69,000 labelled positions in
//! `../shared/data/unwinnability` (`tests/verdict.rs`).
//! It works on the `chess` crate's board; this module hides both: positions
//! come in as [`shakmaty::Chess`] (converted through FEN), mating lines come
//! out as SAN strings, and nothing of `chasolver` or `chess` appears in this
//! module's API, so the solver can be swapped without touching its callers.
//!
//! Every mating line the solver gives is replayed with shakmaty and must end
//! in checkmate by the intended winner; if it does not (which would be a bug
//! in one of the libraries), or the solver gives up or panics, the answer is
//! [`Winnability::Unknown`], never a guess.
//!
//! The analysis looks at the position only: the fifty- and seventy-five-move
//! counters and repetitions do not limit the "series of legal moves".
//!
//! Time: a fraction of a millisecond for positions from real games (release
//! build: median about 0.2 ms, worst under 0.1 s on 65,000 lichess
//! positions), but seconds for some constructed ones (worst seen: 4 s), so
//! run it where a wait does not hold up a table's device lines.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;

use shakmaty::fen::{Fen, ParseFenError};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, PositionErrorKinds};

/// Whether one side can still checkmate by some series of legal moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Winnability {
    /// It can: `mating_line` is one such series, in SAN from the position
    /// (empty when the other side is already checkmated).
    Winnable { mating_line: Vec<String> },
    /// It cannot, whatever both sides play (proved).
    Unwinnable,
    /// The solver could not decide (it gives up after a node limit).
    Unknown,
}

impl Winnability {
    /// `winnable`, `unwinnable` or `unknown` (the words of `verdict --json`).
    pub fn name(&self) -> &'static str {
        match self {
            Winnability::Winnable { .. } => "winnable",
            Winnability::Unwinnable => "unwinnable",
            Winnability::Unknown => "unknown",
        }
    }

    /// The mating line, when winnable.
    pub fn mating_line(&self) -> Option<&[String]> {
        match self {
            Winnability::Winnable { mating_line } => Some(mating_line),
            _ => None,
        }
    }
}

/// Both sides' [`Winnability`] in one position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub white: Winnability,
    pub black: Winnability,
    /// Article 5.2.2: neither side can checkmate by any series of legal
    /// moves. Only set when both are *proved* unwinnable; an
    /// [`Winnability::Unknown`] side leaves it `false`.
    pub dead: bool,
}

impl Verdict {
    /// What it means that `flagged`'s flag fell (see [`flag_verdict`]).
    pub fn flag(&self, flagged: Color) -> FlagVerdict {
        FlagVerdict::against(self.side(flagged.other()))
    }

    /// The winnability of `side` (whether `side` can checkmate).
    pub fn side(&self, side: Color) -> &Winnability {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

/// What a flag fall means for the player whose flag fell (Article 6.9 of
/// the 2023 Laws, 6.10 of 2001; the same rule decides the game lost by a
/// second illegal move, 7.5.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagVerdict {
    /// The opponent can still checkmate: the game is lost.
    Loss,
    /// The opponent cannot checkmate by any series of legal moves: draw.
    Draw,
    /// The solver could not decide. The Laws make the loss the rule and the
    /// draw the exception that has to be shown, so record a loss, and tell
    /// the arbiter that the exception was not ruled out.
    Unknown,
}

impl FlagVerdict {
    /// The verdict for a flag fall, given whether the opponent can mate.
    pub fn against(opponent: &Winnability) -> FlagVerdict {
        match opponent {
            Winnability::Winnable { .. } => FlagVerdict::Loss,
            Winnability::Unwinnable => FlagVerdict::Draw,
            Winnability::Unknown => FlagVerdict::Unknown,
        }
    }

    /// `loss`, `draw` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            FlagVerdict::Loss => "loss",
            FlagVerdict::Draw => "draw",
            FlagVerdict::Unknown => "unknown",
        }
    }
}

/// Why a FEN could not be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerdictError {
    #[error("empty FEN")]
    Empty,
    /// The text is not a FEN; says which field is wrong.
    #[error("not a FEN: {0}")]
    Syntax(&'static str),
    /// A FEN, but of a position the rules of movement cannot work on.
    #[error("not a legal position: {0}")]
    Illegal(String),
}

/// Analyses both sides of `pos`.
pub fn analyse(pos: &Chess) -> Verdict {
    let board = to_board(pos);
    let white = solve(pos, board.as_ref(), Color::White);
    let black = solve(pos, board.as_ref(), Color::Black);
    let dead = white == Winnability::Unwinnable && black == Winnability::Unwinnable;
    Verdict { white, black, dead }
}

/// Parses `fen` (standard chess, four to six fields) and analyses it.
pub fn analyse_fen(fen: &str) -> Result<Verdict, VerdictError> {
    Ok(analyse(&parse_fen(fen)?))
}

/// Whether `winner` can still checkmate in `pos` (one side only: half the
/// work of [`analyse`]).
pub fn winnability(pos: &Chess, winner: Color) -> Winnability {
    solve(pos, to_board(pos).as_ref(), winner)
}

/// What it means that `flagged`'s flag fell in `pos`: a loss unless the
/// opponent cannot checkmate by any series of legal moves, then a draw.
pub fn flag_verdict(pos: &Chess, flagged: Color) -> FlagVerdict {
    FlagVerdict::against(&winnability(pos, flagged.other()))
}

/// Article 5.2.2 as the table checks it after every move: `true` only if
/// the position is *proved* dead (neither side can checkmate by any series
/// of legal moves), by the solver's quick, incomplete test: bare kings and
/// the other insufficient-material cases, same-coloured bishops, and
/// blocked pawn walls that no piece can get through.
///
/// Why not [`analyse`]: the full search can take seconds on rare positions,
/// and the table checks every move while device lines wait. The quick test
/// never calls a live position dead; a dead position it cannot prove is
/// left to the arbiter (and to `touchmove verdict`), as it is today at
/// every board without touchmove.
pub fn is_dead_fast(pos: &Chess) -> bool {
    let Some(board) = to_board(pos) else {
        return false;
    };
    let proved = catch_unwind(AssertUnwindSafe(|| {
        chasolver::is_unwinnable_fast(&board, chess::Color::White)
            && chasolver::is_unwinnable_fast(&board, chess::Color::Black)
    }));
    proved.unwrap_or(false)
}

/// Parses a standard-chess FEN, saying what is wrong with it otherwise.
///
/// Refused: malformed FENs, and positions the rules of movement cannot work
/// on (no king or two, pawns on the first or last rank, the side not to
/// move in check, castling rights or an en passant square that the board
/// contradicts). Accepted although no game can reach them: more pieces
/// than promotions allow, and checks no legal move can have given; the
/// rules of movement still apply to them, and the solver answers for them.
pub fn parse_fen(fen: &str) -> Result<Chess, VerdictError> {
    let fen = fen.trim();
    if fen.is_empty() {
        return Err(VerdictError::Empty);
    }
    let fields = fen.split_whitespace().count();
    if !(4..=6).contains(&fields) {
        return Err(VerdictError::Syntax(
            "expected 4 to 6 fields (board, side to move, castling, en passant, halfmove clock, fullmove number)",
        ));
    }
    let parsed = Fen::from_str(fen).map_err(|e| VerdictError::Syntax(syntax_reason(e)))?;
    let e = match parsed.into_position::<Chess>(CastlingMode::Standard) {
        Ok(pos) => return Ok(pos),
        Err(e) => e,
    };
    let e = match e.ignore_too_much_material() {
        Ok(pos) => return Ok(pos),
        Err(e) => e,
    };
    match e.ignore_impossible_check() {
        Ok(pos) => Ok(pos),
        Err(e) => Err(VerdictError::Illegal(illegal_reason(e.kinds()))),
    }
}

fn syntax_reason(e: ParseFenError) -> &'static str {
    match e {
        ParseFenError::InvalidBoard => {
            "the board (field 1) must be 8 ranks of 8 squares separated by '/', using pnbrqkPNBRQK and digits"
        }
        ParseFenError::InvalidTurn => "the side to move (field 2) must be 'w' or 'b'",
        ParseFenError::InvalidCastling => {
            "the castling field (field 3) must be '-' or letters from KQkq"
        }
        ParseFenError::InvalidEpSquare => {
            "the en passant field (field 4) must be '-' or a square on rank 3 or 6"
        }
        ParseFenError::InvalidHalfmoveClock => {
            "the halfmove clock (field 5) must be a non-negative integer"
        }
        ParseFenError::InvalidFullmoves => {
            "the fullmove number (field 6) must be a positive integer"
        }
        _ => "malformed (expected: board, side to move, castling, en passant[, halfmove clock, fullmove number], separated by spaces)",
    }
}

fn illegal_reason(kinds: PositionErrorKinds) -> String {
    const REASONS: &[(PositionErrorKinds, &str)] = &[
        (PositionErrorKinds::EMPTY_BOARD, "the board is empty"),
        (PositionErrorKinds::MISSING_KING, "a king is missing"),
        (
            PositionErrorKinds::TOO_MANY_KINGS,
            "a side has more than one king",
        ),
        (
            PositionErrorKinds::PAWNS_ON_BACKRANK,
            "a pawn stands on the first or last rank",
        ),
        (
            PositionErrorKinds::INVALID_CASTLING_RIGHTS,
            "castling rights without the king and rook on their squares",
        ),
        (
            PositionErrorKinds::INVALID_EP_SQUARE,
            "an en passant square without a pawn that has just moved two squares",
        ),
        (
            PositionErrorKinds::OPPOSITE_CHECK,
            "the side not to move is in check",
        ),
    ];
    let found: Vec<&str> = REASONS
        .iter()
        .filter(|(k, _)| kinds.contains(*k))
        .map(|(_, why)| *why)
        .collect();
    if found.is_empty() {
        format!("{kinds:?}")
    } else {
        found.join("; ")
    }
}

/// Writes a mating line with move numbers, as in a game score:
/// `1... Kxa1 2. Kd2 c1=Q+`.
pub fn numbered_line(pos: &Chess, line: &[String]) -> String {
    let mut out = String::new();
    let mut number = pos.fullmoves().get();
    let mut turn = pos.turn();
    for (i, san) in line.iter().enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        match turn {
            Color::White => out.push_str(&format!("{number}. ")),
            Color::Black if i == 0 => out.push_str(&format!("{number}... ")),
            Color::Black => {}
        }
        out.push_str(san);
        if turn == Color::Black {
            number += 1;
        }
        turn = turn.other();
    }
    out
}

/// Puts FENs given on the command line back together: a FEN typed
/// without quotes arrives as up to six arguments, and only its first field
/// (the board) contains '/'. An argument with a space in it is a whole FEN;
/// otherwise a FEN starts at an argument with a '/', and up to five
/// arguments without one that follow belong to it. Returns each FEN with
/// the argument numbers (1-based) it came from, e.g. `argument 2` or
/// `arguments 1-6`.
pub fn group_fen_args(args: &[String]) -> Vec<(String, String)> {
    // (fields, first argument, last argument, open for more fields)
    let mut groups: Vec<(Vec<&str>, usize, usize, bool)> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let whole = a.trim().contains(char::is_whitespace);
        match groups.last_mut() {
            Some((fields, _, last, true)) if !whole && !a.contains('/') && fields.len() < 6 => {
                fields.push(a);
                *last = i + 1;
            }
            _ => groups.push((vec![a], i + 1, i + 1, !whole && a.contains('/'))),
        }
    }
    groups
        .into_iter()
        .map(|(fields, first, last, _)| {
            let at = if first == last {
                format!("argument {first}")
            } else {
                format!("arguments {first}-{last}")
            };
            (fields.join(" "), at)
        })
        .collect()
}

/// The `verdict --json` line of one position.
#[derive(Debug, serde::Serialize)]
struct JsonVerdict<'a> {
    fen: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    white: &'static str,
    black: &'static str,
    dead: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    white_mate: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    black_mate: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    us: Option<u128>,
}

impl Verdict {
    /// The one-line JSON document of SPEC.md, `verdict --json`:
    /// `{"fen":…,"white":…,"black":…,"dead":…}`, plus the input `line`
    /// (when read from standard input), the mating lines in SAN
    /// (`white_mate`, `black_mate`, when winnable) and the analysis time in
    /// microseconds (`us`, when asked for).
    pub fn to_json(&self, fen: &str, line: Option<usize>, us: Option<u128>) -> String {
        let doc = JsonVerdict {
            fen,
            line,
            white: self.white.name(),
            black: self.black.name(),
            dead: self.dead,
            white_mate: self.white.mating_line(),
            black_mate: self.black.mating_line(),
            us,
        };
        serde_json::to_string(&doc).expect("plain data serialises")
    }

    /// A few lines for a person (`pos` is the analysed position, for the
    /// move numbers of the mating lines).
    pub fn describe(&self, pos: &Chess) -> String {
        let mut out = String::new();
        for side in [Color::White, Color::Black] {
            let name = side_name(side);
            let what = match self.side(side) {
                Winnability::Winnable { mating_line } if mating_line.is_empty() => {
                    "has checkmated".to_string()
                }
                Winnability::Winnable { mating_line } => {
                    format!("can checkmate, e.g. {}", numbered_line(pos, mating_line))
                }
                Winnability::Unwinnable => "cannot checkmate by any series of legal moves".into(),
                Winnability::Unknown => "undecided (the solver gave up)".into(),
            };
            out.push_str(&format!("  {name}: {what}\n"));
        }
        let dead = if self.dead {
            "dead position (Article 5.2.2): the game is drawn"
        } else if matches!(self.white, Winnability::Unknown)
            || matches!(self.black, Winnability::Unknown)
        {
            "not shown to be a dead position"
        } else {
            "not a dead position"
        };
        out.push_str(&format!("  {dead}\n"));
        let flag = |flagged: Color| match self.flag(flagged) {
            FlagVerdict::Loss => format!("{} loses", side_name(flagged)),
            FlagVerdict::Draw => "draw".to_string(),
            FlagVerdict::Unknown => format!(
                "undecided (a loss for {} unless the arbiter finds no mate)",
                side_name(flagged)
            ),
        };
        out.push_str(&format!(
            "  flag fall (Article 6.9): White's flag: {}; Black's flag: {}\n",
            flag(Color::White),
            flag(Color::Black)
        ));
        out
    }
}

fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "White",
        Color::Black => "Black",
    }
}

// ---- behind the API: chasolver on the `chess` crate's board ----

/// The same position on the `chess` crate's board, through a FEN written by
/// shakmaty (so always well formed, en passant only when legal). `None` if
/// the `chess` crate refuses it.
fn to_board(pos: &Chess) -> Option<chess::Board> {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    chess::Board::from_str(&fen).ok()
}

fn solve(pos: &Chess, board: Option<&chess::Board>, winner: Color) -> Winnability {
    let Some(board) = board else {
        return Winnability::Unknown;
    };
    let colour = match winner {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    };
    // A panic inside the solver must not take a table down with it.
    let answer = catch_unwind(AssertUnwindSafe(|| chasolver::winnability(board, colour)));
    match answer {
        Ok(Some(chasolver::Winnability::Winnable { helpmate })) => {
            let uci: Vec<String> = helpmate.iter().map(|m| m.to_string()).collect();
            match checked_line(pos, &uci, winner) {
                Some(mating_line) => Winnability::Winnable { mating_line },
                None => Winnability::Unknown,
            }
        }
        Ok(Some(chasolver::Winnability::Unwinnable)) => Winnability::Unwinnable,
        Ok(None) | Err(_) => Winnability::Unknown,
    }
}

/// Plays a UCI line with shakmaty and returns it in SAN if every move is
/// legal and it ends with `winner` checkmating.
fn checked_line(pos: &Chess, uci: &[String], winner: Color) -> Option<Vec<String>> {
    let mut pos = pos.clone();
    let mut line = Vec::with_capacity(uci.len());
    for u in uci {
        let m = UciMove::from_ascii(u.as_bytes()).ok()?.to_move(&pos).ok()?;
        line.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
    }
    (pos.is_checkmate() && pos.turn() == winner.other()).then_some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fens_typed_without_quotes_are_put_back_together() {
        let args: Vec<String> = [
            "8/8/8/8/8/1pp5/1kp5/Q3K3",
            "b",
            "-",
            "-",
            "0",
            "1",                           // unquoted
            "8/8/8/8/8/8/8/K6k w - - 0 1", // quoted
            "b",                           // stray
            "8/8/8/8/8/8/8/K6k",
            "w",
            "-",
            "-",
            "0",
            "1",
            "1", // one too many
        ]
        .map(String::from)
        .into();
        let got = group_fen_args(&args);
        let want = [
            ("8/8/8/8/8/1pp5/1kp5/Q3K3 b - - 0 1", "arguments 1-6"),
            ("8/8/8/8/8/8/8/K6k w - - 0 1", "argument 7"),
            ("b", "argument 8"),
            ("8/8/8/8/8/8/8/K6k w - - 0 1", "arguments 9-14"),
            ("1", "argument 15"),
        ];
        assert_eq!(
            got,
            want.map(|(f, a)| (f.to_string(), a.to_string())).to_vec()
        );
    }

    #[test]
    fn numbering_starts_from_the_position() {
        let pos = parse_fen("8/8/8/8/8/1pp5/1kp5/Q3K3 b - - 0 41").unwrap();
        let line: Vec<String> = ["Kxa1", "Kd2", "c1=Q+"].map(String::from).into();
        assert_eq!(numbered_line(&pos, &line), "41... Kxa1 42. Kd2 c1=Q+");
    }

    #[test]
    fn a_line_that_does_not_mate_is_refused() {
        let pos = Chess::default();
        let ok = ["f2f3", "e7e5", "g2g4", "d8h4"].map(String::from);
        assert_eq!(
            checked_line(&pos, &ok, Color::Black).unwrap(),
            ["f3", "e5", "g4", "Qh4#"]
        );
        assert_eq!(checked_line(&pos, &ok, Color::White), None);
        assert_eq!(checked_line(&pos, &ok[..3], Color::Black), None);
        let illegal = ["e2e5".to_string()];
        assert_eq!(checked_line(&pos, &illegal, Color::White), None);
    }
}
