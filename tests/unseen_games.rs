//! Games nobody has seen: fresh random legal games (rich in captures,
//! castling, en passant and underpromotions, from `scripts/random_games.py`)
//! recorded by `../shared/tools/tmsim.py` in every style, with and without
//! a clock, must replay to the exact move list, with every Article 4 and 7
//! alert the generator intends raised at its ply and none elsewhere.
//!
//! The seed is fixed so that CI is repeatable; `TOUCHMOVE_SEED=N` tries
//! other games (`scripts/unseen_check.sh` does the same from the shell). A
//! failure names the seed.

mod common;

use std::path::Path;
use std::process::Command;

use touchmove::replay::replay;
use touchmove::table::Config;
use touchmove::wire::Recording;

fn python(args: &[&str]) -> String {
    let out = Command::new("python3")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python3 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
#[ignore = "runs ../shared/tools/tmsim.py (python3 with python-chess)"]
fn fresh_random_games_replay_exactly_in_every_style() {
    let seed: u64 = std::env::var("TOUCHMOVE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_122);
    println!("unseen games seed {seed} (TOUCHMOVE_SEED={seed} repeats this run)");
    let dir = std::env::temp_dir().join(format!("touchmove-unseen-{}-{seed}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("games.pgn");
    let n = 8;
    python(&[
        "scripts/random_games.py",
        "--seed",
        &seed.to_string(),
        "-n",
        &n.to_string(),
        "-o",
        pgn.to_str().unwrap(),
    ]);
    let tmsim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/tmsim.py");
    let mut failures = Vec::new();
    let mut count = 0;
    for index in 0..n {
        for style in ["clean", "human", "messy"] {
            for clock in [true, false] {
                let idx = index.to_string();
                let s = (seed * 100 + index as u64).to_string();
                let mut args = vec![
                    tmsim.to_str().unwrap(),
                    "game",
                    pgn.to_str().unwrap(),
                    "--index",
                    &idx,
                    "--style",
                    style,
                    "--seed",
                    &s,
                ];
                if !clock {
                    args.push("--no-clock");
                }
                let text = python(&args);
                let name = format!("seed {seed} game {index} {style} clock={clock}");
                let rec = Recording::parse(&text);
                let r = replay(&rec, &name, &Config::default());
                failures.extend(common::move_mismatch(&rec, &r));
                failures.extend(common::alert_mismatch(&rec, &r, &common::INTENDED));
                count += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{count} recordings, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
