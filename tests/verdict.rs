//! `touchmove::verdict` (Articles 6.9 and 5.2.2) on positions typed here,
//! `touchmove verdict` on the command line, and (ignored by default) every
//! labelled position of `../shared/data/unwinnability/`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Position};
use touchmove::verdict::{
    analyse, analyse_fen, flag_verdict, is_dead_fast, parse_fen, FlagVerdict, Verdict,
    VerdictError, Winnability,
};

const LAWS_EXAMPLE: &str = "8/8/8/8/8/1pp5/1kp5/Q3K3 b - - 0 1";
const K_VS_K: &str = "8/8/8/4k3/8/8/8/4K3 w - - 0 1";

fn verdict(fen: &str) -> Verdict {
    analyse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The mating line must be legal from `fen` and end with `winner` mating.
fn assert_mates(fen: &str, w: &Winnability, winner: Color) {
    let Winnability::Winnable { mating_line } = w else {
        panic!("{fen}: {winner:?} should be winnable, got {w:?}");
    };
    let mut pos = parse_fen(fen).unwrap();
    for san in mating_line {
        let m = san
            .parse::<SanPlus>()
            .unwrap_or_else(|e| panic!("{fen}: {san}: {e}"))
            .san
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("{fen}: {san} in {mating_line:?}: {e}"));
        pos.play_unchecked(m);
    }
    assert!(pos.is_checkmate(), "{fen}: {mating_line:?} does not mate");
    assert_eq!(pos.turn(), winner.other(), "{fen}: {mating_line:?}");
}

#[test]
fn laws_example_forced_capture_leaves_white_without_mate() {
    // Black to move and in check: Kxa1 is the only move, and White is left
    // with a bare king. Black keeps three pawns and can still mate.
    let v = verdict(LAWS_EXAMPLE);
    assert_eq!(v.white, Winnability::Unwinnable);
    assert_mates(LAWS_EXAMPLE, &v.black, Color::Black);
    assert_eq!(v.black.mating_line().unwrap()[0], "Kxa1");
    assert!(!v.dead);

    let pos = parse_fen(LAWS_EXAMPLE).unwrap();
    // Black's flag falls: White cannot mate by any series of legal moves.
    assert_eq!(flag_verdict(&pos, Color::Black), FlagVerdict::Draw);
    // White's flag falls: Black can mate, so White loses.
    assert_eq!(flag_verdict(&pos, Color::White), FlagVerdict::Loss);
    assert_eq!(v.flag(Color::Black), FlagVerdict::Draw);
    assert_eq!(v.flag(Color::White), FlagVerdict::Loss);
}

#[test]
fn bare_kings_are_dead() {
    let v = verdict(K_VS_K);
    assert_eq!(v.white, Winnability::Unwinnable);
    assert_eq!(v.black, Winnability::Unwinnable);
    assert!(v.dead);
    let pos = parse_fen(K_VS_K).unwrap();
    assert_eq!(flag_verdict(&pos, Color::White), FlagVerdict::Draw);
    assert_eq!(flag_verdict(&pos, Color::Black), FlagVerdict::Draw);
}

#[test]
fn king_and_bishop_against_king_is_dead() {
    let fen = "8/8/8/4k3/8/8/8/4KB2 w - - 0 1";
    let v = verdict(fen);
    assert_eq!(v.white, Winnability::Unwinnable);
    assert_eq!(v.black, Winnability::Unwinnable);
    assert!(v.dead);
}

#[test]
fn knight_against_knight_is_not_dead() {
    // Neither side can force mate, but each can be helped into one (a king
    // in the corner hemmed in by its own knight): not a dead position, and
    // a flag fall loses.
    let fen = "8/8/3nk3/8/8/3NK3/8/8 w - - 0 1";
    let v = verdict(fen);
    assert_mates(fen, &v.white, Color::White);
    assert_mates(fen, &v.black, Color::Black);
    assert!(!v.dead);
    let pos = parse_fen(fen).unwrap();
    assert_eq!(flag_verdict(&pos, Color::White), FlagVerdict::Loss);
    assert_eq!(flag_verdict(&pos, Color::Black), FlagVerdict::Loss);
}

