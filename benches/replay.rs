//! Replay throughput: recorded device lines through the links and the table,
//! as `touchmove replay` and the live daemon feed them.
//!
//! Each recording is read and parsed once, outside the timing loop; the
//! timed part is [`replay`] (links, table, `finish`, PGN). Throughput is
//! counted in device lines fed (`board>` and `clock>` records), so criterion
//! reports elements/s = device lines per second. A second group times
//! `Recording::parse` itself, in bytes per second.
//!
//!     cargo bench --bench replay          # or scripts/bench.sh for a summary

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use touchmove::replay::replay;
use touchmove::table::Config;
use touchmove::wire::{Direction, Recording};

/// The recordings timed: a long messy LiveChess game (damaged and lost
/// lines), the same game played cleanly, and a random game played by a
/// human style without a clock; and a short recording with lines lost and
/// no snapshot coming.
const FIXTURES: [&str; 4] = [
    "tests/fixtures/livechess/t2r1-g08-messy.tmrec",
    "tests/fixtures/livechess/t2r1-g08-clean.tmrec",
    "tests/fixtures/random/r03-human-noclock.tmrec",
    // Lines lost and no snapshot to settle them (heartbeats off): the
    // search for what the lost lines were is bounded; this measures it.
    "benches/lost-lines-no-heartbeat.tmrec",
];

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn name(rel: &str) -> &str {
    Path::new(rel)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(rel)
}

fn bench_replay(c: &mut Criterion) {
    let cfg = Config::default();
    let mut group = c.benchmark_group("replay");
    // A long replay takes tens of ms: the same iteration count per sample
    // keeps 20 samples within the measurement time.
    group.sampling_mode(SamplingMode::Flat);
    for rel in FIXTURES {
        let rec = Recording::parse(&read(rel));
        let lines = rec
            .records()
            .filter(|(_, r)| r.dir == Direction::FromDevice)
            .count() as u64;
        // Say what is being timed, once, so a regression in what is read
        // (not only in how fast) shows in the log.
        let out = replay(&rec, rel, &cfg);
        eprintln!(
            "{}: {lines} device lines, {} table events, {} moves, {} alerts, result {}",
            name(rel),
            out.events,
            out.moves.len(),
            out.alerts.len(),
            out.result
        );
        group.throughput(Throughput::Elements(lines));
        group.bench_function(name(rel), |b| b.iter(|| replay(black_box(&rec), rel, &cfg)));
    }
    group.finish();
}

fn bench_parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    let rel = FIXTURES[0];
    let text = read(rel);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function(name(rel), |b| b.iter(|| Recording::parse(black_box(&text))));
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_replay, bench_parse
}
criterion_main!(benches);
