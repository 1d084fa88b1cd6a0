#!/usr/bin/env bash
# Regenerates the TMREC test fixtures under tests/fixtures/ from scratch.
#
#   scripts/make_fixtures.sh
#
# Deterministic: fixed seeds everywhere, so a rerun gives identical files.
# Needs python3 with python-chess (pip install chess) and ../shared/tools/tmsim.py
# (the shared tree beside the repository).
#
#   tests/fixtures/livechess/t2r1-gNN-STYLE.tmrec
#       board NN (01..12) of ../shared/data/livechess-sample/tournament-2/round-1,
#       styles clean, human, messy; with a clock.
#   tests/fixtures/random/games.pgn
#       RANDOM_N random legal games (scripts/random_games.py, seed RANDOM_SEED).
#   tests/fixtures/random/rNN-STYLE-clock.tmrec, rNN-STYLE-noclock.tmrec
#       game NN (01..RANDOM_N) of games.pgn, each style, with and without a clock.
set -euo pipefail

cd "$(dirname "$0")/.."   # the repository root

TMSIM=../shared/tools/tmsim.py
LIVECHESS=../shared/data/livechess-sample/tournament-2/round-1/games.pgn
RANDOM_N=12
RANDOM_SEED=3            # chosen: its 12 games hold every feature (see below)
STYLES=(clean human messy)
SIZE_LIMIT_KB=$((25 * 1024))

die() { echo "make_fixtures: $*" >&2; exit 1; }
[ -f "$TMSIM" ] || die "$TMSIM not found (run from a checkout with ../shared beside it)"
[ -f "$LIVECHESS" ] || die "$LIVECHESS not found"
python3 -c 'import chess' 2>/dev/null || die "python-chess is missing (pip install chess)"

OUT=tests/fixtures
rm -rf "$OUT/livechess" "$OUT/random"
mkdir -p "$OUT/livechess" "$OUT/random"

# --- a. the LiveChess sample games, with a clock
n_live=$(grep -c '^\[Event ' "$LIVECHESS")
[ "$n_live" -ge 12 ] || die "$LIVECHESS holds $n_live games, expected 12"
for idx in $(seq 0 11); do
    nn=$(printf '%02d' $((idx + 1)))
    for si in 0 1 2; do
        style=${STYLES[$si]}
        seed=$((1000 + (idx + 1) * 10 + si))
        python3 "$TMSIM" game "$LIVECHESS" --index "$idx" --style "$style" --seed "$seed" \
            -o "$OUT/livechess/t2r1-g$nn-$style.tmrec"
    done
done

# --- b. random games, with and without a clock
python3 scripts/random_games.py --seed "$RANDOM_SEED" -n "$RANDOM_N" -o "$OUT/random/games.pgn"
for idx in $(seq 0 $((RANDOM_N - 1))); do
    nn=$(printf '%02d' $((idx + 1)))
    for si in 0 1 2; do
        style=${STYLES[$si]}
        seed=$((2000 + (idx + 1) * 10 + si * 2))
        python3 "$TMSIM" game "$OUT/random/games.pgn" --index "$idx" --style "$style" \
            --seed "$seed" -o "$OUT/random/r$nn-$style-clock.tmrec"
        python3 "$TMSIM" game "$OUT/random/games.pgn" --index "$idx" --style "$style" \
            --seed "$((seed + 1))" --no-clock -o "$OUT/random/r$nn-$style-noclock.tmrec"
    done
done

# --- well formed? (tmsim's own checker: checksums and sequence counters; the
# messy recordings are meant to show a few bad checksums and seq gaps)
for f in "$OUT/livechess/t2r1-g01-clean.tmrec" "$OUT/livechess/t2r1-g08-messy.tmrec" \
         "$OUT/random/r01-human-clock.tmrec" "$OUT/random/r04-messy-noclock.tmrec"; do
    echo "check $f: $(python3 "$TMSIM" check "$f" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
done

n_files=$(find "$OUT" -name '*.tmrec' | wc -l)
size_kb=$(du -sk "$OUT" | cut -f1)
echo "$n_files recordings; $(du -sh "$OUT" | cut -f1) in $OUT"
if [ "$size_kb" -gt "$SIZE_LIMIT_KB" ]; then
    echo "make_fixtures: warning: $OUT is over 25 MB; lower RANDOM_N" >&2
fi
