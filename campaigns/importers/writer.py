"""Writing a checked import: one transaction, bulk inserts in batches, nothing row by row."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from campaigns.importers.checks import CampaignState, check_against_campaign
from campaigns.importers.context import Progress
from campaigns.importers.problems import ProblemList
from campaigns.importers.records import ParsedImport
from campaigns.kinds import save_campaign
from campaigns.models import Campaign, Document, Output, Segment, System

# Rows per bulk_create call (and per progress report). Django splits further where the
# database limits the number of query parameters (SQLite).
BATCH_SIZE = 2000


@dataclass(frozen=True)
class WriteCounts:
    documents: int
    segments: int
    systems: int
    outputs: int


def write_import(
    campaign: Campaign, parsed: ParsedImport, *, progress: Progress | None = None
) -> WriteCounts:
    """Write ``parsed`` into ``campaign`` (saving the campaign first if it is new).

    The campaign checks run again inside the transaction, with the campaign row locked
    (PostgreSQL; SQLite's IMMEDIATE transactions lock the whole database), so that two imports
    into one campaign cannot both add the same segment. Raises ImportFailed, writing nothing,
    if they find a problem.
    """
    created = campaign.pk is None
    try:
        return _write(campaign, parsed, created, progress)
    except BaseException:
        if created:  # rolled back: the campaign is unsaved again
            campaign.pk = None
            campaign._state.adding = True
        raise


def _write(
    campaign: Campaign, parsed: ParsedImport, created: bool, progress: Progress | None
) -> WriteCounts:
    with transaction.atomic():
        if created:
            save_campaign(campaign)
        else:
            Campaign.objects.select_for_update().filter(pk=campaign.pk).exists()
        state = CampaignState.load(campaign, parsed)
        problems = ProblemList(parsed.files)
        check_against_campaign(parsed, campaign, state, problems)
        if problems:
            raise problems.failure()

        # Rows for stored segments add outputs only (checks.py): their segments are kept.
        new_keys = {key for key in parsed.segments if key not in state.segment_pks}
        total = len(new_keys) + len(parsed.outputs)
        done = 0
        if progress:
            progress(0, total)

        new_documents = [
            Document(
                campaign=campaign,
                external_id=doc_id,
                position=state.max_document_position + number,
            )
            for number, doc_id in enumerate(
                (doc_id for doc_id in parsed.documents if doc_id not in state.documents), 1
            )
        ]
        Document.objects.bulk_create(new_documents, batch_size=BATCH_SIZE)
        document_pk = {doc_id: pk for doc_id, (pk, _) in state.documents.items()}
        stored_pk = {
            (document_pk[doc_id], seg_id): pk for (doc_id, seg_id), pk in state.segment_pks.items()
        }
        document_pk.update(_pks(Document, campaign, new_documents, "external_id"))

        new_systems = [
            System(campaign=campaign, name=name, is_reference=record.is_reference)
            for name, record in parsed.systems.items()
            if name not in state.systems
        ]
        System.objects.bulk_create(new_systems, batch_size=BATCH_SIZE)
        system_pk = dict(System.objects.filter(campaign=campaign).values_list("name", "pk"))

        # Segments and outputs are made and inserted a batch at a time: a big import never
        # holds all its model instances.
        segment_pk: dict[tuple[int, str], int] = dict(stored_pk)
        pks_missing = False
        n_segments = 0
        batch: list = []

        def flush_segments() -> None:
            nonlocal done, pks_missing
            Segment.objects.bulk_create(batch)
            for segment in batch:
                if segment.pk is None:
                    pks_missing = True
                else:
                    segment_pk[(segment.document_id, segment.external_id)] = segment.pk
            done += len(batch)
            if progress:
                progress(done, total)
            batch.clear()

        for doc_id, keys in parsed.documents.items():
            start = state.documents[doc_id][1] if doc_id in state.documents else 0
            for position, key in enumerate((k for k in keys if k in new_keys), start + 1):
                record = parsed.segments[key]
                batch.append(
                    Segment(
                        campaign=campaign,
                        document_id=document_pk[doc_id],
                        external_id=record.seg_id,
                        position=position,
                        source=record.source,
                        references=record.references,
                    )
                )
                n_segments += 1
                if len(batch) >= BATCH_SIZE:
                    flush_segments()
        if batch:
            flush_segments()
        if pks_missing:  # the database did not return the primary keys: one query
            segment_pk = dict(_segment_pks(campaign))

        n_outputs = 0
        for (doc_id, seg_id, system), text in parsed.output_items():
            batch.append(
                Output(
                    system_id=system_pk[system],
                    segment_id=segment_pk[(document_pk[doc_id], seg_id)],
                    text=text,
                )
            )
            if len(batch) >= BATCH_SIZE:
                n_outputs += _flush_outputs(batch)
                done += BATCH_SIZE
                if progress:
                    progress(done, total)
        if batch:
            done += len(batch)
            n_outputs += _flush_outputs(batch)
            if progress:
                progress(done, total)

    return WriteCounts(
        documents=len(new_documents),
        segments=n_segments,
        systems=len(new_systems),
        outputs=n_outputs,
    )


def _flush_outputs(batch: list[Output]) -> int:
    Output.objects.bulk_create(batch)
    count = len(batch)
    batch.clear()
    return count


def _pks(model, campaign: Campaign, objects: list, key: str) -> dict:
    """pk by ``key`` for freshly bulk-created objects; one query if the database did not
    return the primary keys (PostgreSQL and SQLite 3.35+ do)."""
    if all(obj.pk is not None for obj in objects):
        return {getattr(obj, key): obj.pk for obj in objects}
    wanted = {getattr(obj, key) for obj in objects}
    return {
        value: pk
        for value, pk in model.objects.filter(campaign=campaign).values_list(key, "pk")
        if value in wanted
    }


def _segment_pks(campaign: Campaign) -> dict[tuple[int, str], int]:
    return {
        (document_id, external_id): pk
        for document_id, external_id, pk in Segment.objects.filter(campaign=campaign).values_list(
            "document_id", "external_id", "pk"
        )
    }
