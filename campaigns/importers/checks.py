"""Checks of a parsed import against the campaign it goes into (format-independent)."""

from __future__ import annotations

from dataclasses import dataclass

from campaigns.importers.problems import ProblemList
from campaigns.importers.records import ParsedImport
from campaigns.models import Campaign, Document, Segment, System


@dataclass
class CampaignState:
    """What the campaign already holds, loaded with one query per table."""

    systems: list[str]
    documents: dict[str, tuple[int, int]]  # external_id -> (pk, max segment position)
    segment_keys: set[tuple[str, str]]
    max_document_position: int

    @classmethod
    def load(cls, campaign: Campaign) -> CampaignState:
        if campaign.pk is None:
            return cls([], {}, set(), 0)
        systems = list(
            System.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True)
        )
        documents: dict[str, tuple[int, int]] = {}
        max_position = 0
        for pk, external_id, position in Document.objects.filter(campaign=campaign).values_list(
            "pk", "external_id", "position"
        ):
            documents[external_id] = (pk, 0)
            max_position = max(max_position, position)
        by_pk = {pk: external_id for external_id, (pk, _) in documents.items()}
        segment_keys: set[tuple[str, str]] = set()
        for document_id, external_id, position in Segment.objects.filter(
            campaign=campaign
        ).values_list("document_id", "external_id", "position"):
            doc_external_id = by_pk[document_id]
            segment_keys.add((doc_external_id, external_id))
            pk, top = documents[doc_external_id]
            documents[doc_external_id] = (pk, max(top, position))
        return cls(systems, documents, segment_keys, max_position)


def check_against_campaign(
    parsed: ParsedImport, campaign: Campaign, state: CampaignState, problems: ProblemList
) -> None:
    """Duplicate ids against stored segments, unknown systems, missing outputs."""
    campaign_label = f'campaign "{campaign.name}"'

    for (doc_id, seg_id), record in parsed.segments.items():
        if (doc_id, seg_id) in state.segment_keys:
            problems.add(
                record.origin.file,
                record.origin.line,
                record.origin.field,
                f"duplicate id: doc {doc_id} seg {seg_id} is already in {campaign_label}; "
                "an import only adds new segments, it never changes stored ones",
            )

    if state.systems:
        known = set(state.systems)
        for name, system in parsed.systems.items():
            if name not in known:
                problems.add(
                    system.origin.file,
                    system.origin.line,
                    system.origin.field,
                    f'unknown system "{name}": {campaign_label} has the systems '
                    f"{', '.join(state.systems)}; fix the name in the file, or add the system "
                    "to the campaign first",
                )
        expected = list(state.systems)
    else:
        expected = list(parsed.systems)

    if not expected or parsed.rows_rejected:
        return
    for system in expected:
        if system in parsed.incomplete_systems:
            continue
        missing = [key for key in parsed.segments if (key[0], key[1], system) not in parsed.outputs]
        if not missing:
            continue
        if len(missing) == len(parsed.segments) and len(parsed.segments) > 1:
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


def check_not_empty(parsed: ParsedImport, problems: ProblemList) -> None:
    if not parsed.segments and not problems:
        names = ", ".join(parsed.files) or "the import"
        problems.add(
            parsed.files[0] if len(parsed.files) == 1 else None,
            None,
            None,
            f"nothing to import: no segments found in {names}",
        )
