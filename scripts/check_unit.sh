#!/usr/bin/env bash
# Checks systemd/touchmove.service as systemd will read it:
#   systemd-analyze verify         (no warnings)
#   systemd-analyze security       (exposure 2.0 or lower)
# The unit names /usr/bin/touchmove, which exists only once the .deb is
# installed: a copy pointing at the binary built here is checked instead.
#
#   scripts/check_unit.sh [BINARY]     (default target/debug/touchmove)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-target/debug/touchmove}")
[ -x "$BIN" ] || { echo "check_unit: $BIN not built (cargo build first)" >&2; exit 2; }
command -v systemd-analyze >/dev/null || { echo "check_unit: systemd-analyze missing (apt-get install systemd)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
sed "s#/usr/bin/touchmove#$BIN#g" systemd/touchmove.service > "$TMP/touchmove.service"
OUT=$(systemd-analyze verify "$TMP/touchmove.service" 2>&1) || { echo "$OUT"; echo "check_unit: verify failed" >&2; exit 1; }
[ -z "$OUT" ] || { echo "$OUT"; echo "check_unit: verify printed warnings" >&2; exit 1; }
REPORT=$(systemd-analyze security --offline=yes "$TMP/touchmove.service" 2>&1)
LEVEL=$(echo "$REPORT" | sed -n 's/.*Overall exposure level for touchmove.service: \([0-9.]*\).*/\1/p')
[ -n "$LEVEL" ] || { echo "$REPORT"; echo "check_unit: no exposure level found" >&2; exit 1; }
echo "systemd/touchmove.service: verify clean; security exposure $LEVEL (goal: 2.0 or lower)"
awk -v l="$LEVEL" 'BEGIN { exit !(l <= 2.0) }' || { echo "$REPORT"; exit 1; }
