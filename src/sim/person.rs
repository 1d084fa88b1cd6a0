//! A person's hands at the board: the lifts and placements that make a move.
//!
//! A presence-only board sees only squares emptying and filling, so the
//! table's reading of it is only as good as the variety of hand orders it
//! has been tested against. This module knows the orders people really use
//! (SPEC, "Reading a presence-only board"): either piece of a capture lifted
//! first, en passant in any order, castling king first with either hand
//! order, promotion by putting the new piece down directly or by swapping
//! the pawn, and the harmless noise of a real table (a wobbling reed, a
//! long-range piece slid over the squares between, a piece picked up that
//! cannot move and put back).
//!
//! Everything here is planned from the position before the move; the
//! [`Table`](super::devices::Table) then performs the steps in time.

use shakmaty::attacks::between;
use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position, Role, Square};

use super::rng::Rng;
use super::Style;

/// What a hand does to one square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Touch {
    Lift(Square),
    Place(Square),
}

/// One touch, and the milliseconds until the hand does anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) touch: Touch,
    pub(crate) pause_ms: u64,
}

/// Inclusive millisecond ranges for the gaps between touches.
type Span = (u64, u64);

/// Between the touches of an ordinary move.
const MOVE_GAP: Span = (80, 600);
/// A wobbling reed: lifted and closed again.
const WOBBLE: Span = (5, 25);
/// A slid piece standing on a square it passes over.
const SLIDE_ON: Span = (20, 90);
/// A slid piece between two squares it passes over.
const SLIDE_OFF: Span = (10, 60);
/// A piece that cannot move, held before it is put back.
const IDLE_HOLD: Span = (300, 900);
/// After putting back a piece or a wobble, before the real move.
const SETTLE: Span = (200, 800);
/// The pawn on the last rank, or the hand fetching the new piece.
const SWAP: Span = (300, 1200);

/// Percent chances of the noise of a Human player, per move.
const WOBBLE_PERCENT: u64 = 4;
const IDLE_LIFT_PERCENT: u64 = 5;
const SLIDE_PERCENT: u64 = 20;
const SWAP_PERCENT: u64 = 50;

/// One player's hands: a style and its own random stream.
#[derive(Debug)]
pub(crate) struct Person {
    style: Style,
    rng: Rng,
}

impl Person {
    pub(crate) fn new(style: Style, rng: Rng) -> Person {
        Person { style, rng }
    }

    /// A random time in `lo..=hi` ms (thinking, reaching for the clock).
    pub(crate) fn wait(&mut self, lo: u64, hi: u64) -> u64 {
        self.rng.between(lo, hi)
    }

    /// What the player to move does before the move proper, with no piece
    /// in hand: usually nothing; a Human sometimes wobbles a reed or picks
    /// up a piece that has no legal move and puts it back.
    pub(crate) fn fidget(&mut self, pos: &Chess) -> Vec<Step> {
        let mut steps = Vec::new();
        if self.style == Style::Clean {
            return steps;
        }
        if self.rng.chance(IDLE_LIFT_PERCENT) {
            if let Some(sq) = self.pick_square(immovable(pos)) {
                self.push(&mut steps, Touch::Lift(sq), IDLE_HOLD);
                self.push(&mut steps, Touch::Place(sq), SETTLE);
            }
        }
        if self.rng.chance(WOBBLE_PERCENT) {
            if let Some(sq) = self.pick_square(pos.board().occupied()) {
                self.push(&mut steps, Touch::Lift(sq), WOBBLE);
                self.push(&mut steps, Touch::Place(sq), SETTLE);
            }
        }
        steps
    }

    /// The touches that make the legal move `m` in `pos`, with the gaps
    /// after each (none after the last).
    pub(crate) fn make_move(&mut self, pos: &Chess, m: Move) -> Vec<Step> {
        let order = self.hand_order(pos.turn(), m);
        let slide = self.slide_path(m);
        let mut steps = Vec::new();
        for touch in order {
            if !slide.is_empty() && touch == Touch::Place(m.to()) {
                self.push_slide(&mut steps, &slide);
            }
            self.push(&mut steps, touch, MOVE_GAP);
        }
        if m.is_promotion() && self.style == Style::Human && self.rng.chance(SWAP_PERCENT) {
            self.push_swap(&mut steps, m.to());
        }
        // The hand lets go with the last touch; what follows (the clock
        // press) is timed by the caller.
        if let Some(last) = steps.last_mut() {
            last.pause_ms = 0;
        }
        steps
    }

