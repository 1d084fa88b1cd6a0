#!/usr/bin/env bash
# How `touchmove verdict` does on the labelled positions of
# ../shared/data/unwinnability/ (positions.txt and lichess.txt).
#
#   scripts/verdict_stats.sh [FILE...]
#
# Builds the release binary, feeds each file to
#     touchmove verdict --json --time
# with the two-character codes stripped (comment lines kept, so the JSON
# "line" numbers are the file's), and compares the answers with the codes.
# Prints per file: agreement (unknown counts as disagreement), soundness
# errors (a side labelled winnable called unwinnable), wrongly winnable
# answers, unknowns, bad lines, and the median and worst analysis time per
# position. Exits 1 on any soundness error, agreement below 99.9% or a
# position the binary could not read.
set -euo pipefail

cd "$(dirname "$0")/.."   # the repository root
DATA=../shared/data/unwinnability
if [ $# -eq 0 ]; then
    set -- "$DATA/positions.txt" "$DATA/lichess.txt"
fi
for f in "$@"; do
    [ -f "$f" ] || { echo "verdict_stats: $f not found (../shared must sit beside the repository)" >&2; exit 2; }
done

cargo build --release -q
BIN=target/release/touchmove
TMP=$(mktemp -d "${TMPDIR:-/tmp}/touchmove-verdict.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

status=0
for f in "$@"; do
    set +e
    sed -E '/^#/!s/^.. //' "$f" | "$BIN" verdict --json --time >"$TMP/out.jsonl" 2>"$TMP/err.txt"
    rc=$?
    set -e
    python3 - "$f" "$TMP/out.jsonl" "$TMP/err.txt" "$rc" <<'PY' || status=1
import json, sys

labels_path, out_path, err_path, rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
labels = {}
with open(labels_path) as f:
    for n, line in enumerate(f, 1):
        line = line.rstrip("\n")
        if line.strip() and not line.startswith("#"):
            labels[n] = (line[0] == "W", line[1] == "B")
answers = {}
times = []
with open(out_path) as f:
    for line in f:
        doc = json.loads(line)
        answers[doc["line"]] = doc
        times.append(doc["us"])
errors = open(err_path).read().splitlines()

agree = unsound = wrongly_winnable = unknown = 0
examples = []
for n, (want_w, want_b) in labels.items():
    doc = answers.get(n)
    if doc is None:
        examples.append(f"line {n}: no answer")
        continue
    ok = True
    for side, want in (("white", want_w), ("black", want_b)):
        got = doc[side]
        if got == "unknown":
            unknown += 1
            ok = False
        elif got == "unwinnable" and want:
            unsound += 1
            ok = False
            examples.append(f"line {n}: {side} unwinnable but labelled winnable: {doc['fen']}")
        elif got == "winnable" and not want:
            wrongly_winnable += 1
            ok = False
            examples.append(f"line {n}: {side} winnable but labelled unwinnable: {doc['fen']}")
    agree += ok

total = len(labels)
times.sort()
median = times[len(times) // 2] if times else 0
worst = times[-1] if times else 0
rate = agree / total if total else 0.0
name = labels_path.rsplit("/", 1)[-1]
print(f"{name}: {agree}/{total} agree ({100 * rate:.3f}%); soundness errors {unsound}; "
      f"wrongly winnable {wrongly_winnable}; unknown {unknown}; bad lines {len(errors)}; "
      f"time per position median {median} µs, worst {worst / 1000:.1f} ms")
for e in examples[:10]:
    print("  " + e)
for e in errors[:10]:
    print("  " + e)
sys.exit(1 if unsound or rate < 0.999 or errors or rc != 0 else 0)
PY
done
exit $status
