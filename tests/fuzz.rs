//! Property tests: no input makes the wire, the recordings, the links, the
//! table or the replay panic, and the invariants that must hold whatever
//! arrives do hold.
//!
//! - wire: any line into `BoardMsg::parse_line` / `ClockMsg::parse_line`;
//!   every valid message round-trips through its line; every single-byte
//!   change of a line is caught; a parsed message re-serialises to itself;
//! - TMREC: any text into `Recording::parse`, with errors naming lines that
//!   exist;
//! - table: any timed sequence of events (noise, and real moves made on the
//!   board), then `finish`: the score is always legal chess from the initial
//!   position, the result one of the four; a game played cleanly is read
//!   move for move;
//! - replay: any recording, valid framed lines mixed with garbage.
//!
//! Case counts are kept moderate so that a debug `cargo test` stays quick;
//! set `PROPTEST_CASES` to run more.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::Index;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, Move, Piece, Position, Role, Square,
};
use touchmove::replay::replay;
use touchmove::table::{Config, Event, Severity, Table};
use touchmove::wire::{
    frame, unframe, BoardMsg, ClockMsg, Device, Direction, Entry, Record, Recording,
};

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// `PROPTEST_CASES` if set, else `n`.
fn cases(n: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(n);
    ProptestConfig {
        cases: n,
        // Shrinking a 300-event table run can take long; enough to get a
        // small case.
        max_shrink_iters: 2048,
        // Integration tests have no lib.rs next to them to store
        // regressions by; a failure prints its minimal input instead.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---- strategies: wire ------------------------------------------------------

fn square() -> impl Strategy<Value = Square> {
    (0u32..64).prop_map(Square::new)
}

fn color() -> impl Strategy<Value = Color> {
    any::<bool>().prop_map(Color::from_white)
}

fn piece() -> impl Strategy<Value = Piece> {
    (color(), 0usize..6).prop_map(|(color, r)| Piece {
        color,
        role: Role::ALL[r],
    })
}

/// Strings matching a regex built at run time.
fn re(pattern: &str) -> proptest::string::RegexGeneratorStrategy<String> {
    proptest::string::string_regex(pattern).expect("valid regex")
}

/// A word of printable ASCII without space or `*`.
const WORD: &str = "[!-)+-~]";
/// Printable ASCII without `*` (a body may hold spaces).
const TEXT: &str = "[ -)+-~]";

fn hello_fields() -> impl Strategy<Value = (String, String)> {
    (re(&format!("{WORD}{{0,12}}")), "[A-Za-z0-9-]{1,24}")
}

/// A reply's text: no leading space (the parser trims it).
fn reply_text() -> impl Strategy<Value = String> {
    re(&format!("({WORD}{TEXT}{{0,40}})?"))
}

/// Every valid board message, built from its fields.
fn board_msg() -> impl Strategy<Value = BoardMsg> {
    prop_oneof![
        hello_fields().prop_map(|(fw, serial)| BoardMsg::Hello { fw, serial }),
        (square(), any::<u16>(), any::<u32>()).prop_map(|(square, seq, ms)| BoardMsg::Lift {
            square,
            seq,
            ms
        }),
        (square(), any::<u16>(), any::<u32>()).prop_map(|(square, seq, ms)| BoardMsg::Place {
            square,
            seq,
            ms
        }),
        (any::<u64>(), any::<u16>(), any::<u32>()).prop_map(|(o, seq, ms)| {
            BoardMsg::Snapshot {
                occupied: Bitboard(o),
                seq,
                ms,
            }
        }),
        (
            re(&format!("{WORD}{{0,8}}")),
            any::<u16>(),
            any::<u32>(),
            re(&format!("{TEXT}{{0,30}}"))
        )
            .prop_map(|(code, seq, ms, text)| BoardMsg::Fault {
                code,
                seq,
                ms,
                text
            }),
        (any::<bool>(), reply_text()).prop_map(|(ok, text)| BoardMsg::Reply { ok, text }),
    ]
}

/// Every valid clock message, built from its fields.
fn clock_msg() -> impl Strategy<Value = ClockMsg> {
    prop_oneof![
        hello_fields().prop_map(|(fw, serial)| ClockMsg::Hello { fw, serial }),
        (
            color(),
            any::<u64>(),
            any::<u64>(),
            any::<u16>(),
            any::<u32>()
        )
            .prop_map(|(side, white_ms, black_ms, seq, ms)| ClockMsg::Press {
                side,
                white_ms,
                black_ms,
                seq,
                ms
            }),
        (
            any::<u64>(),
            any::<u64>(),
            option::of(color()),
            any::<u16>(),
            any::<u32>()
        )
            .prop_map(|(white_ms, black_ms, running, seq, ms)| ClockMsg::Time {
                white_ms,
                black_ms,
                running,
                seq,
                ms
            }),
        (color(), any::<u16>(), any::<u32>()).prop_map(|(side, seq, ms)| ClockMsg::Flag {
            side,
            seq,
            ms
        }),
        (any::<bool>(), reply_text()).prop_map(|(ok, text)| ClockMsg::Reply { ok, text }),
    ]
}

/// Tokens that reach deep into the message parsers once framed.
const TOKENS: &[&str] = &[
    "L",
    "P",
    "S",
    "E",
    "C",
    "T",
    "F",
    "OK",
    "NO",
    "TMB1",
    "TMC1",
    "W",
    "B",
    "-",
    "",
    "e2",
    "a1",
    "h8",
    "i9",
    "e",
    "0",
    "1",
    "007",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "123456789012345678901",
    "-1",
    "+1",
    "ffff00000000ffff",
    "FFFF00000000FFFF",
    "ffff0000000000ffff",
    "TMB-00042",
    "bad_serial!",
    "1.0.0",
    "é",
    "\t",
    "*",
];

/// A body made of protocol-ish tokens (sometimes a random word) joined by
/// one or two spaces.
fn token_body() -> impl Strategy<Value = String> {
    vec(
        prop_oneof![
            4 => (0..TOKENS.len()).prop_map(|i| TOKENS[i].to_string()),
            1 => re("[0-9a-fA-F]{0,22}"),
            1 => re(&format!("{WORD}{{0,6}}")),
        ],
        1..8,
    )
    .prop_flat_map(|toks| {
        let n = toks.len();
        (
            Just(toks),
            vec(prop_oneof![4 => Just(" "), 1 => Just("  ")], n),
        )
    })
    .prop_map(|(toks, seps)| {
        let mut s = String::new();
        for (i, t) in toks.iter().enumerate() {
            if i > 0 {
                s.push_str(seps[i]);
            }
            s.push_str(t);
        }
        s
    })
}

/// Inserts `c` at char position `at` (clamped).
fn insert_at(s: &str, at: Index, c: char) -> String {
    let chars: Vec<char> = s.chars().collect();
    let i = at.index(chars.len() + 1);
    chars[..i]
        .iter()
        .chain(std::iter::once(&c))
        .chain(&chars[i..])
        .collect()
}

/// Any line a serial port could deliver, and many it could not.
fn any_line() -> impl Strategy<Value = String> {
    let valid = prop_oneof![
        board_msg().prop_map(|m| m.line()),
        clock_msg().prop_map(|m| m.line()),
    ];
    prop_oneof![
        // Raw bytes, not UTF-8 in general.
        3 => vec(any::<u8>(), 0..120).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        // Very long lines.
        1 => vec(any::<u8>(), 0..4000).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        1 => (".{0,40}", 70usize..200, any::<bool>()).prop_map(|(s, n, ok)| {
            let body = format!("{s}{}", "x".repeat(n));
            if ok { frame(&body) } else { body }
        }),
        // Correct checksums over bodies the parsers must judge.
        4 => token_body().prop_map(|b| frame(&b)),
        2 => (token_body(), any::<Index>(), prop_oneof![Just('*'), Just('\r'), Just('\n')])
            .prop_map(|(b, at, c)| insert_at(&frame(&b), at, c)),
        // Valid lines with a '*', '\r' or '\n' put somewhere, or endings.
        2 => (valid.clone(), any::<Index>(), prop_oneof![Just('*'), Just('\r'), Just('\n'), Just('\0')])
            .prop_map(|(l, at, c)| insert_at(&l, at, c)),
        1 => (valid, prop_oneof![Just(""), Just("\n"), Just("\r\n"), Just("\r"), Just("\n\r"), Just("\r\r\n"), Just(" ")])
            .prop_map(|(l, end)| format!("{l}{end}")),
        // Arbitrary text with a star and two characters at the end.
        1 => (".{0,30}", "[0-9A-Fa-z*]{0,3}").prop_map(|(b, cc)| format!("{b}*{cc}")),
    ]
}

// ---- wire properties -------------------------------------------------------

proptest! {
    #![proptest_config(cases(256))]

    /// Whatever arrives, the parsers answer; and what they accept is a
    /// message whose own line reads back as itself.
    #[test]
    fn any_line_parses_without_panic(line in any_line()) {
        let _ = unframe(&line);
        let _ = BoardMsg::parse_body(&line);
        let _ = ClockMsg::parse_body(&line);
        if let Ok(m) = BoardMsg::parse_line(&line) {
            prop_assert!(unframe(&line).is_ok());
            prop_assert_eq!(BoardMsg::parse_line(&m.line()), Ok(m.clone()), "from {:?}", line);
        }
        if let Ok(m) = ClockMsg::parse_line(&line) {
            prop_assert!(unframe(&line).is_ok());
            prop_assert_eq!(ClockMsg::parse_line(&m.line()), Ok(m.clone()), "from {:?}", line);
        }
    }

    /// Every valid board message reads back from its line, with any of the
    /// line endings a serial port delivers.
    #[test]
    fn board_msg_round_trips(m in board_msg()) {
        let line = m.line();
        prop_assert!(line.len() <= touchmove::wire::MAX_LINE, "{:?}", line);
        prop_assert_eq!(BoardMsg::parse_line(&line), Ok(m.clone()));
        prop_assert_eq!(BoardMsg::parse_line(&format!("{line}\r\n")), Ok(m.clone()));
        prop_assert_eq!(BoardMsg::parse_line(&format!("{line}\n")), Ok(m.clone()));
        prop_assert_eq!(m.seq().is_some(), !matches!(m, BoardMsg::Hello { .. } | BoardMsg::Reply { .. }));
    }

    #[test]
    fn clock_msg_round_trips(m in clock_msg()) {
        let line = m.line();
        prop_assert!(line.len() <= touchmove::wire::MAX_LINE, "{:?}", line);
        prop_assert_eq!(ClockMsg::parse_line(&line), Ok(m.clone()));
        prop_assert_eq!(ClockMsg::parse_line(&format!("{line}\r\n")), Ok(m.clone()));
        prop_assert_eq!(ClockMsg::parse_line(&format!("{line}\n")), Ok(m.clone()));
    }

    /// A single byte of a board line changed to another printable byte
    /// (body, '*' or checksum digit) is always caught: the XOR checksum
    /// changes with any single byte of the body.
    #[test]
    fn board_single_byte_damage_is_caught(m in board_msg(), at in any::<Index>(), shift in 1u8..95) {
        let line = m.line();
        let damaged = damage(&line, at, shift);
        let got = BoardMsg::parse_line(&damaged);
        prop_assert!(got.is_err(), "{:?} -> {:?} read as {:?}", line, damaged, got);
        prop_assert_ne!(got, Ok(m));
    }

    #[test]
    fn clock_single_byte_damage_is_caught(m in clock_msg(), at in any::<Index>(), shift in 1u8..95) {
        let line = m.line();
        let damaged = damage(&line, at, shift);
        let got = ClockMsg::parse_line(&damaged);
        prop_assert!(got.is_err(), "{:?} -> {:?} read as {:?}", line, damaged, got);
        prop_assert_ne!(got, Ok(m));
    }
}

/// `line` (printable ASCII) with the byte at `at` replaced by another
/// printable byte, `shift` places further round 0x20..=0x7e.
fn damage(line: &str, at: Index, shift: u8) -> String {
    let mut b = line.as_bytes().to_vec();
    let i = at.index(b.len());
    assert!((0x20..=0x7e).contains(&b[i]));
    b[i] = 0x20 + (b[i] - 0x20 + shift) % 95;
    String::from_utf8(b).expect("printable ASCII")
}

// ---- TMREC -----------------------------------------------------------------

/// One line of a recording file, valid or not.
fn tmrec_line() -> impl Strategy<Value = String> {
    let t = prop_oneof![
        4 => (0u64..10_000_000).prop_map(|t| t.to_string()),
        1 => re("[0-9]{0,22}"),
        1 => re("-?[0-9a-z ]{0,5}"),
    ];
    let dev = prop_oneof![
        4 => prop::sample::select(vec!["board>", "board<", "clock>", "clock<", "table>", "board", ""])
            .prop_map(String::from),
        1 => re("[a-z<> ]{0,7}"),
    ];
    let dev_line = prop_oneof![
        board_msg().prop_map(|m| m.line()),
        clock_msg().prop_map(|m| m.line()),
        any_line(),
    ];
    prop_oneof![
        6 => (t, dev, dev_line).prop_map(|(t, d, l)| format!("{t} {d} {l}")),
        1 => Just("# tmrec 1".to_string()),
        1 => prop_oneof![
            Just("# expect-move: 3 e4"),
            Just("# expect-alert: x touch-move"),
            Just("# expect-result: 1-0"),
            Just("# game: White Someone"),
            Just("#"),
            Just("   "),
            Just(""),
        ].prop_map(String::from),
        1 => "#[^\n]{0,30}",
        1 => vec(any::<u8>(), 0..60).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

fn tmrec_text() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => vec(any::<u8>(), 0..2000).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        4 => (vec(tmrec_line(), 0..40), prop_oneof![Just("\n"), Just("\r\n")], any::<bool>())
            .prop_map(|(lines, nl, trailing)| {
                let mut s = lines.join(nl);
                if trailing {
                    s.push_str(nl);
                }
                s
            }),
    ]
}

proptest! {
    #![proptest_config(cases(256))]

    /// Any text reads as a recording; every error and entry names a line of
    /// the text, entries in order.
    #[test]
    fn recording_parse_never_panics(text in tmrec_text()) {
        let rec = Recording::parse(&text);
        let n_lines = text.split('\n').count();
        for e in &rec.errors {
            prop_assert!(e.line >= 1 && e.line <= n_lines, "error {:?} in {} lines", e, n_lines);
        }
        let mut last = 0;
        for (n, _) in &rec.entries {
            prop_assert!(*n > last && *n <= n_lines, "entry at line {} (previous {}) of {}", n, last, n_lines);
            last = *n;
        }
        // The derived views never panic either.
        let _ = rec.game_tags();
        let _ = rec.expectations();
        let _ = rec.to_text();
    }
}

// ---- the table -------------------------------------------------------------

/// What happens at the table next.
#[derive(Debug, Clone)]
enum Op {
    /// This event, `dt` ms after the previous one.
    Ev(u64, Event),
    /// The players make a legal move of the game they are really playing
    /// (`pick` chooses which), plainly, with a press if `press`.
    Move { pick: u16, press: bool, dt: u64 },
    /// The board sends its true occupancy.
    TrueSnapshot(u64),
    /// Time passes with no event.
    Tick(u64),
}

fn dt() -> impl Strategy<Value = u64> {
    prop_oneof![
        8 => 0u64..1500,
        2 => 1500u64..10_000,
        1 => 10_000u64..10_000_000,
    ]
}

fn occupancy() -> impl Strategy<Value = Bitboard> {
    let start = Chess::default().board().occupied().0;
    prop_oneof![
        2 => any::<u64>().prop_map(Bitboard),
        1 => Just(Bitboard(start)),
        2 => vec(0u32..64, 1..4).prop_map(move |bits| {
            Bitboard(bits.into_iter().fold(start, |o, b| o ^ (1 << b)))
        }),
        1 => Just(Bitboard(0)),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    let ms = prop_oneof![
        4 => 0u64..10_000_000,
        1 => any::<u64>(),
    ];
    prop_oneof![
        6 => square().prop_map(Event::Lift),
        5 => square().prop_map(|s| Event::Place(s, None)),
        1 => (square(), piece()).prop_map(|(s, p)| Event::Place(s, Some(p))),
        2 => occupancy().prop_map(Event::Snapshot),
        2 => (color(), ms.clone(), ms.clone())
            .prop_map(|(side, white_ms, black_ms)| Event::Press { side, white_ms, black_ms }),
        1 => prop_oneof![
            4 => 0u32..10,
            1 => 10u32..1000,
            1 => Just(u32::MAX),
        ].prop_map(|lines| Event::BoardLost { lines }),
        1 => Just(Event::BoardDamaged),
        1 => "[A-Z0-9-]{0,8}".prop_map(|serial| Event::BoardHello { serial }),
        1 => ("[A-Z0-9]{0,4}", "[ -~]{0,10}").prop_map(|(code, text)| Event::BoardFault { code, text }),
        1 => "[A-Z0-9-]{0,8}".prop_map(|serial| Event::ClockHello { serial }),
        1 => Just(Event::ClockLost),
        1 => (ms.clone(), ms, option::of(color()))
            .prop_map(|(white_ms, black_ms, running)| Event::ClockTime { white_ms, black_ms, running }),
        1 => color().prop_map(|side| Event::Flag { side }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (dt(), event()).prop_map(|(dt, ev)| Op::Ev(dt, ev)),
        4 => (any::<u16>(), prop::bool::weighted(0.8), dt())
            .prop_map(|(pick, press, dt)| Op::Move { pick, press, dt }),
        1 => dt().prop_map(Op::TrueSnapshot),
        1 => dt().prop_map(Op::Tick),
    ]
}

/// The lifts and placements of `m`, made the plain way (captured piece
/// lifted after the mover, king before rook).
fn physical(m: &Move) -> Vec<Event> {
    match *m {
        Move::Normal {
            from, to, capture, ..
        } => {
            let mut v = vec![Event::Lift(from)];
            if capture.is_some() {
                v.push(Event::Lift(to));
            }
            v.push(Event::Place(to, None));
            v
        }
        Move::EnPassant { from, to } => vec![
            Event::Lift(from),
            Event::Lift(Square::from_coords(to.file(), from.rank())),
            Event::Place(to, None),
        ],
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(rook.file() > king.file());
            vec![
                Event::Lift(king),
                Event::Place(Square::from_coords(side.king_to_file(), king.rank()), None),
                Event::Lift(rook),
                Event::Place(Square::from_coords(side.rook_to_file(), king.rank()), None),
            ]
        }
        Move::Put { .. } => unreachable!("standard chess"),
    }
}

/// Feeds one event, checking what `handle` returns is well formed.
fn feed(table: &mut Table, t: u64, ev: Event) {
    for effect in table.handle(t, ev) {
        if let touchmove::table::Effect::GameOver { result, .. } = effect {
            assert!(RESULTS.contains(&result), "game over with {result:?}");
        }
    }
}

/// Runs `ops` through a table from a board hello and the initial snapshot,
/// then finishes. Returns the table and the moves really played.
fn run_table(ops: &[Op]) -> (Table, Vec<Move>) {
    let mut table = Table::new(Config::default());
    let mut pos = Chess::default();
    let mut played = Vec::new();
    let mut t = 0u64;
    let mut times = [300_000u64, 300_000];
    feed(
        &mut table,
        t,
        Event::BoardHello {
            serial: "FUZZ".into(),
        },
    );
    feed(&mut table, t, Event::Snapshot(pos.board().occupied()));
    for op in ops {
        match op {
            Op::Ev(dt, ev) => {
                t = t.saturating_add(*dt);
                feed(&mut table, t, ev.clone());
            }
            Op::Tick(dt) => {
                t = t.saturating_add(*dt);
                let _ = table.tick(t);
            }
            Op::TrueSnapshot(dt) => {
                t = t.saturating_add(*dt);
                feed(&mut table, t, Event::Snapshot(pos.board().occupied()));
            }
            Op::Move { pick, press, dt } => {
                let legal = pos.legal_moves();
                if legal.is_empty() || table.end().is_some() {
                    continue;
                }
                let m = legal[usize::from(*pick) % legal.len()];
                t = t.saturating_add(*dt);
                for ev in physical(&m) {
                    t = t.saturating_add(300);
                    feed(&mut table, t, ev);
                }
                let mover = pos.turn();
                pos.play_unchecked(m);
                played.push(m);
                if *press {
                    t = t.saturating_add(500);
                    let i = usize::from(mover == Color::Black);
                    times[i] = times[i].saturating_sub(800);
                    feed(
                        &mut table,
                        t,
                        Event::Press {
                            side: mover,
                            white_ms: times[0],
                            black_ms: times[1],
                        },
                    );
                }
            }
        }
    }
    let _ = table.finish(t.saturating_add(1000));
    (table, played)
}

/// The table's score is legal chess from the initial position, leading to
/// the position it reports; its result is one of the four.
fn check_score(table: &Table) -> Result<(), TestCaseError> {
    let sans = table.sans();
    let moves = table.moves();
    prop_assert_eq!(sans.len(), moves.len());
    let mut pos = Chess::default();
    for (i, san) in sans.iter().enumerate() {
        let parsed: SanPlus = san
            .parse()
            .map_err(|e| TestCaseError::fail(format!("ply {}: {san:?} is not SAN: {e}", i + 1)))?;
        let m = parsed.san.to_move(&pos).map_err(|e| {
            TestCaseError::fail(format!(
                "ply {}: {san} is not legal after {:?}: {e}",
                i + 1,
                &sans[..i]
            ))
        })?;
        // The SAN the table wrote is the one for this move, check marks too.
        prop_assert_eq!(
            &SanPlus::from_move(pos.clone(), m).to_string(),
            san,
            "ply {}",
            i + 1
        );
        prop_assert_eq!(
            &m.to_uci(CastlingMode::Standard).to_string(),
            &moves[i].uci,
            "ply {}",
            i + 1
        );
        prop_assert_eq!(moves[i].ply as usize, i + 1);
        pos.play_unchecked(m);
    }
    prop_assert!(
        &pos == table.position(),
        "position after the score differs from the table's"
    );
    prop_assert!(
        RESULTS.contains(&table.result()),
        "result {:?}",
        table.result()
    );
    Ok(())
}

/// UCI without the promotion piece, which a presence-only board cannot see.
fn uci4(uci: &str) -> String {
    uci.chars().take(4).collect()
}

proptest! {
    #![proptest_config(cases(64))]

    /// Noise and real moves in any order: nothing panics and the score is
    /// always legal chess.
    #[test]
    fn table_survives_any_events(ops in vec(op(), 0..300)) {
        let (table, _) = run_table(&ops);
        check_score(&table)?;
    }

    /// Events alone, without the initial snapshot's help to make sense of
    /// them.
    #[test]
    fn table_survives_pure_noise(evs in vec((dt(), event()), 0..300)) {
        let mut table = Table::new(Config::default());
        let mut t = 0u64;
        for (dt, ev) in evs {
            t = t.saturating_add(dt);
            feed(&mut table, t, ev);
        }
        let _ = table.finish(t.saturating_add(1000));
        check_score(&table)?;
    }
}

proptest! {
    #![proptest_config(cases(32))]

    /// A random legal game made plainly on the board, with presses or
    /// without a clock, is read move for move (promotion piece aside).
    #[test]
    fn table_reads_a_clean_game(picks in vec(any::<u16>(), 0..120), press in any::<bool>()) {
        let ops: Vec<Op> = picks
            .into_iter()
            .map(|pick| Op::Move { pick, press, dt: 400 })
            .collect();
        let (table, played) = run_table(&ops);
        check_score(&table)?;
        let got: Vec<String> = table.moves().iter().map(|m| uci4(&m.uci)).collect();
        let want: Vec<String> = played
            .iter()
            .map(|m| uci4(&m.to_uci(CastlingMode::Standard).to_string()))
            .collect();
        prop_assert_eq!(got, want);
        let bad: Vec<_> = table.alerts().iter().filter(|a| a.severity() != Severity::Info).collect();
        prop_assert!(bad.is_empty(), "alerts on a clean game: {:?}", bad);
    }
}

// ---- replay ----------------------------------------------------------------

fn rec(t_ms: u64, device: Device, line: String) -> Record {
    Record {
        t_ms,
        device,
        dir: Direction::FromDevice,
        line,
    }
}

fn record() -> impl Strategy<Value = Record> {
    let line = prop_oneof![
        3 => board_msg().prop_map(|m| m.line()),
        2 => clock_msg().prop_map(|m| m.line()),
        2 => any_line(),
    ];
    (
        0u64..5000,
        prop_oneof![4 => Just(Device::Board), 1 => Just(Device::Clock)],
        prop_oneof![6 => Just(Direction::FromDevice), 1 => Just(Direction::ToDevice)],
        line,
    )
        .prop_map(|(t_ms, device, dir, line)| Record {
            t_ms,
            device,
            dir,
            line,
        })
}

/// Board lines that mostly make sense: a game's moves with the right seq
/// numbers, some damaged or lost, among random lines.
fn plausible_lines() -> impl Strategy<Value = Vec<Record>> {
    (
        vec(any::<u16>(), 0..60),
        vec((0u8..20, any::<Index>()), 0..60),
    )
        .prop_map(|(picks, noise)| {
            let mut pos = Chess::default();
            let mut out = Vec::new();
            let mut t = 0u64;
            let mut seq = 0u16;
            let mut clock_seq = 0u16;
            let mut k = 0;
            out.push(rec(0, Device::Board, frame("TMB1 1.0.0 FUZZ")));
            out.push(rec(
                0,
                Device::Board,
                frame(&format!("S {:016x} 0 0", pos.board().occupied().0)),
            ));
            seq += 1;
            for pick in picks {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[usize::from(pick) % legal.len()];
                for ev in physical(&m) {
                    t += 300;
                    let body = match ev {
                        Event::Lift(sq) => format!("L {sq} {seq} {t}"),
                        Event::Place(sq, _) => format!("P {sq} {seq} {t}"),
                        _ => unreachable!(),
                    };
                    seq = seq.wrapping_add(1);
                    let mut line = frame(&body);
                    k += 1;
                    if let Some((kind, at)) = noise.get(k - 1) {
                        match kind {
                            0 => continue,                          // lost
                            1 => line = damage(&line, *at, 1),      // damaged
                            2 => line = insert_at(&line, *at, '*'), // mangled
                            _ => {}
                        }
                    }
                    out.push(rec(t, Device::Board, line));
                }
                t += 500;
                let side = if pos.turn() == Color::White { 'W' } else { 'B' };
                out.push(rec(
                    t,
                    Device::Clock,
                    frame(&format!("C {side} 300000 300000 {clock_seq} {t}")),
                ));
                clock_seq = clock_seq.wrapping_add(1);
                pos.play_unchecked(m);
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig { fork: true, timeout: 20_000, ..cases(64) })]

    /// Any recording replays: valid framed lines, garbage, host lines, times
    /// out of order.
    #[test]
    fn replay_survives_any_recording(
        records in prop_oneof![
            vec(record(), 0..200),
            (plausible_lines(), vec((any::<Index>(), record()), 0..30)).prop_map(|(mut lines, extra)| {
                for (at, r) in extra {
                    let i = at.index(lines.len() + 1);
                    lines.insert(i, r);
                }
                lines
            }),
        ],
        header in any::<bool>(),
    ) {
        let mut rec = Recording::default();
        if header {
            rec.entries.push((1, Entry::Comment("tmrec 1".into())));
        }
        for r in records {
            let n = rec.entries.len() + 1;
            rec.entries.push((n, Entry::Record(r)));
        }
        let out = replay(&rec, "fuzz", &Config::default());
        prop_assert!(RESULTS.contains(&out.result));
        let fed = rec.records().filter(|(_, r)| r.dir == Direction::FromDevice).count() as u64;
        prop_assert!(out.events <= 2 * fed, "{} events from {} lines", out.events, fed);
        let mut pos = Chess::default();
        for m in &out.moves {
            let uci: UciMove = m.uci.parse().map_err(|e| TestCaseError::fail(format!("{:?}: {e}", m.uci)))?;
            let mv = uci.to_move(&pos).map_err(|e| TestCaseError::fail(format!("{} illegal: {e}", m.uci)))?;
            pos.play_unchecked(mv);
        }
        let _ = out.to_json();
    }
}
