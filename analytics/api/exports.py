"""Streamed exports of a campaign: its judgments as CSV or JSON Lines, its system table as CSV,
WMT-style TSV or LaTeX.

Routes (under /api/, authenticated like every endpoint; a campaign the user may not read is a
404, as if it did not exist):

- ``campaigns/<id>/export/judgments.csv`` and ``.../judgments.jsonl``: every judgment of the
  campaign, one row each, with its HIT, slot, role, system, document and segment, the texts
  (source, main reference, the text shown), the worker, the assignment and its status, the
  answer (score, given z, rank, text, yes/no answers, details) and the timings. One SQL query
  with joins, read with ``.iterator()`` (a server-side cursor on PostgreSQL) and written row
  by row into a StreamingHttpResponse: memory stays flat whatever the campaign's size
  (bench/export_judgments.py measures a million judgments).
- ``campaigns/<id>/export/judgments-spreadsheet.csv``: the same rows for opening in a
  spreadsheet (issue 11): every text cell that a spreadsheet would run as a formula (starting
  with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return: a system name
  ``=HYPERLINK(...)`` or a worker id ``@SUM(...)`` from an imported file) gets a leading
  apostrophe (``campaigns.links.safe_cell``, the function that defuses the workers' background
  CSV), and the file starts with a UTF-8 byte order mark. Numbers stay numbers. This copy is
  not the exact data: analyses read judgments.csv or judgments.jsonl.
- An export that fails partway (a row the database or the writer cannot read) is not left
  looking complete: the file ends with an error line that no CSV or JSON Lines reader takes
  for a row (``analytics.export_formats.INCOMPLETE_MESSAGE``), the error is logged with the
  campaign and the last row written, and the response is aborted (the generator raises: under
  gunicorn an HTTP/1.1 response is chunked and the connection closes without its last chunk,
  which curl, requests and browsers report as an error; an HTTP/1.0 client has the error line).
- ``campaigns/<id>/export/systems-spreadsheet.csv``: systems.csv defused the same way (a system
  name from an imported file is a text cell like any other); numbers stay numbers.
- ``campaigns/<id>/export/systems.csv``, ``.tsv`` and ``.tex``: the stored system scores
  (direct assessment: rank range, mean z, mean raw score, n, cluster; ranking: the same per
  scoring method), reliable (trusted) workers only unless ``?include_unreliable=1``
  (``?include_untrusted=1`` for ranking); ``?method=`` picks one ranking method.

The views are DRF APIViews so that token authentication, permissions and the OpenAPI schema
work as for every endpoint; the system tables are read and titled by the campaign's kind
(``AnalyticsKind.system_table``, ``analytics.kinds``), and every file is written by the pure
:mod:`analytics.export_formats`. Errors (401, 404, 400, 409) are JSON ``{"detail": ...}`` (or
``{"<parameter>": [...]}``) whatever the client's Accept header: the content negotiation here
always picks JSON, since a CSV renderer has nothing sensible to say about an error.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import Expression
from django.db.models.fields.json import KeyTextTransform
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import path
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from analytics import export_formats as formats
from analytics.api.errors import NotComputed
from analytics.api.permissions import get_visible_campaign
from analytics.api.queries.rows import JUDGED_DOCUMENT, JUDGED_SYSTEM_NAME
from analytics.api.serializers import KindQueryParams
from analytics.kinds import registry, statistics_of
from campaigns.links import safe_cell
from campaigns.models import Campaign
from judgments.models import Judgment

logger = logging.getLogger(__name__)

__all__ = ["JUDGMENT_COLUMNS", "NotComputed", "judgment_rows", "urlpatterns"]

# (column, the field path read for it): the export's columns in order. One query joins
# judgment -> slot -> HIT / output -> system / segment -> document, worker, assignment and
# campaign; nothing is looked up per row.
JUDGMENT_FIELDS: tuple[tuple[str, str | Expression], ...] = (
    ("judgment_id", "id"),
    ("campaign", "campaign__name"),
    ("hit", "slot__hit__number"),
    ("task", "slot__hit__task"),
    ("slot_position", "slot__position"),
    ("slot_group", "slot__group"),
    ("role", "slot__role"),
    ("about_judgment", "slot__about_judgment_id"),
    # The system and document judged, as the API names them (a reading-comprehension HIT
    # holds its article and system itself): analytics.api.queries.rows.
    ("system", JUDGED_SYSTEM_NAME),
    ("document", JUDGED_DOCUMENT),
    ("segment", "slot__segment__external_id"),
    ("source", "slot__segment__source"),
    # The main reference: the first of the segment's references, as text (->> 0): the
    # database picks it out, Python decodes no JSON for it.
    ("reference", KeyTextTransform("0", "slot__segment__references")),
    ("shown_text", "slot__shown_text"),
    ("worker_platform", "worker__platform"),
    # Not the direct link's label (the requester's note, often a person's name: the workers
    # endpoint has it): judgment files get published, as WMT publishes its own.
    ("worker_external_id", "worker__external_id"),
    ("assignment_id", "assignment_id"),
    ("platform_assignment_id", "assignment__platform_assignment_id"),
    ("assignment_status", "assignment__status"),
    ("score", "score"),
    ("given_z", "given_z"),
    ("rank", "rank"),
    ("text", "text"),
    ("yes_no", "yes_no"),
    ("yes_no_second", "yes_no_second"),
    ("details", "details"),
    ("client_started_at", "client_started_at"),
    ("client_duration_ms", "client_duration_ms"),
    ("served_at", "served_at"),
    ("submitted_at", "submitted_at"),
    ("server_duration_ms", "server_duration_ms"),
)
JUDGMENT_COLUMNS: tuple[str, ...] = tuple(column for column, _ in JUDGMENT_FIELDS)
# Rows fetched from the cursor at a time: ~2,000 rows of a few hundred bytes each.
FETCH_CHUNK_SIZE = 2000


def judgment_rows(campaign: Campaign) -> Iterator[tuple[Any, ...]]:
    """The campaign's judgments as tuples in :data:`JUDGMENT_COLUMNS` order, by HIT,
    assignment and slot position, read lazily (the query runs at the first ``next``).

    On PostgreSQL the rows are read inside a transaction: Django then declares an ordinary
    server-side cursor, which streams. Outside one it declares a WITH HOLD cursor, and
    PostgreSQL computes and stores the whole result before sending the first row. A
    transaction also gives the export one consistent snapshot. Not on SQLite: there a
    transaction (IMMEDIATE, see settings) would hold the write lock, and workers' submissions
    would wait for the download; SQLite's cursor reads lazily without one.
    """
    queryset = (
        Judgment.objects.filter(campaign=campaign)
        .order_by("slot__hit__number", "assignment_id", "slot__position", "id")
        .values_list(*(field for _, field in JUDGMENT_FIELDS))
    )
    if connection.vendor == "postgresql":
        with transaction.atomic():
            yield from queryset.iterator(chunk_size=FETCH_CHUNK_SIZE)
    else:
        yield from queryset.iterator(chunk_size=FETCH_CHUNK_SIZE)


@dataclass
class _Written:
    """How far a streamed export got: rows handed to the writer, the last one's judgment id."""

    rows: int = 0
    last_judgment_id: int | None = None


