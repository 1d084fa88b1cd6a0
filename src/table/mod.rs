//! The table: a pure state machine from timed board and clock events to a
//! game score and alerts. No I/O, no clock reads: the driver (live serial
//! ports, a TMREC replay, a test) calls [`Table::handle`] with the host time
//! of each event and [`Table::tick`] when time passes, and acts on the
//! [`Effect`]s returned.
//!
//! How it reads the board (SPEC.md, "Reading a presence-only board"):
//!
//! - [`phys`] follows every piece through the hands, as hypotheses;
//! - [`reading`] reads each hypothesis as the game position, one legal move
//!   (provisional) or a move and the reply;
//! - a move is *completed* by the clock press of its mover, when the board
//!   settles into it followed by the opponent's reply, or, for a move that
//!   ends the game, once its piece has stood for `release_min_ms`;
//! - nobody is accused on a board the table cannot trust: a press the board
//!   does not explain, a seq gap or a damaged line makes the table *buffer*
//!   what follows and judge it against the next snapshot, trying each thing
//!   the lost lines can have been ([`buffer`]); if nothing fits, the table
//!   falls back to the occupancy alone and waits for a position it can
//!   identify.

pub mod alert;
pub mod buffer;
mod completion;
pub mod event;
pub mod game;
pub mod ledger;
pub mod phys;
pub mod reading;
mod rulings;
mod trust;

use shakmaty::{Bitboard, Chess, Color, Position, Role};

pub use alert::{Alert, AlertKind, ClaimWindow, Severity};
pub use event::Event;
pub use game::End;
pub use rulings::ClaimCheck;

use crate::laws::{Category, Edition};
use crate::wire::{BoardCommand, ClockCommand};
use buffer::Item;
use completion::{PendingFinding, PressVerdict, Shadow};
use game::{initial_ids, Line};
use ledger::Ledger;
use phys::{Hyps, IdMap};

/// How long a press the board does not explain waits for a snapshot
/// before it is judged on the board lines that followed it (three
/// heartbeat periods of TMB1: a board silent that long is gone anyway).
pub const CONFIRM_WITHOUT_SNAPSHOT_MS: u64 = 3000;

/// Buffered events beyond this are not worth explaining one by one.
const MAX_BUFFER: usize = 400;

/// The settings that change how the table reads the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// A lift shorter than this, of a square put straight back, is sensor
    /// wobble, not a touch.
    pub touch_min_ms: u64,
    /// A placement shorter than this before the square is lifted again is a
    /// piece sliding over it, not a release.
    pub release_min_ms: u64,
    /// How long the board may show neither the game nor a move in progress.
    pub displaced_ms: u64,
    /// The edition of the Laws the alerts cite.
    pub laws: Edition,
    /// Standard, rapid or blitz.
    pub category: Category,
    /// Send the clock the new times of a penalty (TMC1 `A`).
    pub apply_penalties: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            touch_min_ms: 120,
            release_min_ms: 250,
            displaced_ms: 5000,
            laws: Edition::default(),
            category: Category::default(),
            apply_penalties: false,
        }
    }
}

/// What the driver must do or publish after an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A move was completed and enters the game score.
    Move(MoveRecord),
    /// The board shows a legal successor position; not completed yet.
    Provisional {
        ply: u32,
        san: String,
    },
    /// A completed move was taken back: it was illegal after all (moves
    /// from this ply on are to be dropped).
    Retracted {
        ply: u32,
    },
    /// An earlier move's SAN changed (a promotion piece found out).
    Corrected {
        ply: u32,
        san: String,
    },
    Alert(Alert),
    /// The claimant touched a piece: the claim window of the Article 4
    /// alert raised at `ply` of `kind` closed at `closed_ms`.
    ClaimClosed {
        ply: u32,
        kind: AlertKind,
        closed_ms: u64,
    },
    /// The game ended on the board.
    GameOver {
        result: &'static str,
        end: End,
    },
    /// A command for the board (a snapshot to confirm what it shows).
    Board(BoardCommand),
    /// A command for the clock (penalty times, when `apply_penalties`).
    Clock(ClockCommand),
}

