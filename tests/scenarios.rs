//! Arbiter scenarios: each file in `tests/scenarios/` is a few lines of what
//! happened at the table and what the table must conclude. The lines are
//! turned into real TMB1/TMC1 lines (checksums, seq numbers) and go through
//! the same links and table as live traffic.
//!
//! The language (one command per line; `#` at the start of a line or after
//! a space starts a comment):
//!
//! | line | meaning |
//! | --- | --- |
//! | `clock` / `no clock` | a TMC1 clock is attached (default) or not |
//! | `laws fide-2001` | the edition of the Laws (default fide-2023) |
//! | `category blitz` | standard (default), rapid or blitz |
//! | `start FEN` | the game starts from this position (its pieces on the board) |
//! | `clock stops`, `clock runs white` | the arbiter stops the clock / restarts a face |
//! | `play e4 e5 Nf3` | these moves, made the plain way, each followed by the mover's press (with a clock) |
//! | `lift e2`, `place e4` | a square goes empty / full |
//! | `press white` | that side presses the clock |
//! | `flag black` | that side's time ran out (TMC1 `F`) |
//! | `wait 400` | time passes (ms); every other line takes 300 ms |
//! | `quick` | the next line comes 30 ms after the previous one |
//! | `snapshot` | the board sends its occupancy |
//! | `lose next` / `damage next` | the next board line never arrives / arrives with a bad checksum |
//! | `board restarts` | the board says hello and sends a snapshot |
//! | `finish` | the input ends (a provisional move then counts) |
//! | `expect moves e4 e5` | the completed moves so far, in SAN |
//! | `expect alert 3 illegal-move` | an alert of that kind at that ply |
//! | `expect alert 3 touch-move 4.3.1` | … citing that article |
//! | `expect no alert illegal-move` | no alert of that kind so far |
//! | `expect claim 1 touch-move open` | that alert's claim window (4.8) is still open / `closed` |
//! | `expect result 1-0` | the result |

use std::path::Path;

use shakmaty::{san::SanPlus, Bitboard, CastlingSide, Chess, Color, Move, Position, Square};
use touchmove::link::{BoardLink, ClockLink};
use touchmove::table::{Config, Table};
use touchmove::wire::frame;

struct Harness {
    table: Table,
    board: BoardLink,
    clock_link: ClockLink,
    t: u64,
    board_seq: u16,
    clock_seq: u16,
    occ: Bitboard,
    pos: Chess,
    clock: bool,
    times: [u64; 2],
    running: Option<Color>,
    lose_next: bool,
    damage_next: bool,
    quick: bool,
    file: String,
    cfg: Config,
    start_pos: Chess,
}

impl Harness {
    fn new(file: &str) -> Harness {
        Harness {
            table: Table::new(Config::default()),
            board: BoardLink::default(),
            clock_link: ClockLink::default(),
            t: 0,
            board_seq: 0,
            clock_seq: 0,
            occ: Chess::default().board().occupied(),
            pos: Chess::default(),
            clock: true,
            times: [300_000, 300_000],
            running: None,
            lose_next: false,
            damage_next: false,
            quick: false,
            file: file.to_string(),
            cfg: Config::default(),
            start_pos: Chess::default(),
        }
    }

    fn step(&mut self) {
        let dt = if std::mem::take(&mut self.quick) {
            30
        } else {
            300
        };
        self.pass(dt);
    }

    fn pass(&mut self, dt: u64) {
        if let Some(c) = self.running {
            let idx = if c == Color::White { 0 } else { 1 };
            self.times[idx] = self.times[idx].saturating_sub(dt);
        }
        self.t += dt;
        self.table.tick(self.t);
    }

    fn board_line(&mut self, body: String) {
        let mut line = frame(&body);
        if std::mem::take(&mut self.lose_next) {
            return;
        }
        if std::mem::take(&mut self.damage_next) {
            line = line.replacen(' ', "x", 1);
        }
        let (evs, _) = self.board.feed(&line);
        for ev in evs {
            self.table.handle(self.t, ev);
        }
    }

    fn seq_board(&mut self, body: &str) {
        let s = self.board_seq;
        self.board_seq = self.board_seq.wrapping_add(1);
        self.board_line(format!("{body} {s} {}", self.t));
    }

    fn clock_line(&mut self, body: &str) {
        let s = self.clock_seq;
        self.clock_seq = self.clock_seq.wrapping_add(1);
        let (evs, _) = self
            .clock_link
            .feed(&frame(&format!("{body} {s} {}", self.t)));
        for ev in evs {
            self.table.handle(self.t, ev);
        }
    }

