//! `touchmove export`: the stored games as one PGN file, or as round
//! folders in DGT LiveChess's layout (`tournament.json`, and per round
//! `games.pgn`, `game-B.pgn`, `index.json`), the format lichess relays and
//! organisers' tools already read (`../shared/data/livechess-sample/`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::store::{Store, StoreError, StoredGame};

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Every stored game (of `round`, if given) as one PGN text.
pub fn pgn(store: &Store, round: Option<u32>) -> Result<String, ExportError> {
    let games = store.games(round)?;
    Ok(games
        .iter()
        .map(|g| g.pgn.as_str())
        .collect::<Vec<_>>()
        .join("\n"))
}

#[derive(Serialize)]
struct Tournament<'a> {
    id: &'a str,
    name: &'a str,
    rounds: Vec<RoundCount>,
}

#[derive(Serialize)]
struct RoundCount {
    count: usize,
    live: usize,
}

#[derive(Serialize)]
struct Index {
    pairings: Vec<Pairing>,
}

#[derive(Serialize)]
struct Pairing {
    white: Player,
    black: Player,
    result: String,
    live: bool,
}

#[derive(Serialize)]
struct Player {
    fname: Option<String>,
    mname: Option<String>,
    lname: String,
    title: Option<String>,
    federation: Option<String>,
}

impl Player {
    /// "Doe, Jane" → last name "Doe", first name "Jane".
    fn from_name(name: &str) -> Player {
        let (lname, fname) = match name.split_once(',') {
            Some((l, f)) => (l.trim().to_string(), Some(f.trim().to_string())),
            None => (name.trim().to_string(), None),
        };
        Player {
            fname: fname.filter(|f| !f.is_empty()),
            mname: None,
            lname,
            title: None,
            federation: None,
        }
    }
}

/// Writes LiveChess round folders under `dir`; returns the files written.
pub fn livechess(
    store: &Store,
    dir: &Path,
    tournament: &str,
    round: Option<u32>,
) -> Result<Vec<PathBuf>, ExportError> {
    let games = store.games(round)?;
    let mut written = Vec::new();
    let write = |path: PathBuf, text: &str, written: &mut Vec<PathBuf>| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| ExportError::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| ExportError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
        Ok::<(), ExportError>(())
    };
    let last_round = games.iter().map(|g| g.round).max().unwrap_or(0);
    let mut rounds = Vec::new();
    for r in 1..=last_round {
        let these: Vec<&StoredGame> = games.iter().filter(|g| g.round == r).collect();
        rounds.push(RoundCount {
            count: these.len(),
            live: these.iter().filter(|g| g.result == "*").count(),
        });
        if these.is_empty() {
            continue;
        }
        let folder = dir.join(format!("round-{r}"));
        for g in &these {
            write(
                folder.join(format!("game-{}.pgn", g.board)),
                &g.pgn,
                &mut written,
            )?;
        }
        let all: Vec<&str> = these.iter().map(|g| g.pgn.as_str()).collect();
        write(folder.join("games.pgn"), &all.join("\n"), &mut written)?;
        let index = Index {
            pairings: these
                .iter()
                .map(|g| Pairing {
                    white: Player::from_name(&g.white),
                    black: Player::from_name(&g.black),
                    result: g.result.clone(),
                    live: g.result == "*",
                })
                .collect(),
        };
        let json = serde_json::to_string_pretty(&index).expect("plain data serialises");
        write(folder.join("index.json"), &json, &mut written)?;
    }
    let doc = Tournament {
        id: tournament,
        name: tournament,
        rounds,
    };
    let json = serde_json::to_string_pretty(&doc).expect("plain data serialises");
    write(dir.join("tournament.json"), &json, &mut written)?;
    Ok(written)
}