    /// Lifts and placements in an order people use, without timing.
    fn hand_order(&mut self, turn: Color, m: Move) -> Vec<Touch> {
        use Touch::{Lift, Place};
        let variants: Vec<Vec<Touch>> = match m {
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(rook.file() > king.file());
                let (king_to, rook_to) = (side.king_to(turn), side.rook_to(turn));
                vec![
                    vec![Lift(king), Place(king_to), Lift(rook), Place(rook_to)],
                    vec![Lift(king), Lift(rook), Place(king_to), Place(rook_to)],
                    vec![Lift(king), Lift(rook), Place(rook_to), Place(king_to)],
                ]
            }
            Move::EnPassant { from, to } => {
                let victim = Square::from_coords(to.file(), from.rank());
                vec![
                    vec![Lift(from), Place(to), Lift(victim)],
                    vec![Lift(victim), Lift(from), Place(to)],
                    vec![Lift(from), Lift(victim), Place(to)],
                ]
            }
            Move::Normal {
                from,
                to,
                capture: Some(_),
                ..
            } => vec![
                vec![Lift(from), Lift(to), Place(to)],
                vec![Lift(to), Lift(from), Place(to)],
            ],
            Move::Normal { from, to, .. } => vec![vec![Lift(from), Place(to)]],
            Move::Put { to, .. } => vec![vec![Place(to)]],
        };
        if self.style == Style::Clean {
            return variants[0].clone();
        }
        let i = self.rng.between(0, variants.len() as u64 - 1) as usize;
        variants[i].clone()
    }

    /// The squares a Human slides a long-range piece over, in order, when
    /// they choose to slide it; empty otherwise. Only quiet moves are slid:
    /// a capture's victim must come off first.
    fn slide_path(&mut self, m: Move) -> Vec<Square> {
        let Move::Normal {
            role,
            from,
            to,
            capture: None,
            promotion: None,
        } = m
        else {
            return Vec::new();
        };
        let long_range = matches!(role, Role::Bishop | Role::Rook | Role::Queen);
        let path = between(from, to);
        if self.style == Style::Clean || !long_range || path.is_empty() {
            return Vec::new();
        }
        if !self.rng.chance(SLIDE_PERCENT) {
            return Vec::new();
        }
        // Squares on one line are ordered by index along it.
        let mut squares: Vec<Square> = path.into_iter().collect();
        if from > to {
            squares.reverse();
        }
        squares
    }

    /// The piece closes each reed on its way briefly. The lift of the
    /// origin just before was a slide too, so its gap is shortened.
    fn push_slide(&mut self, steps: &mut Vec<Step>, path: &[Square]) {
        if let Some(last) = steps.last_mut() {
            last.pause_ms = self.rng.between(SLIDE_OFF.0, SLIDE_OFF.1);
        }
        for &sq in path {
            self.push(steps, Touch::Place(sq), SLIDE_ON);
            self.push(steps, Touch::Lift(sq), SLIDE_OFF);
        }
    }

    /// The pawn stood on the last rank; it is taken off and the new piece
    /// put there.
    fn push_swap(&mut self, steps: &mut Vec<Step>, to: Square) {
        if let Some(last) = steps.last_mut() {
            last.pause_ms = self.rng.between(SWAP.0, SWAP.1);
        }
        self.push(steps, Touch::Lift(to), SWAP);
        self.push(steps, Touch::Place(to), MOVE_GAP);
    }

    fn push(&mut self, steps: &mut Vec<Step>, touch: Touch, pause: Span) {
        let pause_ms = self.rng.between(pause.0, pause.1);
        steps.push(Step { touch, pause_ms });
    }

    fn pick_square(&mut self, squares: Bitboard) -> Option<Square> {
        let all: Vec<Square> = squares.into_iter().collect();
        self.rng.pick(&all)
    }
}

