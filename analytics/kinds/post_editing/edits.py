"""Post-editing's own API endpoints (``AnalyticsKind.api_urls``): every edit with its stored
TER numbers and verification outcome.

- ``campaigns/<id>/export/edits.csv`` and ``.../edits.jsonl``: every edit of the campaign, one
  row each, in submission order: who edited what (worker, system, document, segment), the texts
  (source, main reference, MT output, the edit), the stored TER numbers (hypothesis = the MT
  output, reference = the edit; and the edit against the reference) with the signature, the
  verification votes and outcome, and whether the edit counts in the default scores and is
  the one its output's HTER was taken from. Texts are read by one streamed query (as the
  judgments export); the numbers come from the stored scores, loaded once
  (``analytics.kinds.post_editing.loading``).
- ``campaigns/<id>/verification/``: the verification outcomes: counts (passed, failed, not
  verified yet) over the crowd edits and per system, and the edits page by page with their
  votes (``?verdict=passed|failed|unverified`` narrows them).

Who may read: as every endpoint (``analytics.api.permissions``): a campaign the user may not
read is a 404. A campaign of another kind has no edits: an empty file, zero counts (as the
shared endpoints answer with empty scores for kinds without them).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import connection, transaction
from django.db.models.fields.json import KeyTextTransform
from django.http import StreamingHttpResponse
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics import export_formats as formats
from analytics.api.exports import ERRORS, ExportView, _attachment
from analytics.api.pagination import PageNumberPagination
from analytics.api.permissions import get_visible_campaign
from analytics.api.serializers import ERROR_RESPONSES
from analytics.kinds.post_editing.actions import (
    post_editing_config_for,
    variant_segments,
    verification,
)
from analytics.kinds.post_editing.loading import LoadedPostEditing, load_post_editing
from analytics.kinds.post_editing.scoring import edit_judgments
from analytics.models import PostEditingResult
from analytics.stats.post_editing import edit_rate
from campaigns.models import Campaign
from judgments.models import Judgment

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["EDIT_COLUMNS", "EditOutcomes", "edit_outcomes", "urlpatterns"]

logger = logging.getLogger(__name__)

VERDICTS = ("unverified", "passed", "failed")  # codes 0, 1, 2

# (column, field read by the texts query); the computed columns follow.
TEXT_FIELDS: tuple[tuple[str, Any], ...] = (
    ("judgment_id", "id"),
    ("hit", "slot__hit__number"),
    ("slot_position", "slot__position"),
    ("worker_platform", "worker__platform"),
    ("worker_external_id", "worker__external_id"),
    ("assignment_id", "assignment_id"),
    ("assignment_status", "assignment__status"),
    ("system", "slot__output__system__name"),
    ("document", "slot__output__segment__document__external_id"),
    ("segment", "slot__output__segment__external_id"),
    ("source", "slot__output__segment__source"),
    ("reference", KeyTextTransform("0", "slot__output__segment__references")),
    ("mt_output", "slot__output__text"),
    ("edit", "text"),
    ("details", "details"),
    ("client_duration_ms", "client_duration_ms"),
    ("submitted_at", "submitted_at"),
)
COMPUTED_COLUMNS = (
    "ter_edits",
    "ter_ref_length",
    "ter",
    "reference_edits",
    "reference_length",
    "ter_to_reference",
    "yes_votes",
    "no_votes",
    "verification",
    "gold",
    "counted",
    "chosen",
    "ter_signature",
)
EDIT_COLUMNS: tuple[str, ...] = tuple(name for name, _ in TEXT_FIELDS) + COMPUTED_COLUMNS


@dataclass(frozen=True, eq=False)
class EditOutcomes:
    """Per loaded edit (``loaded.edit_id`` order): TER, votes, verdict code (:data:`VERDICTS`),
    whether it counts in the default scores and whether its output's HTER is taken from it."""

    loaded: LoadedPostEditing
    ter: NDArray[np.float64]
    to_reference: NDArray[np.float64]
    yes: NDArray[np.int64]
    no: NDArray[np.int64]
    verdict: NDArray[np.int64]
    counted: NDArray[np.bool_]
    chosen: NDArray[np.bool_]

    def index(self) -> dict[int, int]:
        return {pk: i for i, pk in enumerate(self.loaded.edit_id.tolist())}


