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
pub mod event;
pub mod game;
pub mod phys;
pub mod reading;

use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square};

pub use alert::{Alert, AlertKind, Severity};
pub use event::Event;
pub use game::End;

use crate::laws::{Category, Edition};
use crate::wire::BoardCommand;
use buffer::{Item, Trace};
use game::{captured_id, initial_ids, same_but_promotion, Line};
use phys::{Hyps, IdMap, Phys, PieceId};
use reading::{read_all, read_map, Reading};

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
}

impl Default for Config {
    fn default() -> Config {
        Config {
            touch_min_ms: 120,
            release_min_ms: 250,
            displaced_ms: 5000,
            laws: Edition::default(),
            category: Category::default(),
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
    /// The game ended on the board.
    GameOver {
        result: &'static str,
        end: End,
    },
    /// A command for the board (a snapshot to confirm what it shows).
    Board(BoardCommand),
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
    /// completed move: a reply is read on top of one of them (the pawn seen
    /// on b6 did not go to b5, even if b5 then axb6 e.p. ends the same).
    seen: Vec<IdMap>,
    /// Lines dropped by the last completed move, kept until the next one.
    shadow: Option<Shadow>,
    /// What a board that senses identity said stands on each square.
    identified: [Option<Role>; 64],
    board_hellos: u32,
    lost_lines: u64,
    out: Vec<Effect>,
}

impl Table {
    /// A table waiting for the initial position (the board's first snapshot).
    pub fn new(cfg: Config) -> Table {
        let start = Chess::default();
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
            identified: [None; 64],
            board_hellos: 0,
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
        std::mem::take(&mut self.out)
    }

    /// Time has passed with no event (the driver's timer, or in a replay
    /// the next line's time).
    pub fn tick(&mut self, t: u64) -> Vec<Effect> {
        self.advance(t);
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
            Event::Press {
                side,
                white_ms,
                black_ms,
            } => {
                self.clock.present = true;
                self.clock.white_ms = white_ms;
                self.clock.black_ms = black_ms;
                self.clock.running = Some(!side);
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
                self.clock.running = running;
            }
            Event::Flag { .. } => {}
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
        if n + already > buffer::MAX_UNSEEN as u32 {
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

    // ---- judging ----------------------------------------------------------

    /// The readings of `hyps`, those of a reply on top of a move the board
    /// has not shown dropped when another reply sits on one it has shown.
    fn read(&self, hyps: &Hyps) -> Vec<Reading> {
        let mut readings = read_all(hyps.iter(), &self.lines);
        let on_seen = |r: &Reading| r.len() == 2 && self.seen.contains(&r.maps[0]);
        if readings.iter().any(on_seen) {
            readings.retain(|r| r.len() != 2 || on_seen(r));
        }
        readings
    }

    /// The mover of the `i`-th move of a reading (0-based).
    fn mover(&self, r: &Reading, i: usize) -> Color {
        let turn = self.lines[r.line].pos.turn();
        if i.is_multiple_of(2) {
            turn
        } else {
            !turn
        }
    }

    fn judge_press(&self, side: Color, readings: &[Reading]) -> PressVerdict {
        if let Some(r) = readings
            .iter()
            .find(|r| !r.is_empty() && self.mover(r, r.len() - 1) == side)
        {
            return PressVerdict::Complete(r.clone());
        }
        if readings.iter().any(|r| !r.is_empty()) {
            // The board shows a move by the other side: the clock is out of
            // step with the game, nothing to complete.
            return PressVerdict::Nothing;
        }
        if readings.iter().any(Reading::is_empty) {
            if self.lines[0].pos.turn() == side {
                return PressVerdict::NoMove;
            }
            return PressVerdict::Nothing;
        }
        PressVerdict::Unexplained
    }

    /// Looks at the board after an event: completes a move the opponent has
    /// answered, shows the provisional move, arms the game-end timer.
    fn evaluate(&mut self, t: u64) {
        let readings = self.read(&self.hyps);
        for r in readings.iter().filter(|r| r.len() == 1) {
            if !self.seen.contains(&r.maps[0]) {
                self.seen.push(r.maps[0]);
            }
        }
        if readings.is_empty() {
            self.show(None);
            return;
        }
        let all_two = readings.iter().all(|r| r.len() == 2);
        if all_two {
            let first = &readings[0];
            if readings.iter().all(|r| r.maps[0] == first.maps[0]) {
                let mut one = first.clone();
                one.moves.truncate(1);
                one.maps.truncate(1);
                let mover = self.mover(&one, 0);
                let clock = self.clock.time_of(mover);
                self.complete(&one, t, Completion::Reply, clock);
                return;
            }
        }
        let best = readings
            .iter()
            .min_by_key(|r| r.len())
            .expect("not empty")
            .clone();
        if best.len() == 1 {
            let line = &self.lines[best.line];
            let san =
                shakmaty::san::SanPlus::from_move(line.pos.clone(), best.moves[0]).to_string();
            let ends = game::end_of(&line.play(best.moves[0])).is_some();
            self.show(Some((self.ply(), san)));
            if ends {
                self.end_deadline = Some(t + self.cfg.release_min_ms);
            }
        } else {
            self.show(None);
        }
    }

    fn show(&mut self, p: Option<(u32, String)>) {
        if self.shown != p {
            if let Some((ply, san)) = &p {
                self.out.push(Effect::Provisional {
                    ply: *ply,
                    san: san.clone(),
                });
            }
            self.shown = p;
        }
    }

    /// Completes the moves of reading `r` (all of them).
    fn complete(&mut self, r: &Reading, t: u64, how: Completion, last_clock: Option<u64>) {
        if self.end_tentative {
            // Play went on: the game had not ended after all (the promoted
            // piece was not a queen). Lines where it had ended have no
            // legal move and fall away below.
            self.end = None;
            self.end_tentative = false;
            let ending = |k: AlertKind| {
                matches!(
                    k,
                    AlertKind::Checkmate
                        | AlertKind::Stalemate
                        | AlertKind::Fivefold
                        | AlertKind::SeventyFive
                )
            };
            if let Some(i) = self.alerts.iter().rposition(|a| ending(a.kind)) {
                self.alerts.remove(i);
            }
        }
        let before = self.sans();
        self.shadow = None;
        for (i, &m) in r.moves.iter().enumerate() {
            let mover = self.mover_now();
            let mut next: Vec<Line> = Vec::new();
            let mut illegal_in: Vec<Line> = Vec::new();
            for line in &self.lines {
                let mut variants: Vec<Move> = line
                    .succ
                    .iter()
                    .map(|s| s.m)
                    .filter(|&s| same_but_promotion(s, m))
                    .filter(|&s| {
                        // A board that senses identity says what the pawn became.
                        s.promotion().is_none()
                            || self.identified[s.to() as usize]
                                .is_none_or(|r| s.promotion() == Some(r))
                    })
                    .collect();
                variants.sort_by_key(|&v| game::promotion_rank(v));
                if variants.is_empty() {
                    illegal_in.push(line.clone());
                }
                for v in variants {
                    next.push(line.play(v));
                }
            }
            if next.is_empty() {
                return;
            }
            let ply = self.ply();
            if !illegal_in.is_empty() && r.moves.len() == 1 {
                // Legal only if the promoted piece is what these lines say
                // it is not: if the board later fits the other lines only
                // with this move taken back, it was an illegal move.
                self.shadow = Some(Shadow {
                    lines: illegal_in,
                    plies: self.plies.len(),
                    ply,
                    side: mover,
                    t,
                    san: self.sans_after(m),
                });
            }
            let captured = captured_id(&self.lines[0].ids, m);
            let promoted = m.promotion().is_some();
            let (from, to) = (m.from(), m.to());
            self.lines = next;
            let clock = if i + 1 == r.moves.len() {
                last_clock.or_else(|| self.clock.time_of(mover))
            } else {
                self.clock.time_of(mover)
            };
            self.plies.push(PlyInfo {
                t_ms: t,
                clock_ms: clock,
                completed_by: how,
            });
            if let Some(c) = captured {
                for h in &mut self.hyps.0 {
                    h.drop_from_hand(1 << c);
                }
            }
            let seen_piece = self.identified[to as usize].is_some();
            if promoted {
                let id = self.lines[0].ids[to as usize];
                if let Some(info) = self.roles.get_mut(id as usize) {
                    info.2 = true;
                }
            }
            if promoted && !seen_piece {
                self.raise_at(
                    ply,
                    t,
                    AlertKind::PromotionAssumed,
                    Some(mover),
                    from.into_iter().chain([to]).collect(),
                    format!(
                        "pawn promoted on {to}: a presence board cannot see the new piece; a queen is recorded until its moves or the arbiter say otherwise"
                    ),
                );
            }
            let san = self.sans().pop().unwrap_or_default();
            let uci = m.to_uci(shakmaty::CastlingMode::Standard).to_string();
            self.out.push(Effect::Move(MoveRecord {
                ply,
                san,
                uci,
                t_ms: t,
                clock_ms: clock,
                completed_by: how,
            }));
        }
        self.report_corrections(&before);
        self.shown = None;
        self.seen.clear();
        // Keep the hypotheses that still read; those that do not were
        // other placements of the same pieces.
        let readings = self.read(&self.hyps);
        if !readings.is_empty() {
            let keep: Vec<usize> = readings.iter().map(|r| r.hyp).collect();
            let mut i = 0;
            self.hyps.retain(|_| {
                let k = keep.contains(&i);
                i += 1;
                k
            });
        }
        self.check_end(t);
        if self.playing() {
            self.evaluate(t);
        }
    }

    fn mover_now(&self) -> Color {
        self.lines[0].pos.turn()
    }

    fn report_corrections(&mut self, before: &[String]) {
        let after = self.sans();
        for (i, (a, b)) in before.iter().zip(&after).enumerate() {
            if a != b {
                self.out.push(Effect::Corrected {
                    ply: i as u32 + 1,
                    san: b.clone(),
                });
            }
        }
    }

    fn check_end(&mut self, t: u64) {
        let ends: Vec<Option<End>> = self.lines.iter().map(game::end_of).collect();
        let Some(end) = ends[0] else { return };
        // A promotion hypothesis may still play on: the game ends as the
        // preferred one says, until a further move shows otherwise.
        self.end_tentative = ends.iter().any(|e| *e != Some(end));
        let ply = self.ply() - 1;
        let (kind, detail) = match end {
            End::Checkmate { winner } => (
                AlertKind::Checkmate,
                format!("{} is checkmated", color_name(!winner)),
            ),
            End::Stalemate => (AlertKind::Stalemate, "stalemate".to_string()),
            End::Fivefold => (
                AlertKind::Fivefold,
                "the same position has stood five times".to_string(),
            ),
            End::SeventyFive => (
                AlertKind::SeventyFive,
                "75 moves by each player without a capture or pawn move".to_string(),
            ),
        };
        self.end = Some(end);
        self.alerts.push(Alert {
            ply,
            kind,
            article: self.cfg.laws.article(kind),
            side: None,
            squares: vec![],
            t_ms: t,
            detail,
        });
        self.out
            .push(Effect::Alert(self.alerts.last().expect("pushed").clone()));
        self.out.push(Effect::GameOver {
            result: end.result(),
            end,
        });
    }

    fn raise(
        &mut self,
        t: u64,
        kind: AlertKind,
        side: Option<Color>,
        squares: Vec<Square>,
        detail: String,
    ) {
        self.raise_at(self.ply(), t, kind, side, squares, detail)
    }

    fn raise_at(
        &mut self,
        ply: u32,
        t: u64,
        kind: AlertKind,
        side: Option<Color>,
        squares: Vec<Square>,
        detail: String,
    ) {
        let a = Alert {
            ply,
            kind,
            article: self.cfg.laws.article(kind),
            side,
            squares,
            t_ms: t,
            detail,
        };
        self.alerts.push(a.clone());
        self.out.push(Effect::Alert(a));
    }

    // ---- physical events on hypotheses -------------------------------------

    /// Which piece identities may be put down as `piece` (any, for a
    /// presence board).
    fn allowed(
        &self,
        sq: Square,
        piece: Option<shakmaty::Piece>,
    ) -> impl Fn(PieceId) -> bool + Copy + '_ {
        let last_rank = matches!(sq.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth);
        move |id| match piece {
            None => true,
            Some(p) => self
                .roles
                .get(id as usize)
                .is_some_and(|&(c, r, promoted)| {
                    let becomes = (promoted || (r == Role::Pawn && last_rank))
                        && p.role != Role::King
                        && p.role != Role::Pawn;
                    c == p.color && (r == p.role || becomes)
                }),
        }
    }

    fn apply(&self, hyps: &Hyps, item: &Item) -> Hyps {
        match *item {
            Item::Lift(sq, _) => hyps.lift(sq),
            Item::Place(sq, piece, _) => hyps.place(sq, self.allowed(sq, piece)),
            Item::Unseen | Item::Press { .. } => hyps.clone(),
        }
    }

    fn tracked_occupancy(&self) -> Option<Bitboard> {
        match &self.mode {
            Mode::Trusted => self.hyps.occupied(),
            Mode::Buffering { anchor, items, .. } => {
                let mut occ = anchor.occupied()?;
                for it in items {
                    match it {
                        Item::Lift(sq, _) => occ.discard(*sq),
                        Item::Place(sq, _, _) => occ.add(*sq),
                        _ => {}
                    }
                }
                Some(occ)
            }
            Mode::Lost { occ, .. } => *occ,
        }
    }

    fn start_buffering(&mut self, anchor: Hyps, items: Vec<Item>) {
        let since = self.now;
        self.mode = Mode::Buffering {
            anchor,
            items,
            since,
        };
        self.show(None);
        self.out.push(Effect::Board(BoardCommand::Snapshot));
    }

    /// Judges what was buffered against a snapshot, or without one
    /// (`None`: the input ended, or the board sends no snapshot). Presses
    /// the board does not explain are raised only if `confirmed`.
    fn reconcile(&mut self, snapshot: Option<Bitboard>, t: u64) {
        let confirmed = snapshot.is_some();
        self.reconcile_as(snapshot, t, confirmed)
    }

    fn reconcile_as(&mut self, snapshot: Option<Bitboard>, t: u64, confirmed: bool) {
        let Mode::Buffering { anchor, items, .. } =
            std::mem::replace(&mut self.mode, Mode::Trusted)
        else {
            return;
        };
        let unseen = items.iter().filter(|i| matches!(i, Item::Unseen)).count();
        let mut traces = buffer::explain(&anchor, &items, snapshot, |h, it| self.apply(h, it));
        if snapshot.is_none() {
            traces = buffer::most_likely(traces, |h| !self.read(h).is_empty());
        }
        let Some(trace) = Trace::merge(traces) else {
            let presses = items
                .iter()
                .filter_map(|i| match i {
                    Item::Press { side, t, .. } => Some((*side, *t)),
                    _ => None,
                })
                .collect();
            self.raise(
                t,
                AlertKind::BoardGap,
                None,
                vec![],
                format!(
                    "{unseen} board line(s) lost and the board no longer fits the game; waiting for a position it identifies"
                ),
            );
            self.mode = Mode::Lost {
                occ: snapshot.or_else(|| anchor.occupied()),
                presses,
            };
            if let Some(occ) = snapshot {
                self.recover(occ, t);
            }
            return;
        };
        if unseen > 0 {
            self.raise(
                t,
                AlertKind::BoardGap,
                None,
                vec![],
                format!("{unseen} board line(s) lost; reconciled with the board's snapshot"),
            );
        }
        // Go through the buffer again as if live, on the explained board.
        let boxed_before = self.boxed_ids();
        for (item, mut state) in items.iter().zip(trace.states) {
            if !self.playing() {
                return;
            }
            let boxed = self.boxed_ids() & !boxed_before | self.boxed_ids();
            for h in &mut state.0 {
                h.drop_from_hand(boxed);
            }
            match *item {
                Item::Press {
                    side,
                    white_ms,
                    black_ms,
                    t: pt,
                } => {
                    self.hyps = state;
                    let clock = Some(match side {
                        Color::White => white_ms,
                        Color::Black => black_ms,
                    });
                    self.judge_buffered_press(side, pt, clock, confirmed, &items);
                }
                Item::Lift(_, it) | Item::Place(_, _, it) => {
                    self.hyps = state;
                    self.evaluate(it);
                }
                Item::Unseen => {
                    self.hyps = state;
                    self.evaluate(t);
                }
            }
        }
        self.mode = Mode::Trusted;
        self.evaluate(t);
    }

    /// Judges a press that waited for a snapshot, on the board as the press
    /// found it (`self.hyps`).
    fn judge_buffered_press(
        &mut self,
        side: Color,
        pt: u64,
        clock: Option<u64>,
        confirmed: bool,
        _items: &[Item],
    ) {
        let readings = self.read(&self.hyps);
        match self.judge_press(side, &readings) {
            PressVerdict::Complete(r) => self.complete(&r, pt, Completion::Press, clock),
            PressVerdict::Nothing => {}
            PressVerdict::NoMove => {
                if confirmed {
                    self.raise(
                        pt,
                        AlertKind::ClockWithoutMove,
                        Some(side),
                        vec![],
                        format!("{} pressed the clock with no move made", color_name(side)),
                    );
                }
            }
            PressVerdict::Unexplained => {
                if self.retract_for_shadow(side, pt, clock) {
                    return;
                }
                if confirmed {
                    let squares = self.differing_squares(&self.hyps.clone());
                    self.raise(
                        pt,
                        AlertKind::IllegalMove,
                        Some(side),
                        squares.clone(),
                        format!(
                            "{} pressed the clock with no legal move on the board (squares differing from the game position: {}); the position before it must be restored",
                            color_name(side),
                            squares
                                .iter()
                                .map(|s| s.to_string())
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                    );
                }
            }
        }
    }

    /// The last completed move was legal only in some promotion lines; if
    /// the board as it stands is `side`'s move in the others, with that
    /// move taken back, it was an illegal move after all: retract it and
    /// complete this one instead.
    fn retract_for_shadow(&mut self, side: Color, t: u64, clock: Option<u64>) -> bool {
        let Some(sh) = self.shadow.take() else {
            return false;
        };
        let turn = sh.lines[0].pos.turn();
        let fits = read_all(self.hyps.iter(), &sh.lines)
            .into_iter()
            .find(|r| r.len() == 1 && turn == side);
        let Some(r) = fits else {
            return false;
        };
        self.lines = sh.lines;
        self.plies.truncate(sh.plies);
        self.out.push(Effect::Retracted { ply: sh.ply });
        self.raise_at(
            sh.ply,
            sh.t,
            AlertKind::IllegalMove,
            Some(sh.side),
            vec![],
            format!(
                "{} {} was legal only if the promoted piece were another; the board shows it taken back and the piece moving as it can, so it was an illegal move",
                color_name(sh.side),
                sh.san
            ),
        );
        self.complete(&r, t, Completion::Press, clock);
        true
    }

    /// SAN of `m` from the preferred line's position.
    fn sans_after(&self, m: Move) -> String {
        shakmaty::san::San::from_move(&self.lines[0].pos, m).to_string()
    }

    /// Pieces no longer in the game (captured in completed moves).
    fn boxed_ids(&self) -> u32 {
        let on_board: u32 = self.lines[0]
            .ids
            .iter()
            .filter(|&&i| i != phys::EMPTY)
            .fold(0, |acc, &i| acc | 1 << i);
        !on_board
    }

    fn differing_squares(&self, hyps: &Hyps) -> Vec<Square> {
        let occ = hyps.occupied().unwrap_or(Bitboard(0));
        (occ ^ self.lines[0].pos.board().occupied())
            .into_iter()
            .collect()
    }

    fn go_lost(&mut self, occ: Option<Bitboard>, _t: u64) {
        let presses = match std::mem::replace(&mut self.mode, Mode::Trusted) {
            Mode::Buffering { items, .. } => items
                .iter()
                .filter_map(|i| match i {
                    Item::Press { side, t, .. } => Some((*side, *t)),
                    _ => None,
                })
                .collect(),
            Mode::Lost { presses, .. } => presses,
            Mode::Trusted => Vec::new(),
        };
        self.hyps = Hyps::default();
        self.show(None);
        self.mode = Mode::Lost { occ, presses };
        self.out.push(Effect::Board(BoardCommand::Snapshot));
    }

    /// In lost mode: if the occupancy identifies one reading (the game
    /// position, a move, or a move and its reply), take it and trust again.
    fn recover(&mut self, occ: Bitboard, t: u64) {
        let Mode::Lost { presses, .. } = &self.mode else {
            return;
        };
        let presses = presses.clone();
        let mut found: Vec<(usize, Vec<Move>, IdMap)> = Vec::new();
        for (l, line) in self.lines.iter().enumerate() {
            for (moves, map) in occupancy_readings(line, occ) {
                if !found.iter().any(|(_, _, m)| *m == map) {
                    found.push((l, moves, map));
                }
            }
        }
        if found.len() != 1 {
            return;
        }
        let (l, moves, map) = found.remove(0);
        self.mode = Mode::Trusted;
        self.hyps = Hyps::one(Phys::settled(map));
        if moves.is_empty() {
            self.evaluate(t);
            return;
        }
        let Some((_, maps)) = read_map(&map, &self.lines[l])
            .into_iter()
            .find(|(ms, _)| ms.len() == moves.len())
        else {
            return;
        };
        let r = Reading {
            hyp: 0,
            line: l,
            moves: moves.clone(),
            maps,
        };
        let last_mover = self.mover(&r, r.len() - 1);
        let pressed = presses.iter().any(|&(s, _)| s == last_mover);
        if pressed || moves.len() == 2 {
            let mut r = r;
            if !pressed {
                r.moves.truncate(1);
                r.maps.truncate(1);
            }
            self.complete(&r, t, Completion::Recovered, None);
        } else {
            self.evaluate(t);
        }
    }
}

/// The lines in which the last completed move was illegal (see
/// [`Table::retract_for_shadow`]).
#[derive(Debug, Clone)]
struct Shadow {
    lines: Vec<Line>,
    /// How many plies were completed before it.
    plies: usize,
    ply: u32,
    side: Color,
    t: u64,
    san: String,
}

/// What a press means for the board as it stands.
enum PressVerdict {
    Complete(Reading),
    Nothing,
    NoMove,
    Unexplained,
}

/// Readings of an occupancy alone (pieces unknown): the game position, one
/// legal move, or a move and its reply.
fn occupancy_readings(line: &Line, occ: Bitboard) -> Vec<(Vec<Move>, IdMap)> {
    if line.pos.board().occupied() == occ {
        return vec![(Vec::new(), line.ids)];
    }
    let mut out = Vec::new();
    for s in &line.succ {
        if s.pos.board().occupied() == occ {
            out.push((vec![s.m], s.ids));
        }
    }
    if !out.is_empty() {
        return out;
    }
    for s in &line.succ {
        for m2 in s.pos.legal_moves() {
            let mut p = s.pos.clone();
            p.play_unchecked(m2);
            if p.board().occupied() == occ {
                out.push((vec![s.m, m2], game::apply_ids(&s.ids, m2)));
            }
        }
    }
    out
}

pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}