/// The side to move's pieces that have no legal move.
fn immovable(pos: &Chess) -> Bitboard {
    let movable: Bitboard = pos.legal_moves().iter().filter_map(|m| m.from()).collect();
    pos.us() & !movable
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::parse_movetext;
    use std::collections::HashSet;

    /// The position after `movetext` and the last move in it.
    fn before_last(movetext: &str) -> (Chess, Move) {
        let moves = parse_movetext(movetext).unwrap();
        let (&last, earlier) = moves.split_last().unwrap();
        let mut pos = Chess::default();
        for &m in earlier {
            pos.play_unchecked(m);
        }
        (pos, last)
    }

    fn touches(steps: &[Step]) -> Vec<Touch> {
        steps.iter().map(|s| s.touch).collect()
    }

    /// The distinct touch orders of `m` over many players.
    fn orders(style: Style, pos: &Chess, m: Move) -> HashSet<Vec<Touch>> {
        (0..200)
            .map(|seed| touches(&Person::new(style, Rng::new(seed)).make_move(pos, m)))
            .collect()
    }

    /// Applies the touches to the occupancy, checking each is possible.
    fn apply(mut occ: Bitboard, steps: &[Step]) -> Bitboard {
        for s in steps {
            match s.touch {
                Touch::Lift(sq) => {
                    assert!(occ.contains(sq), "lift of empty {sq}");
                    occ.discard(sq);
                }
                Touch::Place(sq) => {
                    assert!(!occ.contains(sq), "place on full {sq}");
                    occ.add(sq);
                }
            }
        }
        occ
    }

    fn after(pos: &Chess, m: Move) -> Bitboard {
        let mut p = pos.clone();
        p.play_unchecked(m);
        p.board().occupied()
    }

    fn check_all_orders(movetext: &str, expected_orders: usize) {
        let (pos, m) = before_last(movetext);
        for style in [Style::Clean, Style::Human] {
            let found = orders(style, &pos, m);
            for order in &found {
                let steps: Vec<Step> = order
                    .iter()
                    .map(|&touch| Step { touch, pause_ms: 0 })
                    .collect();
                assert_eq!(
                    apply(pos.board().occupied(), &steps),
                    after(&pos, m),
                    "{order:?}"
                );
            }
            let want = if style == Style::Clean {
                1
            } else {
                expected_orders
            };
            assert_eq!(found.len(), want, "{movetext} {style:?}: {found:?}");
        }
    }

    #[test]
    fn every_order_people_use_appears_and_ends_in_the_move() {
        check_all_orders("1. e4 d5 2. exd5", 2);
        check_all_orders("1. e4 Nf6 2. e5 d5 3. exd6", 3);
        check_all_orders("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O", 3);
        check_all_orders("1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. O-O-O", 3);
    }

    #[test]
    fn promotion_is_direct_or_a_swap() {
        let (pos, m) = before_last("1. e4 d5 2. exd5 c6 3. dxc6 Nf6 4. cxb7 Nbd7 5. bxa8=Q");
        let human = orders(Style::Human, &pos, m);
        // Two capture orders, each direct or with the pawn swapped.
        assert_eq!(human.len(), 4, "{human:?}");
        assert!(human.iter().any(|o| o.ends_with(&[
            Touch::Place(Square::A8),
            Touch::Lift(Square::A8),
            Touch::Place(Square::A8)
        ])));
        assert_eq!(orders(Style::Clean, &pos, m).len(), 1);
    }

    #[test]
    fn long_range_pieces_are_sometimes_slid_quickly() {
        let (pos, m) = before_last("1. e4 e5 2. Qh5");
        let slid: Vec<Vec<Step>> = (0..200)
            .map(|seed| Person::new(Style::Human, Rng::new(seed)).make_move(&pos, m))
            .filter(|s| s.len() > 2)
            .collect();
        assert!(!slid.is_empty());
        for steps in &slid {
            assert_eq!(apply(pos.board().occupied(), steps), after(&pos, m));
            let mids: Vec<Touch> = touches(steps)[1..steps.len() - 1].to_vec();
            assert_eq!(
                mids,
                [
                    Touch::Place(Square::E2),
                    Touch::Lift(Square::E2),
                    Touch::Place(Square::F3),
                    Touch::Lift(Square::F3),
                    Touch::Place(Square::G4),
                    Touch::Lift(Square::G4)
                ]
            );
            for pair in steps[1..steps.len() - 1].chunks(2) {
                assert!((20..=90).contains(&pair[0].pause_ms));
            }
        }
    }

    #[test]
    fn fidgets_put_everything_back() {
        let (pos, _) = before_last("1. e4 e5 2. Nf3");
        let mut kinds = HashSet::new();
        for seed in 0..400 {
            let steps = Person::new(Style::Human, Rng::new(seed)).fidget(&pos);
            assert_eq!(
                apply(pos.board().occupied(), &steps),
                pos.board().occupied()
            );
            for pair in steps.chunks(2) {
                let Touch::Lift(sq) = pair[0].touch else {
                    panic!("{pair:?}")
                };
                assert_eq!(pair[1].touch, Touch::Place(sq));
                if pair[0].pause_ms <= 25 {
                    kinds.insert("wobble");
                } else {
                    assert!(immovable(&pos).contains(sq), "{sq} could move");
                    kinds.insert("idle");
                }
            }
        }
        assert_eq!(kinds.len(), 2);
        assert!(Person::new(Style::Clean, Rng::new(1))
            .fidget(&pos)
            .is_empty());
    }
}
