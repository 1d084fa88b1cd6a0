//! The daemon at a table, over real serial I/O: simulated devices on
//! pseudo-terminals (`touchmove::sim::pty`), `touchmove run` as its own
//! process with a config file, a real SQLite database read back.
//!
//! - a whole game goes through serial ports into SQLite;
//! - the board (and the clock) unplugged mid-game and plugged back: the
//!   game goes on and nothing is lost;
//! - the daemon killed with SIGKILL at two dozen points of a game and
//!   restarted each time: the final PGN equals an uninterrupted run's.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use touchmove::sim::pty::PtyTable;
use touchmove::sim::{self, games, SimOptions, Style};
use touchmove::wire::Record;

/// How much faster than the simulated people the devices play.
const SPEED: f64 = 100.0;

fn recording(game: usize, seed: u64) -> (Vec<Record>, Vec<String>) {
    let g = &games::famous_games()[game];
    let moves = g.moves().unwrap();
    let opts = SimOptions {
        style: Style::Human,
        seed,
        ..SimOptions::default()
    };
    let sans = {
        use shakmaty::{san::San, Chess, Position};
        let mut pos = Chess::default();
        moves
            .iter()
            .map(|m| {
                let s = San::from_move(&pos, *m).to_string();
                pos.play_unchecked(*m);
                s
            })
            .collect()
    };
    (sim::play(&moves, &opts).unwrap(), sans)
}

struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Setup {
    fn new(pty: &PtyTable, dir: tempfile::TempDir) -> Setup {
        let config = dir.path().join("touchmove.toml");
        let text = format!(
            "tournament = \"Daemon test\"\nround = 2\ntime_control = \"5400+30\"\nset_clocks = true\nstate_dir = \"{}\"\n\n[[table]]\nboard = 7\ndevice = \"{}\"\nclock = \"{}\"\nwhite = \"Anderssen, Adolf\"\nblack = \"Kieseritzky, Lionel\"\n",
            dir.path().join("state").display(),
            pty.board_path().display(),
            pty.clock_path().display()
        );
        std::fs::write(&config, text).unwrap();
        Setup { dir, config }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("state/touchmove.db")
    }

    fn start(&self) -> Daemon {
        let child = Command::new(env!("CARGO_BIN_EXE_touchmove"))
            .args(["run", "--config"])
            .arg(&self.config)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(if std::env::var_os("TM_DEBUG").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .expect("touchmove run starts");
        Daemon(Some(child))
    }
}

/// A running `touchmove run`; killed if a test fails before stopping it.
struct Daemon(Option<Child>);

impl Daemon {
    fn sigkill(&mut self) {
        let mut c = self.0.take().expect("running");
        c.kill().unwrap();
        c.wait().unwrap();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn links() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let links = dir.path().join("dev");
    std::fs::create_dir_all(&links).unwrap();
    (dir, links)
}

fn wait_for(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The database's count of rows matching `sql` (`?1` = `arg`); 0 while the
/// database is not there yet.
fn count(db: &Path, sql: &str, arg: &str) -> i64 {
    let Ok(c) = Connection::open(db) else {
        return 0;
    };
    c.query_row(sql, [arg], |r| r.get(0)).unwrap_or(0)
}

/// Waits until the device line last written is in the raw log: every line
/// written so far has been accepted.
fn wait_accepted(setup: &Setup, pty: &PtyTable) {
    let db = setup.db();
    wait_for(
        "the last line to be stored",
        Duration::from_secs(30),
        || {
            let Some(line) = pty.last_line() else {
                return true;
            };
            count(
                &db,
                "SELECT count(*) FROM raw_log WHERE dir = '>' AND line = ?1",
                &line,
            ) > 0
        },
    );
}

/// SIGTERM, as systemd stops it: the daemon must exit cleanly, soon.
fn stop(daemon: Daemon) {
    let child = daemon.0.as_ref().expect("running");
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let mut daemon = daemon;
    let start = Instant::now();
    loop {
        let child = daemon.0.as_mut().expect("running");
        if let Some(status) = child.try_wait().unwrap() {
            daemon.0 = None;
            assert!(
                status.success(),
                "the daemon exited with {status} on SIGTERM"
            );
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the daemon did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stored(db: &Path) -> (Vec<String>, String, String) {
    let c = Connection::open(db).unwrap();
    let mut st = c
        .prepare("SELECT san FROM moves WHERE round = 2 AND board = 7 ORDER BY ply")
        .unwrap();
    let moves: Vec<String> = st
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    let (result, pgn) = c
        .query_row(
            "SELECT result, pgn FROM games WHERE round = 2 AND board = 7",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    (moves, result, pgn)
}

fn strip_checks(s: &str) -> String {
    s.trim_end_matches(['+', '#']).to_string()
}

/// The game's moves, check marks aside (the score is compared, not how
/// the check was written).
fn assert_same_moves(got: &[String], sans: &[String]) {
    let want: Vec<String> = sans.iter().map(|s| strip_checks(s)).collect();
    let got: Vec<String> = got.iter().map(|s| strip_checks(s)).collect();
    assert_eq!(got, want);
}

/// Lets the devices play up to line `at`, and waits until the daemon has
/// stored every line written.
fn hold_at(setup: &Setup, pty: &PtyTable, at: usize) {
    pty.set_gate(at);
    wait_for("the gate", Duration::from_secs(60), || pty.written() >= at);
    wait_accepted(setup, pty);
}

/// Plays the rest of the game, lets the daemon store it, stops it.
fn play_out(setup: &Setup, pty: &PtyTable, daemon: Daemon) {
    wait_for("the game to be played", Duration::from_secs(120), || {
        pty.done()
    });
    wait_accepted(setup, pty);
    std::thread::sleep(Duration::from_millis(800));
    stop(daemon);
}

/// Plays the whole recording through a daemon that is never interrupted;
/// returns the stored moves, result and PGN, and the setup (whose folder,
/// the database in it, lives as long as the caller keeps it).
fn uninterrupted(records: Vec<Record>) -> (Vec<String>, String, String, Setup) {
    let (dir, links) = links();
    let pty = PtyTable::start(records, SPEED, &links, "TMB-T1").unwrap();
    let setup = Setup::new(&pty, dir);
    let child = setup.start();
    play_out(&setup, &pty, child);
    let (moves, result, pgn) = stored(&setup.db());
    (moves, result, pgn, setup)
}

#[test]
fn a_whole_game_goes_through_serial_ports_into_sqlite() {
    let (records, sans) = recording(0, 11);
    let device_lines = records.iter().filter(|r| r.line.contains('*')).count();
    let (moves, result, pgn, setup) = uninterrupted(records);
    let db = setup.db();
    assert_same_moves(&moves, &sans);
    assert_eq!(result, games::famous_games()[0].result);
    assert!(pgn.contains("[Round \"2.7\"]"), "{pgn}");
    assert!(pgn.contains("[White \"Anderssen, Adolf\"]"), "{pgn}");
    assert!(pgn.contains("[%clk "), "{pgn}");
    // Every device line is in the raw log, and the commands sent.
    let inbound = count(&db, "SELECT count(*) FROM raw_log WHERE dir = ?1", ">");
    assert!(
        inbound as usize >= device_lines - 2,
        "{inbound} lines stored of {device_lines}"
    );
    assert!(count(&db, "SELECT count(*) FROM raw_log WHERE dir = ?1", "<") >= 4);
    // set_clocks: the round's time control went to the clock before play.
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM raw_log WHERE device = 'clock' AND dir = '<' AND line = ?1",
            &touchmove::wire::frame("N 5400000 5400000 30000 fischer"),
        ),
        1
    );
    let c = Connection::open(&db).unwrap();
    let mode: String = c
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn the_board_and_clock_unplugged_mid_game_lose_nothing() {
    let (records, sans) = recording(1, 12);
    let (dir, links) = links();
    let pty = PtyTable::start(records, SPEED, &links, "TMB-T2").unwrap();
    let setup = Setup::new(&pty, dir);
    let child = setup.start();
    let db = setup.db();
    for (at, board) in [(pty.total / 3, true), (2 * pty.total / 3, false)] {
        hold_at(&setup, &pty, at);
        pty.unplug(board);
        wait_for("device-lost", Duration::from_secs(10), || {
            count(
                &db,
                "SELECT count(*) FROM raw_log WHERE dir = '!' AND line = ?1",
                "lost",
            ) >= if board { 1 } else { 2 }
        });
        std::thread::sleep(Duration::from_millis(300));
        pty.replug(board).unwrap();
        pty.set_gate(usize::MAX);
    }
    play_out(&setup, &pty, child);
    let (moves, _, _) = stored(&db);
    assert_same_moves(&moves, &sans);
    let lost = count(
        &db,
        "SELECT count(*) FROM alerts WHERE kind = ?1",
        "device-lost",
    );
    assert_eq!(lost, 2, "one device-lost alert per unplug");
}

#[test]
fn killed_at_two_dozen_points_the_game_comes_out_the_same() {
    let game = 2;
    let (records, _) = recording(game, 13);
    let (want_moves, want_result, want_pgn, _) = uninterrupted(records.clone());

    let (dir, links) = links();
    let pty = PtyTable::start(records, SPEED, &links, "TMB-T1").unwrap();
    let setup = Setup::new(&pty, dir);
    let kills = 24;
    pty.set_gate(0);
    let mut child = setup.start();
    for k in 1..=kills {
        let at = pty.total * k / (kills + 1);
        hold_at(&setup, &pty, at);
        child.sigkill();
        child = setup.start();
    }
    pty.set_gate(usize::MAX);
    play_out(&setup, &pty, child);
    let (moves, result, pgn) = stored(&setup.db());
    assert_eq!(moves, want_moves);
    assert_eq!(result, want_result);
    assert_eq!(pgn, want_pgn);
    let opened = count(
        &setup.db(),
        "SELECT count(*) FROM raw_log WHERE dir = '!' AND line = ?1",
        "opened",
    );
    assert!(opened >= 2 * (kills as i64 + 1), "{opened} openings");
}

#[test]
fn a_board_silent_for_three_heartbeats_is_treated_as_disconnected() {
    let (records, sans) = recording(3, 14);
    let (dir, links) = links();
    let pty = PtyTable::start(records, SPEED, &links, "TMB-T3").unwrap();
    let setup = Setup::new(&pty, dir);
    let child = setup.start();
    let db = setup.db();
    let at = pty.total / 2;
    hold_at(&setup, &pty, at);
    // The board hangs: no line at all, no heartbeat, yet its port is open.
    pty.set_idle_heartbeat(0);
    wait_for(
        "the silent board to be lost",
        Duration::from_secs(10),
        || {
            count(
                &db,
                "SELECT count(*) FROM alerts WHERE kind = ?1",
                "device-lost",
            ) == 1
        },
    );
    pty.set_idle_heartbeat(1000);
    pty.set_gate(usize::MAX);
    play_out(&setup, &pty, child);
    let (moves, _, _) = stored(&db);
    assert_same_moves(&moves, &sans);
}

#[test]
fn stored_games_export_as_pgn_and_livechess_folders() {
    let (records, sans) = recording(4, 15);
    let (moves, _, pgn, setup) = uninterrupted(records);
    let db = setup.db();
    assert_eq!(moves.len(), sans.len());
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["export", "--db"])
        .arg(&db)
        .args(["--pgn", "--round", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), pgn);
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["export", "--db"])
        .arg(&db)
        .arg("--livechess")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game = std::fs::read_to_string(dir.path().join("round-2/game-7.pgn")).unwrap();
    assert_eq!(game, pgn);
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("round-2/index.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index["pairings"][0]["white"]["lname"], "Anderssen");
    assert_eq!(index["pairings"][0]["white"]["fname"], "Adolf");
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(t["rounds"][1]["count"], 1);
    assert_eq!(t["rounds"][0]["count"], 0);
    // A missing database is named.
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["export", "--db", "/nonexistent/x.db", "--pgn"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.db"));
}

#[test]
fn a_recorded_table_replays_to_the_same_game() {
    let (records, sans) = recording(5, 16);
    let (dir, links) = links();
    let pty = PtyTable::start(records, SPEED, &links, "TMB-T4").unwrap();
    let file = dir.path().join("table.tmrec");
    let mut rec = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["record", "--board"])
        .arg(pty.board_path())
        .arg("--clock")
        .arg(pty.clock_path())
        .arg("-o")
        .arg(&file)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the game to be played", Duration::from_secs(120), || {
        pty.done()
    });
    let last = pty.last_line().unwrap();
    wait_for("the last line recorded", Duration::from_secs(10), || {
        std::fs::read_to_string(&file).is_ok_and(|t| t.contains(&last))
    });
    Command::new("kill")
        .args(["-INT", &rec.id().to_string()])
        .status()
        .unwrap();
    assert!(rec.wait().unwrap().success());
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .args(["replay", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<String> = doc["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert_same_moves(&got, &sans);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# tmrec 1\n"));
    assert!(
        text.contains(" board< I*"),
        "the host's commands are recorded"
    );
}
