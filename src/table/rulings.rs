//! What the table rules on, once the moves are read: alerts and their
//! articles, the end of the game on the board (Articles 5 and 9.6), the
//! penalties for completed illegal moves (7.5.5 / 7.4(b)), flag falls
//! (6.9 / 6.10), draw claims (9.2, 9.3) and displaced pieces (7.4).
//! Reading the moves is in `completion.rs`; Article 4 in `ledger.rs`.

use shakmaty::{Color, Move, Position, Square};

use super::game::{self, End};
use super::{color_name, Alert, AlertKind, Effect, Table};
use crate::laws::Penalty;
use crate::wire::ClockCommand;

impl Table {
    /// Ends the game if the position the preferred line reached does so by
    /// itself (mate, stalemate, dead position, and under 2023 fivefold and
    /// seventy-five).
    pub(super) fn check_end(&mut self, t: u64) {
        let laws = self.cfg.laws;
        let ends: Vec<Option<End>> = self.lines.iter().map(|l| game::end_of(l, laws)).collect();
        let Some(end) = ends[0] else { return };
        // A promotion hypothesis may still play on: the game ends as the
        // preferred one says, until a further move shows otherwise.
        self.end_tentative = ends.iter().any(|e| *e != Some(end));
        let ply = self.ply() - 1;
        let (kind, detail) = match end {
            End::Checkmate { winner } => (
                AlertKind::Checkmate,
                format!("{} is checkmated", color_name(!winner)),
            ),
            End::Stalemate => (AlertKind::Stalemate, "stalemate".to_string()),
            End::Dead => (
                AlertKind::DeadPosition,
                "dead position: neither side can checkmate by any series of legal moves"
                    .to_string(),
            ),
            End::Fivefold => (
                AlertKind::Fivefold,
                "the same position has stood five times".to_string(),
            ),
            End::SeventyFive => (
                AlertKind::SeventyFive,
                "75 moves by each player without a capture or pawn move".to_string(),
            ),
            End::IllegalMoves { .. } | End::Flag { .. } => return,
        };
        self.end = Some(end);
        self.push_alert(Alert {
            ply,
            kind,
            article: self.cfg.laws.article(kind),
            side: None,
            squares: vec![],
            t_ms: t,
            detail,
            claim: None,
        });
        self.out.push(Effect::GameOver {
            result: end.result(),
            end,
        });
    }

    pub(super) fn raise(
        &mut self,
        t: u64,
        kind: AlertKind,
        side: Option<Color>,
        squares: Vec<Square>,
        detail: String,
    ) {
        self.raise_at(self.ply(), t, kind, side, squares, detail)
    }

    pub(super) fn raise_at(
        &mut self,
        ply: u32,
        t: u64,
        kind: AlertKind,
        side: Option<Color>,
        squares: Vec<Square>,
        detail: String,
    ) {
        self.push_alert(Alert {
            ply,
            kind,
            article: self.cfg.laws.article(kind),
            side,
            squares,
            t_ms: t,
            detail,
            claim: None,
        });
    }

    pub(super) fn push_alert(&mut self, a: Alert) {
        self.alerts.push(a.clone());
        self.out.push(Effect::Alert(a));
    }

    /// Article 7.5.5 (2023) / 7.4(b) (2001): the penalty for `side`'s
    /// completed illegal move.
    pub(super) fn penalise(&mut self, side: Color, t: u64) {
        let i = usize::from(side == Color::Black);
        self.illegal_moves[i] += 1;
        let nth = self.illegal_moves[i];
        let laws = self.cfg.laws;
        let article = laws.penalty_article(self.cfg.category);
        let ordinal = match nth {
            1 => "first".to_string(),
            2 => "second".to_string(),
            3 => "third".to_string(),
            n => format!("{n}th"),
        };
        match laws.illegal_move_penalty(self.cfg.category, nth) {
            Penalty::Time { opponent_ms } => {
                let (mut w, mut b) = (self.clock.white_ms, self.clock.black_ms);
                match side {
                    Color::White => b += opponent_ms,
                    Color::Black => w += opponent_ms,
                }
                let sent = self.cfg.apply_penalties && self.clock.present;
                self.raise(
                    t,
                    AlertKind::IllegalMovePenalty,
                    Some(side),
                    vec![],
                    format!(
                        "{}'s {ordinal} completed illegal move: {} min to {}; clock to White {} Black {}{}",
                        color_name(side),
                        opponent_ms / 60_000,
                        color_name(!side),
                        crate::pgn::clk(w),
                        crate::pgn::clk(b),
                        if sent { " (sent to the clock)" } else { " (for the arbiter to set)" }
                    ),
                );
                self.set_article(article);
                if sent {
                    self.out.push(Effect::Clock(ClockCommand::Adjust {
                        white_ms: w,
                        black_ms: b,
                    }));
                }
            }
            Penalty::Loss => {
                let opponent = !side;
                // Drawn if the opponent cannot mate by any series of legal
                // moves (a helpmate question, not a material count).
                let can_mate = crate::verdict::flag_verdict(&self.lines[0].pos, side)
                    != crate::verdict::FlagVerdict::Draw;
                let winner = can_mate.then_some(opponent);
                self.raise(
                    t,
                    AlertKind::IllegalMovePenalty,
                    Some(side),
                    vec![],
                    format!(
                        "{}'s {ordinal} completed illegal move: the game is {}",
                        color_name(side),
                        if can_mate {
                            format!("lost ({} wins)", color_name(opponent))
                        } else {
                            format!("drawn ({} cannot mate)", color_name(opponent))
                        }
                    ),
                );
                self.set_article(article);
                self.end_game(End::IllegalMoves { winner });
            }
        }
    }