/// A completed move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveRecord {
    pub ply: u32,
    pub san: String,
    pub uci: String,
    /// Host time at which it was completed.
    pub t_ms: u64,
    /// The mover's remaining time after the move, when a clock is present.
    pub clock_ms: Option<u64>,
    pub completed_by: Completion,
}

/// What completed a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// The mover pressed the clock.
    Press,
    /// The opponent replied without a press in between.
    Reply,
    /// The move ended the game.
    GameEnd,
    /// The recording ended with the move standing on the board.
    EndOfInput,
    /// Recovered from the occupancy after lost lines.
    Recovered,
}

/// Per completed ply: what the score needs besides the move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PlyInfo {
    t_ms: u64,
    clock_ms: Option<u64>,
    completed_by: Completion,
}

/// What the clock last said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockState {
    pub present: bool,
    pub running: Option<Color>,
    pub white_ms: u64,
    pub black_ms: u64,
}

impl ClockState {
    fn time_of(&self, c: Color) -> Option<u64> {
        self.present.then_some(match c {
            Color::White => self.white_ms,
            Color::Black => self.black_ms,
        })
    }
}

/// How far the table trusts its view of the board.
#[derive(Debug, Clone)]
enum Mode {
    /// Every board line seen: the hypotheses are exact.
    Trusted,
    /// Something must be judged against the next snapshot (lines lost, or
    /// a press the board does not explain): events since `anchor` wait in
    /// `items`.
    Buffering {
        anchor: Hyps,
        items: Vec<Item>,
        /// When buffering began.
        since: u64,
    },
    /// Which piece is where is not known; only the occupancy (`None`
    /// before the first snapshot). Presses seen meanwhile wait in `presses`.
    Lost {
        occ: Option<Bitboard>,
        presses: Vec<(Color, u64)>,
    },
}

/// The state machine of one table.
#[derive(Debug, Clone)]
pub struct Table {
    cfg: Config,
    start: Chess,
    /// Promotion hypotheses, preferred first; never empty.
    lines: Vec<Line>,
    plies: Vec<PlyInfo>,
    alerts: Vec<Alert>,
    end: Option<End>,
    /// The end holds in the preferred promotion hypothesis only: the table
    /// keeps reading, and a further move retracts it.
    end_tentative: bool,
    hyps: Hyps,
    mode: Mode,
    clock: ClockState,
    /// Colour and role of each piece identity; promoted pawns are marked.
    roles: Vec<(Color, Role, bool)>,
    /// Host time of the last board event.
    last_board_t: u64,
    /// The latest host time the table has been told.
    now: u64,
    /// The provisional move shown last, to report changes only.
    shown: Option<(u32, String)>,
    /// A provisional move that ends the game, completed once it has stood
    /// until this time.
    end_deadline: Option<u64>,
    /// Positions the board has shown as one move made, since the last
    /// completed move, the latest last: a reply is read on top of the
    /// latest of them (the pawn seen on b6 did not go to b5, even if b5 then
    /// axb6 e.p. ends the same; the rook put on g2 and then taking on g1 was
    /// not captured on g2).
    seen: Vec<IdMap>,
    /// Lines dropped by the last completed move, kept until the next one.
    shadow: Option<Shadow>,
    /// Article 4: the events of the turn being made.
    ledger: Ledger,
    /// Every board event followed, for the claim windows (4.8 / 4.6).
    touches: ledger::TouchLog,
    /// Article 4 findings waiting for a promotion piece to be known.
    pending: Vec<PendingFinding>,
    /// The pieces' whereabouts were explained after lines were lost, not
    /// seen: nobody is accused until the board reads as a position again.
    guessing: bool,
    /// Since when the board has shown neither the game nor a move in
    /// progress.
    odd_since: Option<u64>,
    /// Completed illegal moves so far, White's and Black's.
    illegal_moves: [u32; 2],
    /// When the clock's running face changed: `(time, face)`, recent first
    /// kept, so buffered events are judged with the clock as it was.
    running_log: Vec<(u64, Option<Color>)>,
    /// What a board that senses identity said stands on each square.
    identified: [Option<Role>; 64],
    board_hellos: u32,
    /// The host has asked the board to identify itself: its next hello is
    /// the reply.
    hello_asked: bool,
    lost_lines: u64,
    out: Vec<Effect>,
}

