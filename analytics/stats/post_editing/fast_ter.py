"""sacrebleu's TER edit count, the same numbers computed several times faster.

What: :func:`translation_edit_rate` returns exactly what sacrebleu's
``sacrebleu.metrics.lib_ter.translation_edit_rate(words_hyp, words_ref)`` returns, ``(edits,
reference length)``, for every pair of token lists. It is a port of sacrebleu's algorithm
(``sacrebleu/metrics/lib_ter.py``, Copyright 2020 Memsource, Apache License 2.0), which
follows tercom's heuristics: a beam (band) edit distance, greedy shifts chosen among
candidates filtered and ranked as tercom does, the shift size and distance limits, and
sacrebleu's cap of 1000 checked shift candidates per pair. All of it is kept step for step:
the same candidates in the same order, the same ranking and tie-breaking, the same beam, the
same trace tie-breaking, the same stops; sacrebleu's own constants are used. Only the way
the numbers are computed differs. Checked against sacrebleu 2.6.0:
tests/analytics/stats/test_fast_ter.py compares the two on hand-made edge cases, 2,000
generated pairs, long sentences, extreme length ratios, pairs that reach the candidate limit
and a property test; bench/fast_ter.py compares every result on the bench's pairs.

Why: issue 13 wants 10,000 post-edits imported with HTER in 5 s on 2 cores. sacrebleu's TER
is pure Python: about 1-4 ms of CPU per pair of ~28-word sentences when the hypothesis is an
MT output and the reference its post-edit, 12-15 ms when both are independent edits of one
translation. About 85% of that is ``BeamEditDistance._edit_distance``, a Python loop over
tuples run once for every shift candidate (about 7 candidates per shift iteration, 2 to 5
iterations a pair). This module takes 6x to 7.5x less CPU on the first kind of pair and 10x
to 13x less on the second (bench/fast_ter.py on a shared, loaded machine, several runs).

How (each exact, none changes a number):

- Words become integer ids once per pair, so a word comparison is an integer comparison.
- All shift candidates of one shift iteration are scored together: they all have the
  hypothesis's length, hence the same beam windows, so the beam DP runs row by row on a
  (reference x candidates) numpy array. A cell is ``min(sub, del, ins)``; sub and del come
  from the previous row elementwise, and the insertion chain along a row is a running
  minimum once the matrix is stored as ``F[i][j] = D[i][j] - i - j``:
  ``F[i][j] = min(min(F[i-1][j-1] + cost - 2, F[i-1][j]), F[i][j-1])``, three numpy calls
  per row (add, minimum, ``np.minimum.accumulate``) whatever the number of candidates.
- Rows of the prefix the candidates share with the current hypothesis are not recomputed:
  the batch starts at the first position where any candidate differs (sacrebleu's row cache
  does the same per candidate; with one hypothesis length per pair its rows are the same).
- The trace, needed only for the current hypothesis at the start of each iteration, is read
  back from that hypothesis's stored matrix with sacrebleu's tie-breaking and turned straight
  into the flipped alignment.
- Shift candidates are enumerated in sacrebleu's order, but only from reference positions
  whose word equals the hypothesis word, and for each only the block lengths that pass
  sacrebleu's filters (the filtered-out ones produce nothing and count nothing).
- A shift keeps the hypothesis's words, so no shift can bring the edit distance below
  ``max(len(hyp), len(ref)) - (words the two share, as multisets)``; once the distance is
  there, sacrebleu's next iteration could only find gains <= 0 and stop, so the loop stops.

Beam cells outside the window are "infinite" (sacrebleu's ``int(1e16)``). Here they hold
``2e16`` in the F form, so anything reached only through them stays far above ``1e16`` and
is read back as sacrebleu's infinity. A pair whose beam left no finite path (sacrebleu would
raise; its beam widening makes that impossible, as far as can be seen) and empty inputs are
handed to sacrebleu itself.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from sacrebleu.metrics import lib_ter

__all__ = ["translation_edit_rate"]

# sacrebleu's own constants, so that the limits are the ones of the installed sacrebleu.
_INF = lib_ter._INT_INFINITY
_MAX_SHIFT_SIZE = lib_ter._MAX_SHIFT_SIZE
_MAX_SHIFT_DIST = lib_ter._MAX_SHIFT_DIST
_BEAM_WIDTH = lib_ter._BEAM_WIDTH
_MAX_SHIFT_CANDIDATES = lib_ter._MAX_SHIFT_CANDIDATES

# Out-of-beam cells in the F form (F[i][j] = D[i][j] - i - j): far enough above _INF that a
# value computed from them (each row lowers F by at most 2) never comes back under _INF.
_OUT = 2 * _INF

# Trace operations, as sacrebleu names them (before its flip).
_NOP, _SUB, _INS, _DEL = 0, 1, 2, 3


def translation_edit_rate(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
    """TER's (number of edits, reference length) of a hypothesis against one reference;
    identical to ``sacrebleu.metrics.lib_ter.translation_edit_rate``.

    :param words_hyp: Tokenized translation hypothesis.
    :param words_ref: Tokenized reference translation.
    """
    if not words_ref or not words_hyp:
        # Degenerate: no shift is possible; sacrebleu answers without any DP.
        return lib_ter.translation_edit_rate(words_hyp, words_ref)
    result = _Pair(words_hyp, words_ref).run()
    if result is None:
        # No finite path inside the beam: whatever sacrebleu does there, it does it itself.
        return lib_ter.translation_edit_rate(words_hyp, words_ref)
    return result


@lru_cache(maxsize=1024)
def _windows(n_h: int, n_r: int) -> tuple[tuple[int, int], ...]:
    """The beam windows of sacrebleu's ``_edit_distance`` for these lengths, (min_j, max_j)
    per row (row 0: sacrebleu's initial row, all of it). They depend only on the row and the
    two lengths (every hypothesis of one pair has the same length), so they are computed once
    per pair of lengths; floats computed exactly as sacrebleu computes them."""
    length_ratio = n_r / n_h
    if _BEAM_WIDTH < length_ratio / 2:
        beam_width = math.ceil(length_ratio / 2 + _BEAM_WIDTH)
    else:
        beam_width = _BEAM_WIDTH
    windows = [(0, n_r + 1)]
    for i in range(1, n_h + 1):
        pseudo_diag = math.floor(i * length_ratio)
        min_j = max(0, pseudo_diag - beam_width)
        max_j = min(n_r + 1, pseudo_diag + beam_width)
        if i == n_h:
            max_j = n_r + 1
        windows.append((min_j, max_j))
    return tuple(windows)


class _Pair:
    """One (hypothesis, reference) pair: sacrebleu's ``translation_edit_rate`` loop with its
    ``_shift``, ``_find_shifted_pairs`` and ``BeamEditDistance`` replaced by batch versions.

    Matrices are stored as ``F[i][j] = D[i][j] - i - j`` (D: sacrebleu's beam edit distance
    matrix, i: hypothesis words, j: reference words) with one padding column in front (out
    of beam, so that column 0 needs no special case): a row is ``F[i][j] = min over the row
    so far of min(F[i-1][j-1] + cost - 2, F[i-1][j])``."""

    def __init__(self, words_hyp: list[str], words_ref: list[str]) -> None:
        # Hypothesis words first: only they need a row of substitution costs (every
        # candidate is a permutation of the hypothesis).
        ids: dict[str, int] = {}
        self.hyp = [ids.setdefault(word, len(ids)) for word in words_hyp]
        n_hyp_words = len(ids)
        self.ref = [ids.setdefault(word, len(ids)) for word in words_ref]
        n_h, n_r = len(self.hyp), len(self.ref)
        self.n_h, self.n_r = n_h, n_r
        self.windows = _windows(n_h, n_r)
        self.diagonal: np.ndarray | None = None  # i + j, to turn F back into D

        # cost[w, j] = substitution cost of hypothesis word w at reference column j (j >= 1)
        # minus 2 (the F form). Column 0 has no substitution (its left neighbour is the
        # padding column, out of beam): 0 there.
        ref_ids = np.array(self.ref, dtype=np.int64)
        cost = np.zeros((n_hyp_words, n_r + 1), dtype=np.int64)
        cost[:, 1:] = np.not_equal.outer(np.arange(n_hyp_words), ref_ids)
        cost[:, 1:] -= 2
        self.cost = cost

        # A lower bound of every edit distance any shift of the hypothesis can have (a shift
        # keeps the words, only reorders them): an alignment matches at most the words the
        # two sentences share (as multisets), and every other word of the longer one costs
        # at least one edit; the beam only removes paths. Once the current distance equals
        # it, no shift can lower it and sacrebleu's loop stops there.
        shared = np.minimum(
            np.bincount(self.hyp, minlength=len(ids)), np.bincount(ref_ids, minlength=len(ids))
        ).sum()
        self.lower_bound = max(n_h, n_r) - int(shared)
        self.positions: dict[int, list[int]] | None = None

    def rows(self, candidates: np.ndarray, start: int, first_row: np.ndarray) -> np.ndarray:
        """The beam DP of every candidate (C x n_h word ids) from row ``start`` on, all
        candidates equal to ``first_row`` there; returns rows start..n_h, shape
        (n_h + 1 - start, n_r + 2, C), in the F form with a padding column in front:
        ``out[i - start, j + 1, c] = D[i][j] - i - j``, out-of-beam cells far above _INF.
        Candidates are the last axis: numpy's running minimum along the first axis of a
        row then works on whole contiguous columns at a time."""
        n_h, n_r = self.n_h, self.n_r
        count = candidates.shape[0]
        out = np.full((n_h + 1 - start, n_r + 2, count), _OUT, dtype=np.int64)
        out[0] = first_row[:, None]
        # Substitution costs of the rows to compute: (rows, n_r + 1, C).
        costs = np.ascontiguousarray(self.cost[candidates[:, start:].T].transpose(0, 2, 1))
        minimum = np.minimum
        accumulate = np.minimum.accumulate
        windows = self.windows
        for row in range(1, n_h + 1 - start):
            lo, hi = windows[start + row]
            prev = out[row - 1]
            # sub: D[i-1][j-1] + c, i.e. F[i-1][j-1] + c - 2 (padded column j, cost column j)
            cell = prev[lo:hi] + costs[row - 1][lo:hi]
            # del: D[i-1][j] + 1, i.e. F[i-1][j] (padded column j + 1)
            minimum(cell, prev[lo + 1 : hi + 1], out=cell)
            # ins: D[i][j-1] + 1, i.e. F[i][j-1]: a running minimum along the window (the
            # cell left of the window is out of beam, as in sacrebleu, so it never wins).
            accumulate(cell, axis=0, out=out[row][lo + 1 : hi + 1])
        return out

    def alignment(
        self, hyp: list[int], matrix: np.ndarray
    ) -> tuple[list[int], list[int], list[int]]:
        """sacrebleu's trace of the hypothesis ``hyp`` whose F matrix is ``matrix``, flipped
        and turned into (align, ref_err, hyp_err) as ``_flip_trace`` + ``trace_to_alignment``
        do. Ops are chosen as sacrebleu's loop chose them: sub/nop if below infinity, then
        del if strictly smaller, then ins if strictly smaller; cells outside the beam hold
        sacrebleu's infinity. Only cells of finite value are visited (each step goes to the
        neighbour that gave the cell its finite value), and those are inside the beam."""
        ref = self.ref
        if self.diagonal is None:
            self.diagonal = np.add.outer(np.arange(self.n_h + 1), np.arange(self.n_r + 1))
        dist = np.minimum(matrix[:, 1:] + self.diagonal, _INF).tolist()
        align = [0] * self.n_r
        ref_err = [0] * self.n_r
        hyp_err = [0] * self.n_h
        i, j = self.n_h, self.n_r
        while i > 0 or j > 0:
            if i == 0:
                op = _INS  # sacrebleu's initial row: insertions
            elif j == 0:
                op = _DEL  # column 0: deletions
            else:
                up = dist[i - 1]
                best = _INF
                op = -1
                mismatch = hyp[i - 1] != ref[j - 1]
                if up[j - 1] + mismatch < best:
                    best, op = up[j - 1] + mismatch, (_SUB if mismatch else _NOP)
                if up[j] + 1 < best:
                    best, op = up[j] + 1, _DEL
                if dist[i][j - 1] + 1 < best:
                    op = _INS
                if op < 0:  # pragma: no cover - an infinite cell: such pairs go to sacrebleu
                    raise RuntimeError("the trace left the beam")
            # Flipped (insertions <-> deletions), as sacrebleu reads its trace: the
            # hypothesis position reached so far is i - 1, the reference position j - 1.
            if op == _NOP or op == _SUB:
                i -= 1
                j -= 1
                align[j] = i
                if op == _SUB:
                    ref_err[j] = 1
                    hyp_err[i] = 1
            elif op == _DEL:  # flipped to an insertion: a hypothesis word in error
                i -= 1
                hyp_err[i] = 1
            else:  # _INS, flipped to a deletion: a reference word in error
                j -= 1
                align[j] = i - 1
                ref_err[j] = 1
        return align, ref_err, hyp_err

    def candidates(
        self,
        hyp: list[int],
        align: list[int],
        ref_err: list[int],
        hyp_err: list[int],
        checked: int,
    ) -> tuple[list[tuple[int, int, int]], int]:
        """sacrebleu's ``_shift`` candidate loop without the scoring: the (start_h, length,
        idx) of every candidate in sacrebleu's order, and the updated count of checked
        candidates (with its break after the group that reaches the limit).

        sacrebleu walks every (start_h, start_r, length) of ``_find_shifted_pairs`` and
        skips those whose hypothesis words or reference words are all correct or whose
        target lies inside the block. For one (start_h, start_r) those that pass are the
        lengths from the first one reaching an error on both sides up to the last one
        whose block does not contain ``align[start_r]``: only those are visited, in the
        same order; the skipped ones change nothing (no candidate, no limit check)."""
        ref = self.ref
        n_h, n_r = self.n_h, self.n_r
        # next_h[k]: the first hypothesis error at or after k (n_h if none); same for ref.
        next_h = [n_h] * (n_h + 1)
        for k in range(n_h - 1, -1, -1):
            next_h[k] = k if hyp_err[k] else next_h[k + 1]
        next_r = [n_r] * (n_r + 1)
        for k in range(n_r - 1, -1, -1):
            next_r[k] = k if ref_err[k] else next_r[k + 1]
        found: list[tuple[int, int, int]] = []
        positions = self.positions
        if positions is None:
            # Reference positions of each word, ascending: the only start_r that can match.
            positions = self.positions = {}
            for j, word in enumerate(ref):
                positions.setdefault(word, []).append(j)
        for start_h in range(n_h):
            starts = positions.get(hyp[start_h])
            if not starts:
                continue
            # Shortest length whose hypothesis words contain an error.
            need_h = next_h[start_h] - start_h + 1
            if need_h > _MAX_SHIFT_SIZE or next_h[start_h] == n_h:
                continue
            for start_r in starts:
                if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                    continue
                need = max(need_h, next_r[start_r] - start_r + 1)
                # Longest length sacrebleu yields (size limit, either sentence's end) and
                # keeps (the target align[start_r] not inside the block).
                top = min(_MAX_SHIFT_SIZE, n_h - start_h, n_r - start_r)
                target = align[start_r]
                if target >= start_h:
                    top = min(top, target - start_h)
                if need > top:
                    continue
                # The common run must reach `need` words.
                length = 1
                while length < need and hyp[start_h + length] == ref[start_r + length]:
                    length += 1
                if length < need:
                    continue
                while True:
                    prev_idx = -1
                    for offset in range(-1, length):
                        at = start_r + offset
                        if at == -1:
                            idx = 0  # insert before the beginning
                        elif at < n_r:
                            # Unlike Tercom, sacrebleu inserts before the index, not after.
                            idx = align[at] + 1
                        else:
                            break
                        if idx == prev_idx:
                            continue
                        prev_idx = idx
                        found.append((start_h, length, idx))
                        checked += 1
                    if checked >= _MAX_SHIFT_CANDIDATES:
                        return found, checked
                    if length >= top or hyp[start_h + length] != ref[start_r + length]:
                        break
                    length += 1
        return found, checked

    def run(self) -> tuple[int, int] | None:
        """sacrebleu's outer loop: shift while the best shift lowers the edit distance."""
        n_h, n_r = self.n_h, self.n_r
        words = self.hyp
        first = np.zeros(n_r + 2, dtype=np.int64)  # D[0][j] = j: F = 0
        first[0] = _OUT
        matrix = self.rows(np.array([words], dtype=np.int64), 0, first)[:, :, 0]
        score = int(matrix[n_h, n_r + 1]) + n_h + n_r
        if score >= _INF:
            return None
        shifts = 0
        checked = 0
        while score > self.lower_bound:
            align, ref_err, hyp_err = self.alignment(words, matrix)
            found, checked = self.candidates(words, align, ref_err, hyp_err, checked)
            delta = 0
            if found:
                delta, words, matrix = self.best_shift(words, matrix, score, found)
            # As sacrebleu: the iteration that reaches the candidate limit drops its shift.
            if checked >= _MAX_SHIFT_CANDIDATES or delta <= 0:
                break
            shifts += 1
            score -= delta
        return shifts + score, n_r

    def best_shift(
        self, words: list[int], matrix: np.ndarray, score: int, found: list[tuple[int, int, int]]
    ) -> tuple[int, list[int], np.ndarray]:
        """Score every candidate at once and pick sacrebleu's best: highest (score gain,
        length, -start_h, -idx), the first one on ties (equal keys are equal shifts).
        Returns (gain, shifted words, their F matrix)."""
        n_h, n_r = self.n_h, self.n_r
        unique: dict[tuple[int, int, int], int] = {}
        shifted: list[list[int]] = []
        for key in found:
            if key not in unique:
                unique[key] = len(shifted)
                start_h, length, idx = key
                shifted.append(lib_ter._perform_shift(words, start_h, length, idx))
        batch = np.array(shifted, dtype=np.int64)
        differs = np.flatnonzero((batch != np.array(words, dtype=np.int64)).any(axis=0))
        if len(differs):
            # Rows up to the first word any candidate changes are the current hypothesis's.
            start = int(differs[0])
            rows = self.rows(batch, start, matrix[start])
            distances = np.minimum(rows[-1, n_r + 1] + (n_h + n_r), _INF)
            gains = (score - distances).tolist()
        else:
            start, rows = n_h, None
            gains = [0] * len(shifted)
        best = None
        best_at = -1
        for key in found:
            at = unique[key]
            start_h, length, idx = key
            rank = (gains[at], length, -start_h, -idx)
            if best is None or rank > best:
                best, best_at = rank, at
        assert best is not None
        if rows is None:
            new_matrix = matrix
        else:
            new_matrix = np.concatenate((matrix[:start], rows[:, :, best_at]))
        return best[0], shifted[best_at], new_matrix
