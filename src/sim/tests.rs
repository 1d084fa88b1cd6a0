//! Checks of the simulated traffic against the protocols and the game.

use std::collections::HashMap;

use shakmaty::{Bitboard, ByColor, Chess, Color, Move, Position, Square};

use super::*;
use crate::wire::{BoardMsg, ClockMsg, Device, Direction, Recording};

/// What the traffic of one simulated game must satisfy.
struct Checker<'a> {
    opts: &'a SimOptions,
    /// The positions after 0, 1, 2, … moves.
    positions: Vec<Chess>,
    last_t: u64,
    /// Per device: the last seq, and the host and device time of that line.
    stamps: HashMap<Device, (u16, u64, u32)>,
    occupied: Bitboard,
    /// Host time of the last lift or placement.
    last_touch: u64,
    presses: usize,
    snapshots: Vec<(u64, Bitboard)>,
    clock: ClockModel,
}

/// The clock's faces as the checker expects them.
struct ClockModel {
    faces: ByColor<u64>,
    running: Option<Color>,
    flagged: ByColor<bool>,
    last_t: u64,
}

impl<'a> Checker<'a> {
    fn new(moves: &[Move], opts: &'a SimOptions) -> Checker<'a> {
        let mut positions = vec![Chess::default()];
        for &m in moves {
            let mut next = positions.last().unwrap().clone();
            assert!(next.is_legal(m));
            next.play_unchecked(m);
            positions.push(next);
        }
        Checker {
            opts,
            occupied: positions[0].board().occupied(),
            positions,
            last_t: 0,
            last_touch: 0,
            stamps: HashMap::new(),
            presses: 0,
            snapshots: Vec::new(),
            clock: ClockModel {
                faces: ByColor::new_with(|_| opts.base_ms),
                running: None,
                flagged: ByColor::new_with(|_| false),
                last_t: 0,
            },
        }
    }

    fn check(mut self, records: &[Record]) {
        let hello = BoardMsg::Hello {
            fw: "1.0.0".into(),
            serial: self.opts.board_serial.clone(),
        };
        assert_eq!(BoardMsg::parse_line(&records[0].line), Ok(hello));
        assert_eq!(records[0].t_ms, 0);
        for r in records {
            assert!(r.t_ms >= self.last_t, "time goes back at {r}");
            self.last_t = r.t_ms;
            if r.dir == Direction::FromDevice {
                match r.device {
                    Device::Board => self.board_line(r),
                    Device::Clock => self.clock_line(r),
                }
            }
        }
        self.finish(records);
    }

    /// `seq` follows on (from 0), and the device's ms moved as host time did.
    fn stamp(&mut self, r: &Record, seq: u16, ms: u32) {
        match self.stamps.get(&r.device) {
            None => assert_eq!(seq, 0, "{r}"),
            Some(&(last_seq, last_t, last_ms)) => {
                assert_eq!(seq, last_seq.wrapping_add(1), "seq gap at {r}");
                let elapsed = (r.t_ms - last_t) as u32;
                assert_eq!(ms, last_ms.wrapping_add(elapsed), "device ms at {r}");
            }
        }
        self.stamps.insert(r.device, (seq, r.t_ms, ms));
    }

    fn board_line(&mut self, r: &Record) {
        let msg = BoardMsg::parse_line(&r.line).unwrap_or_else(|e| panic!("{r}: {e}"));
        match msg {
            BoardMsg::Hello { .. } => {}
            BoardMsg::Lift { square, seq, ms } => {
                self.stamp(r, seq, ms);
                assert!(self.occupied.contains(square), "lift of empty square: {r}");
                self.last_touch = r.t_ms;
                self.occupied.discard(square);
            }
            BoardMsg::Place { square, seq, ms } => {
                self.stamp(r, seq, ms);
                assert!(!self.occupied.contains(square), "place on full square: {r}");
                self.last_touch = r.t_ms;
                self.occupied.add(square);
            }
            BoardMsg::Snapshot { occupied, seq, ms } => {
                self.stamp(r, seq, ms);
                assert_eq!(
                    occupied, self.occupied,
                    "snapshot disagrees with the events: {r}"
                );
                self.snapshots.push((r.t_ms, occupied));
            }
            other => panic!("unexpected board line {other:?}"),
        }
    }

    fn clock_line(&mut self, r: &Record) {
        assert!(self.opts.clock, "clock line without a clock: {r}");
        let msg = ClockMsg::parse_line(&r.line).unwrap_or_else(|e| panic!("{r}: {e}"));
        if let Some(seq) = msg.seq() {
            let ms = match msg {
                ClockMsg::Press { ms, .. }
                | ClockMsg::Time { ms, .. }
                | ClockMsg::Flag { ms, .. } => ms,
                _ => unreachable!(),
            };
            self.stamp(r, seq, ms);
            if self.clock.running.is_some() {
                let silent = r.t_ms - self.clock.last_t;
                assert!(
                    silent <= 1000,
                    "a running clock was silent {silent} ms before {r}"
                );
            }
            self.clock.run_until(r.t_ms);
        }
        match msg {
            ClockMsg::Press {
                side,
                white_ms,
                black_ms,
                ..
            } => self.press(r, side, (white_ms, black_ms)),
            ClockMsg::Time {
                white_ms,
                black_ms,
                running,
                ..
            } => {
                assert_eq!((white_ms, black_ms), self.clock.pair(), "faces at {r}");
                self.clock.running = running;
            }
            ClockMsg::Flag { side, .. } => {
                assert_eq!(self.clock.faces[side], 0, "flag with time left: {r}");
                assert!(!self.clock.flagged[side]);
                self.clock.flagged[side] = true;
            }
            ClockMsg::Hello { .. } | ClockMsg::Reply { ok: true, .. } => {}
            ClockMsg::Reply { ok: false, .. } => panic!("refused: {r}"),
        }
    }

    /// A press completes the next move: the board shows it, nothing in hand.
    fn press(&mut self, r: &Record, side: Color, faces: (u64, u64)) {
        self.presses += 1;
        let reach = r.t_ms - self.last_touch;
        assert!(
            (150..=900).contains(&reach),
            "pressed {reach} ms after the move: {r}"
        );
        let pos = &self.positions[self.presses];
        assert_eq!(side, !pos.turn(), "the wrong side pressed: {r}");
        assert_eq!(
            self.occupied,
            pos.board().occupied(),
            "press before the move is on the board: {r}"
        );
        assert_eq!(
            self.clock.running,
            Some(side),
            "pressed a stopped face: {r}"
        );
        if !self.clock.flagged[side] {
            self.clock.faces[side] += self.opts.increment_ms;
        }
        assert_eq!(faces, self.clock.pair(), "faces after the press: {r}");
        self.clock.running = Some(!side);
    }

    fn finish(&self, records: &[Record]) {
        let last = self.positions.last().unwrap();
        let ended = last.is_checkmate() || last.is_stalemate();
        let moves = self.positions.len() - 1;
        if self.opts.clock {
            assert_eq!(self.presses, moves - usize::from(ended && moves > 0));
        } else {
            assert_eq!(self.presses, 0);
        }
        assert_eq!(self.occupied, last.board().occupied());
        if self.opts.heartbeat_ms > 0 {
            let &(t, occ) = self.snapshots.last().unwrap();
            assert_eq!(occ, last.board().occupied(), "final snapshot");
            assert!(t + self.opts.heartbeat_ms > records.last().unwrap().t_ms);
            for pair in self.snapshots[1..].windows(2) {
                assert_eq!(
                    pair[1].0 - pair[0].0,
                    self.opts.heartbeat_ms,
                    "heartbeat period"
                );
            }
        }
    }
}

impl ClockModel {
    fn run_until(&mut self, t: u64) {
        if let Some(side) = self.running {
            self.faces[side] = self.faces[side].saturating_sub(t - self.last_t);
        }
        self.last_t = t;
    }

