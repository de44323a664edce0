"""Post-editing's TER numbers, computed once per edit and output and stored (issue 13 item 5).

:func:`score_pending_edits` scores every edit (a judgment on a post-editing slot) of a
campaign that has no :class:`~analytics.models.PostEditScore` under the campaign's current
TER signature, and every edited output without a
:class:`~analytics.models.PostEditOutputScore`:

- per edit, TER with hypothesis = the MT output (``slot.output.text``) and reference = the
  edit: its HTER statistics (edits, reference length);
- per edit, TER with hypothesis = the edit and reference = the segment's main reference: the
  worker profile's distance to the reference (none without a reference);
- per output, TER with hypothesis = the output and reference = the main reference: its HTER
  when no edit passes verification, and 000 Table 2's "0 editors".

Every pair goes through one :func:`~analytics.stats.post_editing.edit_stats_batch` call, so a
process pool starts once and balances the three kinds of pairs. A large backlog outside a
Celery worker (an import of thousands of post-edits) is scored in two parts: the HTER pairs
at once (``references=False``), so that the import ends with its HTER computed and stored,
then the reference pairs (:func:`score_pending_references`), which cost about four times as
much each (an edit and a reference are independent translations: many shift candidates) and
feed only the worker profiles, the fallback of outputs without a passed edit and "0 editors",
in chunk tasks on the Celery workers (``fan_out_scoring(..., part="references")``).

Rows are inserted with ``ignore_conflicts`` (two runs racing store the same numbers once), and
once nothing is left to score under the current signature the rows of other signatures are
deleted: after a change of the TER settings every edit is scored again and the old numbers go.

Processes: sacrebleu's TER is pure Python, about 1 ms per pair. A Celery prefork worker's
child is a daemonic process and cannot start a process pool, so :func:`default_processes` is
1 there and every core elsewhere (the embedded default runs tasks inline in the web process,
``manage.py`` commands in their own). In a worker, a large backlog (a TER setting changed on a
big campaign, a large import) is spread over Celery instead: :func:`fan_out_scoring` sends
chunks of :data:`CHUNK_EDITS` edits to :func:`.tasks.score_edit_chunk` tasks (a Celery group), which
any worker process of any machine takes; each schedules the (coalesced) recompute when done,
and the recompute stores nothing while a large backlog is left. Edits
arriving live come a HIT at a time (10-15 edits, ~30 ms of TER), scored in the recompute
itself. bench/hter_recompute.py measures both paths.

The chunk task lives in :mod:`analytics.kinds.post_editing.tasks` (the worker autodiscovers
it, see :mod:`evalsite.celery`): this module is loaded by the kind in every web worker, which
so starts without importing Celery (issue 16 item 4).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet, TextField, Value
from django.db.models.fields.json import KeyTextTransform

from analytics.kinds.post_editing.planner import refresh_planner_statistics
from analytics.models import PostEditOutputScore, PostEditScore
from analytics.stats.post_editing import TerOptions, edit_stats_batch, ter_signature
from campaigns.models import Campaign, HitTask, Output
from evalsite.cachesafe import cache_add, cache_delete
from judgments.models import Judgment

__all__ = [
    "CHUNK_EDITS",
    "FAN_OUT_MIN_EDITS",
    "default_processes",
    "edit_judgments",
    "fan_out_scoring",
    "pending_edit_ids",
    "score_pending_edits",
    "score_pending_references",
    "should_defer_references",
    "pending_reference_ids",
    "ter_options_for",
    "ter_signature_for",
]

logger = logging.getLogger(__name__)

# A backlog at least this large is spread over Celery tasks when the recompute runs in a
# worker (about 2 s of TER per 1,000 edits: below it, the messages would cost more than the
# second core saves).
FAN_OUT_MIN_EDITS = 2000
# Edits per chunk task: ~2-3 s of TER each, small enough that two worker processes finish
# together, large enough that a task's queries and message are negligible.
CHUNK_EDITS = 1000
# How long a fan-out is taken to be in flight (no second fan-out meanwhile); a chunk lost with
# its worker is scored by the next fan-out after this.
FAN_OUT_SECONDS = 600
# The chunk task's name: its module and function (evalsite.celery.task_named imports the module
# by it; this module does not import the task's, which imports this one).
SCORE_CHUNK_TASK = "analytics.kinds.post_editing.tasks.score_edit_chunk"
# What a chunk task scores: everything, or the reference pairs of edits already scored.
PARTS = ("all", "references")


def ter_options_for(campaign: Campaign) -> TerOptions:
    """The campaign's TER settings (PostEditingSettings; tercom's defaults otherwise)."""
    settings_row = getattr(campaign, "post_editing_settings", None)
    if settings_row is None:
        return TerOptions()
    return TerOptions(
        case_sensitive=settings_row.ter_case_sensitive, normalized=settings_row.ter_normalized
    )


def ter_signature_for(campaign: Campaign) -> str:
    """sacrebleu's signature of the campaign's TER settings, as stored with every number."""
    return ter_signature(ter_options_for(campaign))


def default_processes() -> int:
    """Processes to score with here: 1 in a daemonic process (a Celery prefork worker's child,
    which may not start children), else every core."""
    if multiprocessing.current_process().daemon:
        return 1
    return os.cpu_count() or 1


def edit_judgments(campaign_id: int) -> QuerySet[Judgment]:
    """The campaign's edits: judgments on post-editing slots that show a system output."""
    return Judgment.objects.filter(
        campaign_id=campaign_id, slot__hit__task=HitTask.POST_EDIT, slot__output__isnull=False
    )


