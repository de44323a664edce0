"""sacrebleu's TER edit count compiled (numba): the same numbers, for batches of pairs.

What: :func:`edit_counts` returns, for each pair of token lists, exactly what sacrebleu's
``sacrebleu.metrics.lib_ter.translation_edit_rate(words_hyp, words_ref)`` returns: ``(edits,
reference length)``. It is sacrebleu's algorithm (``sacrebleu/metrics/lib_ter.py``, Copyright
2020 Memsource, Apache License 2.0) written as plain loops over integer arrays and compiled
by numba: the beam (band) edit distance with sacrebleu's windows and its preference among
equal operations, the trace flipped and turned into the alignment, the shift candidates of
``_find_shifted_pairs`` in sacrebleu's order with ``_shift``'s three filters, the ranking
(gain, length, -start_h, -idx) with the first one kept on ties, sacrebleu's cap of 1000
checked candidates per pair (the iteration that reaches it drops its shift), and the stop
when the best shift gains nothing. Checked against sacrebleu 2.6.0 by the same tests as
:mod:`analytics.stats.post_editing.fast_ter` (tests/analytics/stats/test_fast_ter.py runs
every case through both) and by bench/fast_ter.py on the bench's pairs.

Why: issue 13's import of 10,000 post-edits in 5 s. fast_ter (numpy) still spends ~0.45 ms
of CPU on an MT-to-edit pair, most of it in numpy calls on rows of ~30 cells; compiled loops
take a few microseconds per row. Measured on bench/fast_ter.py's pairs: see that bench.

What is kept exact, and how (none changes a number):

- Words become integer ids (one dict per batch), compared as integers.
- sacrebleu caches the rows of every hypothesis prefix it has seen; here the rows of a
  shift candidate up to the first word where it differs from the current hypothesis are the
  current hypothesis's (a row depends only on the prefix and the two lengths, the same for
  every candidate of a pair), and only the rest is computed, keeping values only: a
  candidate's trace is never used, and sacrebleu's trace of a candidate fails (raises) only
  when its final cell is out of reach, which is checked instead (below).
- A shift keeps the hypothesis's words, so no shift can bring the edit distance below
  ``max(len(hyp), len(ref)) - (words the two share, as multisets)``; once the distance is
  there sacrebleu's next iteration would find no gain and stop, so the loop stops (as
  fast_ter does).
- A pair sacrebleu would raise on (a cell out of the beam on the path, which its beam
  widening seems to make impossible) and pairs with an empty side are not computed here:
  they are handed to sacrebleu itself.

Imported on first use only: numba costs a process about half a second of CPU and ~60 MiB to
import, more than fast_ter spends on a HIT's edits (:data:`COMPILED_FROM_PAIRS` in
analytics.stats.post_editing.ter decides). ``cache=True`` keeps the compiled code in
``__pycache__``, so a new process loads it instead of compiling again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numba
import numpy as np
from sacrebleu.metrics import lib_ter

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["edit_counts"]

# sacrebleu's own constants, so that the limits are those of the installed sacrebleu.
_INF = lib_ter._INT_INFINITY
_MAX_SHIFT_SIZE = lib_ter._MAX_SHIFT_SIZE
_MAX_SHIFT_DIST = lib_ter._MAX_SHIFT_DIST
_BEAM_WIDTH = lib_ter._BEAM_WIDTH
_MAX_SHIFT_CANDIDATES = lib_ter._MAX_SHIFT_CANDIDATES

# Trace operations as sacrebleu's matrix holds them (before its flip); _UNDEF: out of beam.
_UNDEF, _NOP, _SUB, _INS, _DEL = 0, 1, 2, 3, 4

# What the kernel says of a pair.
_DONE, _TO_SACREBLEU = 0, 1


@numba.njit(cache=True)
def _windows(n_h: int, n_r: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """sacrebleu's beam window [lo, hi) of every row (row 0: the initial row, all of it),
    floats computed as sacrebleu computes them."""
    lo = np.zeros(n_h + 1, dtype=np.int64)
    hi = np.zeros(n_h + 1, dtype=np.int64)
    length_ratio = n_r / n_h
    if _BEAM_WIDTH < length_ratio / 2:
        beam_width = math.ceil(length_ratio / 2 + _BEAM_WIDTH)
    else:
        beam_width = _BEAM_WIDTH
    hi[0] = n_r + 1
    for i in range(1, n_h + 1):
        pseudo_diag = math.floor(i * length_ratio)
        lo[i] = max(0, pseudo_diag - beam_width)
        hi[i] = min(n_r + 1, pseudo_diag + beam_width)
        if i == n_h:
            hi[i] = n_r + 1
    return lo, hi


@numba.njit(cache=True)
def _row(word, ref, prev, cur, ops, lo, hi) -> None:
    """Row ``cur`` of the beam DP (hypothesis word ``word``) from row ``prev``, with the
    operations (``ops``) sacrebleu's loop picks: no-op/substitution, then deletion if
    strictly cheaper, then insertion if strictly cheaper, each only below the cell's initial
    infinity; cells outside the window stay infinite and undefined."""
    cur[:] = _INF
    ops[:] = _UNDEF
    for j in range(lo, hi):
        if j == 0:
            cur[0] = prev[0] + 1
            ops[0] = _DEL
            continue
        best = _INF
        op = _UNDEF
        if word == ref[j - 1]:
            cost = prev[j - 1]
            if best > cost:
                best = cost
                op = _NOP
        else:
            cost = prev[j - 1] + 1
            if best > cost:
                best = cost
                op = _SUB
        cost = prev[j] + 1
        if best > cost:
            best = cost
            op = _DEL
        cost = cur[j - 1] + 1
        if best > cost:
            best = cost
            op = _INS
        cur[j] = best
        ops[j] = op


@numba.njit(cache=True)
def _row_values(word, ref, prev, cur, lo, hi) -> None:
    """:func:`_row` without the operations (the same values: the minimum of the cell's
    initial infinity and the three costs)."""
    cur[:] = _INF
    for j in range(lo, hi):
        if j == 0:
            cur[0] = prev[0] + 1
            continue
        best = prev[j - 1] if word == ref[j - 1] else prev[j - 1] + 1
        if best > _INF:
            best = _INF
        cost = prev[j] + 1
        if best > cost:
            best = cost
        cost = cur[j - 1] + 1
        if best > cost:
            best = cost
        cur[j] = best


@numba.njit(cache=True)
def _shifted(hyp, start, length, target, out) -> None:
    """sacrebleu's ``_perform_shift(hyp, start, length, target)`` written into ``out``."""
    n = hyp.shape[0]
    k = 0
    if target < start:
        for p in range(target):
            out[k] = hyp[p]
            k += 1
        for p in range(start, start + length):
            out[k] = hyp[p]
            k += 1
        for p in range(target, start):
            out[k] = hyp[p]
            k += 1
        for p in range(start + length, n):
            out[k] = hyp[p]
            k += 1
    elif target > start + length:
        for p in range(start):
            out[k] = hyp[p]
            k += 1
        for p in range(start + length, target):
            out[k] = hyp[p]
            k += 1
        for p in range(start, start + length):
            out[k] = hyp[p]
            k += 1
        for p in range(target, n):
            out[k] = hyp[p]
            k += 1
    else:
        for p in range(start):
            out[k] = hyp[p]
            k += 1
        for p in range(start + length, min(length + target, n)):
            out[k] = hyp[p]
            k += 1
        for p in range(start, start + length):
            out[k] = hyp[p]
            k += 1
        for p in range(length + target, n):
            out[k] = hyp[p]
            k += 1


