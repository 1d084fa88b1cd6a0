//! The physical board, followed through the players' hands.
//!
//! A presence board says only "a1 went empty", "e4 went full". To know which
//! piece went where, the table follows every piece by an identity given at
//! the start of the game (a [`PieceId`]): a lift puts the piece standing on
//! the square into the hand; a place puts down *one of the pieces in the
//! hand* — which one the board cannot say, so each possibility becomes a
//! hypothesis ([`Phys`]). Most of them die at once (they fit no legal
//! position later); the rest are kept until the board settles (SPEC.md:
//! "Follow the pieces through the hands, not only the final occupancy").
//!
//! Sensor wobble (a quick lift and re-place of one square) and a fast
//! capture (the victim off, the capturer on, on one square) need no rule of
//! their own here: with one piece in hand only that piece can come back; with
//! two, both readings are hypotheses and the position decides.

use shakmaty::{Bitboard, Square};

/// Identity of a physical piece: 0..32, given at the start of the game.
pub type PieceId = u8;

/// No piece on the square.
pub const EMPTY: u8 = 0xff;

/// Which piece stands on each square.
pub type IdMap = [u8; 64];

/// One hypothesis about the physical board: which piece stands where, and
/// which pieces are off the board in a hand (not yet put down, or captured
/// in a move not yet completed).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Phys {
    pub at: IdMap,
    /// Bit `id` set: that piece is in a hand.
    pub hand: u32,
}

impl Phys {
    /// Nothing in hand, pieces as in `at`.
    pub fn settled(at: IdMap) -> Phys {
        Phys { at, hand: 0 }
    }

    pub fn occupied(&self) -> Bitboard {
        occupancy(&self.at)
    }

    /// The piece on `sq` goes into the hand; `None` if the square is empty
    /// in this hypothesis (then the hypothesis is wrong).
    pub fn lift(&self, sq: Square) -> Option<Phys> {
        let id = self.at[sq as usize];
        if id == EMPTY {
            return None;
        }
        let mut next = self.clone();
        next.at[sq as usize] = EMPTY;
        next.hand |= 1 << id;
        Some(next)
    }

    /// Each piece in hand that `allowed` accepts, put down on `sq`: one
    /// hypothesis each. Empty if the square is full or nothing fits.
    pub fn place(&self, sq: Square, allowed: impl Fn(PieceId) -> bool) -> Vec<Phys> {
        if self.at[sq as usize] != EMPTY {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut hand = self.hand;
        while hand != 0 {
            let id = hand.trailing_zeros() as u8;
            hand &= hand - 1;
            if allowed(id) {
                let mut next = self.clone();
                next.at[sq as usize] = id;
                next.hand &= !(1 << id);
                out.push(next);
            }
        }
        out
    }

    /// Forgets pieces that left the game (captured in a completed move).
    pub fn drop_from_hand(&mut self, ids: u32) {
        self.hand &= !ids;
    }
}

/// The occupancy of an id map.
pub fn occupancy(at: &IdMap) -> Bitboard {
    let mut bb = 0u64;
    for (i, &id) in at.iter().enumerate() {
        if id != EMPTY {
            bb |= 1 << i;
        }
    }
    Bitboard(bb)
}

/// The squares where two id maps differ.
pub fn diff(a: &IdMap, b: &IdMap) -> Bitboard {
    let mut bb = 0u64;
    for i in 0..64 {
        if a[i] != b[i] {
            bb |= 1 << i;
        }
    }
    Bitboard(bb)
}

/// A set of hypotheses, without duplicates, in a stable order (the first is
/// the most natural reading: the order in which branches arose).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hyps(pub Vec<Phys>);

/// More hypotheses than this are never useful: real hands hold two or three
/// pieces. The first ones are kept.
pub const MAX_HYPS: usize = 48;

impl Hyps {
    pub fn one(p: Phys) -> Hyps {
        Hyps(vec![p])
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Phys> {
        self.0.iter()
    }

    /// The occupancy all hypotheses share (they saw the same lifts and places).
    pub fn occupied(&self) -> Option<Bitboard> {
        self.0.first().map(Phys::occupied)
    }

    pub fn lift(&self, sq: Square) -> Hyps {
        Hyps(self.0.iter().filter_map(|p| p.lift(sq)).collect())
    }

    pub fn place(&self, sq: Square, allowed: impl Fn(PieceId) -> bool + Copy) -> Hyps {
        let mut out: Vec<Phys> = Vec::new();
        for p in &self.0 {
            for n in p.place(sq, allowed) {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out.truncate(MAX_HYPS);
        Hyps(out)
    }

    /// Adds the hypotheses of `other` not already here.
    pub fn merge(&mut self, other: Hyps) {
        for p in other.0 {
            if !self.0.contains(&p) && self.0.len() < MAX_HYPS {
                self.0.push(p);
            }
        }
    }

    /// Forgets pieces that left the game from every hand; hypotheses that
    /// thereby become the same are kept once.
    pub fn drop_from_hands(&mut self, ids: u32) {
        let all = std::mem::take(&mut self.0);
        for mut h in all {
            h.drop_from_hand(ids);
            if !self.0.contains(&h) {
                self.0.push(h);
            }
        }
    }

    pub fn retain(&mut self, f: impl FnMut(&Phys) -> bool) {
        self.0.retain(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Phys {
        let mut at = [EMPTY; 64];
        for (i, sq) in [Square::E2, Square::D1, Square::F7].into_iter().enumerate() {
            at[sq as usize] = i as u8;
        }
        Phys::settled(at)
    }

    #[test]
    fn a_wobble_puts_the_same_piece_back() {
        let p = start();
        let lifted = p.lift(Square::E2).unwrap();
        let back = lifted.place(Square::E2, |_| true);
        assert_eq!(back, vec![p]);
    }

    #[test]
    fn two_pieces_in_hand_make_two_hypotheses() {
        let p = start().lift(Square::D1).unwrap().lift(Square::F7).unwrap();
        let placed = p.place(Square::F7, |_| true);
        assert_eq!(placed.len(), 2);
        // The queen took f7 (pawn in hand) or the pawn went back (queen in hand).
        assert!(placed
            .iter()
            .any(|q| q.at[Square::F7 as usize] == 1 && q.hand == 1 << 2));
        assert!(placed
            .iter()
            .any(|q| q.at[Square::F7 as usize] == 2 && q.hand == 1 << 1));
    }

    #[test]
    fn impossible_events_kill_a_hypothesis() {
        assert!(start().lift(Square::A1).is_none());
        assert!(start().place(Square::E2, |_| true).is_empty());
        assert!(start().place(Square::E4, |_| true).is_empty());
    }
}