def _unscored(campaign_id: int, signature: str) -> QuerySet[Judgment]:
    scored = PostEditScore.objects.filter(judgment=OuterRef("pk"), signature=signature)
    return edit_judgments(campaign_id).filter(~Exists(scored))


def pending_edit_ids(campaign_id: int, signature: str) -> list[int]:
    """Ids of the campaign's edits without a stored score under ``signature`` (one query)."""
    return list(_unscored(campaign_id, signature).order_by("id").values_list("id", flat=True))


def _unscored_outputs(campaign_id: int, signature: str) -> QuerySet[Output]:
    edited = Judgment.objects.filter(slot__output=OuterRef("pk"), slot__hit__task=HitTask.POST_EDIT)
    scored = PostEditOutputScore.objects.filter(output=OuterRef("pk"), signature=signature)
    return Output.objects.filter(system__campaign_id=campaign_id).filter(
        Exists(edited), ~Exists(scored)
    )


@dataclass(frozen=True)
class _Pairs:
    """The texts to score: per edit (MT output, edit, main reference or None), per output
    (MT output, main reference or None)."""

    judgment: list[int]
    mt: list[str]
    edit: list[str]
    edit_reference: list[str | None]
    output: list[int]
    output_mt: list[str]
    output_reference: list[str | None]


def _read_outputs(
    campaign_id: int, signature: str, judgment_ids: Sequence[int] | None
) -> list[tuple[int, str, str | None]]:
    """The unscored edited outputs (of ``judgment_ids``' slots if given): one query."""
    outputs = _unscored_outputs(campaign_id, signature)
    if judgment_ids is not None:
        outputs = outputs.filter(slots__judgments__id__in=list(judgment_ids)).distinct()
    return list(
        outputs.annotate(main_reference=KeyTextTransform("0", "segment__references"))
        .order_by("id")
        .values_list("id", "text", "main_reference")
    )


def _read_pairs(
    campaign_id: int,
    signature: str,
    judgment_ids: Sequence[int] | None,
    references: bool = True,
) -> _Pairs:
    """The unscored edits (of ``judgment_ids`` if given) and outputs: two queries. Without
    ``references``, the edits' MT outputs only (their reference and the outputs wait for
    :func:`score_pending_references`)."""
    edits = _unscored(campaign_id, signature)
    if judgment_ids is not None:
        edits = edits.filter(id__in=list(judgment_ids))
    if references:
        # The main reference is the first of the segment's references: ->> 0 in the database.
        edits = edits.annotate(
            main_reference=KeyTextTransform("0", "slot__output__segment__references")
        )
    else:
        edits = edits.annotate(main_reference=Value(None, output_field=TextField()))
    rows = list(
        edits.order_by("id").values_list("id", "slot__output__text", "text", "main_reference")
    )
    output_rows = _read_outputs(campaign_id, signature, judgment_ids) if references else []
    return _Pairs(
        judgment=[row[0] for row in rows],
        mt=[row[1] for row in rows],
        edit=[row[2] for row in rows],
        edit_reference=[(row[3] or None) if references else None for row in rows],
        output=[row[0] for row in output_rows],
        output_mt=[row[1] for row in output_rows],
        output_reference=[row[2] or None for row in output_rows],
    )