def _counted(rows: Iterable[tuple[Any, ...]], written: _Written) -> Iterator[tuple[Any, ...]]:
    for row in rows:
        written.rows += 1
        written.last_judgment_id = row[0]
        yield row


def judgment_file(campaign: Campaign, name: str, write: Any, **options: Any) -> Iterator[bytes]:
    """The campaign's judgments written by ``write`` (``formats.csv_chunks`` or
    ``formats.jsonl_chunks``) as byte chunks. When a row cannot be read or written partway, the
    file ends with the writer's error line, the error is logged with the campaign and the row,
    and :class:`analytics.export_formats.ExportStopped` propagates so that the server aborts
    the response rather than end it as if the file were whole."""
    written = _Written()
    try:
        yield from write(JUDGMENT_COLUMNS, _counted(judgment_rows(campaign), written), **options)
    except formats.ExportStopped as stopped:
        logger.error(
            "Export %s of campaign %s (%s) stopped after %s rows (the last one written: "
            "judgment %s): a row after it in the export's order (HIT, assignment, slot "
            "position), among the next %s fetched, could not be read or written. The client got "
            "an incomplete file ending with an error line; the response is aborted.",
            name,
            campaign.pk,
            campaign.name,
            stopped.rows,
            written.last_judgment_id,
            FETCH_CHUNK_SIZE,
            exc_info=stopped.__cause__ or stopped,
        )
        raise


