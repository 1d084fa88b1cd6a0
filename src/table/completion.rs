//! Completing moves: reading the board, judging a press, completing the
//! moves of a reading (with their promotion hypotheses), Article 4 findings
//! raised with their claim windows; what follows from a completed move
//! (game end, penalties, claims) is in `rulings.rs`.

use shakmaty::{Color, Move, Position, Square};

use super::game::{self, same_but_promotion, Line};
use super::ledger::{self, Finding, Judge, Ledger};
use super::phys::{self, Hyps, IdMap, PieceId};
use super::reading::{read_all, Reading};
use super::{
    color_name, Alert, AlertKind, ClaimWindow, Completion, Effect, MoveRecord, PlyInfo, Table,
};

impl Table {
    /// The readings of `hyps`, those of a reply on top of a move the board
    /// has not shown dropped when another reply sits on one it has shown.
    pub(super) fn read(&self, hyps: &Hyps) -> Vec<Reading> {
        let mut readings = read_all(hyps.iter(), &self.lines);
        // A reply is read on top of the move the board showed last.
        let shown = |r: &Reading| {
            (r.len() == 2)
                .then(|| self.seen.iter().position(|m| *m == r.maps[0]))
                .flatten()
        };
        // A reply is made on top of a move the board has shown; once it has
        // shown one, a reading on top of another is no reading.
        let last = readings.iter().filter_map(shown).max();
        if last.is_some() || !self.seen.is_empty() {
            readings.retain(|r| r.len() != 2 || shown(r) == last && last.is_some());
        }
        readings
    }

    /// The mover of the `i`-th move of a reading (0-based).
    pub(super) fn mover(&self, r: &Reading, i: usize) -> Color {
        let turn = self.lines[r.line].pos.turn();
        if i.is_multiple_of(2) {
            turn
        } else {
            !turn
        }
    }

    pub(super) fn judge_press(&self, side: Color, readings: &[Reading]) -> PressVerdict {
        if let Some(r) = readings
            .iter()
            .find(|r| !r.is_empty() && self.mover(r, r.len() - 1) == side)
        {
            return PressVerdict::Complete(r.clone());
        }
        if readings.iter().any(|r| !r.is_empty()) {
            // The board shows a move by the other side: the clock is out of
            // step with the game, nothing to complete.
            return PressVerdict::Nothing;
        }
        if readings.iter().any(Reading::is_empty) {
            if self.lines[0].pos.turn() == side {
                return PressVerdict::NoMove;
            }
            return PressVerdict::Nothing;
        }
        PressVerdict::Unexplained
    }

    /// Looks at the board after an event: completes a move the opponent has
    /// answered, shows the provisional move, arms the game-end timer.
    pub(super) fn evaluate(&mut self, t: u64) {
        let readings = self.read(&self.hyps);
        self.ledger.note_reads(
            readings
                .iter()
                .filter(|r| r.len() == 1)
                .map(|r| r.maps[0])
                .collect(),
        );
        for r in readings.iter().filter(|r| r.len() == 1) {
            self.seen.retain(|m| *m != r.maps[0]);
            self.seen.push(r.maps[0]);
        }
        // Neither the game nor a move in progress (no piece in a hand):
        // displaced pieces, if it lasts.
        let boxed = self.boxed_ids();
        let in_hand = self.hyps.iter().any(|h| h.hand & !boxed != 0);
        if readings.is_empty() && !in_hand {
            self.odd_since.get_or_insert(t);
        } else {
            self.odd_since = None;
        }
        if readings.is_empty() {
            self.show(None);
            return;
        }
        self.guessing = false;
        let all_two = readings.iter().all(|r| r.len() == 2);
        if all_two {
            let first = &readings[0];
            if readings.iter().all(|r| r.maps[0] == first.maps[0]) {
                let mut one = first.clone();
                one.moves.truncate(1);
                one.maps.truncate(1);
                let mover = self.mover(&one, 0);
                let clock = self.clock.time_of(mover);
                self.complete(&one, t, Completion::Reply, clock);
                return;
            }
        }
        let best = readings
            .iter()
            .min_by_key(|r| r.len())
            .expect("not empty")
            .clone();
        if best.len() == 1 {
            let line = &self.lines[best.line];
            let san =
                shakmaty::san::SanPlus::from_move(line.pos.clone(), best.moves[0]).to_string();
            // It ends the game by itself only if it does so whatever the
            // promotion pieces were; otherwise a press or the next move tells.
            let same = best.maps[0];
            let ends = readings
                .iter()
                .filter(|r| r.len() == 1 && r.maps[0] == same)
                .all(|r| {
                    game::end_of(&self.lines[r.line].play(r.moves[0]), self.cfg.laws).is_some()
                })
                && self
                    .lines
                    .iter()
                    .all(|l| l.succ.iter().any(|s| s.ids == same));
            self.show(Some((self.ply(), san)));
            if ends {
                self.end_deadline = Some(t + self.cfg.release_min_ms);
            }
        } else {
            self.show(None);
        }
    }