#[test]
fn a_locked_pawn_wall_is_dead_whatever_the_material_count() {
    // Sixteen pawns, no capture possible, every pawn blocked, and neither
    // king can cross: no mate for anyone, though material says otherwise.
    let fen = "k7/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/K7 w - - 0 1";
    let pos = parse_fen(fen).unwrap();
    assert!(!pos.has_insufficient_material(Color::White));
    let v = analyse(&pos);
    assert_eq!(v.white, Winnability::Unwinnable);
    assert_eq!(v.black, Winnability::Unwinnable);
    assert!(v.dead);
    assert_eq!(flag_verdict(&pos, Color::White), FlagVerdict::Draw);
}

#[test]
fn a_wall_that_only_one_side_can_break() {
    // chasolver's README example (lichess game ijyj0mHa): Black cannot mate
    // because of the locked wall, but White can.
    let fen = "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1";
    let v = verdict(fen);
    assert_mates(fen, &v.white, Color::White);
    assert_eq!(v.black, Winnability::Unwinnable);
    assert!(!v.dead);
    let pos = parse_fen(fen).unwrap();
    assert_eq!(flag_verdict(&pos, Color::White), FlagVerdict::Draw);
    assert_eq!(flag_verdict(&pos, Color::Black), FlagVerdict::Loss);
}

#[test]
fn the_initial_position_is_winnable_for_both() {
    let pos = Chess::default();
    let v = analyse(&pos);
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert_mates(fen, &v.white, Color::White);
    assert_mates(fen, &v.black, Color::Black);
    assert!(!v.dead);
    assert_eq!(v, verdict(fen));
}

#[test]
fn a_mated_king_has_lost_and_its_side_cannot_mate() {
    // Fool's mate: White is checkmated.
    let fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let v = verdict(fen);
    assert_eq!(v.white, Winnability::Unwinnable);
    assert_eq!(
        v.black,
        Winnability::Winnable {
            mating_line: vec![]
        }
    );
    assert!(!v.dead);
}

#[test]
fn stalemate_is_dead() {
    let fen = "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1";
    let v = verdict(fen);
    assert!(v.dead, "{v:?}");
}

#[test]
fn en_passant_and_castling_fields_are_respected() {
    // Black's pawn can take en passant at once (the solver's board must
    // get the square), and castling rights stay castling rights.
    let fen = "8/8/8/8/4Pp2/8/8/4K2k b - e3 0 1";
    let v = verdict(fen);
    assert_mates(fen, &v.black, Color::Black);
    let castling = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let v = verdict(castling);
    assert_mates(castling, &v.white, Color::White);
    assert_mates(castling, &v.black, Color::Black);
}

#[test]
fn positions_no_game_can_reach_are_still_analysed() {
    // Two knights giving check at once cannot follow any legal move, but
    // the rules of movement still work: White cannot mate, Black can.
    let fen = "8/8/8/8/8/3nkn2/8/3RKR2 w - - 0 1";
    let v = verdict(fen);
    assert_eq!(v.white, Winnability::Unwinnable);
    assert_mates(fen, &v.black, Color::Black);
    // More pieces than promotions allow.
    let fen = "qqrrknnq/bbbnnbbb/8/8/8/8/NPPNNBNP/RQNNKQQR w - - 0 1";
    let v = verdict(fen);
    assert_mates(fen, &v.white, Color::White);
    assert_mates(fen, &v.black, Color::Black);
}

