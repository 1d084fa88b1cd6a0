//! What the integration tests share: comparing a replay with the intent a
//! generator wrote into a recording (`# expect-…` comments).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use shakmaty::{san::SanPlus, CastlingMode, Chess, Position};
use touchmove::replay::Replay;
use touchmove::wire::Recording;

/// The alert kinds a generator intends and that must match exactly.
pub const INTENDED: [&str; 4] = [
    "touch-move",
    "release",
    "castling-rook-first",
    "illegal-move",
];

/// The moves of the real game as UCI without the promotion letter: a
/// presence board cannot see the promotion piece, so a move by a promoted
/// piece is compared by its squares.
pub fn expected_squares(sans: &[(u32, String)]) -> Vec<String> {
    let mut pos = Chess::default();
    sans.iter()
        .map(|(ply, san)| {
            let m = san
                .parse::<SanPlus>()
                .unwrap_or_else(|e| panic!("expect-move {ply} {san}: {e}"))
                .san
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("expect-move {ply} {san}: {e}"));
            pos.play_unchecked(m);
            m.to_uci(CastlingMode::Standard).to_string()[..4].to_string()
        })
        .collect()
}

/// Differences between a replay's moves and the recording's intent, or
/// `None` if they agree (promotion piece aside).
pub fn move_mismatch(rec: &Recording, r: &Replay) -> Option<String> {
    let exp = rec.expectations();
    let want = expected_squares(&exp.moves);
    let got: Vec<String> = r.moves.iter().map(|m| m.uci[..4].to_string()).collect();
    if want == got {
        return None;
    }
    let i = want.iter().zip(&got).take_while(|(a, b)| a == b).count();
    Some(format!(
        "{}: moves differ at ply {}: expected {:?}, got {:?} ({} expected, {} recorded)",
        r.file,
        i + 1,
        exp.moves.get(i).map(|m| &m.1),
        r.moves.get(i).map(|m| &m.san),
        want.len(),
        got.len()
    ))
}

/// Missing and extra intended alerts, or `None`.
pub fn alert_mismatch(rec: &Recording, r: &Replay, kinds: &[&str]) -> Option<String> {
    let mut want: Vec<(u32, String)> = rec
        .expectations()
        .alerts
        .into_iter()
        .filter(|(_, k)| kinds.contains(&k.as_str()))
        .collect();
    let mut got: Vec<(u32, String)> = r
        .alerts
        .iter()
        .filter(|a| kinds.contains(&a.kind.name()))
        .map(|a| (a.ply, a.kind.name().to_string()))
        .collect();
    want.sort();
    got.sort();
    want.dedup();
    got.dedup();
    (want != got).then(|| format!("{}: alerts differ: expected {want:?}, got {got:?}", r.file))
}

/// The result the board can show: a mate, a stalemate, or bare material
/// that cannot mate (the simple dead positions, judged here by shakmaty's
/// material count, independent of the table's solver) at the end of the
/// expected moves, else `*`.
pub fn board_result(rec: &Recording) -> &'static str {
    let mut pos = Chess::default();
    for (_, san) in rec.expectations().moves {
        let m = san.parse::<SanPlus>().unwrap().san.to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    if pos.is_checkmate() {
        if pos.turn() == shakmaty::Color::White {
            "0-1"
        } else {
            "1-0"
        }
    } else if pos.is_stalemate() || pos.is_insufficient_material() {
        "1/2-1/2"
    } else {
        "*"
    }
}

/// The recordings in a fixture folder, sorted.
pub fn fixtures(dir: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmrec"))
        .collect();
    v.sort();
    v
}
