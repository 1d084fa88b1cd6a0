//! The game as recorded: the moves completed so far, their clock times, the
//! result; and, because a presence board cannot see the piece a pawn became,
//! one [`Line`] per promotion hypothesis still open.
//!
//! Every line holds the same moves but for promotion pieces. A later move
//! that is legal in one line and not in another decides between them (a
//! knight's move by the new piece, or an opponent's move that is legal only
//! if it is not a queen: SPEC.md, "Promotion"); the score is written in the
//! first line left, and the lines are ordered queen, rook, bishop, knight.

use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    san::SanPlus, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square,
};

use super::phys::{IdMap, EMPTY};
use crate::laws::Edition;

/// A legal move from a line's position, with what follows from it.
#[derive(Debug, Clone)]
pub struct Succ {
    pub m: Move,
    pub pos: Chess,
    pub ids: IdMap,
}

/// One reading of the game so far (one choice for each promotion).
#[derive(Debug, Clone)]
pub struct Line {
    pub pos: Chess,
    pub ids: IdMap,
    pub moves: Vec<Move>,
    /// Zobrist hash of every position, the start included.
    pub hashes: Vec<u64>,
    /// The legal moves from `pos`, computed once per position.
    pub succ: Vec<Succ>,
}

impl Line {
    pub fn new(pos: Chess, ids: IdMap) -> Line {
        let hash = hash_of(&pos);
        let mut line = Line {
            pos,
            ids,
            moves: Vec::new(),
            hashes: vec![hash],
            succ: Vec::new(),
        };
        line.succ = successors(&line.pos, &line.ids);
        line
    }

    /// This line with `m` played (legal in `pos`).
    pub fn play(&self, m: Move) -> Line {
        let succ = self
            .succ
            .iter()
            .find(|s| s.m == m)
            .expect("play() takes a legal move of the line");
        let mut line = Line {
            pos: succ.pos.clone(),
            ids: succ.ids,
            moves: self.moves.clone(),
            hashes: self.hashes.clone(),
            succ: Vec::new(),
        };
        line.moves.push(m);
        line.hashes.push(hash_of(&line.pos));
        line.succ = successors(&line.pos, &line.ids);
        line
    }

    /// How many times the current position has stood (repetition counting,
    /// Article 9.2: same player to move, same pieces, same possible moves).
    pub fn repetitions(&self) -> usize {
        let last = *self.hashes.last().expect("a line has a start position");
        self.hashes.iter().filter(|&&h| h == last).count()
    }

    /// The moves in SAN with check and mate marks.
    pub fn sans(&self, start: &Chess) -> Vec<String> {
        let mut pos = start.clone();
        self.moves
            .iter()
            .map(|&m| SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string())
            .collect()
    }
}

fn hash_of(pos: &Chess) -> u64 {
    let h: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    h.0
}

fn successors(pos: &Chess, ids: &IdMap) -> Vec<Succ> {
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut next = pos.clone();
            next.play_unchecked(m);
            Succ {
                m,
                pos: next,
                ids: apply_ids(ids, m),
            }
        })
        .collect()
}

/// Where each piece stands after `m`.
pub fn apply_ids(ids: &IdMap, m: Move) -> IdMap {
    let mut out = *ids;
    match m {
        Move::Normal { from, to, .. } => {
            out[to as usize] = ids[from as usize];
            out[from as usize] = EMPTY;
        }
        Move::EnPassant { from, to } => {
            let victim = Square::from_coords(to.file(), from.rank());
            out[to as usize] = ids[from as usize];
            out[from as usize] = EMPTY;
            out[victim as usize] = EMPTY;
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(rook.file() > king.file());
            let rank = king.rank();
            let (k, r) = (ids[king as usize], ids[rook as usize]);
            out[king as usize] = EMPTY;
            out[rook as usize] = EMPTY;
            out[Square::from_coords(side.king_to_file(), rank) as usize] = k;
            out[Square::from_coords(side.rook_to_file(), rank) as usize] = r;
        }
        Move::Put { .. } => {}
    }
    out
}

/// The same move but for the promotion piece.
pub fn same_but_promotion(a: Move, b: Move) -> bool {
    match (a, b) {
        (
            Move::Normal {
                from: f1, to: t1, ..
            },
            Move::Normal {
                from: f2, to: t2, ..
            },
        ) => f1 == f2 && t1 == t2,
        _ => a == b,
    }
}