# --- Views -----------------------------------------------------------------------------------


class ErrorsAsJSON(BaseContentNegotiation):
    """Always the view's first renderer (JSON). The exports write their own files; DRF only
    renders errors, and a client that asked for text/csv should get the error as JSON, not a
    406."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


ERROR = inline_serializer("ExportError", {"detail": serializers.CharField()})
ERRORS = {
    400: OpenApiResponse(
        OpenApiTypes.OBJECT,
        description="A query parameter is unknown or invalid: {parameter: [message]}.",
    ),
    401: OpenApiResponse(ERROR, description="No, invalid or inactive credentials."),
    404: OpenApiResponse(
        ERROR, description="No campaign with this id that you may read (also when it exists)."
    ),
}
TABLE_ERRORS = {
    **ERRORS,
    404: OpenApiResponse(
        ERROR,
        description="No campaign with this id that you may read, or a campaign of a kind "
        "without a system table (only direct assessment, ranking, post-editing and reading "
        "comprehension have one).",
    ),
    409: OpenApiResponse(
        ERROR, description="The campaign's statistics have not been computed yet."
    ),
}


class ExportView(APIView):
    """Base of the export views: JSON errors, no browsable page, and a 400 for a query
    parameter the view does not take: a misspelt ``?include_unreliabel=1`` would otherwise
    download the default table without a word."""

    renderer_classes = [JSONRenderer]
    content_negotiation_class = ErrorsAsJSON
    query_parameters: tuple[str, ...] = ()

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # authentication and permissions first
        unknown = sorted(set(request.query_params) - set(self.query_parameters))
        if unknown:
            takes = ", ".join(self.query_parameters) or "no query parameters"
            raise ValidationError(
                {name: [f"Unknown parameter; this export takes {takes}."] for name in unknown}
            )

    @staticmethod
    def file_stem(campaign: Campaign) -> str:
        return slugify(campaign.name) or f"campaign-{campaign.pk}"


def _attachment(response: HttpResponse | StreamingHttpResponse, filename: str):
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


JUDGMENTS_DESCRIPTION = (
    "Every judgment of the campaign, one row each, streamed (any size; nothing is paginated). "
    "Columns, in order: " + ", ".join(JUDGMENT_COLUMNS) + ". Rows are ordered by HIT, "
    "assignment and slot position. Empty cells (CSV) or null (JSON) where a value does not "
    "apply; datetimes are ISO 8601 in UTC; yes/no answers are true/false; details is a JSON "
    "object; reference is the segment's main reference. A file whose export failed partway "
    "ends with a line starting ERROR: (CSV: inside an unterminated quote; JSON Lines: not "
    "JSON), so that readers fail on it, and the connection is aborted (a chunked response "
    "without its last chunk): such a file is incomplete."
)


class JudgmentsCSV(ExportView):
    @extend_schema(
        operation_id="campaign_export_judgments_csv",
        summary="All judgments as CSV",
        description=JUDGMENTS_DESCRIPTION
        + " CSV as RFC 4180 (UTF-8, a header line, CRLF line ends, texts quoted when needed). "
        "The exact data, to analyse: texts are as stored, so a cell may start with = or @ "
        "(a system name or worker id from an imported file) and a spreadsheet would run it "
        "as a formula: to open the judgments in a spreadsheet, download "
        "judgments-spreadsheet.csv instead.",
        tags=["exports"],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="A CSV file."),
            **ERRORS,
        },
    )
    def get(self, request: Request, campaign_id: int) -> StreamingHttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        response = StreamingHttpResponse(
            judgment_file(campaign, "judgments.csv", formats.csv_chunks),
            content_type="text/csv; charset=utf-8",
        )
        return _attachment(response, f"{self.file_stem(campaign)}-judgments.csv")


class JudgmentsSpreadsheetCSV(ExportView):
    @extend_schema(
        operation_id="campaign_export_judgments_spreadsheet_csv",
        summary="All judgments as CSV for spreadsheets (defused cells)",
        description=JUDGMENTS_DESCRIPTION
        + " For opening in a spreadsheet (Excel, LibreOffice, Google Sheets), NOT the exact "
        "data: a text cell starting with =, +, -, @, a tab or a carriage return (a system name "
        "=HYPERLINK(...) or a worker id @... from an imported file) gets a leading apostrophe "
        "so that no spreadsheet runs it as a formula; numbers are unchanged; the file starts "
        "with a UTF-8 byte order mark. Otherwise as judgments.csv, which (like judgments.jsonl) "
        "is the exact data export to analyse: never open that one in a spreadsheet.",
        tags=["exports"],
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR, description="A CSV file with defused cells."
            ),
            **ERRORS,
        },
    )
    def get(self, request: Request, campaign_id: int) -> StreamingHttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        response = StreamingHttpResponse(
            judgment_file(
                campaign,
                "judgments-spreadsheet.csv",
                formats.csv_chunks,
                cell=safe_cell,
                byte_order_mark=True,
            ),
            content_type="text/csv; charset=utf-8",
        )
        return _attachment(response, f"{self.file_stem(campaign)}-judgments-spreadsheet.csv")


class JudgmentsJSONL(ExportView):
    @extend_schema(
        operation_id="campaign_export_judgments_jsonl",
        summary="All judgments as JSON Lines",
        description=JUDGMENTS_DESCRIPTION
        + " JSON Lines: one JSON object per line (UTF-8), keys as the columns.",
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
            judgment_file(campaign, "judgments.jsonl", formats.jsonl_chunks),
            content_type="application/jsonl; charset=utf-8",
        )
        return _attachment(response, f"{self.file_stem(campaign)}-judgments.jsonl")


# --- System tables -----------------------------------------------------------------------------


class SystemTableQuery(KindQueryParams):
    """The system tables' query parameters: every kind's (``AnalyticsKind.query_fields``
    for "export"), each read by its own kind and ignored by the others."""

    endpoint = "export"


class SystemTableView(ExportView):
    """The stored system scores as one file; subclasses say which format (``table_format``:
    "csv", "tsv" or "latex"), the campaign's kind writes it (``AnalyticsKind.system_table``)."""

    extension = ""
    content_type = ""
    table_format = ""
    name_suffix = ""  # after "-systems" in the file's name

    @property
    def query_parameters(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(SystemTableQuery().fields)

    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        # A plain dict, not the QueryDict: DRF reads an empty value in form data as "left
        # out", and ?include_unreliable= should be an error, not the default.
        query = SystemTableQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        statistics = statistics_of(campaign)
        if statistics is None:
            labels = [kind.label for kind in registry]
            with_tables = " and ".join(
                [", ".join(labels[:-1]), labels[-1]] if labels[1:] else labels
            )
            raise NotFound(
                f"Campaign {campaign.pk} is a {campaign.get_kind_display()} campaign: only "
                f"{with_tables} campaigns have a system table."
            )
        rows, suffix = statistics.system_table(campaign, query.validated_data, self.table_format)
        response = HttpResponse(rows, content_type=self.content_type)
        return _attachment(
            response,
            f"{self.file_stem(campaign)}-systems{suffix}{self.name_suffix}.{self.extension}",
        )


def _table_schema(operation_id: str, summary: str, media_type: str, description: str):
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description + SYSTEMS_DESCRIPTION,
        tags=["exports"],
        parameters=[SystemTableQuery],
        responses={
            (200, media_type): OpenApiResponse(OpenApiTypes.STR, description=summary + "."),
            **TABLE_ERRORS,
        },
    )


