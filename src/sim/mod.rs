//! The simulator: a person playing a game on a TMB1 board with a TMC1 clock.
//!
//! touchmove can only be trusted as far as it has been tried against the
//! ways people really move pieces, and nobody can keep a tournament table
//! at hand for every test run. So the project carries its own simulator of
//! a table: it plays real games (legal moves, usually the famous games in
//! [`games`]) the way a person does on a presence-only board, with the hand
//! orders and the harmless noise of a real table, and produces the exact
//! serial traffic both devices would send, as TMREC records with host
//! times. The demo feeds that traffic to the daemon through pseudo-
//! terminals; tests replay it through the table and compare the moves.
//!
//! The traffic is a pure function of the moves and the [`SimOptions`]
//! (including the seed), so a failing case can always be reproduced.
//!
//! Part of touchmove, GPL-3.0-or-later. Written for this project; the
//! shared `tmsim.py` generator documents the same behaviours.

pub mod games;

mod devices;
mod movetext;
mod person;
pub mod pty;
mod rng;

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Move, Position};

use crate::wire::tmrec::Entry;
use crate::wire::Record;

use devices::Table;
use person::{Person, Step, Touch};
use rng::Rng;

pub use games::{famous_games, FamousGame};
pub use movetext::parse_movetext;

/// How the person moves the pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// One canonical order of lifts and placements per move, no noise.
    Clean,
    /// The orders people really use, and a real table's harmless noise.
    Human,
}

impl Style {
    pub fn name(self) -> &'static str {
        match self {
            Style::Clean => "clean",
            Style::Human => "human",
        }
    }
}

impl std::str::FromStr for Style {
    type Err = SimError;

    fn from_str(s: &str) -> Result<Style, SimError> {
        match s {
            "clean" => Ok(Style::Clean),
            "human" => Ok(Style::Human),
            _ => Err(SimError::Option {
                name: "style",
                why: format!("{s:?} is not clean or human"),
            }),
        }
    }
}

/// Everything that shapes the simulated traffic.
#[derive(Debug, Clone)]
pub struct SimOptions {
    pub style: Style,
    /// Same seed, same traffic.
    pub seed: u64,
    /// Whether a TMC1 clock stands on the table.
    pub clock: bool,
    /// The board's snapshot period; 0 turns heartbeats off.
    pub heartbeat_ms: u64,
    /// Both clock faces at the start.
    pub base_ms: u64,
    /// Fischer increment per move.
    pub increment_ms: u64,
    pub board_serial: String,
    pub clock_serial: String,
    /// Thinking time before each move, drawn uniformly from this range.
    pub think_min_ms: u64,
    pub think_max_ms: u64,
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            style: Style::Human,
            seed: 1,
            clock: true,
            heartbeat_ms: 1000,
            base_ms: 5_400_000,
            increment_ms: 30_000,
            board_serial: "TMB-SIM".into(),
            clock_serial: "CLK-SIM".into(),
            think_min_ms: 2000,
            think_max_ms: 15000,
        }
    }
}

impl SimOptions {
    fn check(&self) -> Result<(), SimError> {
        check_serial("board_serial", &self.board_serial)?;
        check_serial("clock_serial", &self.clock_serial)?;
        if self.think_min_ms > self.think_max_ms {
            return Err(SimError::Option {
                name: "think_min_ms",
                why: format!(
                    "{} is above think_max_ms {}",
                    self.think_min_ms, self.think_max_ms
                ),
            });
        }
        Ok(())
    }
}

/// A serial number as the hello lines allow it: 1-24 of `[A-Za-z0-9-]`.
fn check_serial(name: &'static str, serial: &str) -> Result<(), SimError> {
    let ok = (1..=24).contains(&serial.len())
        && serial
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(SimError::Option {
            name,
            why: format!("{serial:?} is not 1-24 of [A-Za-z0-9-]"),
        })
    }
}

/// Why a game could not be simulated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("ply {ply}: {san:?} is not a move in SAN")]
    NotSan { ply: u32, san: String },
    #[error("ply {ply}: {san} is not a legal move in the game's position")]
    IllegalSan { ply: u32, san: String },
    #[error("ply {ply}: {san} is ambiguous in the game's position")]
    AmbiguousSan { ply: u32, san: String },
    #[error("ply {ply}: the move {mv} is not legal in the game's position")]
    IllegalMove { ply: u32, mv: String },
    #[error("movetext: {0}")]
    Movetext(String),
    #[error("option {name}: {why}")]
    Option { name: &'static str, why: String },
}

/// Host time from the clock's setting to the arbiter starting it.
const START_WAIT_MS: (u64, u64) = (2000, 5000);
/// From the last placement to the clock button.
const PRESS_WAIT_MS: (u64, u64) = (150, 900);
/// How long the recording goes on after the last move.
const AFTERMATH_MS: u64 = 3000;

/// Plays `moves` (legal moves from the initial position) and returns the
/// recorded traffic of both devices, in time order (a TMREC recording
/// without its `# tmrec 1` header and comments).
pub fn play(moves: &[Move], opts: &SimOptions) -> Result<Vec<Record>, SimError> {
    let entries = play_entries(moves, opts)?;
    Ok(entries
        .into_iter()
        .filter_map(|e| match e {
            Entry::Record(r) => Some(r),
            Entry::Comment(_) => None,
        })
        .collect())
}

