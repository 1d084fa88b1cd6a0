//! Simulated tables on pseudo-terminals for measuring the daemon:
//!
//!   cargo run --release --example tables -- N DIR [play|idle] [SPEED]
//!
//! Starts N simulated tables (famous games, board and clock each), writes
//! `DIR/touchmove.toml` naming their ports, prints that path, and keeps the
//! devices alive until stdin closes. `idle`: the devices answer the daemon
//! but nobody moves, the boards sending their 1 s heartbeat (the daemon's
//! idle cost); `play`: the games are played
//! at SPEED (default 10) times real pace. Used by `scripts/measure_daemon.sh`.

use std::io::Read;

use touchmove::sim::pty::PtyTable;
use touchmove::sim::{self, games, SimOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: tables N DIR [play|idle] [SPEED]");
        std::process::exit(2);
    }
    let n: usize = args[1].parse().expect("N");
    let dir = std::path::PathBuf::from(&args[2]);
    let idle = args.get(3).is_some_and(|a| a == "idle");
    let speed: f64 = args.get(4).map_or(10.0, |s| s.parse().expect("SPEED"));
    let famous = games::famous_games();
    let mut tables = Vec::new();
    let mut config = format!(
        "tournament = \"measure\"\nround = 1\nstate_dir = \"{}\"\n",
        dir.join("state").display()
    );
    for i in 0..n {
        let game = &famous[i % famous.len()];
        let opts = SimOptions {
            seed: i as u64,
            ..SimOptions::default()
        };
        let records = sim::play(&game.moves().unwrap(), &opts).unwrap();
        let links = dir.join(format!("t{}", i + 1));
        std::fs::create_dir_all(&links).unwrap();
        let t = PtyTable::start(records, speed, &links, &format!("TMB-M{}", i + 1)).unwrap();
        if idle {
            t.set_gate(0);
            t.set_idle_heartbeat(1000);
        }
        config.push_str(&format!(
            "\n[[table]]\nboard = {}\ndevice = \"{}\"\nclock = \"{}\"\n",
            i + 1,
            t.board_path().display(),
            t.clock_path().display()
        ));
        tables.push(t);
    }
    let path = dir.join("touchmove.toml");
    std::fs::write(&path, config).unwrap();
    println!("{}", path.display());
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
}
