//! Article 6.9 / 5.2.2 analysis time (`touchmove::verdict`) on a few
//! positions of different kinds: `cargo bench --bench verdict`.

use criterion::{criterion_group, criterion_main, Criterion};
use shakmaty::Color;
use touchmove::verdict::{analyse, flag_verdict, is_dead_fast, parse_fen};

const POSITIONS: &[(&str, &str)] = &[
    (
        "initial",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    ("bare-kings", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
    ("laws-forced-capture", "8/8/8/8/8/1pp5/1kp5/Q3K3 b - - 0 1"),
    ("knight-vs-knight", "8/8/3nk3/8/8/3NK3/8/8 w - - 0 1"),
    (
        "locked-wall",
        "k7/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/K7 w - - 0 1",
    ),
    (
        "wall-one-side",
        "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1",
    ),
    (
        "middlegame",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9",
    ),
];

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("verdict");
    for (name, fen) in POSITIONS {
        let pos = parse_fen(fen).expect("benchmark FEN");
        g.bench_function(format!("analyse/{name}"), |b| b.iter(|| analyse(&pos)));
        g.bench_function(format!("dead-fast/{name}"), |b| {
            b.iter(|| is_dead_fast(&pos))
        });
        g.bench_function(format!("flag/{name}"), |b| {
            b.iter(|| flag_verdict(&pos, Color::White))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