    pub(super) fn show(&mut self, p: Option<(u32, String)>) {
        if self.shown != p {
            if let Some((ply, san)) = &p {
                self.out.push(Effect::Provisional {
                    ply: *ply,
                    san: san.clone(),
                });
            }
            self.shown = p;
        }
    }

    /// Completes the moves of reading `r` (all of them).
    pub(super) fn complete(
        &mut self,
        r: &Reading,
        t: u64,
        how: Completion,
        last_clock: Option<u64>,
    ) {
        if self.end_tentative {
            // Play went on: the game had not ended after all (the promoted
            // piece was not a queen). Lines where it had ended have no
            // legal move and fall away below.
            self.end = None;
            self.end_tentative = false;
            let ending = |k: AlertKind| {
                matches!(
                    k,
                    AlertKind::Checkmate
                        | AlertKind::Stalemate
                        | AlertKind::DeadPosition
                        | AlertKind::Fivefold
                        | AlertKind::SeventyFive
                )
            };
            if let Some(i) = self.alerts.iter().rposition(|a| ending(a.kind)) {
                self.alerts.remove(i);
            }
        }
        let before = self.sans();
        self.shadow = None;
        for (i, &m) in r.moves.iter().enumerate() {
            let mover = self.mover_now();
            let mut next: Vec<Line> = Vec::new();
            let mut illegal_in: Vec<Line> = Vec::new();
            for line in &self.lines {
                let mut variants: Vec<Move> = line
                    .succ
                    .iter()
                    .map(|s| s.m)
                    .filter(|&s| same_but_promotion(s, m))
                    .filter(|&s| {
                        // A board that senses identity says what the pawn became.
                        s.promotion().is_none()
                            || self.identified[s.to() as usize]
                                .is_none_or(|r| s.promotion() == Some(r))
                    })
                    .collect();
                variants.sort_by_key(|&v| game::promotion_rank(v));
                if variants.is_empty() {
                    illegal_in.push(line.clone());
                }
                for v in variants {
                    next.push(line.play(v));
                }
            }
            if next.is_empty() {
                return;
            }
            // Lines that have come to the same position (the promoted piece
            // was captured) are one from now on: keep the preferred.
            let mut kept: Vec<Line> = Vec::with_capacity(next.len());
            let mut gone: Vec<Line> = Vec::new();
            for l in next {
                if kept.iter().any(|k| k.pos == l.pos) {
                    gone.push(l);
                } else {
                    kept.push(l);
                }
            }
            let mut next = kept;
            if next.len() > MAX_LINES {
                // Several promotions unresolved: keep the readings with the
                // fewest underpromotions.
                next.sort_by_key(|l| {
                    l.moves
                        .iter()
                        .filter(|m| matches!(m.promotion(), Some(r) if r != shakmaty::Role::Queen))
                        .count()
                });
                gone.extend(next.drain(MAX_LINES..));
            }

            let ply = self.ply();
            if !illegal_in.is_empty() && r.moves.len() == 1 {
                // Legal only if the promoted piece is what these lines say
                // it is not: if the board later fits the other lines only
                // with this move taken back, it was an illegal move.
                self.shadow = Some(Shadow {
                    lines: illegal_in.clone(),
                    plies: self.plies.len(),
                    ply,
                    side: mover,
                    t,
                    san: self.sans_after(m),
                });
            }
            let after = r
                .maps
                .get(i)
                .copied()
                .unwrap_or_else(|| game::apply_ids(&self.lines[0].ids, m));
            let turn = self.ledger.take(&after, mover, &self.roles);
            let (findings, per_line) = self.judge_article4(&turn, m, &after, mover, &illegal_in);
            let promoted = m.promotion().is_some();
            let (from, to) = (m.from(), m.to());
            self.lines = next;
            self.ledger.just_moved = Some(to);
            let clock = if i + 1 == r.moves.len() {
                last_clock.or_else(|| self.clock.time_of(mover))
            } else {
                self.clock.time_of(mover)
            };
            self.plies.push(PlyInfo {
                t_ms: t,
                clock_ms: clock,
                completed_by: how,
            });
            // Captured pieces are out of the game: in no hand any more.
            let boxed = self.boxed_ids();
            self.hyps.drop_from_hands(boxed);
            self.ledger.start.drop_from_hands(boxed);
            let seen_piece = self.identified[to as usize].is_some();
            if promoted {
                let id = self.lines[0].ids[to as usize];
                if let Some(info) = self.roles.get_mut(id as usize) {
                    info.2 = true;
                }
            }
            if promoted && !seen_piece {
                self.raise_at(
                    ply,
                    t,
                    AlertKind::PromotionAssumed,
                    Some(mover),
                    from.into_iter().chain([to]).collect(),
                    format!(
                        "pawn promoted on {to}: a presence board cannot see the new piece; a queen is recorded until its moves or the arbiter say otherwise"
                    ),
                );
            }
            let san = self.sans().pop().unwrap_or_default();
            let uci = m.to_uci(shakmaty::CastlingMode::Standard).to_string();
            self.out.push(Effect::Move(MoveRecord {
                ply,
                san,
                uci,
                t_ms: t,
                clock_ms: clock,
                completed_by: how,
            }));
            let raised: Vec<AlertKind> = findings.iter().map(|f| f.kind).collect();
            let made_at = turn.entries.last().map_or(t, |e| e.t);
            for f in findings {
                self.raise_finding(ply, t, made_at, mover, f);
            }
            let open = per_line
                .iter()
                .any(|(_, fs)| fs.iter().any(|f| !raised.contains(&f.kind)));
            if per_line.len() > 1 && open {
                self.pending.push(PendingFinding {
                    ply,
                    t,
                    made_at,
                    side: mover,
                    per_line,
                    raised,
                });
            }
            // Findings waiting on a line that is gone can no longer be
            // settled by the board: they are never raised.
            if !gone.is_empty() {
                self.pending.retain(|p| {
                    !p.per_line
                        .iter()
                        .any(|(pre, _)| gone.iter().any(|g| g.moves.starts_with(pre)))
                });
            }
            self.resolve_pending();
        }
        self.report_corrections(&before);
        self.shown = None;
        self.seen.clear();
        // Keep the hypotheses that still read; those that do not were
        // other placements of the same pieces.
        let readings = self.read(&self.hyps);
        if !readings.is_empty() {
            let keep: Vec<usize> = readings.iter().map(|r| r.hyp).collect();
            let mut i = 0;
            self.hyps.retain(|_| {
                let k = keep.contains(&i);
                i += 1;
                k
            });
        }
        self.check_end(t);
        if self.playing() {
            self.note_claims(t);
            self.evaluate(t);
        }
    }

