"""Hand-written SQL of the worker endpoints' hot path (issue 16): the assignment a task link
stands for, the HIT's slots with what this assignment answered, and a submission's write.

Why not the ORM here: every item and submit request runs these statements, and Django building
their SQL (joins, column lists, lookups) was half of a submission's Python time. On PostgreSQL
they run as prepared statements (:mod:`evalsite.prepared_statements`): planning the
assignment's eight-relation join cost the database ten times its execution. The SQL of
each read is built once per database connection vendor from the models' own metadata (the
column lists follow the models, so a new field needs no change here), and the rows become
model instances through the same converters the ORM applies (``from_db_value``; SQLite's
datetimes and booleans), with the related objects cached as ``select_related`` would cache
them. What the statements mean is unchanged: see :mod:`judgments.actions.state` and
:mod:`judgments.actions.submission`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings as django_settings
from django.db import connections, models, router

from campaigns.models import Campaign, Hit, HitSlot, Segment
from evalsite import prepared_statements
from judgments.models import LIVE_ASSIGNMENT_STATUSES, Assignment, AssignmentStatus, Judgment

Converter = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True)
class _Columns:
    """One model's columns in a statement: where they start in a row and how to read them."""

    model: type[models.Model]
    alias: str
    start: int
    attnames: tuple[str, ...]
    # (index within the model's columns, its converters, the expression they are called with)
    converters: tuple[tuple[int, tuple[Converter, ...], Any], ...]
    pk_index: int
    select: str  # the columns as a SELECT list

    @property
    def end(self) -> int:
        return self.start + len(self.attnames)

    def instance(self, row: Sequence[Any], db: str) -> models.Model | None:
        """The model instance of ``row``'s columns; None when its primary key is NULL (a LEFT
        JOIN that found nothing)."""
        values = list(row[self.start : self.end])
        if values[self.pk_index] is None:
            # Before converting anything: every other kind's settings are such a miss.
            return None
        connection = connections[db]
        for index, converters, expression in self.converters:
            value = values[index]
            for convert in converters:
                value = convert(value, expression, connection)
            values[index] = value
        return self.model.from_db(db, self.attnames, values)


def _db_converters(field: models.Field, alias: str, connection) -> tuple[Any, list[Converter]]:
    """The column expression of ``field`` and the converters the ORM applies to its values
    (the backend's, then the field's own ``from_db_value``)."""
    expression = field.get_col(alias)
    return expression, (
        connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
    )


def _columns(model: type[models.Model], alias: str, start: int, connection) -> _Columns:
    fields = model._meta.concrete_fields
    quote = connection.ops.quote_name
    converters = []
    for index, field in enumerate(fields):
        expression, found = _db_converters(field, alias, connection)
        if found:
            converters.append((index, tuple(found), expression))
    attnames = tuple(f.attname for f in fields)
    return _Columns(
        model,
        alias,
        start,
        attnames,
        tuple(converters),
        attnames.index(model._meta.pk.attname),
        ", ".join(f"{alias}.{quote(f.column)}" for f in fields),
    )


# Field types whose values JSON carries exactly as psycopg2 returns them: text, whole numbers
# (keys included), booleans, decimals (written as text, made Decimal by the field's
# to_python: every digit kept), JSON documents (already decoded: what JSONField.from_db_value
# makes of psycopg2's text, floats included), and aware datetimes, which PostgreSQL writes in
# ISO 8601 with microseconds in the connection's time zone (UTC, as Django sets it with
# USE_TZ).
_JSON_EXACT = (
    models.CharField,
    models.TextField,
    models.IntegerField,
    models.BooleanField,
    models.DecimalField,
)


def _json_decoder(field: models.Field) -> Callable[[Any], Any] | None | bool:
    """How a value of ``field`` read from JSON becomes psycopg2's: None (as it is), a function,
    or False when JSON cannot give it back exactly."""
    if isinstance(field, models.DecimalField):
        return field.to_python
    if isinstance(field, _JSON_EXACT):
        return None
    if isinstance(field, models.ForeignKey):
        return None if isinstance(field.target_field, models.IntegerField) else False
    if isinstance(field, models.DateTimeField) and django_settings.USE_TZ:
        return _datetime_from_json
    if isinstance(field, models.JSONField) and field.decoder is None:
        return None
    return False


