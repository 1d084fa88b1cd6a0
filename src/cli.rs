//! The command line: one binary, one subcommand per job (SPEC.md, "Command
//! line"). Each runner returns the process exit code; errors are printed
//! once, naming the file and line they concern.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::laws::{Category, Edition};
use crate::replay::replay_file;
use crate::table;

#[derive(Parser, Debug)]
#[command(
    name = "touchmove",
    version,
    about = "Tournament chess table daemon: reed-switch board and clock in, FIDE Article 4 evidence and live games out"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play famous games through simulated devices and the table; print each PGN.
    Demo {
        /// Play this many times faster than the simulated players (the
        /// default finishes every game within a minute).
        #[arg(long, default_value_t = 100.0)]
        speed: f64,
    },
    /// Feed TMREC recordings through the table with their recorded times.
    Replay {
        /// Recordings (`.tmrec`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Laws edition: fide-2023 or fide-2001.
        #[arg(long, default_value = "fide-2023", value_parser = parse_edition)]
        laws: Edition,
        /// Category: standard, rapid or blitz.
        #[arg(long, default_value = "standard", value_parser = parse_category)]
        category: Category,
        /// One JSON document per recording, one per line.
        #[arg(long)]
        json: bool,
    },
    /// The daemon: every configured table's board and clock, stored in SQLite.
    Run {
        /// The config file.
        #[arg(long, default_value = crate::config::DEFAULT_PATH)]
        config: PathBuf,
    },
    /// Check a config file and say precisely what is wrong with it.
    CheckConfig {
        /// The config file.
        #[arg(default_value = crate::config::DEFAULT_PATH)]
        file: PathBuf,
    },
    /// Write the stored games out.
    #[command(group(clap::ArgGroup::new("what").required(true).args(["pgn", "livechess"])))]
    #[command(group(clap::ArgGroup::new("from").args(["config", "db"])))]
    Export {
        /// The config whose database to read.
        #[arg(long)]
        config: Option<PathBuf>,
        /// The database file to read.
        #[arg(long)]
        db: Option<PathBuf>,
        /// Only this round.
        #[arg(long)]
        round: Option<u32>,
        /// All games as PGN on standard output.
        #[arg(long)]
        pgn: bool,
        /// LiveChess round folders under this directory.
        #[arg(long, value_name = "DIR")]
        livechess: Option<PathBuf>,
    },
    /// Record a live table's serial traffic to a TMREC file (until Ctrl-C).
    Record {
        /// The board's serial device.
        #[arg(long)]
        board: PathBuf,
        /// The clock's serial device.
        #[arg(long)]
        clock: Option<PathBuf>,
        /// The recording to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Article 6.9 / 5.2.2: can White checkmate, can Black, is the position dead.
    Verdict {
        /// Positions in FEN, quoted or not. With none, FENs are read from
        /// standard input, one per line (blank lines and lines starting
        /// with '#' are skipped).
        fens: Vec<String>,
        /// One JSON document per position, one per line.
        #[arg(long)]
        json: bool,
        /// Add each position's analysis time in microseconds (`us`).
        #[arg(long)]
        time: bool,
    },
}

fn parse_edition(s: &str) -> Result<Edition, String> {
    Edition::parse(s).ok_or_else(|| format!("{s:?} is not fide-2023 or fide-2001"))
}

fn parse_category(s: &str) -> Result<Category, String> {
    Category::parse(s).ok_or_else(|| format!("{s:?} is not standard, rapid or blitz"))
}

