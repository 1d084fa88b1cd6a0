//! Article 4 — the act of moving. One ledger per turn: every lift and
//! placement of the player to move, in order, with times; judged when the
//! move is completed. Read this next to LAWS.md, "Article 4".
//!
//! What the board can tell: which squares went empty and full, and when.
//! Which *piece* was touched follows from the table's piece identities
//! ([`super::phys`]), replayed over the turn's events; where those leave
//! more than one history open, a finding is raised only if it holds in
//! every one (SPEC.md: "An Article 4 finding is raised only if it holds
//! under every hypothesis still open"). Findings are evidence for the
//! arbiter (severity `warning`): a sensor cannot hear "j'adoube".
//!
//! - A *touch* is a lift of at least `touch_min_ms`, by the player whose
//!   clock runs (or, with no clock, the side to move). Lifts while the clock
//!   is stopped are the arbiter's corrections and are not judged.
//! - 4.3.1 / 4.3.2 / 4.3.3: the first touched own piece that can move must
//!   move; the first touched opponent's piece that can be captured must be
//!   captured; one of each: that capture with that piece if legal, else the
//!   first touched piece that can be moved or captured (own piece first if
//!   the order is unclear). 4.5: nothing touched can move: any move.
//! - 4.4: king then rook: castle on that side if legal; castling begun with
//!   the rook: `castling-rook-first` and nothing else.
//! - Release (2023 4.6, 2001 4.7): a piece put down on a square where it made
//!   a legal move, left there at least `release_min_ms`, then moved on.
//! - 7.5.1: after a completed illegal move, the piece moved illegally counts
//!   as touched (when it was) for the move that replaces it.

use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square};

use super::alert::AlertKind;
use super::game::Line;
use super::phys::{Hyps, IdMap, Phys, PieceId, EMPTY};
use crate::laws::Edition;

/// What happened on a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Lift,
    Place,
    /// A lost line: the history cannot be followed across it.
    Unseen,
}

/// One board event of the turn.
#[derive(Debug, Clone)]
pub struct Entry {
    pub t: u64,
    pub kind: Kind,
    pub sq: Square,
    /// Whose clock ran (`None`: stopped); `clock` false: there is no clock.
    pub running: Option<Color>,
    pub clock: bool,
    /// The board after it.
    pub after: Hyps,
    /// Where the pieces stood in each one-move reading of that board.
    pub reads: Vec<IdMap>,
}

/// The events of the turn being made.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    /// The board when the turn began.
    pub start: Hyps,
    pub entries: Vec<Entry>,
    /// The piece moved in a completed illegal move (7.5.1).
    pub forced: Option<PieceId>,
    /// Where the opponent's last move put its piece: its nudge at the very
    /// start of the turn is the opponent's doing.
    pub just_moved: Option<Square>,
}

/// A finding about one completed move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: AlertKind,
    pub article: &'static str,
    pub squares: Vec<Square>,
    pub detail: String,
}

/// The settings the judging needs.
#[derive(Debug, Clone, Copy)]
pub struct Judge {
    pub touch_min_ms: u64,
    pub release_min_ms: u64,
    pub laws: Edition,
}

impl Ledger {
    /// A new turn starting on `start`.
    pub fn begin(start: Hyps, just_moved: Option<Square>) -> Ledger {
        Ledger {
            start,
            entries: Vec::new(),
            forced: None,
            just_moved,
        }
    }

    pub fn push(&mut self, e: Entry) {
        self.entries.push(e);
    }

    /// Notes the one-move readings of the board after the last event.
    pub fn note_reads(&mut self, maps: Vec<IdMap>) {
        if let Some(e) = self.entries.last_mut() {
            e.reads = maps;
        }
    }