def edit_outcomes(campaign: Campaign) -> EditOutcomes:
    """The campaign's edits with their outcomes, from the stored numbers (nine queries)."""
    config = post_editing_config_for(campaign)
    loaded = load_post_editing(campaign.pk, config.signature, config.gold_editor)
    yes, no, verified, passed = verification(loaded)
    counted = loaded.crowd
    result = PostEditingResult.objects.filter(campaign=campaign).first()
    if result is not None:
        flagged = np.array(result.details.get("flagged_workers", []), dtype=np.int64)
        counted = counted & ~np.isin(loaded.edit_worker, flagged)
    chosen = np.zeros(loaded.n_edits, dtype=bool)
    if counted.any():
        chosen_edit = variant_segments(loaded, counted, passed)[2]
        chosen[chosen_edit[chosen_edit >= 0]] = True
    with np.errstate(invalid="ignore"):
        ter = np.where(
            loaded.scored, edit_rate(np.nan_to_num(loaded.edits), loaded.ref_length), np.nan
        )
        has = ~np.isnan(loaded.reference_edits)
        to_reference = np.where(
            has,
            edit_rate(
                np.nan_to_num(loaded.reference_edits), np.nan_to_num(loaded.reference_length)
            ),
            np.nan,
        )
    verdict = np.where(~verified, 0, np.where(passed, 1, 2)).astype(np.int64)
    return EditOutcomes(loaded, ter, to_reference, yes, no, verdict, counted, chosen)


def _number(value: float) -> float | int | None:
    return None if np.isnan(value) else float(value)


def _int(value: float) -> int | None:
    return None if np.isnan(value) else int(value)


def _computed(outcomes: EditOutcomes, i: int | None, signature: str) -> tuple:
    if i is None:  # an edit that arrived after the numbers were read: next time
        return (None,) * (len(COMPUTED_COLUMNS) - 1) + (signature,)
    loaded = outcomes.loaded
    scored = not np.isnan(loaded.edits[i])
    return (
        _int(loaded.edits[i]),
        _number(loaded.ref_length[i]),
        _number(outcomes.ter[i]),
        _int(loaded.reference_edits[i]),
        _number(loaded.reference_length[i]),
        _number(outcomes.to_reference[i]),
        int(outcomes.yes[i]),
        int(outcomes.no[i]),
        VERDICTS[outcomes.verdict[i]],
        bool(loaded.gold[i]),
        bool(outcomes.counted[i]),
        bool(outcomes.chosen[i]),
        signature if scored else None,
    )


def edit_rows(campaign: Campaign) -> Iterator[tuple[Any, ...]]:
    """Every edit as a tuple in :data:`EDIT_COLUMNS` order, by judgment id; the texts streamed
    as the judgments export streams them (a server-side cursor in a transaction on
    PostgreSQL)."""
    outcomes = edit_outcomes(campaign)
    index = outcomes.index()
    signature = outcomes.loaded.signature
    fields = [field if isinstance(field, str) else name for name, field in TEXT_FIELDS]
    queryset = (
        edit_judgments(campaign.pk)
        .annotate(reference=TEXT_FIELDS[11][1])
        .order_by("id")
        .values_list(*fields)
    )

    def rows() -> Iterator[tuple[Any, ...]]:
        for row in queryset.iterator(chunk_size=2000):
            yield row + _computed(outcomes, index.get(row[0]), signature)

    if connection.vendor == "postgresql":
        with transaction.atomic():
            yield from rows()
    else:
        yield from rows()