def _datetime_from_json(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


@dataclass(frozen=True)
class _JsonColumns:
    """PostgreSQL: one model's columns packed into one JSON array column of the statement.

    The assignment's statement reads the assignment, its HIT, its campaign and every kind's
    settings (a campaign has one kind): about 125 columns, of which psycopg2 describes and
    converts every one on every request (~1.4 us each; issue 16). As one text column per
    model, a kind without settings is one NULL."""

    model: type[models.Model]
    start: int
    attnames: tuple[str, ...]
    decoders: tuple[tuple[int, Callable[[Any], Any]], ...]  # (index, decoder) where needed
    value: str  # the row as a JSON array (text), for a statement that has the row
    select: str  # the same, NULL where a LEFT JOIN found no row

    @property
    def end(self) -> int:
        return self.start + 1

    def instance(self, row: Sequence[Any], db: str) -> models.Model | None:
        document = row[self.start]
        if document is None:
            return None
        values = json.loads(document)
        for index, decode in self.decoders:
            values[index] = decode(values[index])
        return self.model.from_db(db, self.attnames, values)


def _json_columns(
    model: type[models.Model], alias: str, start: int, connection
) -> _JsonColumns | None:
    """``model``'s columns as one JSON column (:class:`_JsonColumns`), or None where that
    would not give back the values exactly (another vendor, a field type JSON changes, a
    field with a converter of its own)."""
    if connection.vendor != "postgresql":
        return None
    fields = model._meta.concrete_fields
    if len(fields) > 100:  # json_build_array's limit of arguments
        return None
    decoders = []
    for index, field in enumerate(fields):
        decode = _json_decoder(field)
        _, converters = _db_converters(field, alias, connection)
        own_converters = [c for c in converters if not _is_json_field_converter(field, c)]
        if decode is False or own_converters:
            return None
        if decode is not None:
            decoders.append((index, decode))
    quote = connection.ops.quote_name
    pk = model._meta.pk
    packed = ", ".join(
        f"{alias}.{quote(f.column)}::text"
        if isinstance(f, models.DecimalField)
        else f"{alias}.{quote(f.column)}"
        for f in fields
    )
    value = f"json_build_array({packed})::text"
    return _JsonColumns(
        model,
        start,
        tuple(f.attname for f in fields),
        tuple(decoders),
        value,
        f"CASE WHEN {alias}.{quote(pk.column)} IS NULL THEN NULL ELSE {value} END",
    )


def _is_json_field_converter(field: models.Field, converter: Converter) -> bool:
    """JSONField's own from_db_value decodes psycopg2's text; inside the packed JSON the
    document is decoded already."""
    return isinstance(field, models.JSONField) and getattr(converter, "__func__", None) is (
        models.JSONField.from_db_value
    )


def _packed_or_columns(
    model: type[models.Model], alias: str, start: int, connection
) -> _JsonColumns | _Columns:
    return _json_columns(model, alias, start, connection) or _columns(
        model, alias, start, connection
    )


def _kind_settings() -> list[tuple[str, type[models.Model]]]:
    """(accessor on Campaign, model) of every kind's settings (campaigns.kinds)."""
    from campaigns.kinds import registry

    return [
        (kind.settings_accessor, kind.settings_model)
        for kind in registry
        if kind.settings_model is not None
    ]


# --- The assignment, its HIT, its campaign and the campaign's kind settings: one statement ---


@dataclass(frozen=True)
class _AssignmentSelect:
    sql: str
    locking_sql: str
    started_sql: str
    assignment: _Columns | _JsonColumns
    hit: _Columns | _JsonColumns
    campaign: _Columns | _JsonColumns
    settings: tuple[tuple[str, _Columns | _JsonColumns], ...]
    # PostgreSQL: the row's index of the HIT's slots as JSON (:func:`_slots_json`); None
    # elsewhere (the slots are a query of their own: :func:`load_slots`).
    slots_index: int | None = None


_assignment_selects: dict[str, _AssignmentSelect] = {}


def _assignment_select(connection) -> _AssignmentSelect:
    built = _assignment_selects.get(connection.vendor)
    if built is not None:
        return built
    quote = connection.ops.quote_name
    assignment = _packed_or_columns(Assignment, "a", 0, connection)
    hit = _packed_or_columns(Hit, "h", assignment.end, connection)
    campaign = _packed_or_columns(Campaign, "c", hit.end, connection)
    settings, selects, joins, start = [], [], [], campaign.end
    for number, (accessor, model) in enumerate(_kind_settings()):
        alias = f"k{number}"
        columns = _packed_or_columns(model, alias, start, connection)
        start = columns.end
        settings.append((accessor, columns))
        table, pk = quote(model._meta.db_table), f"{alias}.{quote(model._meta.pk.column)}"
        if isinstance(columns, _JsonColumns):
            # One kind's settings as a scalar subquery (NULL without a row): a lookup of the
            # campaign in the settings' primary key. As LEFT JOINs of these small tables the
            # planner hashed each whole table on every request: PostgreSQL's CPU for the
            # statement 0.50 ms, 0.38 so (issue 16; alternated, prepared, 200 assignments).
            # Identifiers from the models' metadata only.
            selects.append(f"(SELECT {columns.value} FROM {table} {alias} WHERE {pk} = c.id)")  # noqa: S608
        else:
            selects.append(columns.select)
            joins.append(f"LEFT OUTER JOIN {table} {alias} ON {pk} = c.id")
    select = ", ".join([assignment.select, hit.select, campaign.select, *selects])
    slots_index = None
    if connection.vendor == "postgresql":
        # The HIT's slots and what this assignment answered, in the same statement (issue 16:
        # a submission is one read and one write).
        slots_index = start
        select += f", ({_slots_json(connection)}) AS hit_slots"
    joined = (
        # Identifiers from the models' metadata only; every value is a parameter.
        f"SELECT {select} FROM {quote(Assignment._meta.db_table)} a "  # noqa: S608
        f"INNER JOIN {quote(Hit._meta.db_table)} h ON h.id = a.hit_id "
        f"INNER JOIN {quote(Campaign._meta.db_table)} c ON c.id = a.campaign_id " + " ".join(joins)
    )
    sql = joined + " WHERE a.id = %s AND a.worker_id = %s"
    # Only the assignment row is locked, not the HIT, campaign or settings joined in.
    locking = sql + (" FOR UPDATE OF a" if connection.features.has_select_for_update_of else "")
    # The hand-out's resume: the worker's started assignment in a campaign, first by HIT number.
    started = (
        joined + " WHERE a.campaign_id = %s AND a.worker_id = %s AND a.status = %s "
        "ORDER BY h.number LIMIT 1"
    )
    built = _AssignmentSelect(
        sql, locking, started, assignment, hit, campaign, tuple(settings), slots_index
    )
    _assignment_selects[connection.vendor] = built
    return built


def load_assignment(assignment_id: int, worker_id: int, *, lock: bool) -> Assignment | None:
    """The assignment with both ids, its HIT and campaign loaded and the campaign's kind
    settings cached (as ``select_related`` would: a kind without a row reads as missing);
    None if there is none. ``lock``: lock the assignment row (inside a transaction)."""
    db = router.db_for_read(Assignment)
    connection = connections[db]
    select = _assignment_select(connection)
    with connection.cursor() as cursor:
        prepared_statements.execute(
            cursor,
            connection,
            select.locking_sql if lock else select.sql,
            [assignment_id, worker_id],
        )
        row = cursor.fetchone()
    return None if row is None else _assignment_of_row(select, row, db)


def load_started_assignment(campaign_id: int, worker_id: int) -> Assignment | None:
    """The worker's started assignment in the campaign that comes first by HIT number (the
    hand-out's resume), loaded as :func:`load_assignment` loads one; None if there is none."""
    db = router.db_for_read(Assignment)
    connection = connections[db]
    select = _assignment_select(connection)
    with connection.cursor() as cursor:
        prepared_statements.execute(
            cursor,
            connection,
            select.started_sql,
            [campaign_id, worker_id, AssignmentStatus.STARTED.value],
        )
        row = cursor.fetchone()
    return None if row is None else _assignment_of_row(select, row, db)


def _assignment_of_row(select: _AssignmentSelect, row: Sequence[Any], db: str) -> Assignment:
    assignment = select.assignment.instance(row, db)
    hit = select.hit.instance(row, db)
    campaign = select.campaign.instance(row, db)
    assignment._state.fields_cache["hit"] = hit
    assignment._state.fields_cache["campaign"] = campaign
    if hit.campaign_id == campaign.pk:
        hit._state.fields_cache["campaign"] = campaign
    for accessor, columns in select.settings:
        settings = columns.instance(row, db)
        campaign._state.fields_cache[accessor] = settings
        if settings is not None:
            settings._state.fields_cache["campaign"] = campaign
    if select.slots_index is not None:
        assignment._hot_slots = JsonHitSlots(row[select.slots_index], hit, db)
    return assignment


# --- The HIT's slots, each with its segment and whether this assignment answered it ---------


@dataclass(frozen=True)
class _SlotSelect:
    sql: str
    slot: _Columns
    segment: _Columns
    answered: int  # the row's index of the "answered" flag
    key: tuple[int, int, int]  # the row's indexes of the slot's pk, position and group


_slot_selects: dict[str, _SlotSelect] = {}


def _slot_select(connection) -> _SlotSelect:
    built = _slot_selects.get(connection.vendor)
    if built is not None:
        return built
    quote = connection.ops.quote_name
    slot = _columns(HitSlot, "s", 0, connection)
    segment = _columns(Segment, "g", slot.end, connection)
    judgments = quote(Judgment._meta.db_table)
    sql = (
        f"SELECT {slot.select}, {segment.select}, "  # noqa: S608 (identifiers from the models)
        # The judgments' unique (assignment, slot) index answers this.
        f"EXISTS (SELECT 1 FROM {judgments} j WHERE j.assignment_id = %s AND j.slot_id = s.id) "
        f"FROM {quote(HitSlot._meta.db_table)} s "
        f"LEFT OUTER JOIN {quote(Segment._meta.db_table)} g ON g.id = s.segment_id "
        f"WHERE s.hit_id = %s ORDER BY s.{quote('position')}"
    )
    names = slot.attnames
    key = (names.index("id"), names.index("position"), names.index("group"))
    built = _SlotSelect(sql, slot, segment, segment.end, key)
    _slot_selects[connection.vendor] = built
    return built


class HitSlots:
    """The rows of a HIT's slots in position order; :meth:`slot` makes one a HitSlot (with its
    segment and HIT cached) only when a page shows it."""

    def __init__(self, rows: list[Sequence[Any]], select: _SlotSelect, hit: Hit, db: str):
        self._rows = {row[select.key[0]]: row for row in rows}
        self._select = select
        self._hit = hit
        self._db = db
        pk, position, group = select.key
        self.keys = [(row[pk], row[position], row[group]) for row in rows]
        self.answered = {row[pk] for row in rows if row[select.answered]}

    def slot(self, pk: int) -> HitSlot:
        row = self._rows[pk]
        slot = self._select.slot.instance(row, self._db)
        slot._state.fields_cache["segment"] = self._select.segment.instance(row, self._db)
        slot._state.fields_cache["hit"] = self._hit
        return slot


# The columns sent for the first unanswered slots (a page shows no other): the slot's, then
# its segment's.
_SLOT_FIELDS = tuple(HitSlot._meta.concrete_fields)
_SEGMENT_FIELDS = tuple(Segment._meta.concrete_fields)
# How many of the HIT's unanswered slots, in position order, come with their columns. Every
# kind's page but ranking's shows one unit of one slot; a ranking page shows the HIT's sets
# (WMT: 3 sets of 5). A page showing more reads the rest in one query (JsonHitSlots.slot).
# Not all: a 100-item DA HIT's segments as JSON were 1.4 ms of the statement at a million
# judgments, for the one item shown.
SLOTS_WITH_COLUMNS = 32


def _slots_with_columns(connection) -> str:
    """SQL: how many unanswered slots of the HIT row ``h`` come with their columns: twice the
    ``slots_per_page`` of its task's spec (judgments.kinds; a submission answers the page read
    and shows the next one), else :data:`SLOTS_WITH_COLUMNS`. A 100-item DA HIT's 32 slots and
    segments as JSON, for the one item its page shows, were a third of a submission's read:
    with two (and each segment read only for a slot sent with columns), PostgreSQL's CPU
    0.93 ms instead of 1.36, the client's 0.21 instead of 0.31 (issue 16; alternated in one
    process, a HIT half done)."""
    from judgments.kinds import registry

    limits = {}
    for kind in registry:
        for task in kind.tasks():
            page = kind.page(task)
            per_page = None if page is None else page.spec.slots_per_page
            if per_page is not None:
                if not task.isidentifier():  # a HitTask value, written into the SQL
                    raise ValueError(f"unexpected HIT task {task!r}")
                limits[task] = 2 * int(per_page)
    if not limits:
        return str(SLOTS_WITH_COLUMNS)
    task_column = f"h.{connection.ops.quote_name(Hit._meta.get_field('task').column)}"
    whens = " ".join(f"WHEN '{task}' THEN {n}" for task, n in sorted(limits.items()))
    return f"(CASE {task_column} {whens} ELSE {SLOTS_WITH_COLUMNS} END)"


def _slots_json(connection) -> str:
    """PostgreSQL: the HIT's slots of the assignment row ``a`` (of the HIT row ``h``) as one
    JSON array ``[ids, positions, groups, answered, shown]``: the slots' ids, positions and
    groups as three arrays in position order, the ids of the slots this assignment answered,
    and the slot's and its segment's columns (:data:`_SLOT_FIELDS`, :data:`_SEGMENT_FIELDS`)
    of the first unanswered ones (:func:`_slots_with_columns`), in position order. An empty
    array is a JSON null.

    Flat arrays, and the few slots sent with columns read apart through the unique (HIT,
    position) index: as one JSON array a slot, with a window numbering the unanswered ones,
    the HIT's slots were three quarters of the assignment statement's cost (PostgreSQL's CPU
    for the statement 0.37 ms, 0.30 so, and the keys decoded in one list each; issue 16,
    alternated, prepared, 200 assignments half done)."""
    quote = connection.ops.quote_name
    with_columns = _slots_with_columns(connection)
    judgments = quote(Judgment._meta.db_table)
    slots = quote(HitSlot._meta.db_table)
    position = f"s.{quote('position')}"
    columns = ", ".join(
        [f"s.{quote(f.column)}" for f in _SLOT_FIELDS]
        + [f"g.{quote(f.column)}" for f in _SEGMENT_FIELDS]
    )
    # Identifiers from the models' metadata only; the one value (the limit) comes from the
    # kinds' page specs as an integer.
    keys = (
        f"SELECT array_agg(s.id ORDER BY {position}), "  # noqa: S608
        f"array_agg({position} ORDER BY {position}), "
        f"array_agg(s.{quote('group')} ORDER BY {position}) "
        f"FROM {slots} s WHERE s.hit_id = a.hit_id"
    )
    # The judgments' unique (assignment, slot) index answers both.
    answered = f"SELECT array_agg(j.slot_id) FROM {judgments} j WHERE j.assignment_id = a.id"  # noqa: S608
    unanswered = (
        f"SELECT s.* FROM {slots} s WHERE s.hit_id = a.hit_id "  # noqa: S608
        f"AND NOT EXISTS (SELECT 1 FROM {judgments} j "
        "WHERE j.assignment_id = a.id AND j.slot_id = s.id) "
        f"ORDER BY {position} LIMIT {with_columns}"
    )
    # json_build_array takes at most 100 arguments: the slot's and the segment's columns
    # together are fewer (tests/judgments/test_hot_slots.py).
    shown = (
        f"SELECT json_agg(json_build_array({columns}) ORDER BY {position}) "  # noqa: S608
        f"FROM ({unanswered}) s LEFT OUTER JOIN {quote(Segment._meta.db_table)} g "
        "ON g.id = s.segment_id"
    )
    return (
        f"SELECT json_build_array(k.ids, k.positions, k.groups, ({answered}), ({shown})) "  # noqa: S608
        f"FROM ({keys}) k (ids, positions, groups)"
    )


class JsonHitSlots:
    """:class:`HitSlots` from the assignment statement's JSON (PostgreSQL, :func:`_slots_json`):
    the same keys, answered set and slot instances. JSON already carries the values as Python
    wants them (numbers, text, the segment's references as decoded JSON), so no converter
    runs. A slot the JSON has no columns for (past :data:`SLOTS_WITH_COLUMNS`) is read with
    every other such unanswered slot in one query."""

    def __init__(self, document: Any, hit: Hit, db: str):
        parts = json.loads(document) if isinstance(document, str) else document
        ids, positions, groups, answered, shown = parts or (None,) * 5
        self._columns = {values[_SLOT_PK]: values for values in shown or ()}
        self._hit = hit
        self._db = db
        self.keys = list(zip(ids or (), positions or (), groups or (), strict=True))
        self.answered = set(answered or ())
        self._read: dict[int, HitSlot] = {}

    def slot(self, pk: int) -> HitSlot:
        values = self._columns.get(pk)
        if values is None:
            return self._read_without_columns(pk)
        split = len(_SLOT_FIELDS)
        slot = HitSlot.from_db(self._db, _SLOT_ATTNAMES, values[:split])
        segment_values = values[split:]
        segment = (
            None
            if segment_values[_SEGMENT_PK] is None
            else Segment.from_db(self._db, _SEGMENT_ATTNAMES, segment_values)
        )
        slot._state.fields_cache["segment"] = segment
        slot._state.fields_cache["hit"] = self._hit
        return slot

    def _read_without_columns(self, pk: int) -> HitSlot:
        if pk not in self._read:
            wanted = [
                key
                for key, _, _ in self.keys
                if key not in self._columns and key not in self.answered
            ]
            for slot in (
                HitSlot.objects.using(self._db)
                .select_related("segment")
                .filter(pk__in=wanted or [pk])
                .order_by()
            ):
                slot._state.fields_cache["hit"] = self._hit
                self._read[slot.pk] = slot
        return self._read[pk]


_SLOT_ATTNAMES = tuple(f.attname for f in _SLOT_FIELDS)
_SEGMENT_ATTNAMES = tuple(f.attname for f in _SEGMENT_FIELDS)
_SLOT_PK = _SLOT_ATTNAMES.index(HitSlot._meta.pk.attname)
_SEGMENT_PK = _SEGMENT_ATTNAMES.index(Segment._meta.pk.attname)


def load_slots(assignment: Assignment) -> HitSlots | JsonHitSlots:
    """The assignment's HIT's slots in order, with their segments, and which of them this
    assignment answered: read with the assignment on PostgreSQL (once: a second call reads
    again), else one query."""
    preloaded = assignment.__dict__.pop("_hot_slots", None)
    if preloaded is not None:
        return preloaded
    db = router.db_for_read(HitSlot)
    connection = connections[db]
    select = _slot_select(connection)
    with connection.cursor() as cursor:
        prepared_statements.execute(
            cursor, connection, select.sql, [assignment.pk, assignment.hit_id]
        )
        rows = cursor.fetchall()
    return HitSlots(rows, select, assignment.hit, db)


# --- The hand-out's choice of a regular HIT (kinds without their own rules) ------------------

_hit_picks: dict[str, tuple[str, str]] = {}


def _room_and_offered(connection, hit: str = "h") -> str:
    """SQL conditions on the HIT row ``hit``: a regular HIT, not published on MTurk (MTurk
    hands those out), with fewer live assignments than its own places, else the campaign's
    redundancy (the last parameter of the conditions, after the live statuses)."""
    from campaigns.platforms.models import MTurkHit

    quote = connection.ops.quote_name
    assignments = quote(Assignment._meta.db_table)
    live = ", ".join(["%s"] * len(LIVE_ASSIGNMENT_STATUSES))
    return (
        # Identifiers from the models' metadata only; every value is a parameter.
        f"{hit}.{quote('is_qualification')} = %s "  # noqa: S608
        f"AND NOT EXISTS (SELECT 1 FROM {quote(MTurkHit._meta.db_table)} m "
        f"WHERE m.{quote(MTurkHit._meta.get_field('hit').column)} = {hit}.id) "
        f"AND (SELECT COUNT(*) FROM {assignments} z WHERE z.hit_id = {hit}.id "
        f"AND z.status IN ({live})) < COALESCE({hit}.{quote('places')}, %s)"
    )


def _room_params(redundancy: int) -> list[Any]:
    return [False, *(status.value for status in LIVE_ASSIGNMENT_STATUSES), redundancy]


def _hit_pick(connection) -> tuple[str, str]:
    """(the pick, the frontier's upsert)."""
    built = _hit_picks.get(connection.vendor)
    if built is not None:
        return built
    quote = connection.ops.quote_name
    assignments = quote(Assignment._meta.db_table)
    hits = quote(Hit._meta.db_table)
    number = quote("number")
    reward = quote(Hit._meta.get_field("reward").column)
    room = _room_and_offered(connection)
    # Two choices, each the first by number, so that each is an ordered walk that stops at
    # its first match (the worker's own assignments; the campaign's (campaign, number)
    # index from the frontier on): the worker's own expired HITs, then HITs the worker never
    # held. Ordering every candidate by "own expired first" instead counted the live
    # assignments of every HIT of the campaign on every hand-out (issue 16).
    pick = (
        # Identifiers from the models' metadata only; every value is a parameter.
        "SELECT id, mine_expired, reward FROM ("  # noqa: S608
        f"SELECT * FROM (SELECT h.id, 1 AS mine_expired, h.{number} AS n, h.{reward} AS reward "
        f"FROM {assignments} y INNER JOIN {hits} h ON h.id = y.hit_id "
        "WHERE y.worker_id = %s AND y.campaign_id = %s AND y.status = %s "
        f"AND {room} ORDER BY h.{number} LIMIT 1) mine "
        "UNION ALL "
        f"SELECT * FROM (SELECT h.id, 0 AS mine_expired, h.{number} AS n, h.{reward} AS reward "
        f"FROM {hits} h "
        f"WHERE h.campaign_id = %s AND h.{number} >= %s AND {room} "
        f"AND NOT EXISTS (SELECT 1 FROM {assignments} x "
        "WHERE x.hit_id = h.id AND x.worker_id = %s) "
        f"ORDER BY h.{number} LIMIT 1) never) picked "
        "ORDER BY mine_expired DESC, n LIMIT 1"
    )
    # The frontier's next place, stored: the first HIT with room for anyone from a number on,
    # else one past the campaign's last HIT (judgments.actions.frontier). One upsert, which
    # writes no new row version when the number stays.
    from judgments.models import HandOutFrontier

    frontier = quote(HandOutFrontier._meta.db_table)
    campaign_column = quote(HandOutFrontier._meta.get_field("campaign").column)
    first_open = (
        f"INSERT INTO {frontier} ({campaign_column}, {number}) VALUES (%s, "  # noqa: S608
        f"COALESCE((SELECT h.{number} FROM {hits} h "
        f"WHERE h.campaign_id = %s AND h.{number} >= %s AND {room} "
        f"ORDER BY h.{number} LIMIT 1), "
        f"(SELECT MAX(h.{number}) + 1 FROM {hits} h WHERE h.campaign_id = %s), 0)) "
        f"ON CONFLICT ({campaign_column}) DO UPDATE SET {number} = excluded.{number} "
        f"WHERE {frontier}.{number} <> excluded.{number}"
    )
    built = (pick, first_open)
    _hit_picks[connection.vendor] = built
    return built


def pick_regular_hit(
    campaign_id: int, worker_id: int, redundancy: int, start: int = 0
) -> tuple[int, bool, Decimal | None] | None:
    """The hand-out's choice for a kind with no rules of its own (``CampaignKind.
    hits_for_worker`` and ``hit_preference`` left as they are): (HIT id, whether it is the
    worker's own expired one, the HIT's own reward or None), or None. The same choice as
    the ORM query of :func:`judgments.actions.handout._regular_hand_out`, in one statement
    Django need not build: a regular HIT not published on MTurk, never held by the worker or
    held and let expire, with fewer live assignments than its places (else ``redundancy``);
    the worker's own expired HITs first, then by number. HITs the worker never held are looked
    for from number ``start`` on (the campaign's :mod:`~judgments.actions.frontier`: every
    such HIT below it is full)."""
    connection = connections[router.db_for_read(Hit)]
    room = _room_params(redundancy)
    params = [
        worker_id,
        campaign_id,
        AssignmentStatus.EXPIRED.value,
        *room,
        campaign_id,
        start,
        *room,
        worker_id,
    ]
    with connection.cursor() as cursor:
        prepared_statements.execute(cursor, connection, _hit_pick(connection)[0], params)
        row = cursor.fetchone()
    if row is None:
        return None
    # The reward read as the ORM reads it (SQLite hands back a float): the new assignment
    # keeps it (campaigns.pay).
    reward = row[2]
    expression, converters = _db_converters(Hit._meta.get_field("reward"), "h", connection)
    for convert in converters:
        reward = convert(reward, expression, connection)
    return row[0], bool(row[1]), reward


def store_frontier(campaign_id: int, redundancy: int, start: int) -> None:
    """Store the campaign's :class:`~judgments.models.HandOutFrontier`: the number of its
    first regular HIT not on MTurk with room for anyone, from ``start`` on; one past its last
    HIT when none has room (0 without HITs)."""
    connection = connections[router.db_for_write(Hit)]
    params = [campaign_id, campaign_id, start, *_room_params(redundancy), campaign_id]
    with connection.cursor() as cursor:
        prepared_statements.execute(cursor, connection, _hit_pick(connection)[1], params)


# --- A submission's write: one statement, in autocommit (PostgreSQL) ------------------------


_insert_columns: dict[str, tuple[str, tuple[models.Field, ...]]] = {}


def _judgment_insert(connection) -> tuple[str, tuple[models.Field, ...]]:
    built = _insert_columns.get(connection.vendor)
    if built is None:
        quote = connection.ops.quote_name
        fields = tuple(f for f in Judgment._meta.concrete_fields if not f.primary_key)
        built = (", ".join(quote(f.column) for f in fields), fields)
        _insert_columns[connection.vendor] = built
    return built


class TakeTheLock(Exception):
    """The one-statement write stored nothing (the assignment changed since it was read, or
    the unit was answered meanwhile), or the submission needs more than that statement: the
    caller decides again on the assignment locked in a transaction."""


def store_unlocked(
    judgments: Sequence[Judgment],
    assignment: Assignment,
    read_served_at: datetime | None,
    now: datetime,
    update_fields: Sequence[str],
) -> None:
    """Insert the unit's judgments and stamp the assignment (``update_fields``) in one
    statement, on PostgreSQL, without a transaction of its own and without reading the
    assignment under a lock first: the UPDATE stamps the assignment only while it is as the
    submission found it (started, not past its deadline at ``now``, its page served at
    ``read_served_at``), and the INSERT takes the assignment's id from that UPDATE, so when
    it matched nothing the NOT NULL of ``assignment_id`` refuses every row; a unit answered
    meanwhile breaks the unique (assignment, slot) constraint. Either way nothing is written
    and :class:`TakeTheLock` is raised. Sets each judgment's pk on success."""
    from django.db import IntegrityError, transaction

    db = router.db_for_write(Judgment)
    connection = connections[db]
    quote = connection.ops.quote_name
    columns, fields = _judgment_insert(connection)
    sets, set_params = [], []
    for name in update_fields:
        field = Assignment._meta.get_field(name)
        sets.append(f"{quote(field.column)} = %s")
        set_params.append(field.get_db_prep_save(getattr(assignment, field.attname), connection))
    value_rows, params = [], []
    for judgment in judgments:
        placeholders = []
        for field in fields:
            if field.attname == "assignment_id":
                placeholders.append("(SELECT id FROM stamped)")
                continue
            placeholders.append("%s")
            params.append(field.get_db_prep_save(field.pre_save(judgment, True), connection))
        value_rows.append(f"({', '.join(placeholders)})")
    expires = Assignment._meta.get_field("expires_at")
    served = Assignment._meta.get_field("current_served_at")
    sql = (
        # Identifiers from the models' metadata only; every value is a parameter.
        f"WITH stamped AS (UPDATE {quote(Assignment._meta.db_table)} SET {', '.join(sets)} "  # noqa: S608
        f"WHERE id = %s AND status = %s AND {quote(expires.column)} > %s "
        f"AND {quote(served.column)} IS NOT DISTINCT FROM %s RETURNING id) "
        f"INSERT INTO {quote(Judgment._meta.db_table)} ({columns}) VALUES "
        f"{', '.join(value_rows)} RETURNING id"
    )
    all_params = [
        *set_params,
        assignment.pk,
        AssignmentStatus.STARTED.value,
        expires.get_db_prep_value(now, connection),
        served.get_db_prep_value(read_served_at, connection),
        *params,
    ]
    try:
        if connection.in_atomic_block:
            # Inside a caller's transaction (tests): a savepoint, so that a refused write
            # leaves that transaction usable for the locked path.
            with transaction.atomic(using=db), connection.cursor() as cursor:
                prepared_statements.execute(cursor, connection, sql, all_params)
                ids = [pk for (pk,) in cursor.fetchall()]
        else:
            with connection.cursor() as cursor:
                prepared_statements.execute(cursor, connection, sql, all_params)
                ids = [pk for (pk,) in cursor.fetchall()]
    except IntegrityError as error:
        raise TakeTheLock from error
    for judgment, pk in zip(judgments, ids, strict=True):
        judgment.pk = pk
        judgment._state.adding = False
        judgment._state.db = db
