//! Famous games, typed from their published scores, for the demo and tests.
//!
//! The demo plays real games rather than random moves so that an organiser
//! watching it sees chess they recognise, and tests get captures, castling
//! on both wings, checks and mates in the orders real games reach them.
//! Game scores are historical facts; every one here is checked move by move
//! for legality by the tests below, and those that ended on the board are
//! checked to end in the mate that their result claims.

use shakmaty::Move;

use super::{parse_movetext, SimError};

/// One historical game: its PGN seven-tag roster (without Round) and its
/// movetext in SAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FamousGame {
    pub event: &'static str,
    pub site: &'static str,
    pub date: &'static str,
    pub white: &'static str,
    pub black: &'static str,
    pub result: &'static str,
    pub movetext: &'static str,
}

impl FamousGame {
    /// The game's moves, resolved from the initial position.
    pub fn moves(&self) -> Result<Vec<Move>, SimError> {
        parse_movetext(self.movetext)
    }

    /// The PGN tags of the game, in roster order (`Result` last).
    pub fn tags(&self) -> [(&'static str, &'static str); 6] {
        [
            ("Event", self.event),
            ("Site", self.site),
            ("Date", self.date),
            ("White", self.white),
            ("Black", self.black),
            ("Result", self.result),
        ]
    }

    /// "White - Black, Site Year", for listings.
    pub fn title(&self) -> String {
        let year = self.date.split('.').next().unwrap_or("?");
        format!("{} - {}, {} {}", self.white, self.black, self.site, year)
    }
}

/// The built-in games.
pub fn famous_games() -> &'static [FamousGame] {
    GAMES
}