def _edit_file(campaign: Campaign, name: str, write: Any) -> Iterator[bytes]:
    try:
        yield from write(EDIT_COLUMNS, edit_rows(campaign))
    except formats.ExportStopped as stopped:
        logger.error(
            "Export %s of campaign %s stopped after %s rows; the response is aborted.",
            name,
            campaign.pk,
            stopped.rows,
            exc_info=stopped.__cause__ or stopped,
        )
        raise


EDITS_DESCRIPTION = (
    "Every edit of a post-editing campaign, one row each, in submission order (any size; "
    "streamed). Columns, in order: " + ", ".join(EDIT_COLUMNS) + ". ter_edits / ter_ref_length "
    "/ ter: sacrebleu TER with hypothesis = the MT output and reference = the edit (the edit's "
    "HTER); reference_edits / reference_length / ter_to_reference: the edit against the main "
    "reference (empty without one); yes_votes / no_votes: the counted verification votes (yes "
    "when both answers are yes); verification: passed, failed or unverified (counted as "
    "passed in the scores); counted: the edit counts in the default scores (not rejected, "
    "excluded, flagged or gold); chosen: its output's HTER is this edit's; ter_signature: the "
    "TER settings of the numbers (empty while the edit is not scored yet)."
)


class EditsCSV(ExportView):
    @extend_schema(
        operation_id="campaign_export_edits_csv",
        summary="Post-editing: every edit with its TER as CSV",
        description=EDITS_DESCRIPTION + " CSV as the judgments export writes it.",
        tags=["exports"],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="A CSV file."),
            **ERRORS,
        },
    )
    def get(self, request: Request, campaign_id: int) -> StreamingHttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        response = StreamingHttpResponse(
            _edit_file(campaign, "edits.csv", formats.csv_chunks),
            content_type="text/csv; charset=utf-8",
        )
        return _attachment(response, f"{self.file_stem(campaign)}-edits.csv")


class EditsJSONL(ExportView):
    @extend_schema(
        operation_id="campaign_export_edits_jsonl",
        summary="Post-editing: every edit with its TER as JSON Lines",
        description=EDITS_DESCRIPTION + " JSON Lines: one object per line, keys as the columns.",
        tags=["exports"],
        responses={
            (200, "application/jsonl"): OpenApiResponse(
                OpenApiTypes.STR, description="A JSON Lines file."
            ),
            **ERRORS,
        },
    )
    def get(self, request: Request, campaign_id: int) -> StreamingHttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        response = StreamingHttpResponse(
            _edit_file(campaign, "edits.jsonl", formats.jsonl_chunks),
            content_type="application/jsonl; charset=utf-8",
        )
        return _attachment(response, f"{self.file_stem(campaign)}-edits.jsonl")


# --- Verification outcomes -------------------------------------------------------------------


class VerificationParams(serializers.Serializer):
    verdict = serializers.ChoiceField(
        choices=VERDICTS, required=False, help_text="Only the edits with this outcome."
    )


OUTCOME_COUNTS = inline_serializer(
    "VerificationCounts",
    {
        "passed": serializers.IntegerField(),
        "failed": serializers.IntegerField(),
        "unverified": serializers.IntegerField(),
    },
)
VERIFICATION_RESPONSE = inline_serializer(
    "Verification",
    {
        "computed_at": serializers.DateTimeField(allow_null=True),
        "crowd_edits": OUTCOME_COUNTS,
        "systems": inline_serializer(
            "VerificationSystem",
            {
                "id": serializers.IntegerField(),
                "name": serializers.CharField(),
                "passed": serializers.IntegerField(),
                "failed": serializers.IntegerField(),
                "unverified": serializers.IntegerField(),
            },
            many=True,
        ),
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": inline_serializer(
            "EditOutcome",
            {
                "judgment_id": serializers.IntegerField(),
                "worker_external_id": serializers.CharField(),
                "system": serializers.CharField(),
                "document_external_id": serializers.CharField(),
                "segment_external_id": serializers.CharField(),
                "ter": serializers.FloatField(allow_null=True),
                "yes_votes": serializers.IntegerField(),
                "no_votes": serializers.IntegerField(),
                "verdict": serializers.ChoiceField(choices=VERDICTS),
                "gold": serializers.BooleanField(),
                "counted": serializers.BooleanField(),
            },
            many=True,
        ),
    },
)