@numba.njit(cache=True)
def _lower_bound(hyp, ref) -> int:
    """max(n_h, n_r) minus the words the two share as multisets (sorted merge)."""
    a = np.sort(hyp)
    b = np.sort(ref)
    i = 0
    j = 0
    shared = 0
    while i < a.shape[0] and j < b.shape[0]:
        if a[i] == b[j]:
            shared += 1
            i += 1
            j += 1
        elif a[i] < b[j]:
            i += 1
        else:
            j += 1
    return max(a.shape[0], b.shape[0]) - shared


@numba.njit(cache=True)
def _pair(hyp_words, ref) -> tuple[int, int]:
    """(edits, status) of one pair, both sides non-empty: sacrebleu's
    ``translation_edit_rate`` loop (module docstring); status _TO_SACREBLEU when sacrebleu
    would meet a cell out of the beam."""
    n_h = hyp_words.shape[0]
    n_r = ref.shape[0]
    lo, hi = _windows(n_h, n_r)
    hyp = hyp_words.copy()
    dist = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    ops = np.empty((n_h + 1, n_r + 1), dtype=np.int8)
    for j in range(n_r + 1):  # sacrebleu's initial row: insertions
        dist[0, j] = j
        ops[0, j] = _INS
    for i in range(1, n_h + 1):
        _row(hyp[i - 1], ref, dist[i - 1], dist[i], ops[i], lo[i], hi[i])
    score = dist[n_h, n_r]
    if score >= _INF:
        return 0, _TO_SACREBLEU
    floor = _lower_bound(hyp, ref)

    align = np.empty(n_r, dtype=np.int64)
    ref_err = np.empty(n_r, dtype=np.int64)
    hyp_err = np.empty(n_h, dtype=np.int64)
    # Prefix sums of the errors: the filters' sums over a block in O(1).
    ref_sum = np.zeros(n_r + 1, dtype=np.int64)
    hyp_sum = np.zeros(n_h + 1, dtype=np.int64)
    candidate = np.empty(n_h, dtype=np.int64)
    best_words = np.empty(n_h, dtype=np.int64)
    rows = np.empty((2, n_r + 1), dtype=np.int64)

    shifts = 0
    checked = 0
    while score > floor:
        # The current hypothesis's trace, flipped, as an alignment (trace_to_alignment).
        i = n_h
        j = n_r
        while i > 0 or j > 0:
            op = ops[i, j]
            if op == _NOP or op == _SUB:
                i -= 1
                j -= 1
                align[j] = i
                flag = 1 if op == _SUB else 0
                ref_err[j] = flag
                hyp_err[i] = flag
            elif op == _DEL:  # flipped to an insertion: a hypothesis word in error
                i -= 1
                hyp_err[i] = 1
            elif op == _INS:  # flipped to a deletion: a reference word in error
                j -= 1
                align[j] = i - 1
                ref_err[j] = 1
            else:
                return 0, _TO_SACREBLEU
        for k in range(n_r):
            ref_sum[k + 1] = ref_sum[k] + ref_err[k]
        for k in range(n_h):
            hyp_sum[k + 1] = hyp_sum[k] + hyp_err[k]

        # _shift: every candidate in sacrebleu's order, the best kept.
        found = False
        best_gain = 0
        best_length = 0
        best_start = 0
        best_idx = 0
        stop = False
        for start_h in range(n_h):
            for start_r in range(n_r):
                if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                    continue
                length = 0
                while hyp[start_h + length] == ref[start_r + length] and length < _MAX_SHIFT_SIZE:
                    length += 1
                    # One (start_h, start_r, length) of _find_shifted_pairs.
                    if (
                        hyp_sum[start_h + length] - hyp_sum[start_h] != 0
                        and ref_sum[start_r + length] - ref_sum[start_r] != 0
                        and not (start_h <= align[start_r] < start_h + length)
                    ):
                        prev_idx = -1
                        for offset in range(-1, length):
                            if start_r + offset == -1:
                                idx = 0
                            else:
                                idx = align[start_r + offset] + 1
                            if idx == prev_idx:
                                continue
                            prev_idx = idx
                            _shifted(hyp, start_h, length, idx, candidate)
                            first = 0
                            while first < n_h and candidate[first] == hyp[first]:
                                first += 1
                            if first == n_h:
                                distance = score
                            else:
                                rows[first % 2, :] = dist[first]
                                for row in range(first + 1, n_h + 1):
                                    _row_values(
                                        candidate[row - 1],
                                        ref,
                                        rows[(row - 1) % 2],
                                        rows[row % 2],
                                        lo[row],
                                        hi[row],
                                    )
                                distance = rows[n_h % 2, n_r]
                            if distance >= _INF:
                                return 0, _TO_SACREBLEU
                            gain = score - distance
                            checked += 1
                            if (
                                not found
                                or gain > best_gain
                                or (
                                    gain == best_gain
                                    and (
                                        length > best_length
                                        or (
                                            length == best_length
                                            and (
                                                -start_h > -best_start
                                                or (start_h == best_start and -idx > -best_idx)
                                            )
                                        )
                                    )
                                )
                            ):
                                found = True
                                best_gain = gain
                                best_length = length
                                best_start = start_h
                                best_idx = idx
                                best_words[:] = candidate
                        if checked >= _MAX_SHIFT_CANDIDATES:
                            stop = True
                            break
                    if n_h == start_h + length or n_r == start_r + length:
                        break
                if stop:
                    break
            if stop:
                break
        # As sacrebleu: the iteration that reaches the candidate limit drops its shift.
        if checked >= _MAX_SHIFT_CANDIDATES or not found or best_gain <= 0:
            break
        shifts += 1
        first = 0
        while first < n_h and best_words[first] == hyp[first]:
            first += 1
        hyp[:] = best_words
        for i in range(first + 1, n_h + 1):
            _row(hyp[i - 1], ref, dist[i - 1], dist[i], ops[i], lo[i], hi[i])
        score = dist[n_h, n_r]
    return shifts + score, _DONE