    fn start(&mut self) {
        self.board_line("TMB1 1.0.0 SCN".into());
        self.snapshot();
        if self.clock {
            let (evs, _) = self.clock_link.feed(&frame("TMC1 1.0.0 SCN"));
            for ev in evs {
                self.table.handle(self.t, ev);
            }
            let first = self.pos.turn();
            self.running = Some(first);
            let letter = if first == Color::White { 'W' } else { 'B' };
            self.clock_line(&format!("T {} {} {letter}", self.times[0], self.times[1]));
        }
    }

    fn snapshot(&mut self) {
        let occ = self.occ.0;
        self.seq_board(&format!("S {occ:016x}"));
    }

    fn lift(&mut self, sq: Square) {
        self.step();
        assert!(
            self.occ.contains(sq),
            "{}: scenario lifts empty {sq}",
            self.file
        );
        self.occ.discard(sq);
        self.seq_board(&format!("L {sq}"));
    }

    fn place(&mut self, sq: Square) {
        self.step();
        assert!(
            !self.occ.contains(sq),
            "{}: scenario places on full {sq}",
            self.file
        );
        self.occ.add(sq);
        self.seq_board(&format!("P {sq}"));
    }

    fn press(&mut self, side: Color) {
        self.step();
        if !self.clock {
            return;
        }
        let [w, b] = self.times;
        let letter = if side == Color::White { 'W' } else { 'B' };
        self.running = Some(!side);
        self.clock_line(&format!("C {letter} {w} {b}"));
    }

    /// The moves, made the plain way, with the presses.
    fn play(&mut self, san: &str) {
        let m = san
            .parse::<SanPlus>()
            .map(|s| s.san)
            .unwrap_or_else(|e| panic!("{}: {san}: {e}", self.file))
            .to_move(&self.pos)
            .unwrap_or_else(|e| panic!("{}: {san} is not legal here: {e}", self.file));
        let mover = self.pos.turn();
        match m {
            Move::Normal {
                from, to, capture, ..
            } => {
                self.lift(from);
                if capture.is_some() {
                    self.lift(to);
                }
                self.place(to);
            }
            Move::EnPassant { from, to } => {
                self.lift(from);
                self.lift(Square::from_coords(to.file(), from.rank()));
                self.place(to);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(rook.file() > king.file());
                self.lift(king);
                self.place(Square::from_coords(side.king_to_file(), king.rank()));
                self.lift(rook);
                self.place(Square::from_coords(side.rook_to_file(), king.rank()));
            }
            Move::Put { .. } => unreachable!(),
        }
        self.pos.play_unchecked(m);
        self.pass(500);
        self.press(mover);
    }

    fn fail(&self, n: usize, what: String) -> ! {
        panic!(
            "{}:{n}: {what}\n  moves: {}\n  alerts: {:#?}",
            self.file,
            self.table.sans().join(" "),
            self.table
                .alerts()
                .iter()
                .map(|a| format!("{}@{} {:?}: {}", a.kind.name(), a.ply, a.article, a.detail))
                .collect::<Vec<_>>()
        )
    }
}

fn square(s: &str, file: &str, n: usize) -> Square {
    s.parse()
        .unwrap_or_else(|_| panic!("{file}:{n}: {s:?} is not a square"))
}

