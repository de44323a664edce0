"""Writing a checked judgment import: one transaction of bulk inserts, nothing row by row.

It builds what a collected campaign has, so that the statistics read imported and collected
campaigns the same way (``analytics.loading``): documents and segments, systems, their
outputs, HITs and their slots (each repeat, bad reference and reference slot linked by
``controls`` to the system slot of the same HIT, system and segment, which is how the
reliability tests find their pairs), workers (platform "imported"), one submitted assignment
per worker and HIT, and the judgments. The judgment files carry no texts: sources, outputs
and shown texts are stored empty, except for a format that carries them
(``ParsedJudgments.texts``: post-edits, with their sources, MT outputs and edits).
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from campaigns.importers.context import Progress
from campaigns.importers.judgments.kinds import judgment_import
from campaigns.importers.judgments.records import ParsedJudgments, SlotKey
from campaigns.importers.judgments.target import check_assignments_are_new
from campaigns.importers.problems import ImportFailed, ImportProblem, ProblemList
from campaigns.kinds import kind_of, save_campaign
from campaigns.models import (
    Campaign,
    Document,
    Hit,
    HitSlot,
    Output,
    Segment,
    SlotRole,
    System,
)
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Judgment,
    Platform,
    Worker,
)

BATCH_SIZE = 2000


class SlotPks:
    """The pk of every slot of an import, in one array: HIT ``key``'s slot at ``position`` is
    at ``offsets[key] + position - 1`` (8 bytes a slot instead of a dict entry and its key)."""

    def __init__(self, parsed: ParsedJudgments, offsets: dict[str, int], total: int) -> None:
        self.parsed = parsed
        self.offsets = offsets
        self.pks = array("q", bytes(8 * total))  # 0: not written (yet)

    @classmethod
    def for_hits(cls, parsed: ParsedJudgments) -> SlotPks:
        offsets: dict[str, int] = {}
        total = 0
        for key, hit in parsed.hits.items():
            offsets[key] = total
            total += len(hit.slots)
        return cls(parsed, offsets, total)

    def pk(self, hit: str, slot: SlotKey) -> int:
        return self.pks[self.offsets[hit] + self.parsed.hits[hit].slots[slot] - 1]


@dataclass(frozen=True)
class WriteCounts:
    judgments: int
    assignments: int
    hits: int
    workers: int
    new_workers: int
    systems: int
    new_systems: int
    segments: int
    new_segments: int


def write_judgments(
    campaign: Campaign, parsed: ParsedJudgments, *, progress: Progress | None = None
) -> WriteCounts:
    """Write ``parsed`` into ``campaign`` (saved first when new), in one transaction.

    An existing campaign's row is locked and the checks that depend on what it holds run
    again inside the transaction (the repeat check and the kind's own, ``check_before_write``:
    for direct assessment, raw versus standardised scores), so two imports that were each
    checked alone cannot both write: two imports of the same file, or a raw and a
    standardised file at once. Raises ImportFailed, writing nothing, if a check or the new
    campaign's name fails.
    """
    created = campaign.pk is None
    try:
        with transaction.atomic():
            if created:
                try:
                    with transaction.atomic():
                        save_campaign(campaign)
                except IntegrityError:
                    raise ImportFailed(
                        [
                            ImportProblem(
                                None,
                                None,
                                "name",
                                # Names are unique per owner (issue 11 item 8): only
                                # the same owner's campaign can clash here.
                                f'a campaign of the same owner named "{campaign.name}" was '
                                "created meanwhile; choose another name",
                            )
                        ]
                    ) from None
            else:
                # Imports into one campaign queue here until the first one commits.
                list(Campaign.objects.select_for_update().filter(pk=campaign.pk).values("pk"))
                problems = ProblemList(parsed.files)
                judgment_import(campaign.kind).check_before_write(campaign, parsed, problems)
                check_assignments_are_new(campaign, parsed, problems)
                if problems:
                    raise problems.failure()
            return _Writer(campaign, parsed, progress).run()
    except BaseException:
        if created:  # rolled back: the campaign is unsaved again
            campaign.pk = None
            campaign._state.adding = True
        raise


class _Writer:
    def __init__(
        self, campaign: Campaign, parsed: ParsedJudgments, progress: Progress | None
    ) -> None:
        self.campaign = campaign
        self.parsed = parsed
        self.progress = progress
        self.now = timezone.now()
        self.done = 0
        self.total = len(parsed.judgments)
        self.top_hit = 0

    def run(self) -> WriteCounts:
        if self.progress:
            self.progress(0, self.total)
        segments, new_segments = self.segments()
        systems, new_systems = self.systems()
        outputs = self.outputs(systems, segments)
        workers, new_workers = self.workers()
        hits = self.hits()
        slots = self.slots(hits, segments, outputs)
        assignments = self.assignments(hits, workers)
        self.judgments(assignments, slots, workers)
        return WriteCounts(
            judgments=self.total,
            assignments=len(assignments),
            hits=len(hits),
            workers=len(workers),
            new_workers=new_workers,
            systems=len(self.parsed.systems),
            new_systems=new_systems,
            segments=len(self.parsed.segments),
            new_segments=new_segments,
        )

    # --- Content ------------------------------------------------------------------------

    def segments(self) -> tuple[dict[tuple[str, str], int], int]:
        """Segment pk by (document, segment id), creating what the campaign lacks."""
        campaign = self.campaign
        documents = dict(
            Document.objects.filter(campaign=campaign).values_list("external_id", "pk")
        )
        top = Document.objects.filter(campaign=campaign).aggregate(top=Max("position"))["top"]
        wanted = list(dict.fromkeys(document for document, _ in self.parsed.segments))
        new_documents = [
            Document(campaign=campaign, external_id=external_id, position=(top or 0) + number)
            for number, external_id in enumerate((d for d in wanted if d not in documents), start=1)
        ]
        Document.objects.bulk_create(new_documents, batch_size=BATCH_SIZE)
        documents.update(
            _pks(
                new_documents,
                lambda d: d.external_id,
                lambda: Document.objects.filter(campaign=campaign).values_list("external_id", "pk"),
            )
        )
        by_document = {pk: external_id for external_id, pk in documents.items()}
        stored: dict[tuple[str, str], int] = {}
        positions: dict[int, int] = {}
        for pk, document_id, external_id, position in Segment.objects.filter(
            campaign=campaign
        ).values_list("pk", "document_id", "external_id", "position"):
            stored[(by_document[document_id], external_id)] = pk
            positions[document_id] = max(positions.get(document_id, 0), position)
        new_segments = []
        texts = self.parsed.texts
        for key in sorted((k for k in self.parsed.segments if k not in stored), key=_natural):
            document_id = documents[key[0]]
            positions[document_id] = positions.get(document_id, 0) + 1
            source, references = texts.segment(key) if texts is not None else ("", [])
            new_segments.append(
                Segment(
                    campaign=campaign,
                    document_id=document_id,
                    external_id=key[1],
                    position=positions[document_id],
                    source=source,
                    references=references,
                )
            )
        Segment.objects.bulk_create(new_segments, batch_size=BATCH_SIZE)
        stored.update(
            _pks(
                new_segments,
                lambda s: (by_document[s.document_id], s.external_id),
                lambda: (
                    ((by_document[d], e), pk)
                    for d, e, pk in Segment.objects.filter(campaign=campaign).values_list(
                        "document_id", "external_id", "pk"
                    )
                ),
            )
        )
        return stored, len(new_segments)

    def systems(self) -> tuple[dict[str, int], int]:
        campaign = self.campaign
        stored = dict(System.objects.filter(campaign=campaign).values_list("name", "pk"))
        new = [
            System(campaign=campaign, name=name)
            for name in self.parsed.systems
            if name not in stored
        ]
        System.objects.bulk_create(new, batch_size=BATCH_SIZE)
        stored.update(
            _pks(
                new,
                lambda s: s.name,
                lambda: System.objects.filter(campaign=campaign).values_list("name", "pk"),
            )
        )
        return stored, len(new)

    def outputs(
        self, systems: dict[str, int], segments: dict[tuple[str, str], int]
    ) -> dict[tuple[int, int], int]:
        """Output pk by (system pk, segment pk), creating the outputs the slots judge."""
        campaign = self.campaign
        stored = {
            (system, segment): pk
            for pk, system, segment in Output.objects.filter(system__campaign=campaign).values_list(
                "pk", "system_id", "segment_id"
            )
        }
        wanted: dict[tuple[int, int], tuple[str, tuple[str, str]]] = {}
        for hit in self.parsed.hits.values():
            for _, system, document, segment in hit.slots:
                key = (systems[system], segments[(document, segment)])
                wanted.setdefault(key, (system, (document, segment)))
        texts = self.parsed.texts
        new = [
            Output(
                system_id=system,
                segment_id=segment,
                text="" if texts is None else texts.output(*wanted[(system, segment)]),
            )
            for system, segment in wanted
            if (system, segment) not in stored
        ]
        Output.objects.bulk_create(new, batch_size=BATCH_SIZE)
        stored.update(
            _pks(
                new,
                lambda o: (o.system_id, o.segment_id),
                lambda: (
                    ((system, segment), pk)
                    for pk, system, segment in Output.objects.filter(
                        system__campaign=campaign
                    ).values_list("pk", "system_id", "segment_id")
                ),
            )
        )
        return stored

    # --- Workers, HITs, assignments, judgments --------------------------------------------

    def workers(self) -> tuple[dict[str, int], int]:
        """Worker pk by external id (platform "imported"); existing workers are reused."""
        names = self.parsed.workers()
        imported = Worker.objects.filter(platform=Platform.IMPORTED)
        stored: dict[str, int] = {}
        for chunk in _chunks(names):
            stored.update(imported.filter(external_id__in=chunk).values_list("external_id", "pk"))
        missing = [name for name in names if name not in stored]
        # ignore_conflicts: a concurrent import may create the same worker; both then use it.
        Worker.objects.bulk_create(
            [Worker(platform=Platform.IMPORTED, external_id=name) for name in missing],
            batch_size=BATCH_SIZE,
            ignore_conflicts=True,
        )
        for chunk in _chunks(missing):
            stored.update(imported.filter(external_id__in=chunk).values_list("external_id", "pk"))
        CampaignWorker.objects.bulk_create(
            [CampaignWorker(campaign=self.campaign, worker_id=pk) for pk in stored.values()],
            batch_size=BATCH_SIZE,
            ignore_conflicts=True,
        )
        return stored, len(missing)

    def hits(self) -> dict[str, int]:
        campaign = self.campaign
        top = Hit.objects.filter(campaign=campaign).aggregate(top=Max("number"))["top"] or 0
        self.top_hit = top  # the import's HITs are numbered after it
        task = kind_of(campaign).import_hit_task
        new = [
            Hit(campaign=campaign, task=task, number=top + number)
            for number in range(1, len(self.parsed.hits) + 1)
        ]
        Hit.objects.bulk_create(new, batch_size=BATCH_SIZE)
        by_number = _pks(
            new,
            lambda h: h.number,
            lambda: Hit.objects.filter(campaign=campaign, number__gt=top).values_list(
                "number", "pk"
            ),
        )
        return {key: by_number[top + i] for i, key in enumerate(self.parsed.hits, start=1)}

    def slots(
        self,
        hits: dict[str, int],
        segments: dict[tuple[str, str], int],
        outputs: dict[tuple[int, int], int],
    ) -> SlotPks:
        """Slot pks (:class:`SlotPks`). System slots first, then the quality-control slots
        with ``controls`` pointing at the system slot of the same HIT, system and segment.

        Rows are generated while they are inserted and their pks land in one array indexed by
        HIT and position (issue 11 item 6: a 200 MB WMT file has 2.2 million slots; a dict
        keyed by (HIT, slot) and a list of all rows took hundreds of MB)."""
        systems = dict(System.objects.filter(campaign=self.campaign).values_list("name", "pk"))
        pks = SlotPks.for_hits(self.parsed)
        base_by_pk = {hits[key]: base for key, base in pks.offsets.items()}
        shown = _prepared(HitSlot, "shown_text", "")
        texts = self.parsed.texts
        system_role = SlotRole.SYSTEM.value
        # Groups of the import (post-editing runs) are numbered after the campaign's.
        first_group = 0
        if any(hit.group for hit in self.parsed.hits.values()):
            first_group = (
                HitSlot.objects.filter(hit__campaign=self.campaign).aggregate(top=Max("group"))[
                    "top"
                ]
                or 0
            )

        def rows(controls_pass: bool) -> Iterable[tuple]:
            for hit_key, hit in self.parsed.hits.items():
                hit_pk, base = hits[hit_key], pks.offsets[hit_key]
                group = first_group + hit.group if hit.group else 0
                for slot, position in hit.slots.items():
                    role, system, document, segment = slot
                    if (role != system_role) != controls_pass:
                        continue
                    segment_pk = segments[(document, segment)]
                    controls = None
                    if controls_pass:
                        controlled = hit.slots.get((system_role, *slot[1:]))
                        if controlled is not None:
                            controls = pks.pks[base + controlled - 1] or None
                    yield (
                        hit_pk,
                        position,
                        group,
                        role,
                        segment_pk,
                        outputs[(systems[system], segment_pk)],
                        shown
                        if texts is None or role != system_role
                        else texts.output(system, (document, segment)),
                        controls,
                    )

        for controls_pass in (False, True):
            _insert(
                HitSlot,
                ("hit", "position", "group", "role", "segment", "output", "shown_text", "controls"),
                rows(controls_pass),
            )
            for hit_pk, position, pk in self._new_rows(HitSlot, "hit_id", "position"):
                base = base_by_pk.get(hit_pk)
                if base is not None:
                    pks.pks[base + position - 1] = pk
        return pks

    def _new_rows(self, model, *fields: str) -> Iterator[tuple]:
        """(fields..., pk) of the rows of ``model`` on this import's HITs (one query, read in
        chunks rather than as one list)."""
        return (
            model.objects.filter(hit__campaign=self.campaign, hit__number__gt=self.top_hit)
            .order_by()
            .values_list(*fields, "pk")
            .iterator(chunk_size=BATCH_SIZE)
        )

    def assignments(
        self, hits: dict[str, int], workers: dict[str, int]
    ) -> dict[tuple[str, str], int]:
        external = {key: hit.external_id for key, hit in self.parsed.hits.items()}
        pairs = self.parsed.assignments()
        now = _prepared(Assignment, "submitted_at", self.now)
        campaign = self.campaign.pk
        submitted = AssignmentStatus.SUBMITTED.value
        _insert(
            Assignment,
            (
                "campaign",
                "hit",
                "worker",
                "status",
                "started_at",
                "last_activity_at",
                "submitted_at",
                "expires_at",
                "platform_assignment_id",
                "platform_hit_id",
                "turk_submit_to",
                "platform_status",
                "review_feedback",
            ),
            [
                (
                    campaign,
                    hits[hit],
                    workers[worker],
                    submitted,
                    now,
                    now,
                    now,
                    now,
                    "",
                    external[hit],
                    "",
                    "",
                    "",
                )
                for worker, hit in pairs
            ],
        )
        stored = {
            (hit, worker): pk
            for hit, worker, pk in self._new_rows(Assignment, "hit_id", "worker_id")
        }
        return {(worker, hit): stored[(hits[hit], workers[worker])] for worker, hit in pairs}

    def judgments(
        self,
        assignments: dict[tuple[str, str], int],
        slots: SlotPks,
        workers: dict[str, int],
    ) -> None:
        campaign = self.campaign.pk
        now = _prepared(Judgment, "submitted_at", self.now)
        text = _prepared(Judgment, "text", "")
        details = _prepared(Judgment, "details", {})
        started = Judgment._meta.get_field("client_started_at")
        columns = (
            "campaign",
            "worker",
            "assignment",
            "slot",
            "score",
            "given_z",
            "rank",
            "text",
            "details",
            "client_started_at",
            "client_duration_ms",
            "submitted_at",
        )
        texts = self.parsed.texts
        # A format's details repeat a few values (post-edits: two flags): prepared once each.
        prepared_details: dict[str, Any] = {}
        rows: list[tuple] = []
        for row, record in enumerate(self.parsed.judgments):
            if texts is not None:
                text, row_details = texts.judgment(row)
                key = json.dumps(row_details, sort_keys=True)
                details = prepared_details.get(key)
                if details is None:
                    details = prepared_details[key] = _prepared(Judgment, "details", row_details)
            rows.append(
                (
                    campaign,
                    workers[record.worker],
                    assignments[(record.worker, record.hit)],
                    slots.pk(record.hit, record.slot),
                    record.score,
                    record.given_z,
                    record.rank,
                    text,
                    details,
                    None
                    if record.started_at is None
                    else started.get_db_prep_save(record.started_at, connection),
                    None if record.seconds is None else round(record.seconds * 1000),
                    now,
                )
            )
            if len(rows) == BATCH_SIZE:
                self._flush(columns, rows)
                rows = []
        self._flush(columns, rows)

    def _flush(self, columns: tuple[str, ...], rows: list[tuple]) -> None:
        if not rows:
            return
        _insert(Judgment, columns, rows)
        self.done += len(rows)
        if self.progress:
            self.progress(self.done, self.total)


def _prepared(model, field: str, value: Any) -> Any:
    """``value`` as the database takes it for ``model.field`` (datetimes, JSON)."""
    return model._meta.get_field(field).get_db_prep_save(value, connection)


def _insert(model, fields: tuple[str, ...], rows: Iterable[tuple]) -> None:
    """INSERT the rows (values already as the database takes them) in batches.

    The large tables of an import (slots, assignments, judgments: a WMT file has up to a
    million rows) are written with a plain multi-row INSERT: ``bulk_create`` spends most of
    its time building and preparing every field of every model instance in Python, work the
    values here do not need (200,000 WMT judgments: 62 s with bulk_create, 12 s so, on
    SQLite). One statement per batch, nothing row by row; table and column names come from
    the model's meta, the values are parameters. ``rows`` may be a generator: only one
    statement's rows are held at a time.
    """
    quote = connection.ops.quote_name
    meta = model._meta
    columns = ", ".join(quote(meta.get_field(name).column) for name in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    # Rows per statement: Django's limit on parameters for the database (SQLite: 999), and
    # never more than SQLite's 500 rows of one compound statement.
    limit = connection.features.max_query_params
    per_statement = BATCH_SIZE if limit is None else max(1, min(500, limit // len(fields)))
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES "  # noqa: S608
    rows = iter(rows)
    with connection.cursor() as cursor:
        while batch := list(islice(rows, per_statement)):
            cursor.execute(sql + ", ".join([row] * len(batch)), [v for r in batch for v in r])


def _pks(objects: list, key: Callable, query: Callable[[], Iterable]) -> dict:
    """pk by ``key`` for freshly bulk-created objects; one query if the database did not
    return the primary keys (PostgreSQL and SQLite 3.35+ do)."""
    if all(obj.pk is not None for obj in objects):
        return {key(obj): obj.pk for obj in objects}
    wanted = {key(obj) for obj in objects}
    return {k: pk for k, pk in query() if k in wanted}


def _chunks(values: list, size: int = 900) -> Iterable[list]:
    """Slices small enough for an ``__in`` lookup on any SQLite (999 parameters at most)."""
    return (values[start : start + size] for start in range(0, len(values), size))


def _natural(key: tuple[str, str]) -> tuple:
    """Segments in document order, numeric ids numerically (2 before 10)."""
    document, segment = key
    return (document, 0, int(segment), "") if segment.isdigit() else (document, 1, 0, segment)
