#!/usr/bin/env python3
"""Write random *legal* chess games as PGN, for test recordings.

The games are not good chess: a biased move chooser makes them rich in the
moves that are hard to read on a presence-only board -- en passant, castling
on both wings for both colours, promotions (half of them underpromotions),
captures -- and lets them end in checkmate or stalemate now and then.

    random_games.py --seed 7 -n 12 -o games.pgn

Deterministic: the same seed, count and options give the same file. Each game
starts from the initial position and lasts at most --max-plies plies. Every
move carries a [%clk] comment (the mover's time left, increment included)
with think times that suit the game's TimeControl, so that a generator that
follows %clk never lets a flag fall.

Needs python-chess (pip install chess).
"""
import argparse
import random
import sys

import chess
import chess.pgn

TIME_CONTROLS = [("300+3", 300, 3), ("5400+30", 5400, 30)]
PROMO_PIECES = [chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT]
PIECE_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}

# Weights of the move categories (the largest applicable one is used).
W_MATE = 400.0
W_STALEMATE = 60.0
W_EN_PASSANT = 300.0
W_PROMOTION = 150.0
W_CASTLING = 120.0
W_CAPTURE = 8.0
W_OTHER = 1.0


def gives_mate_or_stalemate(board, mv):
    board.push(mv)
    try:
        return board.is_checkmate(), board.is_stalemate()
    finally:
        board.pop()


def move_weight(board, mv, rng_profile):
    """Weight of one legal move; rng_profile holds the game's own leanings."""
    mate, stale = gives_mate_or_stalemate(board, mv)
    piece = board.piece_type_at(mv.from_square)
    rank = chess.square_rank(mv.to_square)
    rel_rank = rank if board.turn == chess.WHITE else 7 - rank
    w = W_OTHER

    if board.is_castling(mv):
        w = max(w, W_CASTLING)
    elif piece == chess.KING and board.has_castling_rights(board.turn):
        w *= 0.05  # keep the king home while it may still castle
    elif piece == chess.ROOK and board.castling_rights & chess.BB_SQUARES[mv.from_square]:
        w *= 0.15  # and the rooks too

    if board.is_capture(mv):
        victim = chess.PAWN if board.is_en_passant(mv) else board.piece_type_at(mv.to_square)
        w = max(w, W_CAPTURE * (0.6 + PIECE_VALUE[victim] / 5.0))
    if board.is_en_passant(mv):
        w = max(w, W_EN_PASSANT)
    if mv.promotion:
        # half of a pawn's promotion weight goes to the queen, the rest is
        # shared by the three underpromotions
        share = 0.5 if mv.promotion == chess.QUEEN else 0.5 / 3
        w = max(w, W_PROMOTION) * share * 4  # *4: four promotion moves per step

    if piece == chess.PAWN and not mv.promotion:
        if chess.square_distance(mv.from_square, mv.to_square) == 2 and not board.is_capture(mv):
            w *= 3.0 * rng_profile["double_push"]  # double pushes invite en passant
        if rel_rank >= 4:
            w *= 2.0 + rel_rank * rng_profile["pawn_race"]  # run to promotion
    elif piece in (chess.KNIGHT, chess.BISHOP) and board.fullmove_number <= 12:
        back = 0 if board.turn == chess.WHITE else 7
        if chess.square_rank(mv.from_square) == back:
            w *= 4.0  # develop: clears the way for castling on both wings
    elif piece == chess.QUEEN and board.fullmove_number <= 12:
        back = 0 if board.turn == chess.WHITE else 7
        if chess.square_rank(mv.from_square) == back:
            w *= 2.0  # the queen must leave d1/d8 before a long castling

    if mate:
        w = max(w, W_MATE * rng_profile["mate"])
    if stale:
        w = max(w, W_STALEMATE * rng_profile["stalemate"])
    return w