/// Ordering of promotion hypotheses: queen first, then rook, bishop, knight.
pub fn promotion_rank(m: Move) -> u8 {
    match m.promotion() {
        None | Some(Role::Queen) => 0,
        Some(Role::Rook) => 1,
        Some(Role::Bishop) => 2,
        Some(_) => 3,
    }
}

/// How a game ended on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Checkmate {
        winner: Color,
    },
    Stalemate,
    /// Article 5.2.2: neither side can checkmate any more.
    Dead,
    Fivefold,
    SeventyFive,
    /// Lost by completed illegal moves; `winner` is `None` when the
    /// opponent could not have mated (a draw).
    IllegalMoves {
        winner: Option<Color>,
    },
    /// A flag fell; `winner` is `None` when the opponent could not have
    /// mated (a draw).
    Flag {
        winner: Option<Color>,
    },
}

impl End {
    pub fn result(self) -> &'static str {
        match self {
            End::Checkmate {
                winner: Color::White,
            }
            | End::IllegalMoves {
                winner: Some(Color::White),
            }
            | End::Flag {
                winner: Some(Color::White),
            } => "1-0",
            End::Checkmate {
                winner: Color::Black,
            }
            | End::IllegalMoves {
                winner: Some(Color::Black),
            }
            | End::Flag {
                winner: Some(Color::Black),
            } => "0-1",
            _ => "1/2-1/2",
        }
    }
}

/// Whether the position a line has reached ends the game by itself
/// (Articles 5.1.1, 5.2.1, 5.2.2, and under the 2023 Laws 9.6.1, 9.6.2:
/// the 2001 Laws have no automatic draw by repetition or move count).
/// A dead position is found by the solver's quick test
/// ([`crate::verdict::is_dead_fast`]), asked only once no pawn can move:
/// while one can, the quick test rarely proves anything and can take
/// seconds on constructed positions.
pub fn end_of(line: &Line, laws: Edition) -> Option<End> {
    if line.pos.is_checkmate() {
        return Some(End::Checkmate {
            winner: !line.pos.turn(),
        });
    }
    if line.pos.is_stalemate() {
        return Some(End::Stalemate);
    }
    if !pawn_can_move(&line.pos) && crate::verdict::is_dead_fast(&line.pos) {
        return Some(End::Dead);
    }
    if laws == Edition::Fide2001 {
        return None;
    }
    if line.repetitions() >= 5 {
        return Some(End::Fivefold);
    }
    if line.pos.halfmoves() >= 150 {
        return Some(End::SeventyFive);
    }
    None
}

/// Whether some pawn can still advance or capture (ignoring pins and en
/// passant: only a screen).
fn pawn_can_move(pos: &Chess) -> bool {
    let board = pos.board();
    board.pawns().into_iter().any(|sq| {
        let colour = board.color_at(sq).expect("a pawn has a colour");
        let ahead = match colour {
            Color::White => sq.offset(8),
            Color::Black => sq.offset(-8),
        };
        ahead.is_some_and(|a| !board.occupied().contains(a))
            || shakmaty::attacks::pawn_attacks(colour, sq).intersects(board.by_color(!colour))
    })
}

/// The identities of the pieces in the initial position: id `i` is the
/// `i`-th occupied square counting from a1.
pub fn initial_ids(pos: &Chess) -> IdMap {
    let mut ids = [EMPTY; 64];
    for (n, sq) in pos.board().occupied().into_iter().enumerate() {
        ids[sq as usize] = n as u8;
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn mv(pos: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    #[test]
    fn castling_moves_king_and_rook_ids() {
        let mut line = Line::new(Chess::default(), initial_ids(&Chess::default()));
        for u in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"] {
            let m = mv(&line.pos, u);
            line = line.play(m);
        }
        let king = line.ids[Square::E1 as usize];
        let rook = line.ids[Square::H1 as usize];
        let castle = mv(&line.pos, "e1g1");
        let after = apply_ids(&line.ids, castle);
        assert_eq!(after[Square::G1 as usize], king);
        assert_eq!(after[Square::F1 as usize], rook);
        assert_eq!(after[Square::E1 as usize], EMPTY);
        assert_eq!(after[Square::H1 as usize], EMPTY);
    }
}