    /// Article 7.4 (2023) / 7.3 (2001): the board has shown neither the
    /// game nor a move in progress for `displaced_ms`: the squares to put
    /// right, lit on the board.
    pub(super) fn check_displaced(&mut self, t: u64) {
        let Some(since) = self.odd_since else {
            return;
        };
        if t < since + self.cfg.displaced_ms {
            return;
        }
        self.odd_since = None;
        let occ = self.tracked_occupancy().unwrap_or(shakmaty::Bitboard(0));
        // Squares to restore: against the game position, or against a legal
        // move that still stands on the board if that leaves fewer (without
        // a clock the last move is only provisional: a reply knocked astray
        // must not make the arbiter undo it).
        let line = &self.lines[0];
        let mut mask = occ ^ line.pos.board().occupied();
        for s in &line.succ {
            let after = occ ^ s.pos.board().occupied();
            if after.count() < mask.count() {
                mask = after;
            }
        }
        let squares: Vec<Square> = mask.into_iter().collect();
        let names: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
        self.raise(
            t,
            AlertKind::Displaced,
            None,
            squares,
            format!(
                "for {:.1} s the board has shown neither the game position nor a move in progress; squares to restore: {}",
                (t - since) as f64 / 1000.0,
                if names.is_empty() {
                    "none by occupancy (pieces swapped?)".to_string()
                } else {
                    names.join(" ")
                }
            ),
        );
        self.out
            .push(Effect::Board(crate::wire::BoardCommand::Leds(mask)));
    }

    /// Article 6.9 (2023) / 6.10 (2001): `side`'s flag fell. A loss, or a
    /// draw when the opponent cannot checkmate by any series of legal moves.
    pub(super) fn flag(&mut self, side: Color, t: u64) {
        use crate::verdict::FlagVerdict;
        let pos = self.lines[0].pos.clone();
        let verdict = crate::verdict::flag_verdict(&pos, side);
        let (winner, detail) = match verdict {
            FlagVerdict::Draw => (
                None,
                format!(
                    "{}'s flag fell; {} cannot checkmate by any series of legal moves: draw",
                    color_name(side),
                    color_name(!side)
                ),
            ),
            FlagVerdict::Loss => (
                Some(!side),
                format!(
                    "{}'s flag fell; {} can still checkmate: {} loses",
                    color_name(side),
                    color_name(!side),
                    color_name(side)
                ),
            ),
            FlagVerdict::Unknown => (
                Some(!side),
                format!(
                    "{}'s flag fell; whether {} could still mate was not decided: recorded as a loss, for the arbiter to confirm",
                    color_name(side),
                    color_name(!side)
                ),
            ),
        };
        self.raise(t, AlertKind::Flag, Some(side), vec![], detail);
        self.end_game(End::Flag { winner });
    }

    /// The game is over, whatever the promotion pieces were.
    pub(super) fn end_game(&mut self, end: End) {
        self.end = Some(end);
        self.end_tentative = false;
        self.out.push(Effect::GameOver {
            result: end.result(),
            end,
        });
    }

    /// Sets the article of the alert just raised.
    pub(super) fn set_article(&mut self, article: &'static str) {
        if let Some(a) = self.alerts.last_mut() {
            a.article = Some(article);
        }
        if let Some(Effect::Alert(a)) = self.out.last_mut() {
            a.article = Some(article);
        }
    }

    /// Articles 9.2 and 9.3: after a completed move, whether the player to
    /// move could now claim a draw.
    pub(super) fn note_claims(&mut self, t: u64) {
        let line = &self.lines[0];
        let side = line.pos.turn();
        let reps = line.repetitions();
        let halfmoves = line.pos.halfmoves();
        // Under the 2023 Laws the fifth time ends the game before this; under
        // 2001 every further repetition is a new chance to claim.
        if reps >= 3 {
            self.raise(
                t,
                AlertKind::RepetitionClaimable,
                Some(side),
                vec![],
                format!(
                    "the same position has stood {reps} times: {} may claim a draw",
                    color_name(side)
                ),
            );
        }
        // Once per side and per run of moves without a capture or a pawn
        // move: the claim stays open until such a move (and, under 2001, with
        // no 75-move end, for as long as the run lasts).
        let run_start = self.ply().saturating_sub(halfmoves);
        let told = self.alerts.iter().any(|a| {
            a.kind == AlertKind::FiftyClaimable && a.side == Some(side) && a.ply > run_start
        });
        if halfmoves >= 100 && !told {
            self.raise(
                t,
                AlertKind::FiftyClaimable,
                Some(side),
                vec![],
                format!(
                    "50 moves by each player without a capture or a pawn move: {} may claim a draw",
                    color_name(side)
                ),
            );
        }
    }

    /// Whether the player to move could claim a draw now or by announcing
    /// the move `intended` (Articles 9.2, 9.3); `None` if `intended` is not
    /// legal.
    pub fn check_claim(&self, intended: Option<Move>) -> Option<ClaimCheck> {
        let line = &self.lines[0];
        let now = ClaimCheck {
            repetition: line.repetitions() >= 3,
            fifty: line.pos.halfmoves() >= 100,
        };
        let Some(m) = intended else {
            return Some(now);
        };
        let next = line.succ.iter().find(|s| s.m == m)?;
        let after = line.play(next.m);
        Some(ClaimCheck {
            repetition: now.repetition || after.repetitions() >= 3,
            fifty: now.fifty || after.pos.halfmoves() >= 100,
        })
    }
}

/// What a draw claim would find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimCheck {
    /// Threefold repetition (9.2).
    pub repetition: bool,
    /// Fifty moves (9.3).
    pub fifty: bool,
}
