//! `touchmove demo`: the daemon at work with no hardware. Each built-in
//! famous game is played by the simulator (a person moving pieces on a TMB1
//! board and pressing a TMC1 clock) on pseudo-terminals, one table per
//! game, all at once, and the very daemon code that `touchmove run` runs
//! reads them: devices opened by path, every line stored in SQLite (in a
//! temporary state directory) before the tables act. When the games are
//! over, each PGN is printed, as the store holds it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc::Sender;
use std::time::Duration;

use crate::config::{Config, Http, TableConfig};
use crate::daemon::{self, Hooks, Msg};
use crate::sim::pty::PtyTable;
use crate::sim::{self, games, SimOptions, Style};
use crate::table;

/// Plays every built-in game; `speed` scales the simulated players' time.
pub fn run(speed: f64) -> ExitCode {
    if !(speed.is_finite() && speed > 0.0) {
        eprintln!("error: --speed must be a positive number, not {speed}");
        return ExitCode::from(2);
    }
    match demo(speed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn demo(speed: f64) -> Result<(), String> {
    let games = games::famous_games();
    let state = tempfile::Builder::new()
        .prefix("touchmove-demo.")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary state directory: {e}"))?;
    let mut sims = Vec::new();
    let mut tables = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let opts = SimOptions {
            style: Style::Human,
            seed: 1000 + i as u64,
            board_serial: format!("TMB-DEMO-{}", i + 1),
            clock_serial: format!("CLK-DEMO-{}", i + 1),
            ..SimOptions::default()
        };
        let moves = game
            .moves()
            .map_err(|e| format!("built-in game {}: {e}", game.title()))?;
        let records =
            sim::play(&moves, &opts).map_err(|e| format!("built-in game {}: {e}", game.title()))?;
        let links = state.path().join(format!("table-{}", i + 1));
        std::fs::create_dir_all(&links).map_err(|e| format!("{}: {e}", links.display()))?;
        let pty = PtyTable::start(records, speed, &links, &opts.board_serial)
            .map_err(|e| format!("cannot start simulated table {}: {e}", i + 1))?;
        tables.push(TableConfig {
            board: i as u32 + 1,
            device: pty.board_path(),
            clock: Some(pty.clock_path()),
            white: game.white.to_string(),
            black: game.black.to_string(),
            white_fide_id: None,
            black_fide_id: None,
        });
        sims.push(pty);
    }
    let config = Config {
        file: PathBuf::from("(demo)"),
        tournament: "touchmove demo: famous games".into(),
        round: 1,
        time_control: "5400+30".into(),
        set_clocks: false,
        state_dir: state.path().join("state"),
        table: table::Config::default(),
        http: Http {
            bind: std::net::SocketAddr::from(([127, 0, 0, 1], 8080)),
            token_file: None,
        },
        mqtt: None,
        lichess: None,
        tables,
    };
    eprintln!(
        "touchmove demo: {} famous games on simulated boards and clocks (pseudo-terminals), {speed}x real time; database {}",
        games.len(),
        config.database().display()
    );
    // Stop once every simulated table has played its last line and the
    // daemon has had a moment to read it.
    let hooks = Hooks {
        shutdown: Some(Box::new(move |tx: Sender<Msg>| {
            std::thread::spawn(move || {
                while !sims.iter().all(PtyTable::done) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                std::thread::sleep(Duration::from_millis(1500));
                let _ = tx.send(Msg::Shutdown);
                drop(sims);
            });
        })),
    };
    let pgns = daemon::run(&config, hooks).map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (_, pgn) in pgns {
        out.write_all(pgn.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .map_err(|e| format!("stdout: {e}"))?;
    }
    Ok(())
}