def random_game(rng, index, max_plies, date):
    board = chess.Board()
    game = chess.pgn.Game()
    tc_name, base, inc = TIME_CONTROLS[index % 2] if rng.random() < 0.8 else rng.choice(TIME_CONTROLS)
    profile = {
        # some games hunt for mates, others drift towards stalemates
        "mate": rng.choice([0.05, 0.3, 1.0]),
        "stalemate": rng.choice([0.2, 1.0, 3.0]),
        "double_push": rng.choice([1.0, 2.0]),
        "pawn_race": rng.choice([0.5, 1.0, 2.0]),
    }
    clocks = {chess.WHITE: float(base), chess.BLACK: float(base)}
    node = game
    while len(board.move_stack) < max_plies and not board.is_game_over(claim_draw=False):
        moves = list(board.legal_moves)
        weights = [move_weight(board, m, profile) for m in moves]
        mv = rng.choices(moves, weights=weights, k=1)[0]
        # think time that suits the time control and never lets a flag fall
        if base <= 600:
            think = rng.choice([1, 1, 2, 2, 3, 4, 5, 7, 10])
        else:
            think = rng.randint(3, 40)
        left = clocks[board.turn]
        think = max(1, min(think, int(left - 30)))
        clocks[board.turn] = left - think + inc
        node = node.add_variation(mv)
        node.set_clock(int(clocks[board.turn]))
        board.push(mv)

    if board.is_checkmate():
        result = "0-1" if board.turn == chess.WHITE else "1-0"
    elif board.is_stalemate() or board.is_insufficient_material() \
            or board.is_fivefold_repetition() or board.is_seventyfive_moves():
        result = "1/2-1/2"  # draws that end the game by themselves
    else:
        result = "*"
    h = game.headers
    h["Event"] = "touchmove random games"
    h["Site"] = "random_games.py"
    h["Date"] = date
    h["Round"] = str(index + 1)
    h["White"] = f"Random White {index + 1}"
    h["Black"] = f"Random Black {index + 1}"
    h["Result"] = result
    h["TimeControl"] = tc_name
    return game, board


def features(game):
    """Which of the interesting features one game contains."""
    f = set()
    board = game.board()
    for mv in game.mainline_moves():
        side = "W" if board.turn == chess.WHITE else "B"
        if board.is_en_passant(mv):
            f.add("ep")
        if board.is_kingside_castling(mv):
            f.add(f"{side} O-O")
        elif board.is_queenside_castling(mv):
            f.add(f"{side} O-O-O")
        if mv.promotion:
            f.add("=" + chess.piece_symbol(mv.promotion).upper())
        board.push(mv)
    if board.is_checkmate():
        f.add("mate")
    if board.is_stalemate():
        f.add("stalemate")
    return f


FEATURE_ORDER = ["ep", "W O-O", "W O-O-O", "B O-O", "B O-O-O", "=Q", "=R", "=B", "=N", "mate", "stalemate"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=12, help="how many games")
    ap.add_argument("-o", "--output", help="PGN file to write (default: standard output)")
    ap.add_argument("--max-plies", type=int, default=120)
    ap.add_argument("--date", default="2024.01.01", help="the Date tag")
    a = ap.parse_args()
    if a.n < 0 or a.max_plies < 1:
        ap.error("-n must be >= 0 and --max-plies >= 1")

    counts = {k: 0 for k in FEATURE_ORDER}
    texts = []
    for i in range(a.n):
        rng = random.Random(f"touchmove-random-games:{a.seed}:{i}")
        game, _ = random_game(rng, i, a.max_plies, a.date)
        for k in features(game):
            counts[k] += 1
        texts.append(game.accept(chess.pgn.StringExporter(columns=80)))
    out = "\n\n".join(texts) + ("\n" if texts else "")
    if a.output:
        with open(a.output, "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    summary = ", ".join(f"{k} {counts[k]}" for k in FEATURE_ORDER)
    print(f"{a.n} games (seed {a.seed}); games containing: {summary}",
          file=sys.stderr if not a.output else sys.stdout)


if __name__ == "__main__":
    main()