fn run_scenario(path: &Path) {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).expect("scenario readable");
    let mut h = Harness::new(&file);
    let mut started = false;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        // `#` starts a comment at the start of a line or after a space
        // (`Qh4#` is a mate, not a comment).
        let line = match raw.trim_start().strip_prefix('#') {
            Some(_) => "",
            None => raw.split(" #").next().unwrap_or("").trim(),
        };
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if !started && !matches!(words[0], "clock" | "no" | "laws" | "category" | "start") {
            h.start();
            started = true;
        }
        match words.as_slice() {
            ["clock"] => h.clock = true,
            ["laws", edition] => {
                h.cfg.laws = touchmove::laws::Edition::parse(edition)
                    .unwrap_or_else(|| panic!("{file}:{n}: no edition {edition}"));
                h.table = Table::from_position(h.cfg.clone(), h.pos.clone());
            }
            ["category", c] => {
                h.cfg.category = touchmove::laws::Category::parse(c)
                    .unwrap_or_else(|| panic!("{file}:{n}: no category {c}"));
                h.table = Table::from_position(h.cfg.clone(), h.pos.clone());
            }
            ["start", fen @ ..] => {
                let fen: shakmaty::fen::Fen = fen.join(" ").parse().expect("FEN");
                h.pos = fen
                    .into_position(shakmaty::CastlingMode::Standard)
                    .expect("legal FEN");
                h.occ = h.pos.board().occupied();
                h.start_pos = h.pos.clone();
                h.table = Table::from_position(h.cfg.clone(), h.pos.clone());
            }
            ["clock", "stops"] => {
                h.step();
                h.running = None;
                let [w, b] = h.times;
                h.clock_line(&format!("T {w} {b} -"));
            }
            ["clock", "runs", side] => {
                h.step();
                let c = if *side == "white" {
                    Color::White
                } else {
                    Color::Black
                };
                h.running = Some(c);
                let [w, b] = h.times;
                let letter = if c == Color::White { 'W' } else { 'B' };
                h.clock_line(&format!("T {w} {b} {letter}"));
            }
            ["no", "clock"] => h.clock = false,
            ["play", moves @ ..] => {
                for m in moves {
                    // the position follows the moves the scenario plays
                    h.play(m);
                }
            }
            ["lift", sq] => h.lift(square(sq, &file, n)),
            ["place", sq] => h.place(square(sq, &file, n)),
            ["flag", side] => {
                h.step();
                let letter = if *side == "white" { 'W' } else { 'B' };
                h.clock_line(&format!("F {letter}"));
            }
            ["press", "white"] => h.press(Color::White),
            ["press", "black"] => h.press(Color::Black),
            ["wait", ms] => h.pass(ms.parse().expect("wait takes ms")),
            ["quick"] => h.quick = true,
            ["snapshot"] => {
                h.step();
                h.snapshot();
            }
            ["lose", "next"] => h.lose_next = true,
            ["damage", "next"] => h.damage_next = true,
            ["board", "restarts"] => {
                h.step();
                h.board_seq = 0;
                h.board_line("TMB1 1.0.0 SCN".into());
                h.snapshot();
            }
            ["finish"] => {
                h.t += 1000;
                h.table.finish(h.t);
            }
            ["expect", "moves", moves @ ..] => {
                let got = h.table.sans();
                if got != *moves {
                    h.fail(n, format!("expected moves {}", moves.join(" ")));
                }
            }
            ["expect", "alert", ply, kind, article @ ..] => {
                let ply: u32 = ply.parse().expect("ply");
                let found = h.table.alerts().iter().any(|a| {
                    a.ply == ply
                        && a.kind.name() == *kind
                        && article.first().is_none_or(|art| a.article == Some(*art))
                });
                if !found {
                    h.fail(n, format!("expected alert {kind} {article:?} at ply {ply}"));
                }
            }
            ["expect", "claim", ply, kind, state] => {
                let ply: u32 = ply.parse().expect("ply");
                let alert = h
                    .table
                    .alerts()
                    .iter()
                    .find(|a| a.ply == ply && a.kind.name() == *kind)
                    .cloned();
                let Some(alert) = alert else {
                    h.fail(n, format!("no alert {kind} at ply {ply}"));
                };
                let Some(w) = alert.claim else {
                    h.fail(n, format!("alert {kind} at ply {ply} has no claim window"));
                };
                let open = w.closed_ms.is_none();
                match *state {
                    "open" if !open => {
                        h.fail(n, format!("claim window closed at {:?}", w.closed_ms))
                    }
                    "closed" if open => h.fail(n, "claim window still open".into()),
                    "open" | "closed" => {}
                    other => panic!("{file}:{n}: claim state {other:?} (open or closed)"),
                }
            }
            ["expect", "no", "alert", kind] => {
                if h.table.alerts().iter().any(|a| a.kind.name() == *kind) {
                    h.fail(n, format!("expected no alert {kind}"));
                }
            }
            ["expect", "result", r] => {
                if h.table.result() != *r {
                    h.fail(n, format!("expected result {r}, got {}", h.table.result()));
                }
            }
            _ => panic!("{file}:{n}: cannot read {line:?}"),
        }
        // `play` keeps its own position; lifts and places by hand leave it
        // to the scenario to say what was played.
        if let ["expect", "moves", moves @ ..] = words.as_slice() {
            let mut pos = h.start_pos.clone();
            for m in moves.iter() {
                let mv = m.parse::<SanPlus>().unwrap().san.to_move(&pos).unwrap();
                pos.play_unchecked(mv);
            }
            h.pos = pos;
        }
    }
}

#[test]
fn every_scenario_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "scn"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "only {} scenarios", files.len());
    for f in &files {
        run_scenario(f);
    }
    println!("{} scenarios held", files.len());
}
