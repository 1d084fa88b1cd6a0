//! A board that senses which piece stands on a square (DGT style) feeds the
//! same table: its placements carry the piece, which narrows the
//! hypotheses — a promotion piece is then known, not assumed.

use shakmaty::{san::SanPlus, Bitboard, CastlingSide, Chess, Color, Move, Piece, Position, Square};
use touchmove::table::{Config, Event, Table};

/// Plays `sans` as lifts and identified placements, with presses.
fn play(table: &mut Table, pos: &mut Chess, t: &mut u64, sans: &[&str]) {
    for san in sans {
        let m = san.parse::<SanPlus>().unwrap().san.to_move(pos).unwrap();
        let mover = pos.turn();
        let piece_at = |p: &Chess, sq: Square| p.board().piece_at(sq);
        let mut evs = Vec::new();
        match m {
            Move::Normal {
                from,
                to,
                capture,
                promotion,
                ..
            } => {
                let moved = piece_at(pos, from).unwrap();
                evs.push(Event::Lift(from));
                if capture.is_some() {
                    evs.push(Event::Lift(to));
                }
                let placed = Piece {
                    color: moved.color,
                    role: promotion.unwrap_or(moved.role),
                };
                evs.push(Event::Place(to, Some(placed)));
            }
            Move::EnPassant { from, to } => {
                evs.push(Event::Lift(from));
                evs.push(Event::Lift(Square::from_coords(to.file(), from.rank())));
                evs.push(Event::Place(to, Some(mover.pawn())));
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(rook.file() > king.file());
                evs.push(Event::Lift(king));
                evs.push(Event::Lift(rook));
                evs.push(Event::Place(
                    Square::from_coords(side.rook_to_file(), king.rank()),
                    Some(mover.rook()),
                ));
                evs.push(Event::Place(
                    Square::from_coords(side.king_to_file(), king.rank()),
                    Some(mover.king()),
                ));
            }
            Move::Put { .. } => unreachable!(),
        }
        for ev in evs {
            *t += 300;
            table.handle(*t, ev);
        }
        pos.play_unchecked(m);
        *t += 300;
        let (w, b) = (60_000, 60_000);
        table.handle(
            *t,
            Event::Press {
                side: mover,
                white_ms: w,
                black_ms: b,
            },
        );
    }
}

fn start() -> (Table, Chess, u64) {
    let mut table = Table::new(Config::default());
    table.handle(
        0,
        Event::BoardHello {
            serial: "DGT".into(),
        },
    );
    table.handle(1, Event::Snapshot(Chess::default().board().occupied()));
    table.handle(2, Event::ClockHello { serial: "C".into() });
    (table, Chess::default(), 10)
}

#[test]
fn a_knight_promotion_is_seen_not_assumed() {
    let (mut table, mut pos, mut t) = start();
    let moves = ["h4", "g5", "hxg5", "h6", "gxh6", "Nf6", "h7", "Rg8", "h8=N"];
    play(&mut table, &mut pos, &mut t, &moves);
    assert_eq!(table.sans(), moves);
    assert!(
        table
            .alerts()
            .iter()
            .all(|a| a.kind.name() != "promotion-assumed"),
        "{:?}",
        table.alerts()
    );
}

#[test]
fn a_whole_game_with_identified_pieces() {
    let (mut table, mut pos, mut t) = start();
    // The Opera Game (Morphy, Paris 1858).
    let moves = [
        "e4", "e5", "Nf3", "d6", "d4", "Bg4", "dxe5", "Bxf3", "Qxf3", "dxe5", "Bc4", "Nf6", "Qb3",
        "Qe7", "Nc3", "c6", "Bg5", "b5", "Nxb5", "cxb5", "Bxb5+", "Nbd7", "O-O-O", "Rd8", "Rxd7",
        "Rxd7", "Rd1", "Qe6", "Bxd7+", "Nxd7", "Qb8+", "Nxb8", "Rd8#",
    ];
    play(&mut table, &mut pos, &mut t, &moves);
    assert_eq!(table.sans(), moves);
    assert_eq!(table.result(), "1-0");
}

#[test]
fn a_piece_the_board_names_wrongly_falls_back_to_the_occupancy() {
    // The board says a black queen was put on e4 after e2 was lifted: no
    // hypothesis allows it, so nothing is read from the placement itself;
    // the snapshot's occupancy then identifies e2-e4 on its own, and the
    // arbiter is told the board did not fit.
    let (mut table, _, _) = start();
    table.handle(100, Event::Lift(Square::E2));
    table.handle(400, Event::Place(Square::E4, Some(Color::Black.queen())));
    assert!(table.sans().is_empty());
    table.handle(
        700,
        Event::Press {
            side: Color::White,
            white_ms: 1,
            black_ms: 1,
        },
    );
    let occ = Chess::default().board().occupied()
        ^ Bitboard::from(Square::E2)
        ^ Bitboard::from(Square::E4);
    table.handle(900, Event::Snapshot(occ));
    assert_eq!(table.sans(), ["e4"]);
    assert!(table.alerts().iter().any(|a| a.kind.name() == "board-gap"));
    assert!(table
        .alerts()
        .iter()
        .all(|a| a.kind.name() != "illegal-move"));
}
