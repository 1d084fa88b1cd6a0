//! `touchmove`: see the library for everything; this only hands over.

fn main() -> std::process::ExitCode {
    touchmove::cli::main()
}
