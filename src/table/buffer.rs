//! Judging buffered events against a snapshot.
//!
//! When board lines are lost, the table knows *where* (the seq numbers say
//! between which two lines) but not *what*. Each lost line was a lift, a
//! place, or a line with no effect on the pieces (a snapshot, a fault). This
//! module tries each, replays the buffered events from the last state the
//! table trusted, and keeps the explanations that end on exactly the
//! occupancy the snapshot shows (TMB1: "the host must reconcile its view of
//! the board with a fresh snapshot"). Presses buffered meanwhile are judged
//! on the board as it stood at each press in those explanations.

use shakmaty::{Bitboard, Color, Piece, Square};

use super::phys::Hyps;

/// At most this many lost lines are explained one by one; more, and the
/// table waits for a position it can identify from the occupancy alone.
pub const MAX_UNSEEN: usize = 3;

/// A buffered event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Lift(Square, u64),
    Place(Square, Option<Piece>, u64),
    /// A board line the table did not see.
    Unseen,
    Press {
        side: Color,
        white_ms: u64,
        black_ms: u64,
        t: u64,
    },
}

/// One explanation of the buffer: the board after each item (at a press:
/// the board as the press found it).
#[derive(Debug, Clone, Default)]
pub struct Trace {
    pub states: Vec<Hyps>,
    /// How many lost lines it takes to have moved a piece.
    pub cost: usize,
}

impl Trace {
    /// All explanations together (hypotheses are alternatives anyway);
    /// `None` if there is none.
    pub fn merge(traces: Vec<Trace>) -> Option<Trace> {
        let mut it = traces.into_iter();
        let mut acc = it.next()?;
        for t in it {
            for (a, b) in acc.states.iter_mut().zip(t.states) {
                a.merge(b);
            }
        }
        Some(acc)
    }
}

/// The explanations of `items` replayed from `anchor` that end on
/// `snapshot` (all of them if there is none: see [`most_likely`]).
pub fn explain(
    anchor: &Hyps,
    items: &[Item],
    snapshot: Option<Bitboard>,
    apply: impl Fn(&Hyps, &Item) -> Hyps,
) -> Vec<Trace> {
    let mut candidates = Bitboard(0);
    for it in items {
        match it {
            Item::Lift(sq, _) | Item::Place(sq, _, _) => candidates.add(*sq),
            _ => {}
        }
    }
    let unseen = items.iter().filter(|i| matches!(i, Item::Unseen)).count();
    // Two lost lines can be a lift and a place of one square, invisible in
    // the occupancy (a capture whose victim's and capturer's lines were
    // both lost): then any piece may have been lifted.
    let mut any_lift = unseen >= 2;
    match (snapshot, anchor.occupied()) {
        (Some(snap), Some(occ)) => candidates |= snap ^ occ,
        // No snapshot to say where the lost line was: anywhere, for one
        // lost line.
        (None, _) if unseen <= 1 => candidates = Bitboard::FULL,
        _ => any_lift = false,
    }
    let walker = Walker {
        snapshot,
        candidates,
        any_lift,
        apply,
        budget: std::cell::Cell::new(SEARCH_BUDGET),
    };
    let mut out = Vec::new();
    walker.walk(
        anchor.clone(),
        items,
        Bitboard(0),
        &mut Trace::default(),
        &mut out,
    );
    out
}

/// How many guesses the search may replay before it settles for what it
/// has found: explaining lost lines must never stall the table.
const SEARCH_BUDGET: usize = 20_000;

/// Explanations kept at most.
const MAX_TRACES: usize = 64;

/// Without a snapshot to check against: the explanations under which the
/// board most often shows something `reads` (a position, a move, a move
/// and its reply), and of those the ones that take the fewest lost lines to
/// have moved a piece.
pub fn most_likely(mut traces: Vec<Trace>, reads: impl Fn(&Hyps) -> bool) -> Vec<Trace> {
    let scored: Vec<usize> = traces
        .iter()
        .map(|t| t.states.iter().filter(|s| reads(s)).count())
        .collect();
    if let Some(&best) = scored.iter().max() {
        let mut i = 0;
        traces.retain(|_| {
            i += 1;
            scored[i - 1] == best
        });
    }
    if let Some(min) = traces.iter().map(|t| t.cost).min() {
        traces.retain(|t| t.cost == min);
    }
    traces
}

/// The depth-first search over what the lost lines were.
struct Walker<F> {
    snapshot: Option<Bitboard>,
    /// Squares a lost line can have concerned.
    candidates: Bitboard,
    /// Whether a lost line may have lifted any piece at all.
    any_lift: bool,
    apply: F,
    /// Guesses left to try.
    budget: std::cell::Cell<usize>,
}

impl<F: Fn(&Hyps, &Item) -> Hyps> Walker<F> {
    /// Records the board after an item and goes on with the rest.
    fn step(
        &self,
        hyps: Hyps,
        rest: &[Item],
        lifted: Bitboard,
        path: &mut Trace,
        out: &mut Vec<Trace>,
    ) {
        if hyps.is_empty() {
            return;
        }
        path.states.push(hyps.clone());
        self.walk(hyps, rest, lifted, path, out);
        path.states.pop();
    }

    /// `lifted`: squares emptied by guesses so far (a later lost line may
    /// have filled them again).
    fn walk(
        &self,
        hyps: Hyps,
        items: &[Item],
        lifted: Bitboard,
        path: &mut Trace,
        out: &mut Vec<Trace>,
    ) {
        if hyps.is_empty() || out.len() >= MAX_TRACES || self.budget.get() == 0 {
            return;
        }
        self.budget.set(self.budget.get() - 1);
        let Some((first, rest)) = items.split_first() else {
            if self.snapshot.is_none_or(|s| hyps.occupied() == Some(s)) {
                out.push(path.clone());
            }
            return;
        };
        match first {
            Item::Unseen => {
                let occ = hyps.occupied().unwrap_or(Bitboard(0));
                let lifts = if self.any_lift {
                    occ
                } else {
                    occ & self.candidates
                };
                let places = !occ & (self.candidates | lifted);
                let guesses = std::iter::once(None)
                    .chain(lifts.into_iter().map(|sq| Some(Item::Lift(sq, 0))))
                    .chain(places.into_iter().map(|sq| Some(Item::Place(sq, None, 0))));
                for guess in guesses {
                    let (next, now_lifted) = match &guess {
                        None => (hyps.clone(), lifted),
                        Some(g @ Item::Lift(sq, _)) => {
                            ((self.apply)(&hyps, g), lifted | Bitboard::from(*sq))
                        }
                        Some(g) => ((self.apply)(&hyps, g), lifted),
                    };
                    let cost = usize::from(guess.is_some());
                    path.cost += cost;
                    self.step(next, rest, now_lifted, path, out);
                    path.cost -= cost;
                }
            }
            _ => {
                let next = (self.apply)(&hyps, first);
                self.step(next, rest, lifted, path, out);
            }
        }
    }
}
