//! `touchmove demo`: famous games played by the simulator (a person moving
//! pieces on a TMB1 board and pressing a TMC1 clock), fed line by line to
//! the table at the pace of the recording (`--speed` times faster), each
//! finished game printed as PGN. Needs no hardware.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::pgn::{self, Tags};
use crate::replay::Feeder;
use crate::sim::{self, games, SimOptions, Style};
use crate::table::{self, Effect};
use crate::wire::Recording;

/// Plays every built-in game; `speed` scales the recorded time.
pub fn run(speed: f64) -> ExitCode {
    if !(speed.is_finite() && speed > 0.0) {
        eprintln!("error: --speed must be a positive number, not {speed}");
        return ExitCode::from(2);
    }
    let games = games::famous_games();
    eprintln!(
        "touchmove demo: {} famous games on a simulated board and clock, {speed}x real time",
        games.len()
    );
    let stdout = std::io::stdout();
    for (i, game) in games.iter().enumerate() {
        let opts = SimOptions {
            style: Style::Human,
            seed: 1000 + i as u64,
            ..SimOptions::default()
        };
        let text = match sim::recording_text(game, &opts) {
            Ok(t) => t,
            Err(e) => {
                eprintln!(
                    "error: built-in game {} ({} - {}): {e}",
                    i + 1,
                    game.white,
                    game.black
                );
                return ExitCode::FAILURE;
            }
        };
        let rec = Recording::parse(&text);
        let pgn = play_paced(&rec, speed, i + 1);
        let mut out = stdout.lock();
        if out.write_all(pgn.as_bytes()).is_err() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Feeds the recording at its own pace and returns the PGN.
fn play_paced(rec: &Recording, speed: f64, board: usize) -> String {
    let mut feeder = Feeder::new(&table::Config::default());
    let started = Instant::now();
    for (_, r) in rec.records() {
        let due = Duration::from_secs_f64(r.t_ms as f64 / 1000.0 / speed);
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
        let (effects, err) = feeder.feed(r);
        if let Some(e) = err {
            eprintln!("board {board}: {} line discarded: {e}", r.device.name());
        }
        for e in effects {
            match e {
                Effect::Move(m) => eprintln!("board {board}: {:>3}. {}", m.ply, m.san),
                Effect::Alert(a) => eprintln!(
                    "board {board}: alert {} (ply {}): {}",
                    a.kind.name(),
                    a.ply,
                    a.detail
                ),
                _ => {}
            }
        }
    }
    feeder.finish();
    let mut tags = Tags::from_pairs(&rec.game_tags());
    tags.round = format!("1.{board}");
    pgn::write(&tags, &feeder.table.moves(), feeder.table.result())
}