#[test]
fn bad_fens_say_what_is_wrong() {
    assert_eq!(analyse_fen("  "), Err(VerdictError::Empty));
    let e = analyse_fen("hello").unwrap_err().to_string();
    assert!(e.contains("not a FEN") && e.contains("fields"), "{e}");
    let e = analyse_fen("8/8/8/8/8/8/8/K6k x - - 0 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("side to move"), "{e}");
    let e = analyse_fen("9/8/8/8/8/8/8/K6k w - - 0 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("board"), "{e}");
    let e = analyse_fen("8/8/8/8/8/8/8/K7 w - - 0 1")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("not a legal position") && e.contains("king is missing"),
        "{e}"
    );
    // Black (not to move) is in check from the queen.
    let e = analyse_fen("k7/8/8/8/8/8/8/Q5K1 w - - 0 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not to move is in check"), "{e}");
    let e = analyse_fen("8/8/8/8/8/8/8/K6k w - - x 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("halfmove clock"), "{e}");
    let e = analyse_fen("8/8/8/8/8/8/8/K6k w - e4 0 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("en passant"), "{e}");
}

// ---- the command line ----

fn touchmove(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run touchmove");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn cli_json_from_stdin_reports_bad_lines_and_goes_on() {
    let input =
        format!("{LAWS_EXAMPLE}\n\n# a comment\nnot a fen\n{K_VS_K}\n8/8/8/8/8/8/8/K7 w - - 0 1\n");
    let (code, out, err) = touchmove(&["verdict", "--json"], &input);
    assert_ne!(code, 0, "a bad line must fail the run");
    let docs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert_eq!(docs.len(), 2, "{out}");
    assert_eq!(docs[0]["fen"], LAWS_EXAMPLE);
    assert_eq!(docs[0]["line"], 1);
    assert_eq!(docs[0]["white"], "unwinnable");
    assert_eq!(docs[0]["black"], "winnable");
    assert_eq!(docs[0]["dead"], false);
    assert_eq!(docs[0]["black_mate"][0], "Kxa1");
    assert_eq!(docs[1]["fen"], K_VS_K);
    assert_eq!(docs[1]["line"], 5);
    assert_eq!(docs[1]["white"], "unwinnable");
    assert_eq!(docs[1]["black"], "unwinnable");
    assert_eq!(docs[1]["dead"], true);
    let errs: Vec<&str> = err.lines().collect();
    assert_eq!(errs.len(), 2, "{err}");
    assert!(
        errs[0].contains("stdin line 4") && errs[0].contains("not a FEN"),
        "{err}"
    );
    assert!(
        errs[1].contains("stdin line 6") && errs[1].contains("king is missing"),
        "{err}"
    );
}

#[test]
fn cli_json_all_good_exits_zero() {
    let (code, out, err) = touchmove(&["verdict", "--json"], &format!("{K_VS_K}\n"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!(
            "{{\"fen\":\"{K_VS_K}\",\"line\":1,\"white\":\"unwinnable\",\"black\":\"unwinnable\",\"dead\":true}}\n"
        )
    );
}

#[test]
fn cli_takes_fens_as_arguments_quoted_or_not() {
    // The first FEN typed without quotes (six arguments), then a quoted one,
    // then a bad one.
    let mut args = vec!["verdict", "--json"];
    args.extend(LAWS_EXAMPLE.split(' '));
    args.push(K_VS_K);
    args.push("8/8/8/8/8/8/8/K6k w - -   extra");
    let (code, out, err) = touchmove(&args, "");
    assert_ne!(code, 0);
    let docs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(docs.len(), 2, "{out}");
    assert_eq!(docs[0]["fen"], LAWS_EXAMPLE);
    assert_eq!(docs[1]["dead"], true);
    assert!(docs[0].get("line").is_none());
    assert!(
        err.contains("argument 8") && err.contains("not a FEN"),
        "{err}"
    );
}

#[test]
fn cli_human_output_names_both_sides_and_the_flag_rule() {
    let (code, out, err) = touchmove(&["verdict", LAWS_EXAMPLE, K_VS_K], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("White: cannot checkmate"), "{out}");
    assert!(
        out.contains("Black: can checkmate, e.g. 1... Kxa1"),
        "{out}"
    );
    assert!(out.contains("not a dead position"), "{out}");
    assert!(
        out.contains("White's flag: White loses; Black's flag: draw"),
        "{out}"
    );
    assert!(out.contains("dead position (Article 5.2.2)"), "{out}");
}

// ---- the labelled positions of ../shared/data/unwinnability ----

struct Outcome {
    agree: bool,
    unsound: bool,
    took: Duration,
    note: Option<String>,
}

fn check_labelled(line: &str) -> Outcome {
    let (code, fen) = line.split_at(2);
    let want_white = code.starts_with('W');
    let want_black = code.ends_with('B');
    let start = Instant::now();
    let v = analyse_fen(fen);
    let took = start.elapsed();
    let v = match v {
        Ok(v) => v,
        Err(e) => {
            return Outcome {
                agree: false,
                unsound: false,
                took,
                note: Some(format!("{line}: {e}")),
            }
        }
    };
    let matches = |w: &Winnability, want: bool| match w {
        Winnability::Winnable { .. } => want,
        Winnability::Unwinnable => !want,
        Winnability::Unknown => false,
    };
    let agree = matches(&v.white, want_white) && matches(&v.black, want_black);
    let unsound = (want_white && v.white == Winnability::Unwinnable)
        || (want_black && v.black == Winnability::Unwinnable);
    Outcome {
        agree,
        unsound,
        took,
        note: (!agree)
            .then(|| format!("{line}: white {} black {}", v.white.name(), v.black.name())),
    }
}

fn run_file(name: &str) -> (usize, usize, Vec<String>, Vec<String>, Vec<Duration>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/unwinnability")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    // Two workers (the machine's cores) take the next position in turn, so
    // the slow ones do not pile up on one of them.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(2));
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(line) = lines.get(i) else { break };
                        mine.push(check_labelled(line));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    let agree = outcomes.iter().filter(|o| o.agree).count();
    let unsound: Vec<String> = outcomes
        .iter()
        .filter(|o| o.unsound)
        .filter_map(|o| o.note.clone())
        .collect();
    let disagreements: Vec<String> = outcomes.iter().filter_map(|o| o.note.clone()).collect();
    let times = outcomes.iter().map(|o| o.took).collect();
    (outcomes.len(), agree, unsound, disagreements, times)
}

#[test]
#[ignore = "reads ../shared/data/unwinnability"]
fn every_labelled_position_agrees() {
    let mut failures = Vec::new();
    for name in ["positions.txt", "lichess.txt"] {
        let (total, agree, unsound, disagreements, mut times) = run_file(name);
        assert!(total > 1000, "{name}: only {total} positions");
        times.sort();
        let rate = agree as f64 / total as f64;
        println!(
            "{name}: {agree}/{total} agree ({:.3}%), {} disagree, {} soundness errors; \
             time per position: median {:?}, worst {:?}",
            rate * 100.0,
            total - agree,
            unsound.len(),
            times[times.len() / 2],
            times[times.len() - 1],
        );
        for d in disagreements.iter().take(20) {
            println!("  disagrees: {d}");
        }
        if rate < 0.999 {
            failures.push(format!("{name}: agreement {:.3}% < 99.9%", rate * 100.0));
        }
        if !unsound.is_empty() {
            failures.push(format!(
                "{name}: {} positions called unwinnable for a side labelled winnable: {:?}",
                unsound.len(),
                &unsound[..unsound.len().min(10)]
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The table's quick Article 5.2.2 test must never end a live game: on
/// every labelled position, `is_dead_fast` may only say dead where the
/// label says neither side can mate. It should also find most of the dead
/// ones, in microseconds.
#[test]
#[ignore = "reads ../shared/data/unwinnability"]
fn the_quick_dead_position_test_never_ends_a_live_game() {
    for name in ["positions.txt", "lichess.txt"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/data/unwinnability")
            .join(name);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (mut dead, mut found, mut wrong) = (0, 0, Vec::new());
        let mut times = Vec::new();
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let (code, fen) = line.split_at(2);
            let Ok(pos) = parse_fen(fen) else { continue };
            let start = Instant::now();
            let said = is_dead_fast(&pos);
            times.push(start.elapsed());
            let labelled_dead = code == "--";
            dead += labelled_dead as usize;
            found += (said && labelled_dead) as usize;
            if said && !labelled_dead {
                wrong.push(line.to_string());
            }
        }
        times.sort();
        println!(
            "{name}: quick test finds {found} of {dead} dead positions; median {:?}, worst {:?}",
            times[times.len() / 2],
            times[times.len() - 1]
        );
        assert!(
            wrong.is_empty(),
            "{name}: live positions called dead: {wrong:?}"
        );
        assert!(
            found > 0,
            "{name}: the quick test found no dead position at all"
        );
    }
}
