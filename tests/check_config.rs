//! `touchmove check-config`: the example installed with the package is
//! valid, and a bad file is answered with file, line and field, exit 2.

use std::process::Command;

fn check(path: &std::path::Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_touchmove"))
        .arg("check-config")
        .arg(path)
        .output()
        .expect("touchmove runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn the_example_config_is_valid() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/touchmove.toml");
    let (code, out, err) = check(&path);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok (2 tables"), "{out}");
}

#[test]
fn every_problem_is_named_by_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        "round = 1\nlaws = \"fide-1999\"\ndisplaced_ms = 10\n\n[[table]]\nboard = 1\ndevice = \"/dev/touchmove/board-A\"\n\n[[table]]\nboard = 1\ndevice = \"/dev/touchmove/board-A\"\n",
    )
    .unwrap();
    let (code, _, err) = check(&path);
    assert_eq!(code, 2);
    let lines: Vec<&str> = err.lines().collect();
    let p = path.display().to_string();
    assert_eq!(lines.len(), 4, "{err}");
    assert!(lines[0].starts_with(&format!("{p}:2: laws: ")), "{err}");
    assert!(
        lines[1].starts_with(&format!("{p}:3: displaced_ms: ")),
        "{err}"
    );
    assert!(
        lines[2].starts_with(&format!("{p}:10: table[2].board: ")),
        "{err}"
    );
    assert!(
        lines[3].starts_with(&format!("{p}:11: table[2].device: ")),
        "{err}"
    );
}

#[test]
fn a_missing_file_is_named() {
    let (code, _, err) = check(std::path::Path::new("/nonexistent/touchmove.toml"));
    assert_eq!(code, 2);
    assert!(
        err.contains("/nonexistent/touchmove.toml") && err.contains("cannot read"),
        "{err}"
    );
}