    pub(super) fn mover_now(&self) -> Color {
        self.lines[0].pos.turn()
    }

    pub(super) fn report_corrections(&mut self, before: &[String]) {
        let after = self.sans();
        for (i, (a, b)) in before.iter().zip(&after).enumerate() {
            if a != b {
                self.out.push(Effect::Corrected {
                    ply: i as u32 + 1,
                    san: b.clone(),
                });
            }
        }
    }

    /// The last completed move was legal only in some promotion lines; if
    /// the board as it stands is `side`'s move in the others, with that
    /// move taken back, it was an illegal move after all: retract it and
    /// complete this one instead.
    pub(super) fn retract_for_shadow(&mut self, side: Color, t: u64, clock: Option<u64>) -> bool {
        let Some(sh) = self.shadow.take() else {
            return false;
        };
        let turn = sh.lines[0].pos.turn();
        let fits = read_all(self.hyps.iter(), &sh.lines)
            .into_iter()
            .find(|r| r.len() == 1 && turn == side);
        let Some(r) = fits else {
            return false;
        };
        self.lines = sh.lines;
        self.plies.truncate(sh.plies);
        self.out.push(Effect::Retracted { ply: sh.ply });
        self.raise_at(
            sh.ply,
            sh.t,
            AlertKind::IllegalMove,
            Some(sh.side),
            vec![],
            format!(
                "{} {} was legal only if the promoted piece were another; the board shows it taken back and the piece moving as it can, so it was an illegal move",
                color_name(sh.side),
                sh.san
            ),
        );
        self.complete(&r, t, Completion::Press, clock);
        true
    }

