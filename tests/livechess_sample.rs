//! Every game of the real LiveChess round folders in
//! `../shared/data/livechess-sample/` (read there, never copied), played by
//! the project's own simulator of a person at the board, in each style,
//! with and without a clock, must replay to its exact move list; the PGN
//! the table writes must read back to the same moves.

mod common;

use std::path::{Path, PathBuf};

use touchmove::pgn::read_games;
use touchmove::replay::replay;
use touchmove::sim::{recording_of, SimOptions, Style};
use touchmove::table::Config;
use touchmove::wire::Recording;

fn sample_pgns() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/livechess-sample");
    let mut out = Vec::new();
    for t in std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display())) {
        let t = t.unwrap().path();
        if !t.is_dir() {
            continue;
        }
        for r in std::fs::read_dir(&t).unwrap() {
            let p = r.unwrap().path().join("games.pgn");
            if p.exists() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
#[ignore = "reads ../shared/data/livechess-sample"]
fn every_livechess_sample_game_replays_exactly() {
    let files = sample_pgns();
    assert!(files.len() >= 3, "{files:?}");
    let mut games_seen = 0;
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let games = read_games(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for (gi, g) in games.iter().enumerate() {
            games_seen += 1;
            let tags: Vec<(&str, &str)> = g
                .tags
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            for (style, clock) in [
                (Style::Clean, true),
                (Style::Human, true),
                (Style::Human, false),
            ] {
                let opts = SimOptions {
                    style,
                    clock,
                    seed: 7 + gi as u64,
                    ..SimOptions::default()
                };
                let name = format!(
                    "{} game {} {} clock={clock}",
                    f.display(),
                    gi + 1,
                    style.name()
                );
                let text = recording_of(&tags, &g.moves, &opts).expect("simulated");
                let rec = Recording::parse(&text);
                let r = replay(&rec, &name, &Config::default());
                failures.extend(common::move_mismatch(&rec, &r));
                let back = read_games(&r.pgn).expect("our PGN reads back");
                let back_squares: Vec<String> = back[0]
                    .moves
                    .iter()
                    .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
                    .collect();
                let ours: Vec<String> = r.moves.iter().map(|m| m.uci.clone()).collect();
                if back_squares != ours {
                    failures.push(format!("{name}: PGN does not read back to the moves"));
                }
            }
        }
    }
    assert!(games_seen >= 14, "only {games_seen} games in the sample");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