/// Parses the arguments and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    match cli.command {
        Command::Replay {
            files,
            laws,
            category,
            json,
        } => run_replay(&files, laws, category, json),
        Command::Demo { speed } => crate::demo::run(speed),
        Command::Verdict { fens, json, time } => run_verdict(&fens, json, time),
        Command::Run { config } => run_daemon(&config),
        Command::CheckConfig { file } => check_config(&file),
        Command::Export {
            config,
            db,
            round,
            pgn,
            livechess,
        } => run_export(config, db, round, pgn, livechess),
        Command::Record {
            board,
            clock,
            output,
        } => match crate::record::record(&board, clock.as_deref(), &output) {
            Ok(n) => {
                eprintln!("{}: {n} device lines recorded", output.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

fn run_daemon(path: &std::path::Path) -> ExitCode {
    let config = match crate::config::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    tracing::info!(
        "touchmove {}: {} tables, round {}, database {}",
        env!("CARGO_PKG_VERSION"),
        config.tables.len(),
        config.round,
        config.database().display()
    );
    match crate::daemon::run(&config, crate::daemon::Hooks::default()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn check_config(path: &std::path::Path) -> ExitCode {
    match crate::config::load(path) {
        Ok(c) => {
            println!(
                "{}: ok ({} tables, round {}, {} {}, database {})",
                path.display(),
                c.tables.len(),
                c.round,
                c.table.laws.name(),
                c.table.category.name(),
                c.database().display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}

fn run_export(
    config: Option<PathBuf>,
    db: Option<PathBuf>,
    round: Option<u32>,
    pgn: bool,
    livechess: Option<PathBuf>,
) -> ExitCode {
    let (db, tournament) = match (config, db) {
        (_, Some(db)) => (db, "touchmove".to_string()),
        (config, None) => {
            let path = config.unwrap_or_else(|| PathBuf::from(crate::config::DEFAULT_PATH));
            match crate::config::load(&path) {
                Ok(c) => (c.database(), c.tournament),
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let store = match crate::store::Store::open_existing(&db) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let done = if pgn {
        crate::export::pgn(&store, round).map(|text| {
            print!("{text}");
        })
    } else {
        let dir = livechess.expect("clap requires --pgn or --livechess");
        crate::export::livechess(&store, &dir, &tournament, round).map(|files| {
            eprintln!("{}: {} files written", dir.display(), files.len());
        })
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_replay(files: &[PathBuf], laws: Edition, category: Category, json: bool) -> ExitCode {
    let cfg = table::Config {
        laws,
        category,
        ..table::Config::default()
    };
    let mut failed = false;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for f in files {
        match replay_file(f, &cfg) {
            Ok(r) => {
                for w in &r.warnings {
                    eprintln!("warning: {w}");
                }
                let text = if json {
                    r.to_json() + "\n"
                } else {
                    r.pgn.clone()
                };
                if out.write_all(text.as_bytes()).is_err() {
                    return ExitCode::FAILURE;
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `verdict`: each FEN from the arguments (or standard input, one a line)
/// is analysed and printed as soon as it is done; a bad one is reported,
/// naming its argument or line, and the rest still run.
fn run_verdict(fens: &[String], json: bool, time: bool) -> ExitCode {
    use crate::verdict::{analyse, group_fen_args, parse_fen};
    use std::io::BufRead;

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    // Analyses one input and writes the answer: Ok(false) if the FEN was
    // bad (and reported), Err once stdout is gone.
    let mut one = |fen: &str, at: &str, line: Option<usize>| -> std::io::Result<bool> {
        let pos = match parse_fen(fen) {
            Ok(pos) => pos,
            Err(e) => {
                eprintln!("error: {at}: {e}: {fen:?}");
                return Ok(false);
            }
        };
        let start = std::time::Instant::now();
        let v = analyse(&pos);
        let us = start.elapsed().as_micros();
        let text = if json {
            v.to_json(fen, line, time.then_some(us)) + "\n"
        } else if time {
            format!("{fen}\n{}  analysed in {us} µs\n\n", v.describe(&pos))
        } else {
            format!("{fen}\n{}\n", v.describe(&pos))
        };
        out.write_all(text.as_bytes()).map(|()| true)
    };
    if fens.is_empty() {
        let mut input = std::io::stdin().lock();
        let mut n = 0;
        loop {
            n += 1;
            let mut buf = Vec::new();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    eprintln!("error: stdin line {n}: {e}");
                    return ExitCode::FAILURE;
                }
            }
            let Ok(text) = String::from_utf8(buf) else {
                eprintln!("error: stdin line {n}: not text (UTF-8 expected)");
                failed = true;
                continue;
            };
            let fen = text.trim();
            if fen.is_empty() || fen.starts_with('#') {
                continue;
            }
            match one(fen, &format!("stdin line {n}"), Some(n)) {
                Ok(good) => failed |= !good,
                Err(_) => return ExitCode::FAILURE,
            }
        }
    } else {
        for (fen, at) in group_fen_args(fens) {
            match one(&fen, &at, None) {
                Ok(good) => failed |= !good,
                Err(_) => return ExitCode::FAILURE,
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