SYSTEMS_DESCRIPTION = (
    " Read from the stored results (computed live after every submission). Direct "
    "assessment: one row per system, best first. Ranking: one row per scoring method and "
    "system (methods win_ratio_geq, win_ratio_gt, expected_wins, bradley_terry, trueskill), "
    "each method's systems best first. Post-editing: one row per system, lowest HTER first "
    "(?include_flagged=1: every editor). Reading comprehension: one row per system, the "
    "human translation (the control) included, highest share correct first "
    "(?without_suspect=1: suspect questions left out)."
)


class SystemsCSV(SystemTableView):
    extension = "csv"
    table_format = "csv"
    content_type = "text/csv; charset=utf-8"

    @_table_schema(
        "campaign_export_systems_csv",
        "System table as CSV",
        "text/csv",
        "Full precision. Direct assessment columns: "
        + ", ".join(formats.DA_CSV_COLUMNS)
        + " (mean_raw: 0-100). Ranking columns: "
        + ", ".join(formats.RANKING_CSV_COLUMNS)
        + " (ci_low/ci_high: 95% bootstrap interval; sigma: TrueSkill only). Post-editing "
        "columns: "
        + ", ".join(formats.HTER_CSV_COLUMNS)
        + " (hter: total edits / total reference words; mean_hter: of segment HTER).",
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        return super().get(request, campaign_id)


PLAIN_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def spreadsheet_safe_csv(text: str) -> str:
    """A CSV text defused for spreadsheets: every cell that is not a number and starts with
    = + - @, a tab or a return gets a leading apostrophe (``campaigns.links.safe_cell``); the
    text starts with a UTF-8 byte order mark, as judgments-spreadsheet.csv."""

    def cell(value: str) -> str:
        # -0.613 or 1e-05 is a number, not a formula; "-inf", "+1" or "NaN" (which float()
        # reads too) are system names a spreadsheet would evaluate: defused.
        return value if PLAIN_NUMBER.fullmatch(value) else safe_cell(value)

    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text, newline="")):
        writer.writerow([cell(value) for value in row])
    return "\ufeff" + out.getvalue()