    fn pair(&self) -> (u64, u64) {
        (self.faces.white, self.faces.black)
    }
}

fn check_game(moves: &[Move], opts: &SimOptions) -> Vec<Record> {
    let records = play(moves, opts).unwrap();
    Checker::new(moves, opts).check(&records);
    records
}

fn opts(style: Style, seed: u64) -> SimOptions {
    SimOptions {
        style,
        seed,
        ..SimOptions::default()
    }
}

/// Moves reaching en passant, castling on both wings and a promotion with
/// capture, for behaviours the famous games lack.
const SPECIALS: &str = "1. e4 Nf6 2. e5 d5 3. exd6 Qxd6 4. Nf3 Bg4 5. Be2 Nc6 6. O-O O-O-O \
                        7. d4 Bxf3 8. Bxf3 h5 9. d5 h4 10. dxc6 h3 11. cxb7+ Kb8 12. Nc3 hxg2 \
                        13. Be3 gxf1=N";

#[test]
fn famous_games_give_protocol_correct_traffic() {
    for game in famous_games() {
        let moves = game.moves().unwrap();
        for style in [Style::Clean, Style::Human] {
            for seed in 1..=3 {
                check_game(&moves, &opts(style, seed));
            }
        }
    }
}

#[test]
fn special_moves_in_every_order() {
    let moves = parse_movetext(SPECIALS).unwrap();
    for seed in 0..40 {
        check_game(&moves, &opts(Style::Human, seed));
    }
    check_game(&moves, &opts(Style::Clean, 1));
}

#[test]
fn without_clock_or_heartbeat() {
    let moves = famous_games()[0].moves().unwrap();
    let no_clock = SimOptions {
        clock: false,
        ..SimOptions::default()
    };
    let records = check_game(&moves, &no_clock);
    assert!(records.iter().all(|r| r.device == Device::Board));
    let quiet = SimOptions {
        heartbeat_ms: 0,
        ..SimOptions::default()
    };
    let records = check_game(&moves, &quiet);
    let snapshots = records.iter().filter(|r| r.line.starts_with("S ")).count();
    assert_eq!(snapshots, 1, "only the power-up snapshot");
}

#[test]
fn start_up_follows_the_protocols() {
    let moves = parse_movetext("1. e4").unwrap();
    let records = play(&moves, &SimOptions::default()).unwrap();
    let bodies: Vec<(Device, Direction, &str)> = records
        .iter()
        .take(20)
        .map(|r| (r.device, r.dir, r.line.split('*').next().unwrap()))
        .collect();
    let (b, c, from, to) = (
        Device::Board,
        Device::Clock,
        Direction::FromDevice,
        Direction::ToDevice,
    );
    assert_eq!(bodies[0], (b, from, "TMB1 1.0.0 TMB-SIM"));
    assert_eq!(
        bodies[1].2.split(' ').take(3).collect::<Vec<_>>(),
        ["S", "ffff00000000ffff", "0"]
    );
    assert_eq!(bodies[2], (c, from, "TMC1 1.0.0 CLK-SIM"));
    assert_eq!(bodies[3], (c, to, "N 5400000 5400000 30000 fischer"));
    assert_eq!(bodies[4], (c, from, "OK N"));
    assert!(bodies[5].2.starts_with("T 5400000 5400000 - 0 "));
    let start = bodies.iter().position(|x| x.2 == "R W").unwrap();
    assert_eq!(bodies[start + 1], (c, from, "OK R"));
    assert!(bodies[start + 2].2.starts_with("T 5400000 5400000 W 1 "));
    assert!(
        records[start].t_ms >= 2000,
        "the arbiter starts the clock later"
    );
}

#[test]
fn the_same_seed_gives_the_same_traffic() {
    let moves = famous_games()[1].moves().unwrap();
    let a = play(&moves, &opts(Style::Human, 42)).unwrap();
    assert_eq!(a, play(&moves, &opts(Style::Human, 42)).unwrap());
    assert_ne!(a, play(&moves, &opts(Style::Human, 43)).unwrap());
}

#[test]
fn seq_wraps_after_65535() {
    let moves = famous_games()[0].moves().unwrap();
    let busy = SimOptions {
        heartbeat_ms: 1,
        style: Style::Clean,
        ..SimOptions::default()
    };
    let records = check_game(&moves, &busy);
    assert!(records.len() > 70_000);
}

#[test]
fn a_flag_falls_when_time_runs_out() {
    let moves = famous_games()[0].moves().unwrap();
    let blitz = SimOptions {
        base_ms: 20_000,
        increment_ms: 0,
        ..SimOptions::default()
    };
    let records = check_game(&moves, &blitz);
    assert!(records.iter().any(|r| r.line.starts_with("F ")));
}

#[test]
fn human_noise_is_there_and_clean_has_none() {
    let mut wobbles = 0;
    let mut slides = 0;
    for seed in 1..=5 {
        for game in famous_games() {
            let moves = game.moves().unwrap();
            let (w, s) = noise(&play(&moves, &opts(Style::Human, seed)).unwrap());
            wobbles += w;
            slides += s;
            if seed == 1 {
                assert_eq!(
                    noise(&play(&moves, &opts(Style::Clean, seed)).unwrap()),
                    (0, 0)
                );
            }
        }
    }
    assert!(
        wobbles > 0 && slides > 0,
        "{wobbles} wobbles, {slides} slides"
    );
}

/// Counts wobbles (lift and place of one square within 25 ms) and slides
/// (place and lift of one square within 90 ms).
fn noise(records: &[Record]) -> (usize, usize) {
    let events: Vec<(u64, char, Square)> = records
        .iter()
        .filter_map(|r| match BoardMsg::parse_line(&r.line).ok()? {
            BoardMsg::Lift { square, .. } => Some((r.t_ms, 'L', square)),
            BoardMsg::Place { square, .. } => Some((r.t_ms, 'P', square)),
            _ => None,
        })
        .collect();
    let mut counts = (0, 0);
    for pair in events.windows(2) {
        let ((t0, k0, s0), (t1, k1, s1)) = (pair[0], pair[1]);
        if s0 == s1 && k0 == 'L' && k1 == 'P' && t1 - t0 <= 25 {
            counts.0 += 1;
        }
        if s0 == s1 && k0 == 'P' && k1 == 'L' && t1 - t0 <= 90 {
            counts.1 += 1;
        }
    }
    counts
}

#[test]
fn illegal_moves_and_bad_options_are_refused() {
    let bad = Move::Normal {
        role: shakmaty::Role::Pawn,
        from: Square::E2,
        capture: None,
        to: Square::E5,
        promotion: None,
    };
    let err = play(&[bad], &SimOptions::default()).unwrap_err();
    assert_eq!(
        err,
        SimError::IllegalMove {
            ply: 1,
            mv: "e2-e5".into()
        }
    );
    assert!(err.to_string().contains("ply 1"));
    let backwards = SimOptions {
        think_min_ms: 10,
        think_max_ms: 5,
        ..SimOptions::default()
    };
    assert!(matches!(
        play(&[], &backwards),
        Err(SimError::Option {
            name: "think_min_ms",
            ..
        })
    ));
    let bad_serial = SimOptions {
        board_serial: "no spaces".into(),
        ..SimOptions::default()
    };
    assert!(matches!(
        play(&[], &bad_serial),
        Err(SimError::Option {
            name: "board_serial",
            ..
        })
    ));
    assert_eq!("clean".parse::<Style>(), Ok(Style::Clean));
    assert!("messy".parse::<Style>().is_err());
}

#[test]
fn an_empty_game_is_just_the_devices() {
    let records = check_game(&[], &SimOptions::default());
    assert!(records
        .iter()
        .all(|r| !r.line.starts_with("L ") && !r.line.starts_with("C ")));
}

#[test]
fn recording_text_reads_back_with_its_intent() {
    for game in famous_games() {
        let opts = SimOptions::default();
        let text = recording_text(game, &opts).unwrap();
        let rec = Recording::parse(&text);
        assert!(rec.errors.is_empty(), "{:?}", rec.errors);
        let records: Vec<Record> = rec.records().map(|(_, r)| r.clone()).collect();
        let moves = game.moves().unwrap();
        assert_eq!(records, play(&moves, &opts).unwrap());
        let tags = rec.game_tags();
        assert!(tags.contains(&("White".to_string(), game.white.to_string())));
        assert!(tags.contains(&("TimeControl".to_string(), "5400+30".to_string())));
        assert!(!tags.iter().any(|(k, _)| k == "Result"));
        let expect = rec.expectations();
        assert_eq!(expect.result.as_deref(), Some(game.result));
        assert_eq!(expect.moves.len(), moves.len());
        let plies: Vec<u32> = expect.moves.iter().map(|(p, _)| *p).collect();
        assert_eq!(plies, (1..=moves.len() as u32).collect::<Vec<_>>());
        let sans = expect
            .moves
            .iter()
            .map(|(_, s)| s.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(parse_movetext(&sans).unwrap(), moves);
        assert_eq!(rec.to_text(), text);
    }
}

#[test]
fn expect_moves_keep_check_and_promotion_marks() {
    let moves = parse_movetext(SPECIALS).unwrap();
    let text = recording_of(
        &[("White", "A"), ("Black", "B")],
        &moves,
        &SimOptions::default(),
    )
    .unwrap();
    assert!(text.contains("# expect-move: 5 exd6\n"), "{text}");
    assert!(text.contains("# expect-move: 11 O-O\n"));
    assert!(text.contains("# expect-move: 12 O-O-O\n"));
    assert!(text.contains("# expect-move: 21 cxb7+\n"));
    assert!(text.contains("# expect-move: 26 gxf1=N\n"));
    assert!(text.ends_with("# expect-result: *\n"));
}
