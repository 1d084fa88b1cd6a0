//! Editions of the Laws and categories of play: what the configuration
//! picks, and the article each alert rests on in each edition.

use crate::table::AlertKind;

/// Which edition of the FIDE Laws the arbiter applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Edition {
    /// The Laws in force since 1 January 2023 (the default).
    #[default]
    Fide2023,
    /// The 2001 Laws (the project's source documents).
    Fide2001,
}

impl Edition {
    pub fn parse(s: &str) -> Option<Edition> {
        match s {
            "fide-2023" => Some(Edition::Fide2023),
            "fide-2001" => Some(Edition::Fide2001),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Edition::Fide2023 => "fide-2023",
            Edition::Fide2001 => "fide-2001",
        }
    }

    /// The article an alert of `kind` rests on in this edition, if any.
    pub fn article(self, kind: AlertKind) -> Option<&'static str> {
        match self {
            Edition::Fide2023 => kind.article_2023(),
            Edition::Fide2001 => {
                use AlertKind::*;
                Some(match kind {
                    TouchMove => "4.3",
                    CastlingRookFirst => "4.4(b)",
                    Release => "4.7",
                    IllegalMove => "7.4(a)",
                    IllegalMovePenalty => "7.4(b)",
                    Flag => "6.10",
                    Checkmate => "5.1(a)",
                    Stalemate => "5.2(a)",
                    DeadPosition => "5.2(b)",
                    RepetitionClaimable => "9.2",
                    FiftyClaimable => "9.3",
                    PromotionAssumed => "3.7(e)",
                    Displaced => "7.3",
                    ClockWithoutMove | Fivefold | SeventyFive | BoardGap | BoardReset
                    | DeviceLost => return None,
                })
            }
        }
    }
}

/// What the N-th completed illegal move of a player costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Penalty {
    /// The opponent gets this much time.
    Time { opponent_ms: u64 },
    /// The game is lost (drawn if the opponent cannot mate).
    Loss,
}

impl Edition {
    /// The penalty for a player's `nth` completed illegal move (1-based):
    /// 2001 7.4(b): two minutes for the first and second, loss at the
    /// third; 2023 7.5.5: two minutes, then loss; rapid and blitz
    /// (Appendix A): one minute, then loss.
    pub fn illegal_move_penalty(self, category: Category, nth: u32) -> Penalty {
        let (minutes, losing) = match (self, category) {
            (Edition::Fide2001, _) => (2, 3),
            (Edition::Fide2023, Category::Standard) => (2, 2),
            (Edition::Fide2023, _) => (1, 2),
        };
        if nth >= losing {
            Penalty::Loss
        } else {
            Penalty::Time {
                opponent_ms: minutes * 60_000,
            }
        }
    }

    /// The article of the penalty in this edition and category.
    pub fn penalty_article(self, category: Category) -> &'static str {
        match (self, category) {
            (Edition::Fide2001, _) => "7.4(b)",
            (Edition::Fide2023, Category::Standard) => "7.5.5",
            (Edition::Fide2023, _) => "A.3",
        }
    }
}

/// The category of play (Appendix A for rapid and blitz).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Category {
    #[default]
    Standard,
    Rapid,
    Blitz,
}

impl Category {
    pub fn parse(s: &str) -> Option<Category> {
        match s {
            "standard" => Some(Category::Standard),
            "rapid" => Some(Category::Rapid),
            "blitz" => Some(Category::Blitz),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Category::Standard => "standard",
            Category::Rapid => "rapid",
            Category::Blitz => "blitz",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn penalties_follow_the_editions() {
        use Category::*;
        use Edition::*;
        let two = Penalty::Time {
            opponent_ms: 120_000,
        };
        let one = Penalty::Time {
            opponent_ms: 60_000,
        };
        assert_eq!(Fide2001.illegal_move_penalty(Standard, 2), two);
        assert_eq!(Fide2001.illegal_move_penalty(Blitz, 3), Penalty::Loss);
        assert_eq!(Fide2023.illegal_move_penalty(Standard, 1), two);
        assert_eq!(Fide2023.illegal_move_penalty(Standard, 2), Penalty::Loss);
        assert_eq!(Fide2023.illegal_move_penalty(Rapid, 1), one);
        assert_eq!(Fide2023.illegal_move_penalty(Blitz, 2), Penalty::Loss);
    }
}
