//! Prints every table effect of a recording, with the line that caused it:
//! `cargo run --example trace -- FILE.tmrec [FROM_LINE TO_LINE]`.
use touchmove::link::{BoardLink, ClockLink};
use touchmove::table::{Config, Table};
use touchmove::wire::{Device, Direction, Recording};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable");
    let from: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let to: usize = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let rec = Recording::parse(&text);
    let mut table = Table::new(Config::default());
    let (mut b, mut c) = (BoardLink::default(), ClockLink::default());
    for (n, r) in rec.records() {
        if r.dir != Direction::FromDevice {
            continue;
        }
        let (evs, _) = match r.device {
            Device::Board => b.feed(&r.line),
            Device::Clock => c.feed(&r.line),
        };
        for ev in evs {
            let show =
                n >= from && n <= to && !matches!(ev, touchmove::table::Event::ClockTime { .. });
            if show {
                println!("{n}: {} {:?}", r.t_ms, ev);
            }
            for e in table.handle(r.t_ms, ev) {
                if show {
                    println!("    -> {e:?}");
                }
            }
        }
    }
    for e in table.finish(u64::MAX / 2) {
        println!("finish -> {e:?}");
    }
    println!("{}", table.sans().join(" "));
}