    /// Article 4 on the completed move `m`: what holds in every promotion
    /// line where `m` is legal (not in `illegal_in`).
    fn judge_article4(
        &self,
        turn: &Ledger,
        m: Move,
        after: &IdMap,
        mover: Color,
        illegal_in: &[Line],
    ) -> (Vec<Finding>, PerLine) {
        let cfg = Judge {
            touch_min_ms: self.cfg.touch_min_ms,
            release_min_ms: self.cfg.release_min_ms,
            laws: self.cfg.laws,
        };
        let mut common: Option<Vec<Finding>> = None;
        let mut per_line = Vec::new();
        for line in &self.lines {
            if illegal_in
                .iter()
                .any(|l| l.moves == line.moves && l.pos == line.pos)
            {
                continue;
            }
            let found = ledger::judge(turn, line, m, after, mover, cfg);
            common = Some(match common {
                None => found.clone(),
                Some(prev) => prev
                    .into_iter()
                    .filter(|f| found.iter().any(|g| g.kind == f.kind))
                    .collect(),
            });
            per_line.push((line.moves.clone(), found));
        }
        (common.unwrap_or_default(), per_line)
    }

    /// Findings that held in some promotion lines only: raised once every
    /// line left agrees (a later move told what the piece was).
    pub(super) fn resolve_pending(&mut self) {
        let lines = &self.lines;
        let mut now = Vec::new();
        self.pending.retain_mut(|p| {
            let surviving: Vec<&Vec<Finding>> = p
                .per_line
                .iter()
                .filter(|(pre, _)| lines.iter().any(|l| l.moves.starts_with(pre)))
                .map(|(_, f)| f)
                .collect();
            let Some(first) = surviving.first() else {
                return false;
            };
            for f in first.iter() {
                let everywhere = surviving
                    .iter()
                    .all(|fs| fs.iter().any(|g| g.kind == f.kind));
                if everywhere && !p.raised.contains(&f.kind) {
                    p.raised.push(f.kind);
                    now.push((p.ply, p.t, p.made_at, p.side, f.clone()));
                }
            }
            surviving.len() > 1
        });
        for (ply, t, made_at, side, f) in now {
            self.raise_finding(ply, t, made_at, side, f);
        }
    }

    /// Raises an Article 4 finding about `side`'s move, which stood on the
    /// board at `made_at`: the opponent's claim window opens there.
    fn raise_finding(&mut self, ply: u32, t: u64, made_at: u64, side: Color, f: Finding) {
        self.push_alert(Alert {
            ply,
            kind: f.kind,
            article: Some(f.article),
            side: Some(side),
            squares: f.squares,
            t_ms: t,
            detail: f.detail,
            claim: Some(ClaimWindow {
                claimant: !side,
                opened_ms: made_at,
                closed_ms: None,
            }),
        });
        // The claimant may have touched a piece already (without a clock
        // the reply completes the move).
        self.close_claims(t);
    }