    /// Splits off the events of the move whose pieces end as `after`: up
    /// to the last event after which the board showed it. The rest begin
    /// the next turn.
    ///
    /// Without a clock to say whose hand it is, a lift of one of the
    /// opponent's pieces once the board has shown the move begins the
    /// opponent's turn (the mover going on lifts the mover's own pieces).
    pub fn take(&mut self, after: &IdMap, mover: Color, roles: &[(Color, Role, bool)]) -> Ledger {
        let first_shown = self.entries.iter().position(|e| e.reads.contains(after));
        let mut split = self
            .entries
            .iter()
            .rposition(|e| e.reads.contains(after))
            .map_or(self.entries.len(), |i| i + 1);
        if let Some(first) = first_shown {
            let mut before = self.entries[first].after.clone();
            let mut touched = Bitboard(0);
            for (i, e) in self.entries.iter().enumerate().skip(first + 1) {
                if e.clock {
                    break;
                }
                // Whose piece: on a square untouched since the board showed
                // the move, the one the move left there.
                let opponents = |id: PieceId| {
                    id != EMPTY && roles.get(id as usize).is_some_and(|r| r.0 != mover)
                };
                let theirs = e.kind == Kind::Lift
                    && if touched.contains(e.sq) {
                        before.iter().all(|p| opponents(p.at[e.sq as usize]))
                    } else {
                        opponents(after[e.sq as usize])
                    };
                touched.add(e.sq);
                if theirs {
                    split = split.min(i);
                    break;
                }
                before = e.after.clone();
            }
        }
        let rest: Vec<Entry> = self.entries.split_off(split);
        let mut next_start = self
            .entries
            .last()
            .map_or_else(|| self.start.clone(), |e| e.after.clone());
        // The board showed the move there: the hypotheses that read it.
        if next_start.iter().any(|p| p.at == *after) {
            next_start.retain(|p| p.at == *after);
        }
        Ledger {
            start: std::mem::replace(&mut self.start, next_start),
            entries: std::mem::replace(&mut self.entries, rest),
            forced: self.forced.take(),
            just_moved: self.just_moved.take(),
        }
    }
}

/// One way the turn's events went, piece by piece.
#[derive(Debug, Clone)]
struct History {
    phys: Phys,
    /// `(entry index, piece)` for each lift and place.
    steps: Vec<(usize, PieceId)>,
}

/// Every history of the turn's events that ends with the pieces as `end`.
fn histories(turn: &Ledger, end: &IdMap) -> Vec<History> {
    const MAX: usize = 64;
    let mut hs: Vec<History> = turn
        .start
        .iter()
        .map(|p| History {
            phys: p.clone(),
            steps: Vec::new(),
        })
        .collect();
    for (i, e) in turn.entries.iter().enumerate() {
        let mut next = Vec::new();
        for h in &hs {
            match e.kind {
                Kind::Unseen => return Vec::new(),
                Kind::Lift => {
                    let id = h.phys.at[e.sq as usize];
                    if let Some(p) = h.phys.lift(e.sq) {
                        let mut steps = h.steps.clone();
                        steps.push((i, id));
                        next.push(History { phys: p, steps });
                    }
                }
                Kind::Place => {
                    for p in h.phys.place(e.sq, |_| true) {
                        let mut steps = h.steps.clone();
                        steps.push((i, p.at[e.sq as usize]));
                        next.push(History { phys: p, steps });
                    }
                }
            }
        }
        next.truncate(MAX);
        hs = next;
    }
    hs.retain(|h| h.phys.at == *end);
    hs
}

/// A touch: a piece lifted, and where and when it was put down next.
#[derive(Debug, Clone, Copy)]
struct Touch {
    id: PieceId,
    from: Square,
    lifted: u64,
    /// `(square, time, entry)` of the next placement of this piece.
    placed: Option<(Square, u64, usize)>,
}

fn touches(turn: &Ledger, h: &History, judged: impl Fn(&Entry) -> bool) -> Vec<Touch> {
    let mut out: Vec<Touch> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for &(i, id) in &h.steps {
        let e = &turn.entries[i];
        match e.kind {
            Kind::Lift => {
                if judged(e) {
                    open.push(out.len());
                    out.push(Touch {
                        id,
                        from: e.sq,
                        lifted: e.t,
                        placed: None,
                    });
                }
            }
            Kind::Place => {
                if let Some(k) = open.iter().position(|&k| out[k].id == id) {
                    let k = open.remove(k);
                    out[k].placed = Some((e.sq, e.t, i));
                }
            }
            Kind::Unseen => {}
        }
    }
    out
}

/// Judges the completed move `m` of `mover` from `line`'s position, on the
/// events of `turn`; `after` is where the pieces stand after `m`.
pub fn judge(
    turn: &Ledger,
    line: &Line,
    m: Move,
    after: &IdMap,
    mover: Color,
    cfg: Judge,
) -> Vec<Finding> {
    let judged = |e: &Entry| !e.clock || e.running == Some(mover);
    let hs = histories(turn, after);
    if hs.is_empty() {
        return Vec::new();
    }
    let mut common: Option<Vec<Finding>> = None;
    for h in &hs {
        let found = judge_history(turn, h, line, m, after, mover, cfg, &judged);
        common = Some(match common {
            None => found,
            Some(prev) => prev
                .into_iter()
                .filter(|f| found.iter().any(|g| g.kind == f.kind))
                .collect(),
        });
    }
    common.unwrap_or_default()
}

