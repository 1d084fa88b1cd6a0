#!/usr/bin/env bash
# Replays recordings of games nobody has seen before and checks the moves.
#
#   scripts/unseen_check.sh [--alerts] [--keep] SEED [K]
#
# Generates K (default 6) fresh random games with scripts/random_games.py
# --seed SEED in a temporary directory, records each with
# ../shared/tools/tmsim.py in the styles clean, human and messy, with and
# without a clock, runs
#     cargo run --release -q -- replay --json FILES...
# and compares each recording's moves (and with --alerts the Article 4/7
# alerts) with the recording's `# expect-…` comments (scripts/check_replay.py).
# Prints PASS/FAIL per recording and `N passed, M failed`; exits 1 if any
# failed. --keep leaves the temporary directory in place (its path is printed).
set -euo pipefail

usage() { echo "usage: $0 [--alerts] [--keep] SEED [K]" >&2; exit 2; }

ALERTS=()
KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --alerts) ALERTS=(--alerts); shift ;;
        --keep) KEEP=1; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) usage ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
SEED=$1
K=${2:-6}
[[ "$SEED" =~ ^[0-9]+$ ]] || { echo "unseen_check: SEED must be a non-negative integer" >&2; exit 2; }
[[ "$K" =~ ^[1-9][0-9]*$ ]] || { echo "unseen_check: K must be a positive integer" >&2; exit 2; }

cd "$(dirname "$0")/.."   # the repository root
TMSIM=../shared/tools/tmsim.py
[ -f "$TMSIM" ] || { echo "unseen_check: $TMSIM not found (../shared must sit beside the repository)" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/touchmove-unseen.XXXXXX")
if [ "$KEEP" = 1 ]; then
    echo "unseen_check: files kept in $TMP"
else
    trap 'rm -rf "$TMP"' EXIT
fi

python3 scripts/random_games.py --seed "$SEED" -n "$K" -o "$TMP/games.pgn"

FILES=()
for idx in $(seq 0 $((K - 1))); do
    nn=$(printf '%02d' $((idx + 1)))
    si=0
    for style in clean human messy; do
        for clock in clock noclock; do
            f="$TMP/r$nn-$style-$clock.tmrec"
            opt=()
            [ "$clock" = noclock ] && opt=(--no-clock)
            # a distinct recording seed per file, derived from SEED
            python3 "$TMSIM" game "$TMP/games.pgn" --index "$idx" --style "$style" \
                --seed "$((SEED * 1000 + idx * 10 + si))" "${opt[@]}" -o "$f"
            FILES+=("$f")
            si=$((si + 1))
        done
    done
done

set +e
cargo run --release -q -- replay --json "${FILES[@]}" >"$TMP/replay.jsonl" 2>"$TMP/replay.err"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
    echo "unseen_check: replay exited with status $rc; its messages:" >&2
    head -n 20 "$TMP/replay.err" >&2
elif [ -s "$TMP/replay.err" ]; then
    echo "unseen_check: replay wrote to stderr:" >&2
    head -n 20 "$TMP/replay.err" >&2
fi

set +e
python3 scripts/check_replay.py --json "$TMP/replay.jsonl" "${ALERTS[@]}" "${FILES[@]}"
check_rc=$?
set -e
if [ "$check_rc" -ne 0 ] || [ "$rc" -ne 0 ]; then
    exit 1
fi