static GAMES: &[FamousGame] = &[
    FamousGame {
        event: "Casual game (the Opera Game)",
        site: "Paris FRA",
        date: "1858.??.??",
        white: "Morphy, Paul",
        black: "Duke Karl of Brunswick and Count Isouard",
        result: "1-0",
        movetext: "1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 \
                   7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 \
                   12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 \
                   17. Rd8# 1-0",
    },
    FamousGame {
        event: "Casual game (the Immortal Game)",
        site: "London ENG",
        date: "1851.06.21",
        white: "Anderssen, Adolf",
        black: "Kieseritzky, Lionel",
        result: "1-0",
        movetext: "1. e4 e5 2. f4 exf4 3. Bc4 Qh4+ 4. Kf1 b5 5. Bxb5 Nf6 6. Nf3 Qh6 \
                   7. d3 Nh5 8. Nh4 Qg5 9. Nf5 c6 10. g4 Nf6 11. Rg1 cxb5 12. h4 Qg6 \
                   13. h5 Qg5 14. Qf3 Ng8 15. Bxf4 Qf6 16. Nc3 Bc5 17. Nd5 Qxb2 \
                   18. Bd6 Bxg1 19. e5 Qxa1+ 20. Ke2 Na6 21. Nxg7+ Kd8 22. Qf6+ Nxf6 \
                   23. Be7# 1-0",
    },
    FamousGame {
        event: "Casual game (the Evergreen Game)",
        site: "Berlin GER",
        date: "1852.??.??",
        white: "Anderssen, Adolf",
        black: "Dufresne, Jean",
        result: "1-0",
        movetext: "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. b4 Bxb4 5. c3 Ba5 6. d4 exd4 \
                   7. O-O d3 8. Qb3 Qf6 9. e5 Qg6 10. Re1 Nge7 11. Ba3 b5 12. Qxb5 Rb8 \
                   13. Qa4 Bb6 14. Nbd2 Bb7 15. Ne4 Qf5 16. Bxd3 Qh5 17. Nf6+ gxf6 \
                   18. exf6 Rg8 19. Rad1 Qxf3 20. Rxe7+ Nxe7 21. Qxd7+ Kxd7 22. Bf5+ Ke8 \
                   23. Bd7+ Kf8 24. Bxe7# 1-0",
    },
    FamousGame {
        event: "Third Rosenwald Trophy (the Game of the Century)",
        site: "New York, NY USA",
        date: "1956.10.17",
        white: "Byrne, Donald",
        black: "Fischer, Robert James",
        result: "0-1",
        movetext: "1. Nf3 Nf6 2. c4 g6 3. Nc3 Bg7 4. d4 O-O 5. Bf4 d5 6. Qb3 dxc4 \
                   7. Qxc4 c6 8. e4 Nbd7 9. Rd1 Nb6 10. Qc5 Bg4 11. Bg5 Na4 12. Qa3 Nxc3 \
                   13. bxc3 Nxe4 14. Bxe7 Qb6 15. Bc4 Nxc3 16. Bc5 Rfe8+ 17. Kf1 Be6 \
                   18. Bxb6 Bxc4+ 19. Kg1 Ne2+ 20. Kf1 Nxd4+ 21. Kg1 Ne2+ 22. Kf1 Nc3+ \
                   23. Kg1 axb6 24. Qb4 Ra4 25. Qxb6 Nxd1 26. h3 Rxa2 27. Kh2 Nxf2 \
                   28. Re1 Rxe1 29. Qd8+ Bf8 30. Nxe1 Bd5 31. Nf3 Ne4 32. Qb8 b5 33. h4 h5 \
                   34. Ne5 Kg7 35. Kg1 Bc5+ 36. Kf1 Ng3+ 37. Ke1 Bb4+ 38. Kd1 Bb3+ \
                   39. Kc1 Ne2+ 40. Kb1 Nc3+ 41. Kc1 Rc2# 0-1",
    },
    FamousGame {
        event: "Casual game",
        site: "Vienna AUT",
        date: "1910.??.??",
        white: "Reti, Richard",
        black: "Tartakower, Savielly",
        result: "1-0",
        movetext: "1. e4 c6 2. d4 d5 3. Nc3 dxe4 4. Nxe4 Nf6 5. Qd3 e5 6. dxe5 Qa5+ \
                   7. Bd2 Qxe5 8. O-O-O Nxe4 9. Qd8+ Kxd8 10. Bg5+ Kc7 11. Bd8# 1-0",
    },
    FamousGame {
        event: "Casual game",
        site: "London ENG",
        date: "1912.??.??",
        white: "Lasker, Edward",
        black: "Thomas, George Alan",
        result: "1-0",
        movetext: "1. d4 e6 2. Nf3 f5 3. Nc3 Nf6 4. Bg5 Be7 5. Bxf6 Bxf6 6. e4 fxe4 \
                   7. Nxe4 b6 8. Ne5 O-O 9. Bd3 Bb7 10. Qh5 Qe7 11. Qxh7+ Kxh7 \
                   12. Nxf6+ Kh6 13. Neg4+ Kg5 14. h4+ Kf4 15. g3+ Kf3 16. Be2+ Kg2 \
                   17. Rh2+ Kg1 18. Kd2# 1-0",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Color, Position};

    fn final_position(moves: &[Move]) -> Chess {
        let mut pos = Chess::default();
        for (i, &m) in moves.iter().enumerate() {
            assert!(pos.is_legal(m), "ply {}: {m} is not legal", i + 1);
            pos.play_unchecked(m);
        }
        pos
    }

    #[test]
    fn every_game_parses_and_replays_legally() {
        assert!(famous_games().len() >= 4);
        for g in famous_games() {
            let moves = g.moves().unwrap_or_else(|e| panic!("{}: {e}", g.title()));
            assert!(moves.len() >= 20, "{}", g.title());
            final_position(&moves);
        }
    }

    #[test]
    fn games_won_on_the_board_end_in_mate() {
        for g in famous_games() {
            let pos = final_position(&g.moves().unwrap());
            let winner = match g.result {
                "1-0" => Color::White,
                "0-1" => Color::Black,
                _ => continue,
            };
            assert!(pos.is_checkmate(), "{} does not end in mate", g.title());
            assert_eq!(
                pos.turn(),
                !winner,
                "{}: the wrong side is mated",
                g.title()
            );
        }
    }

    #[test]
    fn the_games_castle_and_capture() {
        let all: Vec<Move> = famous_games()
            .iter()
            .flat_map(|g| g.moves().unwrap())
            .collect();
        let castles = |long: bool| {
            all.iter()
                .any(|m| matches!(m, Move::Castle { king, rook } if (rook < king) == long))
        };
        assert!(castles(true) && castles(false));
        assert!(all.iter().filter(|m| m.is_capture()).count() > 50);
    }

    #[test]
    fn titles_name_players_and_year() {
        let g = &famous_games()[0];
        assert_eq!(
            g.title(),
            "Morphy, Paul - Duke Karl of Brunswick and Count Isouard, Paris FRA 1858"
        );
        assert_eq!(g.tags()[5], ("Result", "1-0"));
    }
}