def _score_and_store(
    campaign_id: int, signature: str, options: TerOptions, pairs: _Pairs, processes: int
) -> int:
    """Score every pair in one batch and insert the rows (conflicts ignored)."""
    with_ref = [i for i, ref in enumerate(pairs.edit_reference) if ref is not None]
    out_with_ref = [i for i, ref in enumerate(pairs.output_reference) if ref is not None]
    hypotheses = [
        *pairs.mt,
        *(pairs.edit[i] for i in with_ref),
        *(pairs.output_mt[i] for i in out_with_ref),
    ]
    references = [
        *pairs.edit,
        *(pairs.edit_reference[i] for i in with_ref),
        *(pairs.output_reference[i] for i in out_with_ref),
    ]
    batch = edit_stats_batch(hypotheses, references, options, processes=processes)
    if batch.signature != signature:  # the settings' signature is what the rows claim
        raise AssertionError(f"scored under {batch.signature}, expected {signature}")
    n, k = len(pairs.judgment), len(with_ref)
    ref_edits: list[int | None] = [None] * n
    ref_length: list[float | None] = [None] * n
    for i, e, r in zip(
        with_ref,
        batch.edits[n : n + k].tolist(),
        batch.ref_length[n : n + k].tolist(),
        strict=True,
    ):
        ref_edits[i], ref_length[i] = e, r
    _insert_ignoring_conflicts(
        PostEditScore,
        (
            "campaign",
            "judgment",
            "signature",
            "edits",
            "ref_length",
            "reference_edits",
            "reference_length",
        ),
        zip(
            [campaign_id] * n,
            pairs.judgment,
            [signature] * n,
            batch.edits[:n].tolist(),
            batch.ref_length[:n].tolist(),
            ref_edits,
            ref_length,
            strict=True,
        ),
    )
    out_edits = dict(zip(out_with_ref, batch.edits[n + k :].tolist(), strict=True))
    out_length = dict(zip(out_with_ref, batch.ref_length[n + k :].tolist(), strict=True))
    PostEditOutputScore.objects.bulk_create(
        (
            PostEditOutputScore(
                campaign_id=campaign_id,
                output_id=output,
                signature=signature,
                edits=out_edits.get(i),
                ref_length=out_length.get(i),
            )
            for i, output in enumerate(pairs.output)
        ),
        batch_size=2000,
        ignore_conflicts=True,
    )
    return n


def _insert_ignoring_conflicts(model, fields: tuple[str, ...], rows) -> None:
    """INSERT ``rows`` (tuples of plain ints, floats, strings, None in ``fields``' order) in
    multi-row statements, a row already there (same judgment and signature: a racing run
    stored the same numbers) skipped: what ``bulk_create(..., ignore_conflicts=True)`` does,
    without building a model instance per row (10,000 scores of an import: ~0.4 s of CPU
    in instances alone). ``ON CONFLICT DO NOTHING`` is PostgreSQL's and SQLite's (3.24+)."""
    quote = connection.ops.quote_name
    meta = model._meta
    columns = ", ".join(quote(meta.get_field(name).column) for name in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    limit = connection.features.max_query_params
    per_statement = 2000 if limit is None else max(1, min(500, limit // len(fields)))
    table = quote(meta.db_table)
    rows = list(rows)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), per_statement):
            batch = rows[start : start + per_statement]
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES "  # noqa: S608 - names from meta
                + ", ".join([row] * len(batch))
                + " ON CONFLICT DO NOTHING",
                [value for r in batch for value in r],
            )


def _update_reference_distances(rows: list[tuple[int, int, float]]) -> None:
    """Set (reference_edits, reference_length) of PostEditScore rows by pk: one ``UPDATE ...
    FROM (VALUES ...)`` per 300 rows (PostgreSQL, SQLite 3.33+), not ``bulk_update``'s
    CASE WHEN per row, which costs Django ~5 ms of CPU a row to build at 1,000 rows a
    statement (a chunk task's 1,000 edits: seconds)."""
    quote = connection.ops.quote_name
    table = quote(PostEditScore._meta.db_table)
    edits = quote(PostEditScore._meta.get_field("reference_edits").column)
    length = quote(PostEditScore._meta.get_field("reference_length").column)
    # VALUES' columns are column1, column2, ... in both databases.
    with connection.cursor() as cursor:
        for start in range(0, len(rows), 300):
            batch = rows[start : start + 300]
            cursor.execute(
                f"UPDATE {table} SET {edits} = v.column2, {length} = v.column3 "  # noqa: S608
                "FROM (VALUES " + ", ".join(["(%s, %s, %s)"] * len(batch)) + ") AS v "
                f"WHERE {table}.id = v.column1",
                [value for r in batch for value in r],
            )


