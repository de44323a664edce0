"""Edit statistics of one (MT output, post-edit) pair with sacrebleu's TER, alone or in batches.

HTER (Snover et al. 2006; 000 section 5.2; 003 section 2) is TER with the MT output as the
hypothesis and its post-edited version as the reference:

    TER = (insertions + deletions + substitutions + shifts) / reference length

counted in words after tercom's tokenisation.  sacrebleu's :class:`sacrebleu.metrics.TER` is
a near-exact reimplementation of tercom (its own docstring: identical results on all "sane"
outputs); its defaults are tercom's: case-insensitive, no normalisation, punctuation kept
(signature ``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:...``).  These
reproduce published HTER values (/work/shared/METHODS.md section 3); case-sensitive,
normalised and punctuation-free variants are :class:`TerOptions` flags, and every result
carries the signature it was computed with, so that stored numbers say how they were made.

What is stored per edit is the pair (edits, reference length), not the rate: segment and
corpus HTER are ratios of sums (:mod:`analytics.stats.post_editing.hter`), so a recompute
only aggregates.  sacrebleu returns the edit count as an integer (shifts count one each) and
the reference length as a float (it averages over references; with the single reference used
here it is a whole number).

Speed: sacrebleu's TER is pure Python, about 1 ms for a pair of 30-word sentences on a quiet
machine and 10-15 ms for two independent translations (many shift candidates).  The edit
counts here come from one of two ports of sacrebleu's algorithm that give sacrebleu's numbers
exactly (tests/analytics/stats/test_fast_ter.py runs every case through both: the beam, the
shift limits, the 1,000-candidate cut-off): :mod:`~analytics.stats.post_editing.fast_ter`
(numpy: all shift candidates of an iteration at once, 6-8x faster than sacrebleu on
MT-to-edit pairs) for small batches, and :mod:`~analytics.stats.post_editing.ter_kernel`
(numba-compiled loops, about 10x faster again) from :data:`COMPILED_FROM_PAIRS` pairs on,
since loading it costs a process about a second (bench/fast_ter.py compares the three).
sacrebleu still tokenises (its tercom tokeniser with the options below) and names the
signature.  :func:`edit_stats_batch` spreads chunks of pairs over worker processes
(``concurrent.futures.ProcessPoolExecutor``); the numbers are the ones the single-process path
gives (each pair is scored independently: no state is shared between pairs).  Exact shortcuts
that do not change any number: pairs whose tokenised hypothesis equals the tokenised
reference have 0 edits (an unchanged "no changes needed" edit is common in post-editing), and
a pair repeated in the batch is scored once.  Worker processes cannot be started from a
daemonic process (a Celery prefork worker child): call with ``processes=1`` there and
spread the work over Celery tasks instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats._lazy import lazy_module

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
    from sacrebleu.metrics import TER

# Imported on first use: a web worker loads this module but never scores text (issue 16).
_sacrebleu_metrics = lazy_module("sacrebleu.metrics")
_fast_ter = lazy_module("analytics.stats.post_editing.fast_ter")
_KERNEL = "analytics.stats.post_editing.ter_kernel"
_ter_kernel = lazy_module(_KERNEL)

__all__ = [
    "TERCOM_DEFAULTS",
    "EditStats",
    "EditStatsBatch",
    "TerOptions",
    "edit_rate",
    "edit_stats",
    "edit_stats_batch",
    "ter_signature",
]

# Pairs per task sent to a worker process: large enough that pickling and scheduling are
# negligible next to ~1 ms of TER per pair, small enough that two processes finish together.
DEFAULT_CHUNK_SIZE = 250
# From this many distinct pairs a batch is scored by the compiled kernel (ter_kernel, numba:
# ~0.05 ms of CPU a 28-word MT-to-edit pair against fast_ter's ~0.45 ms), below it by fast_ter
# (numpy), unless the process has loaded the kernel already. Importing numba and loading the
# compiled code cost a process about 1 s of CPU (each worker process of the pool loads it
# once), fast_ter's time for some 2,500 such pairs; a HIT's 10-15 live edits never pay it.
COMPILED_FROM_PAIRS = 2000
# With the compiled kernel a pool pays off only for far larger batches: each of its processes
# loads numba and the code (~0.5-1 s of CPU) to share work that costs one process ~0.06 ms
# (MT-to-edit) to ~0.15 ms (edit-to-reference) a pair. bench/hter_import.py on this 2-core
# shared machine: 10,000 MT-to-edit pairs 0.75 s in one process, 0.84 s in two; the import's
# TER phase 2.55 s in one process, 5.58 s with the pool (median of 3, load 2-8).
POOL_FROM_COMPILED_PAIRS = 50_000


@dataclass(frozen=True)
class TerOptions:
    """The sacrebleu TER settings; the defaults are tercom's (case-insensitive, no
    normalisation, punctuation kept, no Asian-script handling)."""

    case_sensitive: bool = False
    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False

    def metric(self) -> TER:
        """A fresh sacrebleu TER with these settings."""
        return _sacrebleu_metrics.TER(
            normalized=self.normalized,
            no_punct=self.no_punct,
            asian_support=self.asian_support,
            case_sensitive=self.case_sensitive,
        )


TERCOM_DEFAULTS = TerOptions()


@lru_cache(maxsize=16)
def _metric(options: TerOptions) -> TER:
    # One TER per process and settings (the tokeniser has its own caches).
    return options.metric()


@lru_cache(maxsize=16)
def ter_signature(options: TerOptions = TERCOM_DEFAULTS) -> str:
    """sacrebleu's signature string for these settings and one reference, e.g.
    ``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0``."""
    metric = options.metric()
    # sacrebleu learns the number of references only when scoring; one reference here.
    metric.sentence_score("a", ["a"])
    return metric.get_signature().format()


@dataclass(frozen=True)
class EditStats:
    """TER statistics of one pair: ``edits`` / ``ref_length`` (see :func:`edit_rate`)."""

    edits: int
    ref_length: float
    signature: str

    @property
    def ter(self) -> float:
        return float(edit_rate(self.edits, self.ref_length))


@dataclass(frozen=True, eq=False)
class EditStatsBatch:
    """Edit statistics of many pairs, aligned to the input order."""

    edits: NDArray[np.int64]
    ref_length: NDArray[np.float64]
    signature: str

    def __len__(self) -> int:
        return int(self.edits.shape[0])

    @property
    def ter(self) -> NDArray[np.float64]:
        return edit_rate(self.edits, self.ref_length)


def edit_rate(edits: ArrayLike, ref_length: ArrayLike) -> NDArray[np.float64]:
    """edits / ref_length elementwise, with sacrebleu's convention for an empty reference:
    1.0 when there are edits (a non-empty hypothesis against an empty reference), else 0.0."""
    e = np.asarray(edits, dtype=np.float64)
    r = np.asarray(ref_length, dtype=np.float64)
    safe = np.where(r > 0, r, 1.0)
    return np.where(r > 0, e / safe, np.where(e > 0, 1.0, 0.0))


def _check_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type(value).__name__}")
    return value


def edit_stats(mt_output: str, edit: str, options: TerOptions = TERCOM_DEFAULTS) -> EditStats:
    """Edits and reference length of one pair: hypothesis = ``mt_output``, reference = ``edit``.

    Exactly ``TER(...).sentence_score(mt_output, [edit])``'s ``num_edits`` and ``ref_length``.
    For the distance of an edit to the reference translation (worker profiles) call it with
    ``(edit, reference)``.
    """
    ((edits, ref_length),) = _score_chunk(
        options, [_check_text(mt_output, "mt_output")], [_check_text(edit, "edit")]
    )
    return EditStats(edits, ref_length, ter_signature(options))


def _score_chunk(
    options: TerOptions,
    hypotheses: Sequence[str],
    references: Sequence[str],
    compiled: bool = False,
) -> list[tuple[int, float]]:
    """(edits, ref_length) of each pair: sacrebleu's per-segment statistics (the numbers
    :meth:`TER.sentence_score` and :meth:`TER.corpus_score` aggregate), as sacrebleu makes
    them: each side tokenised by the metric's tokeniser after ``rstrip()`` and split on
    whitespace, then TER with one reference (equal to sacrebleu's ``translation_edit_rate``:
    :func:`ter_kernel.edit_counts` when ``compiled``, else
    :func:`fast_ter.translation_edit_rate`). Equal token lists are 0 edits without a search
    (an unchanged "no changes needed" edit is common in post-editing). Runs in the worker
    processes of :func:`edit_stats_batch`: the tokenising is spread over them too."""
    tokenise = _metric(options).tokenizer
    out: list[tuple[int, float]] = []
    searched: list[int] = []  # positions in out of the pairs that need the TER search
    hyp_words: list[list[str]] = []
    ref_words: list[list[str]] = []
    for hyp, ref in zip(hypotheses, references, strict=True):
        hyp_tokens = tokenise(hyp.rstrip()).split()
        ref_tokens = tokenise(ref.rstrip()).split()
        # sacrebleu averages the reference length over the references (one here): a float.
        out.append((0, float(len(ref_tokens))))
        if hyp_tokens != ref_tokens:
            searched.append(len(out) - 1)
            hyp_words.append(hyp_tokens)
            ref_words.append(ref_tokens)
    if compiled:
        counts = _ter_kernel.edit_counts(hyp_words, ref_words)
    else:
        counts = [
            _fast_ter.translation_edit_rate(h, r) for h, r in zip(hyp_words, ref_words, strict=True)
        ]
    for at, (edits, ref_length) in zip(searched, counts, strict=True):
        out[at] = (int(edits), float(ref_length))
    return out


def _load_kernel() -> None:
    """A pool process's initializer: import numba and load the compiled kernel (from
    ``__pycache__``) before the first chunk arrives, in every process at once."""
    _ter_kernel.edit_counts([["a", "b"]], [["b", "a"]])


def use_compiled(n_pairs: int) -> bool:
    """Whether a batch of ``n_pairs`` distinct pairs is scored by the compiled kernel
    (:data:`COMPILED_FROM_PAIRS`, or the kernel already loaded in this process)."""
    return n_pairs >= COMPILED_FROM_PAIRS or _KERNEL in sys.modules


def edit_stats_batch(
    mt_outputs: Sequence[str],
    edits: Sequence[str],
    options: TerOptions = TERCOM_DEFAULTS,
    *,
    processes: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> EditStatsBatch:
    """:func:`edit_stats` of every (``mt_outputs[i]``, ``edits[i]``) pair, in input order.

    ``processes``: worker processes (None: ``os.cpu_count()``; 1: score in this process;
    a batch for the compiled kernel below :data:`POOL_FROM_COMPILED_PAIRS` is scored here
    whatever ``processes`` says, since loading the kernel in each process costs more).  The
    distinct pairs (a duplicate is scored once) are cut into chunks of ``chunk_size`` and
    scored in a process pool (pairs equal after tokenisation: 0 edits, no search); fewer
    pairs than two chunks are scored here, since starting processes would cost more than it
    saves.  The numbers are
    identical whatever ``processes`` and ``chunk_size`` are.
    """
    if len(mt_outputs) != len(edits):
        raise ValueError(f"{len(mt_outputs)} MT outputs but {len(edits)} edits")
    if chunk_size < 1:
        raise ValueError("chunk_size must be >= 1")
    n_proc = (os.cpu_count() or 1) if processes is None else processes
    if n_proc < 1:
        raise ValueError("processes must be >= 1")
    n = len(mt_outputs)
    out_edits = np.zeros(n, dtype=np.int64)
    out_ref = np.zeros(n, dtype=np.float64)
    # Distinct pairs to score: key -> position among them; per input its key's slot. Only
    # this runs in the calling process; tokenising and TER run in the chunks.
    todo: dict[tuple[str, str], int] = {}
    slot = np.empty(n, dtype=np.int64)
    for i, (hyp, ref) in enumerate(zip(mt_outputs, edits, strict=True)):
        _check_text(hyp, "mt_output")
        _check_text(ref, "edit")
        slot[i] = todo.setdefault((hyp, ref), len(todo))
    pairs = list(todo)
    hyps = [p[0] for p in pairs]
    refs = [p[1] for p in pairs]
    chunks = [(s, min(s + chunk_size, len(pairs))) for s in range(0, len(pairs), chunk_size)]
    compiled = use_compiled(len(pairs))
    if compiled and len(pairs) < POOL_FROM_COMPILED_PAIRS:
        n_proc = 1
    if n_proc == 1 or len(chunks) < 2:
        results = _score_chunk(options, hyps, refs, compiled)
    else:
        results = []
        # Each process loads the kernel itself (initializer), in parallel, unless this one
        # has it already (then the forked processes have it too).
        load = _load_kernel if compiled and _KERNEL not in sys.modules else None
        with ProcessPoolExecutor(max_workers=min(n_proc, len(chunks)), initializer=load) as pool:
            futures = [
                pool.submit(_score_chunk, options, hyps[a:b], refs[a:b], compiled)
                for a, b in chunks
            ]
            for future in futures:  # in submission order: the input order
                results.extend(future.result())
    if pairs:
        scored = np.array(results, dtype=np.float64).reshape(-1, 2)
        out_edits = scored[slot, 0].astype(np.int64)
        out_ref = scored[slot, 1]
    return EditStatsBatch(out_edits, out_ref, ter_signature(options))
