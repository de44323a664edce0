"""Checks of a parsed import against the campaign it goes into (format-independent).

An import adds segments and outputs. A row (item, line) whose doc and seg ids are already in
the campaign adds its system's output to that stored segment: this is how the outputs of a
system that came late (WMT organisers get late submissions) join a campaign. It is chosen by
the ids alone, with no mode to pick, because the checks make it safe: the row must repeat the
stored source (and references, if it gives any), the system must not have an output there
yet, and a system that gains outputs on stored segments must end up with one for every
segment. A file imported twice by mistake therefore still changes nothing and is reported
output by output. It is refused once the campaign has HITs: they were built from the outputs
stored then and would never show the new ones (docs/import-formats.md, "An import only adds").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Count

from campaigns.importers.problems import ProblemList
from campaigns.importers.records import Origin, OutputRecord, ParsedImport, SegmentRecord
from campaigns.models import Campaign, Document, Output, Segment, System

# Stored segments named in a problem about a system's missing outputs; the rest are counted.
LISTED_SEGMENTS = 10
# Primary keys per query (SQLite limits the parameters of one statement).
CHUNK = 2000


@dataclass(frozen=True)
class StoredSegment:
    pk: int
    source: str
    references: list[str]


@dataclass
class CampaignState:
    """What the campaign already holds, loaded with one query per table.

    ``stored`` and ``stored_outputs`` cover only the stored segments the import names (its rows
    that add outputs to them), ``output_counts`` every system of the campaign.
    """

    systems: list[str]
    documents: dict[str, tuple[int, int]]  # external_id -> (pk, max segment position)
    segment_pks: dict[tuple[str, str], int]  # (doc external_id, seg external_id) -> pk
    max_document_position: int
    has_hits: bool = False
    output_counts: dict[str, int] = field(default_factory=dict)
    stored: dict[tuple[str, str], StoredSegment] = field(default_factory=dict)
    stored_outputs: set[tuple[str, str, str]] = field(default_factory=set)

    @property
    def segment_keys(self) -> dict[tuple[str, str], int]:
        return self.segment_pks

    @classmethod
    def load(cls, campaign: Campaign, parsed: ParsedImport | None = None) -> CampaignState:
        if campaign.pk is None:
            return cls([], {}, {}, 0)
        # In the database's order of names, as the unknown-system message lists them.
        output_counts = dict(
            System.objects.filter(campaign=campaign)
            .order_by("name")
            .annotate(n=Count("outputs"))
            .values_list("name", "n")
        )
        systems = list(output_counts)
        documents: dict[str, tuple[int, int]] = {}
        max_position = 0
        for pk, external_id, position in Document.objects.filter(campaign=campaign).values_list(
            "pk", "external_id", "position"
        ):
            documents[external_id] = (pk, 0)
            max_position = max(max_position, position)
        by_pk = {pk: external_id for external_id, (pk, _) in documents.items()}
        segment_pks: dict[tuple[str, str], int] = {}
        for pk, document_id, external_id, position in Segment.objects.filter(
            campaign=campaign
        ).values_list("pk", "document_id", "external_id", "position"):
            doc_external_id = by_pk[document_id]
            segment_pks[(doc_external_id, external_id)] = pk
            doc_pk, top = documents[doc_external_id]
            documents[doc_external_id] = (doc_pk, max(top, position))
        state = cls(
            systems,
            documents,
            segment_pks,
            max_position,
            has_hits=bool(segment_pks) and campaign.hits.exists(),
            output_counts=output_counts,
        )
        if parsed is not None:
            state._load_stored(parsed)
        return state

    def _load_stored(self, parsed: ParsedImport) -> None:
        """The texts and the outputs (of the import's systems) of the stored segments the
        import names: a query per 2,000 of them, none for an import of new segments only."""
        named = {self.segment_pks[key]: key for key in parsed.segments if key in self.segment_pks}
        pks = list(named)
        names = [name for name in parsed.systems if name in self.output_counts]
        for start in range(0, len(pks), CHUNK):
            chunk = pks[start : start + CHUNK]
            for pk, source, references in Segment.objects.filter(pk__in=chunk).values_list(
                "pk", "source", "references"
            ):
                self.stored[named[pk]] = StoredSegment(pk, source, list(references or []))
            if names:
                for segment_id, system in Output.objects.filter(
                    segment_id__in=chunk, system__name__in=names
                ).values_list("segment_id", "system__name"):
                    self.stored_outputs.add((*named[segment_id], system))


def check_against_campaign(
    parsed: ParsedImport, campaign: Campaign, state: CampaignState, problems: ProblemList
) -> None:
    """Stored segments repeated with other texts, outputs already stored, outputs for stored
    segments once HITs are built, unknown systems, missing outputs."""
    campaign_label = f'campaign "{campaign.name}"'
    new_keys = [key for key in parsed.segments if key not in state.segment_pks]

    for key, record in parsed.segments.items():
        if key in state.stored:
            _check_same_texts(record, state.stored[key], campaign_label, problems)

    unknown: set[str] = set()
    if state.systems:
        known = set(state.systems)
        for name, system in parsed.systems.items():
            if name not in known:
                unknown.add(name)
                problems.add(
                    system.origin.file,
                    system.origin.line,
                    system.origin.field,
                    f'unknown system "{name}": {campaign_label} has the systems '
                    f"{', '.join(state.systems)}; fix the name in the file"
                    + _adding_a_system(campaign, state),
                )
        expected = list(state.systems)
    else:
        expected = list(parsed.systems)

    added_to_stored = _check_outputs_on_stored(parsed, campaign, state, unknown, problems)

    if not parsed.rows_rejected:
        _check_new_segments_complete(parsed, expected, new_keys, campaign_label, problems)
        if state.segment_pks:
            _check_stored_segments_complete(
                parsed, campaign, state, added_to_stored, unknown, problems
            )


def _adding_a_system(campaign: Campaign, state: CampaignState) -> str:
    """How a system is added to this campaign, as the end of the unknown-system message."""
    if state.has_hits:
        return (
            f"; a system cannot be added to a campaign whose HITs are built (they would never "
            f"show its outputs): {built_hits_advice(campaign)}"
        )
    return (
        ", or, for a new system, add it to the campaign first (the Systems section of its page) "
        "and import its outputs for every segment of the campaign"
    )


def built_hits_advice(campaign: Campaign) -> str:
    """What to do with outputs for segments of a campaign whose HITs are built."""
    from campaigns.actions import hits_frozen_reason

    if hits_frozen_reason(campaign):
        return (
            "workers have started its HITs (or they are on MTurk), so they cannot be rebuilt; "
            "evaluate these outputs in a new campaign, importing the segments with the outputs "
            "of these systems and of the systems to compare them with"
        )
    return (
        "nobody has started its HITs yet, so delete them (the checklist's Delete HITs), import "
        "the file again and build the HITs again"
    )


def _shown(text: str) -> str:
    return f'"{text}"' if len(text) <= 60 else f'"{text[:60]}…"'


def _check_same_texts(
    record: SegmentRecord, stored: StoredSegment, campaign_label: str, problems: ProblemList
) -> None:
    """A row for a stored segment repeats its source, and its references if it gives any (the
    main one alone will do)."""
    where = f"doc {record.doc_id} seg {record.seg_id} is already in {campaign_label}"
    rule = (
        "a row for a stored segment adds an output to it and must repeat its source and "
        "references exactly"
    )
    origin = record.source_origin or record.origin
    if record.source != stored.source:
        problems.add(
            origin.file,
            origin.line,
            origin.field,
            f"{where} with another source, {_shown(stored.source)}; {rule}",
        )
        return
    given = record.references
    if given and given != stored.references[: len(given)]:
        origin = record.reference_origin or record.origin
        if not stored.references:
            what = "without a reference"
        elif given[0] != stored.references[0]:
            what = f"with another reference, {_shown(stored.references[0])}"
        else:
            what = f"with other further references ({len(stored.references) - 1} stored)"
        problems.add(origin.file, origin.line, origin.field, f"{where} {what}; {rule}")


def _output_origin(parsed: ParsedImport, key: tuple[str, str, str]) -> Origin:
    value = parsed.outputs[key]
    if isinstance(value, OutputRecord):
        return value.origin
    return Origin(parsed.files[0], value, parsed.output_field)


def _check_outputs_on_stored(
    parsed: ParsedImport,
    campaign: Campaign,
    state: CampaignState,
    unknown: set[str],
    problems: ProblemList,
) -> Counter[str]:
    """Outputs for stored segments: not there yet, and only while the campaign has no HITs
    (an unknown system's are left to its own problem). Returns how many each system adds to
    stored segments."""
    campaign_label = f'campaign "{campaign.name}"'
    added: Counter[str] = Counter()
    first: tuple[str, str, str] | None = None
    for key in parsed.outputs:
        if key[:2] not in state.segment_pks or key[2] in unknown:
            continue
        doc_id, seg_id, system = key
        if key in state.stored_outputs:
            origin = _output_origin(parsed, key)
            problems.add(
                origin.file,
                origin.line,
                origin.field,
                f"duplicate id: doc {doc_id} seg {seg_id} of {campaign_label} has an output of "
                f'system "{system}" already; an import adds outputs, it never changes or repeats '
                "stored ones",
            )
            continue
        added[system] += 1
        if first is None:
            first = key
    if first is not None and state.has_hits:
        origin = _output_origin(parsed, first)
        total = sum(added.values())
        problems.add(
            origin.file,
            origin.line,
            origin.field,
            f"doc {first[0]} seg {first[1]} is already in {campaign_label}, whose HITs are "
            "built: outputs can be added to stored segments only before HITs are built, since "
            f"built HITs never show them ({total:,} output{'' if total == 1 else 's'} of this "
            f"import {'is' if total == 1 else 'are'} for stored segments); "
            + built_hits_advice(campaign),
        )
    return added


def _check_new_segments_complete(
    parsed: ParsedImport,
    expected: list[str],
    new_keys: list[tuple[str, str]],
    campaign_label: str,
    problems: ProblemList,
) -> None:
    """Every new segment needs one output of every system."""
    if not expected or not new_keys:
        return
    for system in expected:
        if system in parsed.incomplete_systems:
            continue
        missing = [key for key in new_keys if (key[0], key[1], system) not in parsed.outputs]
        if not missing:
            continue
        if len(missing) == len(new_keys) and len(new_keys) > 1:
            problems.add(
                # The import's one file, if it has one; else the problem is the whole import's.
                parsed.files[0] if len(parsed.files) == 1 else None,
                None,
                parsed.output_field,
                f'system "{system}" of {campaign_label} has no output in this import; every '
                "new segment needs one output of every system",
            )
            continue
        for doc_id, seg_id in missing:
            origin = parsed.segments[(doc_id, seg_id)].origin
            problems.add(
                origin.file,
                origin.line,
                origin.path or parsed.output_field,
                f'missing output: system "{system}" has no output for doc {doc_id} seg {seg_id}',
            )


def _check_stored_segments_complete(
    parsed: ParsedImport,
    campaign: Campaign,
    state: CampaignState,
    added: Counter[str],
    unknown: Iterable[str],
    problems: ProblemList,
) -> None:
    """A system that gains outputs on stored segments, or has none there yet (new to the
    campaign, or added in the admin without outputs), needs one for every stored segment once
    the import is written: HITs would leave it out of the segments it has none for."""
    campaign_label = f'campaign "{campaign.name}"'
    stored_total = len(state.segment_pks)
    skip = set(unknown) | parsed.incomplete_systems
    for name, system in parsed.systems.items():
        stored = state.output_counts.get(name, 0)
        if name in skip or (not added[name] and stored):
            continue
        if stored + added[name] >= stored_total:
            continue
        if state.has_hits:
            advice = built_hits_advice(campaign)
        else:
            advice = (
                f'add rows of "{name}" for them to the file (their doc and seg ids, source and '
                "reference as stored)"
            )
        if not stored and not added[name]:
            text = (
                f'system "{name}" has no output for the {stored_total:,} segment'
                f"{'' if stored_total == 1 else 's'} already in {campaign_label}"
            )
        else:
            missing = _stored_without_output(campaign, state, parsed, name)
            listed = ", ".join(f"doc {doc} seg {seg}" for doc, seg in missing[:LISTED_SEGMENTS])
            if len(missing) > LISTED_SEGMENTS:
                listed += f" and {len(missing) - LISTED_SEGMENTS:,} more"
            text = (
                f'system "{name}" would have no output for {len(missing):,} of the '
                f"{stored_total:,} segments already in {campaign_label}: {listed}"
            )
        problems.add(
            system.origin.file,
            system.origin.line,
            system.origin.field,
            f"{text}; a system needs an output for every segment of the campaign, {advice}",
        )


def _stored_without_output(
    campaign: Campaign, state: CampaignState, parsed: ParsedImport, name: str
) -> list[tuple[str, str]]:
    """The stored segments (in campaign order) for which ``name`` would still have no output."""
    have = set(
        Output.objects.filter(system__campaign=campaign, system__name=name).values_list(
            "segment_id", flat=True
        )
    )
    have.update(
        state.segment_pks[key[:2]]
        for key in parsed.outputs
        if key[2] == name and key[:2] in state.segment_pks
    )
    return [key for key, pk in state.segment_pks.items() if pk not in have]


def check_not_empty(parsed: ParsedImport, problems: ProblemList) -> None:
    if not parsed.segments and not problems:
        names = ", ".join(parsed.files) or "the import"
        problems.add(
            parsed.files[0] if len(parsed.files) == 1 else None,
            None,
            None,
            f"nothing to import: no segments found in {names}",
        )