#[allow(clippy::too_many_arguments)]
fn judge_history(
    turn: &Ledger,
    h: &History,
    line: &Line,
    m: Move,
    after: &IdMap,
    mover: Color,
    cfg: Judge,
    judged: &impl Fn(&Entry) -> bool,
) -> Vec<Finding> {
    let pos = &line.pos;
    let ids = &line.ids;
    let mut all = touches(turn, h, judged);
    // The opponent's piece just moved, lifted and put back before anything
    // else happens: the opponent's doing (a nudge, a promotion swap).
    while let Some(first) = all.first() {
        let nudge = Some(first.from) == turn.just_moved
            && first.placed.is_some_and(|(s, _, _)| s == first.from);
        if nudge && color_of(pos, ids, first.id) != Some(mover) {
            all.remove(0);
        } else {
            break;
        }
    }
    // Sensor wobble is no touch.
    let real: Vec<Touch> = all
        .into_iter()
        .filter(|t| match t.placed {
            Some((s, tp, _)) if s == t.from => tp.saturating_sub(t.lifted) >= cfg.touch_min_ms,
            _ => true,
        })
        .collect();
    let king_rook = castle_pieces(ids, m);

    // 4.4.2: castling begun with the rook.
    if let Some((k, r)) = king_rook {
        let first_k = real.iter().position(|t| t.id == k);
        let first_r = real.iter().position(|t| t.id == r);
        if let (Some(fk), Some(fr)) = (first_k, first_r) {
            if fr < fk {
                let t = real[fr];
                return vec![Finding {
                    kind: AlertKind::CastlingRookFirst,
                    article: article(cfg.laws, Art::RookFirst),
                    squares: vec![t.from],
                    detail: format!(
                        "castling begun with the rook: {} lifted at {} before the king; then {}",
                        t.from,
                        clock_time(t.lifted),
                        move_text(m)
                    ),
                }];
            }
        }
    }

    let mut out = Vec::new();
    if let Some(f) = touch_move(turn, &real, pos, ids, m, mover, cfg) {
        out.push(f);
    }
    if let Some(f) = release(turn, &real, after, cfg) {
        out.push(f);
    }
    out
}

enum Art {
    Own,
    Opponent,
    Both,
    KingRook,
    RookFirst,
    Release,
}

fn article(laws: Edition, a: Art) -> &'static str {
    match (laws, a) {
        (Edition::Fide2023, Art::Own) => "4.3.1",
        (Edition::Fide2023, Art::Opponent) => "4.3.2",
        (Edition::Fide2023, Art::Both) => "4.3.3",
        (Edition::Fide2023, Art::KingRook) => "4.4.1",
        (Edition::Fide2023, Art::RookFirst) => "4.4.2",
        (Edition::Fide2023, Art::Release) => "4.6",
        (Edition::Fide2001, Art::Own) => "4.3(a)",
        (Edition::Fide2001, Art::Opponent) => "4.3(b)",
        (Edition::Fide2001, Art::Both) => "4.3(c)",
        (Edition::Fide2001, Art::KingRook) => "4.4(a)",
        (Edition::Fide2001, Art::RookFirst) => "4.4(b)",
        (Edition::Fide2001, Art::Release) => "4.7",
    }
}

fn color_of(pos: &Chess, ids: &IdMap, id: PieceId) -> Option<Color> {
    square_of(ids, id).and_then(|sq| pos.board().color_at(sq))
}

fn square_of(ids: &IdMap, id: PieceId) -> Option<Square> {
    ids.iter()
        .position(|&i| i == id)
        .map(|i| Square::new(i as u32))
}

fn castle_pieces(ids: &IdMap, m: Move) -> Option<(PieceId, PieceId)> {
    match m {
        Move::Castle { king, rook } => Some((ids[king as usize], ids[rook as usize])),
        _ => None,
    }
}

