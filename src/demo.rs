//! `touchmove demo`: placeholder until the simulator lands.

pub fn run(_speed: f64) -> std::process::ExitCode {
    std::process::ExitCode::FAILURE
}
