//! Readings: which legal moves turn the game position into the pieces the
//! board shows. A hypothesis of the physical board ([`Phys`]) is *read* as
//! the game position itself (no move yet), one legal move (a provisional
//! move), or two (a move and the opponent's reply, made without a press).
//! A board in the middle of a move (a piece in hand, a piece on a square
//! between) has no reading.

use shakmaty::{Move, Position};

use super::game::{apply_ids, Line};
use super::phys::{diff, IdMap, Phys};

/// One way to read one hypothesis in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// Index of the hypothesis.
    pub hyp: usize,
    /// Index of the line (promotion hypothesis).
    pub line: usize,
    /// The moves, 0 to 2.
    pub moves: Vec<Move>,
    /// Where the pieces stand after each move.
    pub maps: Vec<IdMap>,
}

impl Reading {
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// All readings of `at` in `line`, as move sequences of equal length.
pub fn read_map(at: &IdMap, line: &Line) -> Vec<(Vec<Move>, Vec<IdMap>)> {
    if *at == line.ids {
        return vec![(Vec::new(), Vec::new())];
    }
    let changed = diff(at, &line.ids);
    let mut out = Vec::new();
    for s in &line.succ {
        if s.m.from().is_some_and(|f| changed.contains(f)) && s.ids == *at {
            out.push((vec![s.m], vec![s.ids]));
        }
    }
    if !out.is_empty() {
        return out;
    }
    for s in &line.succ {
        let rest = diff(at, &s.ids);
        if !(2..=4).contains(&rest.count()) {
            continue;
        }
        for m2 in s.pos.legal_moves() {
            if m2.from().is_some_and(|f| rest.contains(f)) {
                let ids2 = apply_ids(&s.ids, m2);
                if ids2 == *at {
                    out.push((vec![s.m, m2], vec![s.ids, ids2]));
                }
            }
        }
    }
    out
}

/// All readings of all hypotheses in all lines.
pub fn read_all<'a>(hyps: impl Iterator<Item = &'a Phys>, lines: &[Line]) -> Vec<Reading> {
    let mut out = Vec::new();
    for (h, p) in hyps.enumerate() {
        for (l, line) in lines.iter().enumerate() {
            for (moves, maps) in read_map(&p.at, line) {
                out.push(Reading {
                    hyp: h,
                    line: l,
                    moves,
                    maps,
                });
            }
        }
    }
    out
}
