"""Crowd translation's own API endpoints (``AnalyticsKind.api_urls``), read from the stored
results (``analytics.kinds.translation.store``):

- ``campaigns/<id>/translation/translations/``: every translation with its flags (similarity
  to the closest MT output, Detect-MT votes), BLEU and whether it is kept; paginated.
- ``campaigns/<id>/translation/translators/``: each worker's flag rate, BLEU, chrF, exclusion.
- ``campaigns/<id>/translation/testset/``: the kept test set (per sentence: source, kept
  text, how it was chosen, its correction), its progress and scores; paginated.
- ``campaigns/<id>/translation/systems/``: the system table (BLEU and chrF on each test set,
  004's percentage of baseline; ``?baseline=<system id>`` for another baseline than the best
  system on the professional references).
- ``campaigns/<id>/export/testset.txt`` / ``testset.docids``: the kept test set as WMT plain
  text, one sentence per line in document order, and the document id of each line;
  ``testset.tsv``: the segments import format (doc_id, seg_id, source, reference = the kept
  text, system and output empty), which the campaign importer reads into a new campaign.
  ``?final_only=1``: only the sentences whose kept translation is final.

Who may read: as every endpoint (``analytics.api.permissions``): a campaign the user may not
read is a 404. Campaigns of other kinds have no stored translation results: empty lists.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from django.http import HttpResponse
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics.api.exports import ERRORS, ExportView, _attachment
from analytics.api.pagination import PageNumberPagination
from analytics.api.permissions import get_visible_campaign
from analytics.api.serializers import ERROR_RESPONSES
from analytics.kinds.translation.panel import system_rows
from analytics.models import (
    TranslationKeptSegment,
    TranslationResult,
    TranslationStat,
    TranslationSystemScore,
    TranslationTestSet,
    TranslationWorkerStat,
)
from campaigns.importers.tabular import StrictTab
from campaigns.models import Campaign

__all__ = ["testset_rows", "urlpatterns"]

CAMPAIGN_ID = OpenApiParameter("campaign_id", OpenApiTypes.INT, OpenApiParameter.PATH)


def _computed_at(campaign: Campaign) -> Any:
    return (
        TranslationResult.objects.filter(campaign=campaign)
        .values_list("computed_at", flat=True)
        .first()
    )


class TranslationsView(APIView):
    @extend_schema(
        operation_id="campaign_translation_translations",
        summary="Translation: every translation with its flags",
        description="Every translation (by judgment id), page by page: the worker, document "
        "and segment, the text, whether it counts (a submitted or approved assignment), its "
        "highest similarity to an imported MT output and whose, the Detect-MT votes (machine "
        "made / human, out of the HIT's places), the flags (similar, detected by a strict "
        "majority, flagged, decided), eligibility, consensus (mean chrF to the sentence's other "
        "eligible translations), kept, and sentence BLEU and chrF against the professional "
        "references.",
        parameters=[CAMPAIGN_ID],
        responses={200: OpenApiTypes.OBJECT, **ERROR_RESPONSES},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        stats = (
            TranslationStat.objects.filter(campaign=campaign)
            .order_by("judgment_id")
            .values(
                "judgment_id",
                "worker__external_id",
                "segment__document__external_id",
                "segment__external_id",
                "judgment__text",
                "counted",
                "mt_similarity",
                "mt_system__name",
                "machine_votes",
                "human_votes",
                "vote_places",
                "similar",
                "detected",
                "flagged",
                "decided",
                "eligible",
                "consensus",
                "kept",
                "bleu",
                "chrf",
            )
        )
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(stats, request, view=self)
        rename = {
            "worker__external_id": "worker_external_id",
            "segment__document__external_id": "document_external_id",
            "segment__external_id": "segment_external_id",
            "judgment__text": "text",
            "mt_system__name": "mt_system",
        }
        results = [{rename.get(k, k): v for k, v in row.items()} for row in page]
        response = paginator.get_paginated_response(results)
        response.data = {"computed_at": _computed_at(campaign), **response.data}
        return response


class TranslatorsView(APIView):
    @extend_schema(
        operation_id="campaign_translation_translators",
        summary="Translation: translators' flag rates and BLEU",
        description="Every worker of the campaign (translators, Detect-MT voters, "
        "correctors): translations, decided and flagged translations and the flag rate "
        "(flagged / decided; excluded at or above the campaign's rate), corpus BLEU and chrF "
        "of their translations against the professional references (000 Figure 4), kept "
        "translations, votes, corrections, and whether they are excluded (auto_excluded: by "
        "the flag rate).",
        parameters=[CAMPAIGN_ID],
        responses={200: OpenApiTypes.OBJECT, **ERROR_RESPONSES},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        rows = list(
            TranslationWorkerStat.objects.filter(campaign=campaign)
            .order_by("-n_translations", "worker__external_id")
            .values(
                "worker__external_id",
                "n_translations",
                "n_decided",
                "n_flagged",
                "flag_rate",
                "bleu",
                "chrf",
                "n_scored",
                "n_kept",
                "n_votes",
                "n_corrections",
                "excluded",
                "auto_excluded",
            )
        )
        for row in rows:
            row["worker_external_id"] = row.pop("worker__external_id")
        return Response({"computed_at": _computed_at(campaign), "workers": rows})


class TestsetView(APIView):
    @extend_schema(
        operation_id="campaign_translation_testset",
        summary="Translation: the kept test set",
        description="Progress (sentences, kept, final, corrected, to correct), the kept test "
        "set's BLEU and chrF against the professional references (corrected and before "
        "correction, with sacrebleu's signatures), then every kept sentence in document order, "
        "page by page: source, kept text, the translation before correction, how it was kept "
        "(requester, consensus, detect_mt, best_ranked), final or provisional, the judgment ids.",
        parameters=[CAMPAIGN_ID],
        responses={200: OpenApiTypes.OBJECT, **ERROR_RESPONSES},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        result = TranslationResult.objects.filter(campaign=campaign).first()
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(testset_rows(campaign), request, view=self)
        response = paginator.get_paginated_response(page)
        summary: dict[str, Any] = {"computed_at": None}
        if result is not None:
            summary = {
                "computed_at": result.computed_at,
                "n_segments": result.n_segments,
                "n_kept": result.n_kept,
                "n_final": result.n_final,
                "n_to_correct": result.n_to_correct,
                "n_corrected": result.n_corrected,
                "bleu": result.testset_bleu,
                "chrf": result.testset_chrf,
                "bleu_before_correction": result.raw_bleu,
                "chrf_before_correction": result.raw_chrf,
                "n_scored": result.n_testset_scored,
                "bleu_signature": result.bleu_signature,
                "chrf_signature": result.chrf_signature,
            }
        response.data = {**summary, **response.data}
        return response


class SystemsParams(serializers.Serializer):
    baseline = serializers.IntegerField(
        required=False,
        help_text="The id of the baseline system of the percentages (default: the best "
        "system by BLEU on the professional references).",
    )


class SystemsView(APIView):
    @extend_schema(
        operation_id="campaign_translation_systems",
        summary="Translation: systems on the professional and crowd test sets",
        description="Each imported system's corpus BLEU and chrF on the professional "
        "references and on the crowd test sets (corrected, and before correction), over the "
        "sentences with a kept translation, and 004's percentage of the baseline system's BLEU "
        "on each test set (100 x BLEU / the baseline's BLEU).",
        parameters=[CAMPAIGN_ID, SystemsParams],
        responses={200: OpenApiTypes.OBJECT, **ERROR_RESPONSES},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        params = SystemsParams(data=request.query_params)
        params.is_valid(raise_exception=True)
        scores = list(
            TranslationSystemScore.objects.filter(campaign=campaign)
            .select_related("system")
            .order_by("position", "test_set")
        )
        from analytics.stats.translation import percent_of_baseline

        result = TranslationResult.objects.filter(campaign=campaign).first()
        baseline = params.validated_data.get("baseline")
        _, used = system_rows(scores, baseline)
        if used is None:
            used = result.baseline_id if result else None
        systems: dict[int, dict[str, Any]] = {}
        for s in scores:
            row = systems.setdefault(
                s.system_id,
                {"id": s.system_id, "name": s.system.name, "position": s.position, "test_sets": {}},
            )
            row["test_sets"][s.test_set] = {
                "bleu": s.bleu,
                "chrf": s.chrf,
                "n_segments": s.n_segments,
                "percent_of_baseline": s.percent_of_baseline,
            }
        if baseline is not None and used == baseline:
            for test_set in TranslationTestSet.values:
                bleu = {
                    pk: row["test_sets"][test_set]["bleu"]
                    for pk, row in systems.items()
                    if test_set in row["test_sets"]
                }
                for pk, percent in percent_of_baseline(bleu, baseline).items():
                    systems[pk]["test_sets"][test_set]["percent_of_baseline"] = percent
        return Response(
            {
                "computed_at": None if result is None else result.computed_at,
                "baseline": used,
                "bleu_signature": "" if result is None else result.bleu_signature,
                "systems": list(systems.values()),
            }
        )


# --- The test-set exports --------------------------------------------------------------------


def testset_rows(campaign: Campaign, *, final_only: bool = False) -> list[dict[str, Any]]:
    """The kept sentences in document order (one query)."""
    kept = TranslationKeptSegment.objects.filter(campaign=campaign)
    if final_only:
        kept = kept.filter(final=True)
    return [
        {
            "document_external_id": row[0],
            "segment_external_id": row[1],
            "source": row[2],
            "text": row[3],
            "raw_text": row[4],
            "how": row[5],
            "final": row[6],
            "judgment_id": row[7],
            "correction_id": row[8],
        }
        for row in kept.order_by("segment__document__position", "segment__position").values_list(
            "segment__document__external_id",
            "segment__external_id",
            "segment__source",
            "text",
            "raw_text",
            "how",
            "final",
            "judgment_id",
            "correction_id",
        )
    ]


def _line(text: str) -> str:
    # One sentence per line: a line break inside a translation would shift every later line.
    return " ".join(text.split())


def testset_tsv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, dialect=StrictTab)
    writer.writerow(["doc_id", "seg_id", "source", "reference", "system", "output"])
    for row in rows:
        writer.writerow(
            [
                row["document_external_id"],
                row["segment_external_id"],
                row["source"],
                _line(row["text"]),
                "",
                "",
            ]
        )
    return out.getvalue()


FINAL_ONLY = OpenApiParameter(
    "final_only",
    OpenApiTypes.BOOL,
    description="Only the sentences whose kept translation is final (default: every kept one).",
)


def _export(kind: str):
    content_type, suffix, summary = {
        "txt": ("text/plain", "testset.txt", "the kept test set as WMT plain text"),
        "docids": ("text/plain", "testset.docids", "the document id of each test-set line"),
        "tsv": (
            "text/tab-separated-values",
            "testset.tsv",
            "the kept test set in the segments import format",
        ),
    }[kind]

    class TestsetExport(ExportView):
        query_parameters = ("final_only",)

        @extend_schema(
            operation_id=f"campaign_export_testset_{kind}",
            summary=f"Translation: {summary}",
            description="The kept test set, one sentence per kept sentence in document order "
            "(line breaks inside a text become spaces). testset.txt: the kept text per line; "
            "testset.docids: the document id per line; testset.tsv: a header doc_id, seg_id, "
            "source, reference, system, output and one row per sentence with the kept text as "
            "the reference (system and output empty), which the campaign importer reads.",
            tags=["exports"],
            parameters=[CAMPAIGN_ID, FINAL_ONLY],
            responses={
                (200, content_type): OpenApiResponse(OpenApiTypes.STR, description=summary),
                **ERRORS,
            },
        )
        def get(self, request: Request, campaign_id: int) -> HttpResponse:
            campaign = get_visible_campaign(request.user, campaign_id)
            final_only = request.query_params.get("final_only", "") in ("1", "true", "True")
            rows = testset_rows(campaign, final_only=final_only)
            if kind == "txt":
                body = "".join(_line(row["text"]) + "\n" for row in rows)
            elif kind == "docids":
                body = "".join(_line(row["document_external_id"]) + "\n" for row in rows)
            else:
                body = testset_tsv(rows)
            response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
            return _attachment(response, f"{self.file_stem(campaign)}-{suffix}")

    TestsetExport.__name__ = f"TestsetExport{kind.title()}"
    return TestsetExport


urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/translation/translations/",
        TranslationsView.as_view(),
        name="campaign-translation-translations",
    ),
    path(
        "campaigns/<int:campaign_id>/translation/translators/",
        TranslatorsView.as_view(),
        name="campaign-translation-translators",
    ),
    path(
        "campaigns/<int:campaign_id>/translation/testset/",
        TestsetView.as_view(),
        name="campaign-translation-testset",
    ),
    path(
        "campaigns/<int:campaign_id>/translation/systems/",
        SystemsView.as_view(),
        name="campaign-translation-systems",
    ),
    path(
        "campaigns/<int:campaign_id>/export/testset.txt",
        _export("txt").as_view(),
        name="export-testset-txt",
    ),
    path(
        "campaigns/<int:campaign_id>/export/testset.docids",
        _export("docids").as_view(),
        name="export-testset-docids",
    ),
    path(
        "campaigns/<int:campaign_id>/export/testset.tsv",
        _export("tsv").as_view(),
        name="export-testset-tsv",
    ),
]