def _counts(verdict: NDArray[np.int64]) -> dict[str, int]:
    return {name: int(np.count_nonzero(verdict == code)) for code, name in enumerate(VERDICTS)}


class VerificationView(APIView):
    """Verification outcomes of a post-editing campaign's edits."""

    @extend_schema(
        operation_id="campaign_post_editing_verification",
        summary="Post-editing: verification outcomes of the edits",
        description="Counts of the crowd edits (not rejected, excluded or gold) that passed "
        "verification (a majority of yes votes; a vote is yes when both answers are yes), "
        "failed it (ties fail) or have no vote yet (counted as passed in the scores), overall "
        "and per system; then every edit, page by page (?page=, ?page_size=), with its votes "
        "and outcome, in submission order. Campaigns of other kinds have no edits (zeros).",
        parameters=[
            OpenApiParameter("campaign_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            VerificationParams,
        ],
        responses={200: VERIFICATION_RESPONSE, **ERROR_RESPONSES},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        params = VerificationParams(data=request.query_params)
        params.is_valid(raise_exception=True)
        outcomes = edit_outcomes(campaign)
        loaded = outcomes.loaded
        crowd = loaded.crowd
        system_rows = []
        names = dict(campaign.systems.values_list("id", "name"))
        systems = loaded.edit_system
        for system in np.unique(systems[crowd]).tolist():
            system_rows.append(
                {"id": system, "name": names.get(system, ""), **_counts(
                    outcomes.verdict[crowd & (systems == system)]
                )}
            )  # fmt: skip
        rows = np.arange(loaded.n_edits)
        verdict = params.validated_data.get("verdict")
        if verdict is not None:
            rows = rows[outcomes.verdict == VERDICTS.index(verdict)]
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(rows.tolist(), request, view=self)
        texts = {
            row[0]: row[1:]
            for row in Judgment.objects.filter(id__in=[int(loaded.edit_id[i]) for i in page])
            .order_by()
            .values_list(
                "id",
                "worker__external_id",
                "slot__output__system__name",
                "slot__output__segment__document__external_id",
                "slot__output__segment__external_id",
            )
        }
        results = []
        for i in page:
            pk = int(loaded.edit_id[i])
            worker, system, document, segment = texts.get(pk, ("", "", "", ""))
            results.append(
                {
                    "judgment_id": pk,
                    "worker_external_id": worker,
                    "system": system,
                    "document_external_id": document,
                    "segment_external_id": segment,
                    "ter": _number(outcomes.ter[i]),
                    "yes_votes": int(outcomes.yes[i]),
                    "no_votes": int(outcomes.no[i]),
                    "verdict": VERDICTS[outcomes.verdict[i]],
                    "gold": bool(loaded.gold[i]),
                    "counted": bool(outcomes.counted[i]),
                }
            )
        result = PostEditingResult.objects.filter(campaign=campaign).only("computed_at").first()
        response = paginator.get_paginated_response(results)
        response.data = {
            "computed_at": None if result is None else result.computed_at,
            "crowd_edits": _counts(outcomes.verdict[crowd]),
            "systems": system_rows,
            **response.data,
        }
        return response


urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/export/edits.csv",
        EditsCSV.as_view(),
        name="export-edits-csv",
    ),
    path(
        "campaigns/<int:campaign_id>/export/edits.jsonl",
        EditsJSONL.as_view(),
        name="export-edits-jsonl",
    ),
    path(
        "campaigns/<int:campaign_id>/verification/",
        VerificationView.as_view(),
        name="campaign-post-editing-verification",
    ),
]
