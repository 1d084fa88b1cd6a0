#!/usr/bin/env python3
"""Compare `touchmove replay --json` output with the intent written into
TMREC recordings by tmsim (`# expect-move:` and `# expect-alert:` comments).

    check_replay.py --json OUT.jsonl [--alerts] FILE.tmrec...

Each JSON line is matched to a recording by its `file` field (the path given
to `replay` on its command line; a path naming the same file also matches).

Moves: the `moves` array must equal the expected moves ply by ply, compared
as SAN without check/mate marks (`+`, `#`) and without the promotion piece
(`=Q`, `=N`, ...): a presence-only board cannot see which piece was put down.

--alerts: also compare the alerts of the kinds touch-move, release,
castling-rook-first and illegal-move as sets of (ply, kind); any missing or
extra one fails the file. Other kinds are not compared.

Prints PASS/FAIL per recording and a last line `N passed, M failed`; exits 1
if any failed, 2 on bad usage or unreadable input.
"""
import argparse
import json
import os
import re
import sys

COMPARED_ALERTS = ("touch-move", "release", "castling-rook-first", "illegal-move")

MOVE_RE = re.compile(r"^#\s*expect-move:\s*(\d+)\s+(\S+)\s*$")
ALERT_RE = re.compile(r"^#\s*expect-alert:\s*(\d+)\s+(\S+)\s*$")


def norm_san(san):
    """SAN without check/mate marks and without a promotion piece."""
    s = str(san).strip().rstrip("+#!?")
    s = re.sub(r"(?<=[1-8])=?[QRBNqrbn]$", "", s)
    return s.replace("0-0-0", "O-O-O").replace("0-0", "O-O")


def read_expectations(path):
    moves = {}
    alerts = set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, raw in enumerate(f, 1):
            if not raw.startswith("#"):
                continue
            m = MOVE_RE.match(raw)
            if m:
                ply = int(m.group(1))
                if ply in moves:
                    raise ValueError(f"{path}:{n}: ply {ply} expected twice")
                moves[ply] = m.group(2)
                continue
            m = ALERT_RE.match(raw)
            if m:
                alerts.add((int(m.group(1)), m.group(2)))
    plies = sorted(moves)
    if plies != list(range(1, len(plies) + 1)):
        raise ValueError(f"{path}: expect-move plies are not 1..{len(plies)}")
    return [moves[p] for p in plies], alerts


def path_key(p):
    try:
        return os.path.realpath(p)
    except (OSError, ValueError):
        return p


def read_outputs(path):
    """file field -> parsed JSON object; also by real path."""
    exact, real = {}, {}
    f = sys.stdin if path == "-" else open(path, encoding="utf-8")
    with f:
        for n, raw in enumerate(f, 1):
            raw = raw.strip()
            if not raw:
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as e:
                print(f"check_replay: {path}:{n}: not JSON ({e}): {raw[:80]}", file=sys.stderr)
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("file"), str):
                print(f"check_replay: {path}:{n}: no `file` field", file=sys.stderr)
                continue
            exact[obj["file"]] = obj
            real.setdefault(path_key(obj["file"]), obj)
    return exact, real


def expected_uci(expected):
    """The expected moves as UCI without the promotion letter (python-chess
    plays the real game, promotion pieces included); None if unavailable."""
    try:
        import chess
    except ImportError:
        return None
    board = chess.Board()
    out = []
    for san in expected:
        try:
            mv = board.parse_san(san)
        except ValueError:
            return None
        out.append(mv.uci()[:4])
        board.push(mv)
    return out


def compare_moves(expected, got, got_uci=None):
    """None if equal, else a message naming the first differing ply.

    With `got_uci` (the output's `uci` array), a move by a promoted piece
    counts as equal when it goes from and to the same squares: a
    presence-only board cannot tell a promoted rook from a queen, so its
    SAN letter may differ (the promotion piece aside)."""
    if not isinstance(got, list):
        return "`moves` is missing or not an array"
    exp_uci = expected_uci(expected) if isinstance(got_uci, list) else None
    for i, (e, g) in enumerate(zip(expected, got)):
        if norm_san(e) != norm_san(g):
            if exp_uci is not None and i < len(got_uci) and i < len(exp_uci) \
                    and str(got_uci[i])[:4] == exp_uci[i]:
                continue
            return f"ply {i + 1}: expected {e}, got {g}"
    if len(got) < len(expected):
        return f"ply {len(got) + 1}: expected {expected[len(got)]}, got nothing " \
               f"({len(got)} of {len(expected)} moves)"
    if len(got) > len(expected):
        return f"ply {len(expected) + 1}: expected nothing, got {got[len(expected)]} " \
               f"({len(got)} moves, {len(expected)} expected)"
    return None


def compare_alerts(expected, got):
    """List of messages (empty if the compared alerts agree)."""
    if not isinstance(got, list):
        return ["`alerts` is missing or not an array"]
    want = {(p, k) for p, k in expected if k in COMPARED_ALERTS}
    have = set()
    for a in got:
        if isinstance(a, dict) and a.get("kind") in COMPARED_ALERTS:
            try:
                have.add((int(a.get("ply")), a["kind"]))
            except (TypeError, ValueError):
                return [f"alert without a numeric ply: {a}"]
    out = []
    missing = sorted(want - have)
    extra = sorted(have - want)
    if missing:
        out.append("missing alerts " + ", ".join(f"{k}@{p}" for p, k in missing))
    if extra:
        out.append("extra alerts " + ", ".join(f"{k}@{p}" for p, k in extra))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", required=True, help="replay --json output (one object per line; - for stdin)")
    ap.add_argument("--alerts", action="store_true",
                    help="also compare alerts: " + ", ".join(COMPARED_ALERTS))
    ap.add_argument("recordings", nargs="+")
    a = ap.parse_args()

    try:
        exact, real = read_outputs(a.json)
    except OSError as e:
        print(f"check_replay: cannot read {a.json}: {e}", file=sys.stderr)
        return 2

    passed = failed = 0
    for rec in a.recordings:
        try:
            exp_moves, exp_alerts = read_expectations(rec)
        except (OSError, ValueError) as e:
            print(f"FAIL {rec}: {e}")
            failed += 1
            continue
        obj = exact.get(rec) or real.get(path_key(rec))
        if obj is None:
            print(f"FAIL {rec}: no output line for this file")
            failed += 1
            continue
        problems = []
        msg = compare_moves(exp_moves, obj.get("moves"), obj.get("uci"))
        if msg:
            problems.append(msg)
        if a.alerts:
            problems += compare_alerts(exp_alerts, obj.get("alerts"))
        if problems:
            print(f"FAIL {rec}: " + "; ".join(problems))
            failed += 1
        else:
            print(f"PASS {rec} ({len(exp_moves)} moves)")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
