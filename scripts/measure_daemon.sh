#!/usr/bin/env bash
# The daemon's resident memory and CPU with N simulated tables (default 16),
# the figures the README quotes:
#   idle  - devices connected, heartbeats on, nobody moving, for SECONDS
#   play  - the famous games played at 10x real pace, for SECONDS
#
#   scripts/measure_daemon.sh [N] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-16}
SECS=${2:-30}
cargo build --release -q --bin touchmove --example tables
TICKS=$(getconf CLK_TCK)
for mode in idle play; do
    DIR=$(mktemp -d)
    coproc SIM { target/release/examples/tables "$N" "$DIR" "$mode" 10; }
    read -r CONFIG <&"${SIM[0]}"
    target/release/touchmove run --config "$CONFIG" 2>/dev/null &
    PID=$!
    sleep 3   # devices opened, tables rebuilt
    read -r -a S0 < "/proc/$PID/stat"
    sleep "$SECS"
    read -r -a S1 < "/proc/$PID/stat"
    RSS=$(awk '/VmRSS/ {print $2}' "/proc/$PID/status")
    HWM=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
    CPU=$(( (S1[13] + S1[14]) - (S0[13] + S0[14]) ))
    PCT=$(awk -v c="$CPU" -v t="$TICKS" -v s="$SECS" 'BEGIN { printf "%.2f", 100 * c / t / s }')
    LINES=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from raw_log').fetchone()[0])" "$DIR/state/touchmove.db")
    echo "$mode: $N tables, ${SECS}s: RSS $((RSS / 1024)) MB (peak $((HWM / 1024)) MB), CPU $PCT% of one core, $LINES lines stored"
    kill -TERM "$PID"; wait "$PID" || true
    kill "$SIM_PID" 2>/dev/null || true
    rm -rf "$DIR"
done