/// Like [`play`], with an `expect-move: <ply> <san>` comment where each
/// move begins.
pub fn play_entries(moves: &[Move], opts: &SimOptions) -> Result<Vec<Entry>, SimError> {
    opts.check()?;
    let mut rng = Rng::new(opts.seed);
    let start = Chess::default();
    let mut table = Table::new(start.board().occupied(), opts.heartbeat_ms, rng.fork());
    let mut person = Person::new(opts.style, rng.fork());
    set_up(&mut table, &mut person, opts);
    let mut pos = start;
    for (i, &m) in moves.iter().enumerate() {
        let ply = i as u32 + 1;
        if !pos.is_legal(m) {
            return Err(SimError::IllegalMove {
                ply,
                mv: m.to_string(),
            });
        }
        play_one(&mut table, &mut person, &mut pos, m, ply, opts);
    }
    table.advance(AFTERMATH_MS);
    Ok(table.into_entries())
}

/// Devices on, the clock set, and the arbiter starting White's clock.
fn set_up(table: &mut Table, person: &mut Person, opts: &SimOptions) {
    table.power_up(&opts.board_serial);
    if opts.clock {
        table.connect_clock(&opts.clock_serial, opts.base_ms, opts.increment_ms);
    }
    table.advance(person.wait(START_WAIT_MS.0, START_WAIT_MS.1));
    table.start_clock(Color::White);
}

/// One move: thinking, the hands, and the clock unless the move ended the
/// game.
fn play_one(
    table: &mut Table,
    person: &mut Person,
    pos: &mut Chess,
    m: Move,
    ply: u32,
    opts: &SimOptions,
) {
    table.advance(person.wait(opts.think_min_ms, opts.think_max_ms));
    let san = SanPlus::from_move(pos.clone(), m);
    table.comment(format!("expect-move: {ply} {san}"));
    perform(table, &person.fidget(pos));
    perform(table, &person.make_move(pos, m));
    let mover = pos.turn();
    pos.play_unchecked(m);
    if !game_over(pos) {
        table.advance(person.wait(PRESS_WAIT_MS.0, PRESS_WAIT_MS.1));
        table.press(mover);
    }
}

fn perform(table: &mut Table, steps: &[Step]) {
    for step in steps {
        match step.touch {
            Touch::Lift(sq) => table.lift(sq),
            Touch::Place(sq) => table.place(sq),
        }
        table.advance(step.pause_ms);
    }
}

/// The game ended on the board: nobody presses the clock after it.
fn game_over(pos: &Chess) -> bool {
    pos.is_checkmate() || pos.is_stalemate()
}

/// The result the devices can show: a mate or stalemate on the board, or
/// `*` (a resignation or an agreement is not on the wire).
fn board_result(moves: &[Move]) -> &'static str {
    let mut pos = Chess::default();
    for &m in moves {
        pos.play_unchecked(m);
    }
    if pos.is_checkmate() {
        match pos.turn() {
            Color::White => "0-1",
            Color::Black => "1-0",
        }
    } else if pos.is_stalemate() {
        "1/2-1/2"
    } else {
        "*"
    }
}

/// The whole recording of a famous game, as TMREC text.
pub fn recording_text(game: &games::FamousGame, opts: &SimOptions) -> Result<String, SimError> {
    let moves = game.moves()?;
    recording_of(&game.tags(), &moves, opts)
}

/// A recording of `moves` as TMREC text: the `# tmrec 1` header, the PGN
/// `tags` as `# game:` comments, `# expect-move:` comments and the records,
/// then `# expect-result:`.
///
/// `Result` is not written as a game tag: the recording carries only what
/// the devices can show, and `expect-result` is the result on the board
/// (`*` for a game that ended by resignation or agreement).
pub fn recording_of(
    tags: &[(&str, &str)],
    moves: &[Move],
    opts: &SimOptions,
) -> Result<String, SimError> {
    let entries = play_entries(moves, opts)?;
    let mut lines = vec!["tmrec 1".to_string()];
    for (tag, value) in tags.iter().filter(|(t, _)| *t != "Result") {
        lines.push(format!("game: {tag} {value}"));
    }
    if let Some(tc) = time_control(opts) {
        lines.push(format!("game: TimeControl {tc}"));
    }
    lines.push(format!(
        "generator: touchmove sim, style {}, seed {}, clock {}",
        opts.style.name(),
        opts.seed,
        if opts.clock { "yes" } else { "no" }
    ));
    let mut text: String = lines.iter().map(|l| format!("# {l}\n")).collect();
    for e in entries {
        match e {
            Entry::Comment(c) => text.push_str(&format!("# {c}\n")),
            Entry::Record(r) => text.push_str(&format!("{r}\n")),
        }
    }
    text.push_str(&format!("# expect-result: {}\n", board_result(moves)));
    Ok(text)
}

/// PGN `TimeControl` ("5400+30") when there is a clock set in whole seconds.
fn time_control(opts: &SimOptions) -> Option<String> {
    let whole = opts.base_ms.is_multiple_of(1000) && opts.increment_ms.is_multiple_of(1000);
    (opts.clock && whole).then(|| format!("{}+{}", opts.base_ms / 1000, opts.increment_ms / 1000))
}

#[cfg(test)]
mod tests;