    /// Closes the claim windows of Article 4 alerts whose claimant has
    /// touched a piece since (2023 4.8 / 2001 4.6).
    pub(super) fn close_claims(&mut self, now: u64) {
        for a in self.alerts.iter_mut() {
            let Some(w) = a.claim.as_mut() else { continue };
            if w.closed_ms.is_some() {
                continue;
            }
            let touch =
                self.touches
                    .first_touch(w.claimant, w.opened_ms, now, self.cfg.touch_min_ms);
            if let Some(at) = touch {
                w.closed_ms = Some(at);
                self.out.push(Effect::ClaimClosed {
                    ply: a.ply,
                    kind: a.kind,
                    closed_ms: at,
                });
            }
        }
    }

    /// A piece of `side` that stands elsewhere than in the game position
    /// (the one moved in an illegal move).
    fn moved_piece(&self, side: Color) -> Option<PieceId> {
        let p = self.hyps.0.first()?;
        let line = &self.lines[0];
        line.ids
            .iter()
            .enumerate()
            .filter(|&(sq, &id)| {
                id != phys::EMPTY
                    && line.pos.board().color_at(Square::new(sq as u32)) == Some(side)
                    && p.at[sq] != id
            })
            .map(|(_, &id)| id)
            .find(|&id| p.at.contains(&id))
    }

    /// SAN of `m` from the preferred line's position.
    pub(super) fn sans_after(&self, m: Move) -> String {
        shakmaty::san::San::from_move(&self.lines[0].pos, m).to_string()
    }

    /// Judges a press that waited for a snapshot, on the board as the press
    /// found it (`self.hyps`).
    pub(super) fn judge_buffered_press(
        &mut self,
        side: Color,
        pt: u64,
        clock: Option<u64>,
        confirmed: bool,
    ) {
        let readings = self.read(&self.hyps);
        match self.judge_press(side, &readings) {
            PressVerdict::Complete(r) => self.complete(&r, pt, Completion::Press, clock),
            PressVerdict::Nothing => {}
            PressVerdict::NoMove => {
                if confirmed {
                    self.raise(
                        pt,
                        AlertKind::ClockWithoutMove,
                        Some(side),
                        vec![],
                        format!("{} pressed the clock with no move made", color_name(side)),
                    );
                    // 2023 7.5.4 makes it an illegal move, penalised as one
                    // (7.5.5); the 2001 Laws do not.
                    if self.cfg.laws == crate::laws::Edition::Fide2023 {
                        self.penalise(side, pt);
                    }
                }
            }
            PressVerdict::Unexplained => {
                if self.retract_for_shadow(side, pt, clock) {
                    return;
                }
                // Only the player to move can have made a move.
                if confirmed && self.lines[0].pos.turn() == side {
                    let squares = self.differing_squares(&self.hyps.clone());
                    // 7.5.1: the piece moved illegally is the one touched
                    // first for the move that replaces it.
                    self.ledger.forced = self.moved_piece(side);
                    self.raise(
                        pt,
                        AlertKind::IllegalMove,
                        Some(side),
                        squares.clone(),
                        format!(
                            "{} pressed the clock with no legal move on the board (squares differing from the game position: {}); the position before it must be restored",
                            color_name(side),
                            squares
                                .iter()
                                .map(|s| s.to_string())
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                    );
                    self.penalise(side, pt);
                }
            }
        }
    }
}

/// The lines in which the last completed move was illegal (see
/// [`Table::retract_for_shadow`]).
#[derive(Debug, Clone)]
pub(super) struct Shadow {
    lines: Vec<Line>,
    /// How many plies were completed before it.
    plies: usize,
    ply: u32,
    side: Color,
    t: u64,
    san: String,
}

/// Promotion hypotheses kept at most (four pieces per unseen promotion
/// multiply quickly).
const MAX_LINES: usize = 16;

/// Article 4 findings per promotion line (the line's moves before the
/// judged move, and what held in it).
pub(super) type PerLine = Vec<(Vec<Move>, Vec<Finding>)>;

/// Article 4 findings about a move that held in some promotion lines only.
#[derive(Debug, Clone)]
pub(super) struct PendingFinding {
    ply: u32,
    t: u64,
    made_at: u64,
    side: Color,
    per_line: PerLine,
    raised: Vec<AlertKind>,
}

/// What a press means for the board as it stands.
pub(super) enum PressVerdict {
    Complete(Reading),
    Nothing,
    NoMove,
    Unexplained,
}