impl Table {
    /// A table waiting for the initial position (the board's first snapshot).
    pub fn new(cfg: Config) -> Table {
        Table::from_position(cfg, Chess::default())
    }

    /// A table whose game starts from `start` (a resumed or composed game);
    /// the board must show its occupancy.
    pub fn from_position(cfg: Config, start: Chess) -> Table {
        let ids = initial_ids(&start);
        let roles = start
            .board()
            .occupied()
            .into_iter()
            .map(|sq| {
                let p = start.board().piece_at(sq).expect("occupied");
                (p.color, p.role, false)
            })
            .collect();
        Table {
            cfg,
            lines: vec![Line::new(start.clone(), ids)],
            start,
            plies: Vec::new(),
            alerts: Vec::new(),
            end: None,
            end_tentative: false,
            hyps: Hyps::default(),
            mode: Mode::Lost {
                occ: None,
                presses: Vec::new(),
            },
            clock: ClockState::default(),
            roles,
            last_board_t: 0,
            now: 0,
            shown: None,
            end_deadline: None,
            seen: Vec::new(),
            shadow: None,
            ledger: Ledger::default(),
            touches: ledger::TouchLog::default(),
            pending: Vec::new(),
            illegal_moves: [0, 0],
            odd_since: None,
            guessing: false,
            running_log: Vec::new(),
            identified: [None; 64],
            board_hellos: 0,
            hello_asked: false,
            lost_lines: 0,
            out: Vec::new(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Feeds one event that arrived at host time `t` (ms, non-decreasing).
    pub fn handle(&mut self, t: u64, ev: Event) -> Vec<Effect> {
        self.advance(t);
        if self.playing() {
            self.dispatch(t, ev);
        } else {
            self.after_end(ev);
        }
        self.close_claims(t);
        std::mem::take(&mut self.out)
    }

    /// Time has passed with no event (the driver's timer, or in a replay
    /// the next line's time).
    pub fn tick(&mut self, t: u64) -> Vec<Effect> {
        self.advance(t);
        self.close_claims(t);
        std::mem::take(&mut self.out)
    }

    /// The input has ended (end of a recording): judge what is pending
    /// without a further snapshot, and let a provisional move count — it
    /// stands on the board.
    pub fn finish(&mut self, t: u64) -> Vec<Effect> {
        self.advance(t);
        if self.playing() {
            if let Mode::Buffering { .. } = self.mode {
                self.reconcile(None, t);
            }
            if let Mode::Lost { occ: Some(occ), .. } = self.mode {
                self.recover(occ, t);
            }
            if matches!(self.mode, Mode::Trusted) {
                let readings = self.read(&self.hyps);
                if let Some(r) = readings.iter().find(|r| !r.is_empty()).cloned() {
                    self.complete(&r, t, Completion::EndOfInput, None);
                }
            }
        }
        self.close_claims(t);
        std::mem::take(&mut self.out)
    }

    // ---- what the table knows -------------------------------------------

    /// The completed moves in SAN (check marks included), preferred line.
    pub fn sans(&self) -> Vec<String> {
        self.lines[0].sans(&self.start)
    }

    /// The completed moves with their clock times.
    pub fn moves(&self) -> Vec<MoveRecord> {
        let line = &self.lines[0];
        let sans = line.sans(&self.start);
        line.moves
            .iter()
            .zip(sans)
            .zip(&self.plies)
            .enumerate()
            .map(|(i, ((m, san), info))| MoveRecord {
                ply: i as u32 + 1,
                san,
                uci: m.to_uci(shakmaty::CastlingMode::Standard).to_string(),
                t_ms: info.t_ms,
                clock_ms: info.clock_ms,
                completed_by: info.completed_by,
            })
            .collect()
    }

    /// The game position after the completed moves (preferred line).
    pub fn position(&self) -> &Chess {
        &self.lines[0].pos
    }

    pub fn alerts(&self) -> &[Alert] {
        &self.alerts
    }

    /// How the game ended on the board, if it did.
    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// `1-0`, `0-1`, `1/2-1/2`, or `*` while the devices cannot know.
    pub fn result(&self) -> &'static str {
        self.end.map_or("*", End::result)
    }

    pub fn clock(&self) -> ClockState {
        self.clock
    }

    /// Board lines lost (damaged or skipped) so far.
    pub fn lost_lines(&self) -> u64 {
        self.lost_lines
    }

    fn set_running(&mut self, t: u64, running: Option<Color>) {
        if self.clock.running != running || self.running_log.is_empty() {
            self.running_log.push((t, running));
            if self.running_log.len() > 64 {
                self.running_log.drain(..32);
            }
        }
        self.clock.running = running;
    }

    /// Whose clock ran at host time `t`.
    fn running_at(&self, t: u64) -> Option<Color> {
        self.running_log
            .iter()
            .rev()
            .find(|(at, _)| *at <= t)
            .map_or(self.clock.running, |&(_, r)| r)
    }

    /// Enters a board event the table has just applied into the ledger.
    fn note(&mut self, t: u64, item: &Item) {
        let (kind, sq) = match *item {
            Item::Lift(sq, _) => (ledger::Kind::Lift, sq),
            Item::Place(sq, _, _) => (ledger::Kind::Place, sq),
            Item::Unseen => (ledger::Kind::Unseen, shakmaty::Square::A1),
            Item::Press { .. } => return,
        };
        let entry = ledger::Entry {
            t,
            kind,
            sq,
            running: self.running_at(t),
            clock: self.clock.present,
            after: self.hyps.clone(),
            reads: Vec::new(),
        };
        self.touches.record(&entry);
        self.ledger.push(entry);
    }

    /// Whether moves are still being read (no end, or one a promotion
    /// hypothesis may still overturn).
    fn playing(&self) -> bool {
        self.end.is_none() || self.end_tentative
    }

    /// The ply being made now (1 = White's first move).
    fn ply(&self) -> u32 {
        self.lines[0].moves.len() as u32 + 1
    }

    // ---- events ---------------------------------------------------------

    fn dispatch(&mut self, t: u64, ev: Event) {
        match ev {
            Event::BoardHello { .. } => {
                self.board_hellos += 1;
                if std::mem::take(&mut self.hello_asked) {
                    // The reply to the host's `I`, not a restart: the
                    // snapshot asked for with it settles the board.
                    return;
                }
                if self.board_hellos > 1 {
                    self.raise(
                        t,
                        AlertKind::BoardReset,
                        None,
                        vec![],
                        "the board restarted; its view is rebuilt from its next snapshot".into(),
                    );
                }
                self.go_lost(None, t);
            }
            Event::BoardDamaged => {
                self.lost_lines += 1;
                self.lose_lines(1, t);
            }
            Event::BoardLost { lines } => {
                self.lost_lines += u64::from(lines);
                self.lose_lines(lines, t);
            }
            Event::Lift(sq) => {
                self.identified[sq as usize] = None;
                self.board_event(t, Item::Lift(sq, t))
            }
            Event::Place(sq, piece) => {
                self.identified[sq as usize] = piece.map(|p| p.role);
                self.board_event(t, Item::Place(sq, piece, t))
            }
            Event::Snapshot(occ) => self.snapshot(occ, t),
            Event::BoardFault { .. } => {}
            Event::ClockHello { .. } => {
                self.clock.present = true;
            }
            Event::ClockLost => {}
            Event::DeviceLost { board } => {
                let detail = if board {
                    "the board's serial device was lost (unplugged?); the board is read again from its snapshot when it is back"
                } else {
                    "the clock's serial device was lost (unplugged?); presses made meanwhile are not seen, moves still complete when the reply is made"
                };
                self.raise(t, AlertKind::DeviceLost, None, vec![], detail.into());
                if board {
                    // Nothing on the board can be displaced while it is away.
                    self.go_lost(None, t);
                }
            }
            Event::DeviceOpened { board } => {
                if board {
                    self.hello_asked = true;
                    // Lines may have gone unread while the port was closed
                    // (the host restarted, the board was replugged): what
                    // follows is judged against the snapshot asked for now.
                    if matches!(self.mode, Mode::Trusted) && self.board_hellos > 0 {
                        let anchor = self.hyps.clone();
                        self.start_buffering(anchor, Vec::new());
                    }
                }
            }
            Event::Press {
                side,
                white_ms,
                black_ms,
            } => {
                self.clock.present = true;
                self.clock.white_ms = white_ms;
                self.clock.black_ms = black_ms;
                self.set_running(t, Some(!side));
                self.press(side, t);
            }
            Event::ClockTime {
                white_ms,
                black_ms,
                running,
            } => {
                self.clock.present = true;
                self.clock.white_ms = white_ms;
                self.clock.black_ms = black_ms;
                self.set_running(t, running);
            }
            Event::Flag { side } => {
                // The flag falls on the position after the completed moves.
                if let Mode::Buffering { .. } = self.mode {
                    self.reconcile(None, t);
                }
                if self.playing() {
                    self.flag(side, t);
                }
            }
        }
    }

    fn after_end(&mut self, ev: Event) {
        // The game is over: the pieces are being set up again. Keep the
        // clock's last word for the record; nothing else concerns this game.
        if let Event::Press {
            white_ms, black_ms, ..
        }
        | Event::ClockTime {
            white_ms, black_ms, ..
        } = ev
        {
            self.clock.white_ms = white_ms;
            self.clock.black_ms = black_ms;
        }
    }

    /// Completes a game-ending provisional move once its piece has stood.
    fn advance(&mut self, t: u64) {
        self.now = self.now.max(t);
        if self.playing() {
            self.check_displaced(t);
        }
        if let Mode::Buffering { items, since, .. } = &self.mode {
            // No snapshot came (heartbeats off?). With no line lost, a board
            // line after the last press proves the board as it stood: judge.
            let last_press = items.iter().rposition(|i| matches!(i, Item::Press { .. }));
            let board_after = last_press.is_some_and(|p| {
                items[p..]
                    .iter()
                    .any(|i| matches!(i, Item::Lift(..) | Item::Place(..)))
            });
            let lost = items.iter().any(|i| matches!(i, Item::Unseen));
            if t >= since + CONFIRM_WITHOUT_SNAPSHOT_MS && (board_after || lost) {
                // Lost lines with no snapshot coming: take the likeliest
                // explanation, but accuse nobody on it.
                self.reconcile_as(None, t, !lost);
            }
        }
        if let Some(deadline) = self.end_deadline {
            if t >= deadline && self.playing() && matches!(self.mode, Mode::Trusted) {
                self.end_deadline = None;
                let readings = self.read(&self.hyps);
                if let Some(r) = readings.iter().find(|r| r.len() == 1).cloned() {
                    self.complete(&r, deadline, Completion::GameEnd, None);
                }
            }
        }
    }

    fn board_event(&mut self, t: u64, item: Item) {
        self.last_board_t = t;
        self.end_deadline = None;
        match &mut self.mode {
            Mode::Trusted => {
                let next = self.apply(&self.hyps, &item);
                if next.is_empty() {
                    // The board did something no hypothesis allows: a line
                    // was lost without a gap showing. Judge it at the next
                    // snapshot, with an unseen event before this one.
                    let anchor = std::mem::take(&mut self.hyps);
                    self.start_buffering(anchor, vec![Item::Unseen, item]);
                } else {
                    self.hyps = next;
                    self.note(t, &item);
                    self.evaluate(t);
                }
            }
            Mode::Buffering { items, .. } => {
                items.push(item);
                if items.len() > MAX_BUFFER {
                    let occ = self.tracked_occupancy();
                    self.go_lost(occ, t);
                }
            }
            Mode::Lost { occ, .. } => {
                if let Some(o) = occ {
                    match item {
                        Item::Lift(sq, _) => o.discard(sq),
                        Item::Place(sq, _, _) => o.add(sq),
                        _ => {}
                    }
                    let o = *o;
                    self.recover(o, t);
                }
            }
        }
    }

    fn lose_lines(&mut self, n: u32, t: u64) {
        if matches!(self.mode, Mode::Lost { .. }) {
            return;
        }
        let already = match &self.mode {
            Mode::Buffering { items, .. } => {
                items.iter().filter(|i| matches!(i, Item::Unseen)).count() as u32
            }
            _ => 0,
        };
        if n.saturating_add(already) > buffer::MAX_UNSEEN as u32 {
            let occ = self.tracked_occupancy();
            self.raise(
                t,
                AlertKind::BoardGap,
                None,
                vec![],
                format!("{n} board lines lost; waiting for a position the board identifies"),
            );
            self.go_lost(occ, t);
            return;
        }
        if let Mode::Trusted = self.mode {
            let anchor = std::mem::take(&mut self.hyps);
            self.start_buffering(anchor, Vec::new());
        }
        if let Mode::Buffering { items, .. } = &mut self.mode {
            // Lines lost before presses that arrived since the last board
            // line count as lost before them: a lost line never turns into
            // an accusation.
            let mut at = items.len();
            while at > 0 && matches!(items[at - 1], Item::Press { .. }) {
                at -= 1;
            }
            for _ in 0..n {
                items.insert(at, Item::Unseen);
            }
        }
    }

    fn snapshot(&mut self, occ: Bitboard, t: u64) {
        match self.mode {
            Mode::Trusted => {
                let mine = self.hyps.occupied().unwrap_or(Bitboard(0));
                if mine != occ {
                    // The snapshot differs with no loss seen: count each
                    // difference as an event the table did not see.
                    let n = (mine ^ occ).count();
                    let anchor = std::mem::take(&mut self.hyps);
                    let unseen = vec![Item::Unseen; n.min(buffer::MAX_UNSEEN)];
                    if n > buffer::MAX_UNSEEN {
                        self.go_lost(Some(occ), t);
                        return;
                    }
                    self.start_buffering(anchor, unseen);
                    self.reconcile(Some(occ), t);
                } else {
                    self.unstick(occ, t);
                }
            }
            Mode::Buffering { .. } => self.reconcile(Some(occ), t),
            Mode::Lost { .. } => {
                if let Mode::Lost { occ: o, .. } = &mut self.mode {
                    *o = Some(occ);
                }
                self.recover(occ, t);
            }
        }
    }

    fn press(&mut self, side: Color, t: u64) {
        let (w, b) = (self.clock.white_ms, self.clock.black_ms);
        let item = Item::Press {
            side,
            white_ms: w,
            black_ms: b,
            t,
        };
        match &mut self.mode {
            Mode::Trusted => {
                let readings = self.read(&self.hyps);
                match self.judge_press(side, &readings) {
                    PressVerdict::Complete(r) => {
                        let clock = self.clock.time_of(side);
                        self.complete(&r, t, Completion::Press, clock);
                    }
                    PressVerdict::Nothing => {}
                    PressVerdict::NoMove | PressVerdict::Unexplained => {
                        // Before accusing anyone, confirm against a snapshot.
                        let anchor = self.hyps.clone();
                        self.start_buffering(anchor, vec![item]);
                    }
                }
            }
            Mode::Buffering { items, .. } => items.push(item),
            Mode::Lost { presses, .. } => presses.push((side, t)),
        }
    }
}

pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}
