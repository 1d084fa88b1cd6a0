//! Alerts for the arbiter: what was seen, when, where, and how serious.

use serde::Serialize;
use shakmaty::{Color, Square};

/// The kinds of alert, named as in SPEC.md's alert table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlertKind {
    TouchMove,
    CastlingRookFirst,
    Release,
    IllegalMove,
    ClockWithoutMove,
    IllegalMovePenalty,
    Flag,
    Checkmate,
    Stalemate,
    DeadPosition,
    Fivefold,
    SeventyFive,
    RepetitionClaimable,
    FiftyClaimable,
    PromotionAssumed,
    Displaced,
    BoardGap,
    BoardReset,
    DeviceLost,
}

impl AlertKind {
    /// The kebab-case name used in JSON and in recordings.
    pub fn name(self) -> &'static str {
        match self {
            AlertKind::TouchMove => "touch-move",
            AlertKind::CastlingRookFirst => "castling-rook-first",
            AlertKind::Release => "release",
            AlertKind::IllegalMove => "illegal-move",
            AlertKind::ClockWithoutMove => "clock-without-move",
            AlertKind::IllegalMovePenalty => "illegal-move-penalty",
            AlertKind::Flag => "flag",
            AlertKind::Checkmate => "checkmate",
            AlertKind::Stalemate => "stalemate",
            AlertKind::DeadPosition => "dead-position",
            AlertKind::Fivefold => "fivefold",
            AlertKind::SeventyFive => "seventy-five",
            AlertKind::RepetitionClaimable => "repetition-claimable",
            AlertKind::FiftyClaimable => "fifty-claimable",
            AlertKind::PromotionAssumed => "promotion-assumed",
            AlertKind::Displaced => "displaced",
            AlertKind::BoardGap => "board-gap",
            AlertKind::BoardReset => "board-reset",
            AlertKind::DeviceLost => "device-lost",
        }
    }

    /// How serious it is (SPEC.md, "Severity").
    pub fn severity(self) -> Severity {
        use AlertKind::*;
        match self {
            IllegalMove | ClockWithoutMove | IllegalMovePenalty | Flag => Severity::Violation,
            TouchMove | CastlingRookFirst | Release | Displaced => Severity::Warning,
            _ => Severity::Info,
        }
    }

    /// The article of the 2023 Laws this alert rests on, if any.
    pub fn article_2023(self) -> Option<&'static str> {
        use AlertKind::*;
        Some(match self {
            TouchMove => "4.3",
            CastlingRookFirst => "4.4.2",
            Release => "4.6",
            IllegalMove => "7.5.1",
            ClockWithoutMove => "7.5.4",
            IllegalMovePenalty => "7.5.5",
            Flag => "6.9",
            Checkmate => "5.1.1",
            Stalemate => "5.2.1",
            DeadPosition => "5.2.2",
            Fivefold => "9.6.1",
            SeventyFive => "9.6.2",
            RepetitionClaimable => "9.2",
            FiftyClaimable => "9.3",
            PromotionAssumed => "4.4.4",
            Displaced => "7.4",
            BoardGap | BoardReset | DeviceLost => return None,
        })
    }
}

/// Severity of an alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A fact the rules make a violation (clock presses are facts).
    Violation,
    /// Evidence for the arbiter, who decides.
    Warning,
    /// For the record.
    Info,
}

/// One alert raised by the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    /// The move during whose making it arose; 1 = White's first move.
    pub ply: u32,
    pub kind: AlertKind,
    pub article: Option<&'static str>,
    pub side: Option<Color>,
    pub squares: Vec<Square>,
    /// Host time (ms) at which it was raised.
    pub t_ms: u64,
    /// The evidence in words.
    pub detail: String,
    /// For Article 4 findings: the opponent's right to claim, which lapses
    /// when the opponent touches a piece (2023 4.8 / 2001 4.6).
    pub claim: Option<ClaimWindow>,
}

/// The opponent's window to claim an Article 4 violation (2023 4.8, 2001
/// 4.6): open from the offending move until the claimant first deliberately
/// touches a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimWindow {
    /// Who may claim: the offender's opponent.
    pub claimant: Color,
    /// Host time at which the offending move stood on the board.
    pub opened_ms: u64,
    /// Host time of the claimant's first touch after it; `None` while the
    /// window is still open.
    pub closed_ms: Option<u64>,
}

impl Alert {
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}
