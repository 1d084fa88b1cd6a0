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