class SystemsSpreadsheetCSV(SystemsCSV):
    name_suffix = "-spreadsheet"

    @_table_schema(
        "campaign_export_systems_spreadsheet_csv",
        "System table as CSV for spreadsheets (defused cells)",
        "text/csv",
        "As systems.csv, for opening in a spreadsheet: a text cell starting with =, +, -, @, a "
        "tab or a carriage return (a system name =HYPERLINK(...) from an imported file) gets a "
        "leading apostrophe; numbers are unchanged; the file starts with a UTF-8 byte order "
        "mark. systems.csv is the exact data.",
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        response = super().get(request, campaign_id)
        response.content = spreadsheet_safe_csv(response.content.decode()).encode()
        return response


class SystemsTSV(SystemTableView):
    extension = "tsv"
    table_format = "tsv"
    content_type = "text/tab-separated-values; charset=utf-8"

    @_table_schema(
        "campaign_export_systems_tsv",
        "System table as WMT-style TSV",
        "text/tab-separated-values",
        "WMT's findings tables as tab-separated text, rounded as printed there. Direct "
        "assessment columns: "
        + ", ".join(formats.DA_TSV_COLUMNS)
        + " (# the rank range, Ave % the mean raw score, Ave z the mean standardised score). "
        "Ranking columns: " + ", ".join(formats.RANKING_TSV_COLUMNS) + ". Post-editing "
        "columns: " + ", ".join(formats.HTER_TSV_COLUMNS) + ".",
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        return super().get(request, campaign_id)


class SystemsLaTeX(SystemTableView):
    extension = "tex"
    table_format = "latex"
    content_type = "application/x-tex; charset=utf-8"

    @_table_schema(
        "campaign_export_systems_tex",
        "System table as LaTeX",
        "application/x-tex",
        "A booktabs table (WMT's layout: #, Ave %, Ave z, System for direct assessment; #, "
        "score, interval, System per method for ranking) with rules between clusters and a "
        "caption; system names are escaped. Needs \\usepackage{booktabs}.",
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        return super().get(request, campaign_id)


urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/export/judgments.csv",
        JudgmentsCSV.as_view(),
        name="export-judgments-csv",
    ),
    path(
        "campaigns/<int:campaign_id>/export/judgments-spreadsheet.csv",
        JudgmentsSpreadsheetCSV.as_view(),
        name="export-judgments-spreadsheet-csv",
    ),
    path(
        "campaigns/<int:campaign_id>/export/judgments.jsonl",
        JudgmentsJSONL.as_view(),
        name="export-judgments-jsonl",
    ),
    path(
        "campaigns/<int:campaign_id>/export/systems.csv",
        SystemsCSV.as_view(),
        name="export-systems-csv",
    ),
    path(
        "campaigns/<int:campaign_id>/export/systems-spreadsheet.csv",
        SystemsSpreadsheetCSV.as_view(),
        name="export-systems-spreadsheet-csv",
    ),
    path(
        "campaigns/<int:campaign_id>/export/systems.tsv",
        SystemsTSV.as_view(),
        name="export-systems-tsv",
    ),
    path(
        "campaigns/<int:campaign_id>/export/systems.tex",
        SystemsLaTeX.as_view(),
        name="export-systems-tex",
    ),
]