def _drop_other_signatures(campaign_id: int, signature: str) -> None:
    """Once every edit is scored under ``signature``, the numbers of other settings go."""
    PostEditScore.objects.filter(campaign_id=campaign_id).exclude(signature=signature).delete()
    PostEditOutputScore.objects.filter(campaign_id=campaign_id).exclude(
        signature=signature
    ).delete()


def score_pending_edits(
    campaign: Campaign,
    *,
    processes: int | None = None,
    judgment_ids: Sequence[int] | None = None,
    references: bool = True,
) -> int:
    """Score and store every edit of ``campaign`` without a score under its current TER
    signature (only those of ``judgment_ids`` if given), and their outputs; return how many
    edits were scored. ``processes``: None for :func:`default_processes`. Once nothing is left
    unscored, the numbers of other signatures are deleted (two queries; the recompute calls
    this only when :func:`pending_edit_ids` finds edits to score).

    ``references=False`` scores the HTER pairs only (MT output -> edit) and leaves each edit's
    distance to the reference and the outputs' TER against it to
    :func:`score_pending_references`: a large import's HTER is then ready in a fraction of
    the time (the reference pairs, independent translations, cost ~4x an HTER pair each)."""
    options = ter_options_for(campaign)
    signature = ter_signature(options)
    pairs = _read_pairs(campaign.pk, signature, judgment_ids, references)
    n = 0
    if pairs.judgment or pairs.output:
        n = _score_and_store(
            campaign.pk,
            signature,
            options,
            pairs,
            default_processes() if processes is None else processes,
        )
        logger.info(
            "Campaign %s: %d edit(s) and %d output(s) scored (%s)",
            campaign.pk,
            n,
            len(pairs.output),
            signature,
        )
        if n >= FAN_OUT_MIN_EDITS:
            # A large batch (an import) before the recompute's next queries: the planner
            # must know the rows are there (analytics.kinds.post_editing.planner).
            refresh_planner_statistics(n)
    if judgment_ids is None or not _unscored(campaign.pk, signature).exists():
        _drop_other_signatures(campaign.pk, signature)
    return n


# --- Distances to the reference, scored after the HTER ----------------------------------------


def _awaiting_reference(campaign_id: int, signature: str) -> QuerySet[PostEditScore]:
    """Stored edit scores without a distance to the reference although the segment has one."""
    return (
        PostEditScore.objects.filter(
            campaign_id=campaign_id, signature=signature, reference_edits__isnull=True
        )
        .annotate(
            main_reference=KeyTextTransform("0", "judgment__slot__output__segment__references")
        )
        # Segments without any reference are left out here, so that a campaign without
        # references reads none of its rows on every recompute; an empty first reference is
        # left out by the callers, in Python: comparing the JSON text with "" is not portable
        # (SQLite reads the "" as malformed JSON).
        .exclude(judgment__slot__output__segment__references=[])
    )


def pending_reference_ids(campaign_id: int, signature: str) -> list[int]:
    """Judgment ids of scored edits still waiting for their distance to the reference, and of
    edits whose output waits for its TER against the reference (two queries)."""
    waiting = _awaiting_reference(campaign_id, signature).values_list(
        "judgment_id", "main_reference"
    )
    ids = {judgment for judgment, reference in waiting if reference}
    ids.update(
        edit_judgments(campaign_id)
        .filter(slot__output__in=_unscored_outputs(campaign_id, signature))
        .filter(Exists(PostEditScore.objects.filter(judgment=OuterRef("pk"), signature=signature)))
        # No ORDER BY: Judgment's default ordering joins the assignment, its HIT and both
        # campaigns and sorts, for ids sorted here anyway.
        .order_by()
        .values_list("id", flat=True)
    )
    return sorted(ids)