@numba.njit(cache=True)
def _batch(words, bounds, edits, status) -> None:
    """Every pair k: hypothesis ``words[bounds[2k]:bounds[2k+1]]``, reference
    ``words[bounds[2k+1]:bounds[2k+2]]``."""
    for k in range(edits.shape[0]):
        hyp = words[bounds[2 * k] : bounds[2 * k + 1]]
        ref = words[bounds[2 * k + 1] : bounds[2 * k + 2]]
        edits[k], status[k] = _pair(hyp, ref)


def edit_counts(
    hypotheses: Sequence[list[str]], references: Sequence[list[str]]
) -> list[tuple[int, int]]:
    """``lib_ter.translation_edit_rate(hypotheses[k], references[k])`` for every k: (edits,
    reference length), the same numbers (module docstring)."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    ids: dict[str, int] = {}
    flat: list[int] = []
    bounds = [0]
    computed: list[int] = []  # pairs with both sides non-empty
    for k, (hyp, ref) in enumerate(zip(hypotheses, references, strict=True)):
        if not hyp or not ref:
            continue
        computed.append(k)
        flat.extend([ids.setdefault(word, len(ids)) for word in hyp])
        bounds.append(len(flat))
        flat.extend([ids.setdefault(word, len(ids)) for word in ref])
        bounds.append(len(flat))
    edits = np.zeros(len(computed), dtype=np.int64)
    status = np.zeros(len(computed), dtype=np.int64)
    if computed:
        _batch(np.array(flat, dtype=np.int64), np.array(bounds, dtype=np.int64), edits, status)
    out: list[tuple[int, int]] = [(0, 0)] * len(hypotheses)
    done = dict(zip(computed, zip(edits.tolist(), status.tolist(), strict=True), strict=True))
    for k, (hyp, ref) in enumerate(zip(hypotheses, references, strict=True)):
        result = done.get(k)
        if result is None or result[1] != _DONE:
            # An empty side, or a pair sacrebleu would answer (or raise on) itself.
            edit_count, length = lib_ter.translation_edit_rate(hyp, ref)
            out[k] = (int(edit_count), int(length))
        else:
            out[k] = (result[0], len(ref))
    return out