/// The square a capture by `m` empties of the opponent's piece.
fn captured_square(m: Move) -> Option<Square> {
    match m {
        Move::Normal {
            to,
            capture: Some(_),
            ..
        } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
fn touch_move(
    turn: &Ledger,
    real: &[Touch],
    pos: &Chess,
    ids: &IdMap,
    m: Move,
    mover: Color,
    cfg: Judge,
) -> Option<Finding> {
    let legal = pos.legal_moves();
    let can_move = |sq: Square| legal.iter().any(|l| l.from() == Some(sq));
    let can_capture = |sq: Square| legal.iter().any(|l| captured_square(*l) == Some(sq));
    // The touched pieces in the order first touched. The piece moved in an
    // illegal move was touched then (7.5.1); if its lift is not in this
    // turn's events (lines lost), it still counts, after what came before.
    let mut order: Vec<(PieceId, Square, Option<Touch>)> = Vec::new();
    for t in real {
        if !order.iter().any(|(id, _, _)| *id == t.id) {
            if let Some(sq) = square_of(ids, t.id) {
                order.push((t.id, sq, Some(*t)));
            }
        }
    }
    if let Some(f) = turn.forced {
        if let (false, Some(sq)) = (order.iter().any(|o| o.0 == f), square_of(ids, f)) {
            order.push((f, sq, None));
        }
    }
    let own = |sq: Square| pos.board().color_at(sq) == Some(mover);
    let first_own = order.iter().find(|(_, sq, _)| own(*sq));
    let first_opp = order.iter().find(|(_, sq, _)| !own(*sq));
    let moves_piece = |sq: Square| m.from() == Some(sq);
    let captures = |sq: Square| captured_square(m) == Some(sq);

    // What the Laws oblige, and under which article.
    let (ok, art, culprit): (bool, Art, Square) = match (first_own, first_opp) {
        (Some(&(_, o, to)), Some(&(_, x, tx))) => {
            // One of each, touched together (one lifted while the other was
            // still off its square): capture that piece with that piece.
            let together = match (to, tx) {
                (Some(a), Some(b)) => overlap(&a, &b),
                _ => false,
            };
            let pair_legal = legal
                .iter()
                .any(|l| l.from() == Some(o) && captured_square(*l) == Some(x));
            if together && pair_legal {
                (moves_piece(o) && captures(x), Art::Both, o)
            } else {
                // Else the first touched piece that can be moved or captured.
                let first = order.iter().find(|(_, sq, _)| {
                    if own(*sq) {
                        can_move(*sq)
                    } else {
                        can_capture(*sq)
                    }
                });
                let art = |own_piece: bool| match (together, own_piece) {
                    (true, _) => Art::Both,
                    (false, true) => Art::Own,
                    (false, false) => Art::Opponent,
                };
                match first {
                    None => return None, // 4.5
                    Some(&(_, sq, _)) if own(sq) => (moves_piece(sq), art(true), sq),
                    Some(&(_, sq, _)) => (captures(sq), art(false), sq),
                }
            }
        }
        (Some(_), None) => {
            let Some(&(_, sq, _)) = order.iter().find(|(_, sq, _)| can_move(*sq)) else {
                return None; // 4.5
            };
            // 4.4.1: king then rook touched, castling that way legal.
            let own_order: Vec<Square> = order.iter().map(|(_, s, _)| *s).collect();
            if let [k, r, ..] = own_order[..] {
                if pos.board().king_of(mover) == Some(k) {
                    let castle = legal.iter().find(
                        |l| matches!(l, Move::Castle { king, rook } if *king == k && *rook == r),
                    );
                    if let Some(c) = castle {
                        if sq == k {
                            return (*c != m).then(|| Finding {
                                kind: AlertKind::TouchMove,
                                article: article(cfg.laws, Art::KingRook),
                                squares: vec![k, r],
                                detail: format!(
                                    "king {k} then rook {r} touched: castling that way was legal; then {}",
                                    move_text(m)
                                ),
                            });
                        }
                    }
                }
            }
            (moves_piece(sq), Art::Own, sq)
        }
        (None, Some(_)) => {
            let &(_, sq, _) = order.iter().find(|(_, sq, _)| can_capture(*sq))?;
            (captures(sq), Art::Opponent, sq)
        }
        (None, None) => return None,
    };
    if ok {
        return None;
    }
    let touch = order
        .iter()
        .find(|(_, s, _)| *s == culprit)
        .and_then(|o| o.2);
    let what = match art {
        Art::Opponent => "could be captured",
        _ => "could move",
    };
    let evidence = match touch {
        Some(t) => describe_touch(&t),
        None => format!("{culprit} was moved in the illegal move"),
    };
    Some(Finding {
        kind: AlertKind::TouchMove,
        article: article(cfg.laws, art),
        squares: vec![culprit],
        detail: format!("{evidence} ({what}); then {}", move_text(m)),
    })
}

fn release(turn: &Ledger, real: &[Touch], after: &IdMap, cfg: Judge) -> Option<Finding> {
    for t in real {
        let Some((sq, placed_at, entry)) = t.placed else {
            continue;
        };
        if sq == t.from {
            continue;
        }
        // Did it stay there long enough to be released, and was that a
        // legal move?
        let next_lift = real
            .iter()
            .find(|u| u.id == t.id && u.lifted >= placed_at && u.from == sq)
            .map(|u| u.lifted);
        let Some(lifted_again) = next_lift else {
            continue;
        };
        if lifted_again.saturating_sub(placed_at) < cfg.release_min_ms {
            continue; // slid over the square
        }
        let e = &turn.entries[entry];
        let legal_there = e
            .reads
            .iter()
            .any(|map| map[sq as usize] == t.id && map != after);
        if legal_there && after[sq as usize] != t.id {
            return Some(Finding {
                kind: AlertKind::Release,
                article: article(cfg.laws, Art::Release),
                squares: vec![t.from, sq],
                detail: format!(
                    "{}-{sq} released at {} for {} (a legal move), then moved on",
                    t.from,
                    clock_time(placed_at),
                    seconds(lifted_again - placed_at)
                ),
            });
        }
    }
    None
}

/// Whether two touches had both pieces off their squares at once.
fn overlap(a: &Touch, b: &Touch) -> bool {
    let end = |t: &Touch| t.placed.map_or(u64::MAX, |(_, tp, _)| tp);
    a.lifted < end(b) && b.lifted < end(a)
}

fn describe_touch(t: &Touch) -> String {
    match t.placed {
        Some((sq, tp, _)) if sq == t.from => format!(
            "{} lifted {} for {} and put back",
            t.from,
            clock_time(t.lifted),
            seconds(tp.saturating_sub(t.lifted))
        ),
        Some((sq, tp, _)) => format!(
            "{} lifted {} and put on {sq} {}",
            t.from,
            clock_time(t.lifted),
            clock_time(tp)
        ),
        None => format!("{} lifted {}", t.from, clock_time(t.lifted)),
    }
}

fn move_text(m: Move) -> String {
    match m {
        Move::Castle { king, rook } => format!("castling {king}-{rook}"),
        _ => match m.from() {
            Some(f) => format!("{f}-{}", m.to()),
            None => m.to().to_string(),
        },
    }
}

/// Every lift and placement the table has followed, with whose clock ran:
/// the record that says when a claim window (2023 4.8 / 2001 4.6) closed.
#[derive(Debug, Clone, Default)]
pub struct TouchLog {
    notes: Vec<(u64, Kind, Square, Option<Color>, bool)>,
}

impl TouchLog {
    pub fn record(&mut self, e: &Entry) {
        if e.kind != Kind::Unseen {
            self.notes.push((e.t, e.kind, e.sq, e.running, e.clock));
        }
    }

    /// The time of `claimant`'s first touch after `after` (ms), as far as
    /// the board has told by `now`: a lift by the player whose clock ran
    /// (with no clock, any lift after the offending move: the offender's
    /// turn was over) that lasted at least `touch_min_ms`. While the clock
    /// is stopped lifts are corrections, not touches.
    pub fn first_touch(
        &self,
        claimant: Color,
        after: u64,
        now: u64,
        touch_min_ms: u64,
    ) -> Option<u64> {
        let start = self.notes.partition_point(|n| n.0 <= after);
        for (i, &(t, kind, sq, running, clock)) in self.notes.iter().enumerate().skip(start) {
            if kind != Kind::Lift || (clock && running != Some(claimant)) {
                continue;
            }
            let back = self.notes[i + 1..].iter().find(|n| n.2 == sq);
            let lasted = match back {
                Some(&(tb, Kind::Place, ..)) => tb - t >= touch_min_ms,
                Some(_) => true,
                None => now.saturating_sub(t) >= touch_min_ms,
            };
            if lasted {
                return Some(t);
            }
        }
        None
    }
}

/// Host time as `h:mm:ss.mmm`.
pub fn clock_time(ms: u64) -> String {
    let s = ms / 1000;
    format!(
        "{}:{:02}:{:02}.{:03}",
        s / 3600,
        (s / 60) % 60,
        s % 60,
        ms % 1000
    )
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}