def score_pending_references(
    campaign: Campaign, *, processes: int | None = None, judgment_ids: Sequence[int] | None = None
) -> int:
    """The second part of :func:`score_pending_edits` for edits scored without references:
    each scored edit's TER against the main reference (hypothesis = the edit) and each edited
    output's (hypothesis = the output), stored; only those of ``judgment_ids`` if given.
    Return how many pairs were scored."""
    options = ter_options_for(campaign)
    signature = ter_signature(options)
    waiting = _awaiting_reference(campaign.pk, signature)
    if judgment_ids is not None:
        waiting = waiting.filter(judgment_id__in=list(judgment_ids))
    rows = [
        row
        for row in waiting.order_by("pk").values_list("pk", "judgment__text", "main_reference")
        if row[2]
    ]
    outputs = _read_outputs(campaign.pk, signature, judgment_ids)
    out_with_ref = [i for i, row in enumerate(outputs) if row[2]]
    hypotheses = [row[1] for row in rows] + [outputs[i][1] for i in out_with_ref]
    references = [row[2] for row in rows] + [outputs[i][2] for i in out_with_ref]
    if not hypotheses and not outputs:
        return 0
    batch = edit_stats_batch(
        hypotheses,
        references,
        options,
        processes=default_processes() if processes is None else processes,
    )
    n = len(rows)
    _update_reference_distances(
        list(
            zip(
                [row[0] for row in rows],
                batch.edits[:n].tolist(),
                batch.ref_length[:n].tolist(),
                strict=True,
            )
        )
    )
    out_edits = dict(zip(out_with_ref, batch.edits[n:].tolist(), strict=True))
    out_length = dict(zip(out_with_ref, batch.ref_length[n:].tolist(), strict=True))
    PostEditOutputScore.objects.bulk_create(
        (
            PostEditOutputScore(
                campaign_id=campaign.pk,
                output_id=row[0],
                signature=signature,
                edits=out_edits.get(i),
                ref_length=out_length.get(i),
            )
            for i, row in enumerate(outputs)
        ),
        batch_size=2000,
        ignore_conflicts=True,
    )
    logger.info(
        "Campaign %s: %d edit(s) and %d output(s) scored against the reference (%s)",
        campaign.pk,
        n,
        len(outputs),
        signature,
    )
    return len(hypotheses)


# --- Spreading a backlog over Celery ----------------------------------------------------------


def fan_out_key(campaign_id: int, signature: str, part: str = "all") -> str:
    return f"evalsite:post-editing:scoring:{part}:{campaign_id}:{signature}"


def fan_out_scoring(campaign: Campaign, pending: Sequence[int], part: str = "all") -> bool:
    """Send the pending edits to :func:`score_edit_chunk` tasks in chunks of
    :data:`CHUNK_EDITS` (one Celery group); False, sending nothing, when a fan-out of the same
    campaign, signature and part is still in flight. ``part``: "all" scores the edits
    (HTER and reference pairs), "references" the reference pairs of edits already scored."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}")
    signature = ter_signature_for(campaign)
    key = fan_out_key(campaign.pk, signature, part)
    if cache_add(key, len(pending), timeout=FAN_OUT_SECONDS) is False:
        return False
    from celery import group

    from analytics.actions import recompute_queue
    from evalsite.celery import task_named

    score_edit_chunk = task_named(SCORE_CHUNK_TASK)

    chunks = [list(pending[i : i + CHUNK_EDITS]) for i in range(0, len(pending), CHUNK_EDITS)]
    options = {"queue": recompute_queue()} if recompute_queue() else {}
    last_id = max(pending)
    try:
        group(
            score_edit_chunk.s(campaign.pk, signature, chunk, last_id, part).set(**options)
            for chunk in chunks
        ).apply_async()
    except Exception:
        cache_delete(key)
        raise
    logger.info(
        "Campaign %s: %d edits to score (%s) sent in %d chunk task(s)",
        campaign.pk,
        len(pending),
        part,
        len(chunks),
    )
    return True


def _eager() -> bool:
    """Whether Celery runs tasks inline (no broker): then nothing is sent to chunk tasks."""
    from evalsite.celery import app

    return bool(app.conf.task_always_eager)


def should_fan_out(n_pending: int) -> bool:
    """Whether a backlog of ``n_pending`` edits goes to chunk tasks: only from a process that
    cannot score with a pool (a Celery worker's child) and with a broker to send them to."""
    return n_pending >= FAN_OUT_MIN_EDITS and default_processes() == 1 and not _eager()


def should_defer_references(n_pending: int) -> bool:
    """Whether the reference pairs of ``n_pending`` edits are left to chunk tasks after the
    HTER is stored: a large backlog (an import, a change of TER settings) with a broker to
    send them to. Live edits (a HIT at a time) are scored whole in the recompute."""
    return n_pending >= FAN_OUT_MIN_EDITS and not _eager()
