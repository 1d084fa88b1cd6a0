//! When the board cannot be trusted: buffering what follows a lost line or
//! a press the board does not explain, judging it against the next
//! snapshot, and falling back to the occupancy alone when nothing fits.

use shakmaty::{Bitboard, Color, Move, Position, Role, Square};

use super::buffer::{self, Item, Trace};
use super::game::{self, Line};
use super::ledger::Ledger;
use super::phys::{self, Hyps, IdMap, Phys, PieceId};
use super::reading::{read_map, Reading};
use super::{AlertKind, Completion, Effect, Mode, Table};
use crate::wire::BoardCommand;

impl Table {
    /// Which piece identities may be put down as `piece` (any, for a
    /// presence board).
    pub(super) fn allowed(
        &self,
        sq: Square,
        piece: Option<shakmaty::Piece>,
    ) -> impl Fn(PieceId) -> bool + Copy + '_ {
        let last_rank = matches!(sq.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth);
        move |id| match piece {
            None => true,
            Some(p) => self
                .roles
                .get(id as usize)
                .is_some_and(|&(c, r, promoted)| {
                    let becomes = (promoted || (r == Role::Pawn && last_rank))
                        && p.role != Role::King
                        && p.role != Role::Pawn;
                    c == p.color && (r == p.role || becomes)
                }),
        }
    }

    pub(super) fn apply(&self, hyps: &Hyps, item: &Item) -> Hyps {
        match *item {
            Item::Lift(sq, _) => hyps.lift(sq),
            Item::Place(sq, piece, _) => hyps.place(sq, self.allowed(sq, piece)),
            Item::Unseen | Item::Press { .. } => hyps.clone(),
        }
    }

    pub(super) fn tracked_occupancy(&self) -> Option<Bitboard> {
        match &self.mode {
            Mode::Trusted => self.hyps.occupied(),
            Mode::Buffering { anchor, items, .. } => {
                let mut occ = anchor.occupied()?;
                for it in items {
                    match it {
                        Item::Lift(sq, _) => occ.discard(*sq),
                        Item::Place(sq, _, _) => occ.add(*sq),
                        _ => {}
                    }
                }
                Some(occ)
            }
            Mode::Lost { occ, .. } => *occ,
        }
    }

    pub(super) fn start_buffering(&mut self, anchor: Hyps, items: Vec<Item>) {
        let since = self.now;
        self.mode = Mode::Buffering {
            anchor,
            items,
            since,
        };
        self.show(None);
        self.out.push(Effect::Board(BoardCommand::Snapshot));
    }

    /// Judges what was buffered against a snapshot, or without one
    /// (`None`: the input ended, or the board sends no snapshot). Presses
    /// the board does not explain are raised only if `confirmed`.
    pub(super) fn reconcile(&mut self, snapshot: Option<Bitboard>, t: u64) {
        let confirmed = snapshot.is_some();
        self.reconcile_as(snapshot, t, confirmed)
    }

    pub(super) fn reconcile_as(&mut self, snapshot: Option<Bitboard>, t: u64, confirmed: bool) {
        let Mode::Buffering { anchor, items, .. } =
            std::mem::replace(&mut self.mode, Mode::Trusted)
        else {
            return;
        };
        let unseen = items.iter().filter(|i| matches!(i, Item::Unseen)).count();
        // Around lost lines the board is explained, not seen: nobody is
        // accused on an explanation, until the board makes sense again.
        if unseen > 0 {
            self.guessing = true;
        }
        let confirmed = confirmed && !self.guessing;
        let mut traces = buffer::explain(&anchor, &items, snapshot, |h, it| self.apply(h, it));
        if snapshot.is_none() {
            traces = buffer::most_likely(traces, |h| !self.read(h).is_empty());
        }
        let Some(trace) = Trace::merge(traces) else {
            let presses = items
                .iter()
                .filter_map(|i| match i {
                    Item::Press { side, t, .. } => Some((*side, *t)),
                    _ => None,
                })
                .collect();
            self.raise(
                t,
                AlertKind::BoardGap,
                None,
                vec![],
                format!(
                    "{unseen} board line(s) lost and the board no longer fits the game; waiting for a position it identifies"
                ),
            );
            self.mode = Mode::Lost {
                occ: snapshot.or_else(|| anchor.occupied()),
                presses,
            };
            if let Some(occ) = snapshot {
                self.recover(occ, t);
            }
            return;
        };
        if unseen > 0 {
            self.raise(
                t,
                AlertKind::BoardGap,
                None,
                vec![],
                format!("{unseen} board line(s) lost; reconciled with the board's snapshot"),
            );
        }
        // Go through the buffer again as if live, on the explained board.
        for (item, mut state) in items.iter().zip(trace.states) {
            if !self.playing() {
                return;
            }
            // Pieces captured by moves completed meanwhile are in no hand.
            state.drop_from_hands(self.boxed_ids());
            match *item {
                Item::Press {
                    side,
                    white_ms,
                    black_ms,
                    t: pt,
                } => {
                    self.hyps = state;
                    let clock = Some(match side {
                        Color::White => white_ms,
                        Color::Black => black_ms,
                    });
                    self.judge_buffered_press(side, pt, clock, confirmed);
                }
                Item::Lift(_, it) | Item::Place(_, _, it) => {
                    self.hyps = state;
                    self.note(it, item);
                    self.evaluate(it);
                }
                Item::Unseen => {
                    self.hyps = state;
                    self.note(t, item);
                    self.evaluate(t);
                }
            }
        }
        self.mode = Mode::Trusted;
        self.evaluate(t);
    }

    /// Pieces no longer in the game (captured in completed moves).
    pub(super) fn boxed_ids(&self) -> u32 {
        let on_board: u32 = self.lines[0]
            .ids
            .iter()
            .filter(|&&i| i != phys::EMPTY)
            .fold(0, |acc, &i| acc | 1 << i);
        !on_board
    }

    pub(super) fn differing_squares(&self, hyps: &Hyps) -> Vec<Square> {
        let occ = hyps.occupied().unwrap_or(Bitboard(0));
        (occ ^ self.lines[0].pos.board().occupied())
            .into_iter()
            .collect()
    }

    pub(super) fn go_lost(&mut self, occ: Option<Bitboard>, t: u64) {
        if occ.is_some() {
            self.odd_since.get_or_insert(t);
        }
        let presses = match std::mem::replace(&mut self.mode, Mode::Trusted) {
            Mode::Buffering { items, .. } => items
                .iter()
                .filter_map(|i| match i {
                    Item::Press { side, t, .. } => Some((*side, *t)),
                    _ => None,
                })
                .collect(),
            Mode::Lost { presses, .. } => presses,
            Mode::Trusted => Vec::new(),
        };
        self.hyps = Hyps::default();
        self.show(None);
        self.mode = Mode::Lost { occ, presses };
        self.out.push(Effect::Board(BoardCommand::Snapshot));
    }

    /// Trusted, and the snapshot agrees with the occupancy, yet no
    /// hypothesis reads and no piece is in a hand: the pieces' identities
    /// went wrong somewhere (a lost line explained the wrong way). If the
    /// occupancy alone identifies one reading, take it.
    pub(super) fn unstick(&mut self, occ: Bitboard, t: u64) {
        let boxed = self.boxed_ids();
        if self.hyps.iter().any(|h| h.hand & !boxed != 0) || !self.read(&self.hyps).is_empty() {
            return;
        }
        let mut found: Vec<IdMap> = Vec::new();
        for line in &self.lines {
            for (_, map) in occupancy_readings(line, occ) {
                if !found.contains(&map) {
                    found.push(map);
                }
            }
        }
        if let [map] = found[..] {
            self.hyps = Hyps::one(Phys::settled(map));
            self.evaluate(t);
        }
    }

    /// In lost mode: if the occupancy identifies one reading (the game
    /// position, a move, or a move and its reply), take it and trust again.
    pub(super) fn recover(&mut self, occ: Bitboard, t: u64) {
        let Mode::Lost { presses, .. } = &self.mode else {
            return;
        };
        let presses = presses.clone();
        let mut found: Vec<(usize, Vec<Move>, IdMap)> = Vec::new();
        for (l, line) in self.lines.iter().enumerate() {
            for (moves, map) in occupancy_readings(line, occ) {
                if !found.iter().any(|(_, _, m)| *m == map) {
                    found.push((l, moves, map));
                }
            }
        }
        if found.len() != 1 {
            return;
        }
        let (l, moves, map) = found.remove(0);
        self.mode = Mode::Trusted;
        self.hyps = Hyps::one(Phys::settled(map));
        // What happened while the pieces were not known is nobody's touch.
        self.ledger = Ledger::begin(self.hyps.clone(), None);
        if moves.is_empty() {
            self.evaluate(t);
            return;
        }
        let Some((_, maps)) = read_map(&map, &self.lines[l])
            .into_iter()
            .find(|(ms, _)| ms.len() == moves.len())
        else {
            return;
        };
        let r = Reading {
            hyp: 0,
            line: l,
            moves: moves.clone(),
            maps,
        };
        let last_mover = self.mover(&r, r.len() - 1);
        let pressed = presses.iter().any(|&(s, _)| s == last_mover);
        if pressed || moves.len() == 2 {
            let mut r = r;
            if !pressed {
                r.moves.truncate(1);
                r.maps.truncate(1);
            }
            self.complete(&r, t, Completion::Recovered, None);
        } else {
            self.evaluate(t);
        }
    }
}

/// Readings of an occupancy alone (pieces unknown): the game position, one
/// legal move, or a move and its reply.
fn occupancy_readings(line: &Line, occ: Bitboard) -> Vec<(Vec<Move>, IdMap)> {
    if line.pos.board().occupied() == occ {
        return vec![(Vec::new(), line.ids)];
    }
    let mut out = Vec::new();
    for s in &line.succ {
        if s.pos.board().occupied() == occ {
            out.push((vec![s.m], s.ids));
        }
    }
    if !out.is_empty() {
        return out;
    }
    for s in &line.succ {
        for m2 in s.pos.legal_moves() {
            let mut p = s.pos.clone();
            p.play_unchecked(m2);
            if p.board().occupied() == occ {
                out.push((vec![s.m, m2], game::apply_ids(&s.ids, m2)));
            }
        }
    }
    out
}
