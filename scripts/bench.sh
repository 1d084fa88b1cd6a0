#!/usr/bin/env bash
# Replay throughput, summarised for the README.
#
#   scripts/bench.sh [CRITERION ARGS...]
#
# Runs `cargo bench --bench replay` (benches/replay.rs: whole recordings
# through the links and the table, parsing excluded; and Recording::parse
# alone) and prints, after criterion's own report, a Markdown table of the
# throughput of each benchmark (criterion's point estimate): device lines per second for a replay,
# bytes per second for parsing. Extra arguments go to criterion (a name
# filter, --save-baseline NAME, ...). The full log is kept in
# target/bench-replay.log.
set -euo pipefail

cd "$(dirname "$0")/.."
log=target/bench-replay.log
mkdir -p target

cargo bench --bench replay -- "$@" 2>&1 | tee "$log"

# Criterion prints, per benchmark, its name (alone on a line when it is
# long), a "time:" line and a "thrpt:" line, each [low estimate high]; after
# a previous run, a "change:" block with the same lines in percent.
awk '
    /^Benchmarking / { next }
    # The bench says what each recording holds: "NAME: N device lines, ...".
    / device lines, / { k = $1; sub(/:$/, "", k); count[k] = $2; next }
    /^[^ \t]/ && /time:/ { name = $1; time = $0 }
    /^[A-Za-z0-9_.\/-]+$/ { name = $1 }
    /^[ \t]+time:/ { time = $0 }
    /thrpt:/ {
        t = time; sub(/.*\[/, "", t); sub(/\].*/, "", t); split(t, tv, " ")
        r = $0;   sub(/.*\[/, "", r); sub(/\].*/, "", r); split(r, rv, " ")
        # The "change:" block against the last run has thrpt lines too, in %.
        if (rv[4] !~ /\/s$/) next
        k = name; sub(/.*\//, "", k)
        what = (name ~ /^replay\// && k in count) ? count[k] " lines" : "-"
        rows[++n] = sprintf("| %s | %s | %s %s | %s %s |", name, what, rv[3], rv[4], tv[3], tv[4])
    }
    END {
        if (n == 0) { print "no throughput figures found in the log" > "/dev/stderr"; exit 1 }
        print ""
        print "Replay throughput (`scripts/bench.sh`, criterion point estimates;"
        print "elem = one device line through the link and the table, parsing excluded):"
        print ""
        print "| benchmark | device lines | throughput | time per run |"
        print "| --- | --- | --- | --- |"
        for (i = 1; i <= n; i++) print rows[i]
    }
' "$log"

echo
echo "($(rustc --version | cut -d' ' -f1-2), $(uname -m), $(nproc) CPU; $(date -u +%Y-%m-%d))"
