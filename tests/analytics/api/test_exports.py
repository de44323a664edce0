"""The streamed exports under /api/campaigns/<id>/export/: judgments as CSV and JSON Lines (read
back exactly, one query whatever the size) and system tables as CSV, WMT-style TSV and LaTeX
(exact strings), for the owner, an analyst and staff; 404 for anyone else, 401 without
credentials."""

from __future__ import annotations

import csv
import io
import json
import statistics
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from analytics import actions
from analytics.api import exports
from analytics.models import (
    CampaignAccess,
    CampaignResult,
    RankingResult,
    RankingScore,
    SystemScore,
)
from campaigns.models import SlotRole, TaskKind
from judgments.models import AssignmentStatus, Judgment, Platform
from tests.analytics.kinds.direct_assessment.test_actions import CAREFUL, build_small_campaign
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    DocumentFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

ENDPOINTS = ("judgments.csv", "judgments.jsonl", "systems.csv", "systems.tsv", "systems.tex")
AT = datetime(2024, 5, 17, 9, 30, 5, 123456, tzinfo=UTC)
SOURCE = 'Er sagte: "Nein",\tdann\nging er. <script>alert(1)</script> Grüße 東京'
REFERENCE = 'He said: "No",\r\nthen left. 🙂 & <b>bold</b>'
SHOWN = "He said 'no'; then\tleft, \"quickly\" — שלום"
ANSWER = 'A post-edit\nwith two lines, a comma and "quotes"\u2028and a line separator.'


def url(campaign, name: str, query: str = "") -> str:
    return f"/api/campaigns/{campaign.pk}/export/{name}{query}"


def token_header(user) -> dict[str, str]:
    token, _ = Token.objects.get_or_create(user=user)
    return {"HTTP_AUTHORIZATION": f"Token {token.key}"}


def body(response) -> str:
    assert response.streaming, "the judgments are streamed"
    return b"".join(response.streaming_content).decode("utf-8")


@pytest.fixture
def users(django_user_model):
    """The fixed users: a superuser, the requester who owns the campaign, an analyst granted
    access, and an outsider who must see nothing; all but the superuser with
    campaigns.view_campaign (model permissions come on top of what is shared: issue 11, item 4,
    analytics.access)."""
    users = {
        "staff": django_user_model.objects.create_user("staff", is_staff=True, is_superuser=True),
        "owner": django_user_model.objects.create_user("requester"),
        "analyst": django_user_model.objects.create_user("analyst"),
        "outsider": django_user_model.objects.create_user("outsider"),
    }
    view = Permission.objects.get(content_type__app_label="campaigns", codename="view_campaign")
    for role in ("owner", "analyst", "outsider"):
        users[role].user_permissions.add(view)
    return users


def share(campaign, users) -> None:
    campaign.owner = users["owner"]
    campaign.save(update_fields=["owner"])
    CampaignAccess.objects.create(campaign=campaign, user=users["analyst"])


def store_da_results(campaign, rows: dict[bool, list[tuple]]) -> None:
    """Stored results written by hand: {include_unreliable: [(system, position, n, raw, z,
    cluster, best, worst)]}."""
    CampaignResult.objects.create(
        campaign=campaign,
        computed_at=AT,
        n_judgments=10,
        n_scored_judgments=10,
        n_workers=2,
        reliability_test="wilcoxon",
        reliability_alpha=Decimal("0.05"),
        # As a result stored now says it was averaged (issue 12: WMT's segment means).
        details={"reliable": {"averaging": "segments"}, "all": {"averaging": "segments"}},
    )
    SystemScore.objects.bulk_create(
        SystemScore(
            campaign=campaign,
            system=system,
            include_unreliable=include,
            position=position,
            n=n,
            mean_score=raw,
            mean_z=z,
            cluster=cluster,
            rank_best=best,
            rank_worst=worst,
            n_segments=segments[0] if segments else 0,
        )
        for include, table in rows.items()
        for system, position, n, raw, z, cluster, best, worst, *segments in table
    )


@pytest.fixture
def da_campaign(users):
    """A direct-assessment campaign with hand-written stored scores and one judgment."""
    campaign = CampaignFactory(name="WMT24 de→en: News!")
    share(campaign, users)
    online = SystemFactory(campaign=campaign, name="Online-A")
    uedin = SystemFactory(campaign=campaign, name="UEdin_NMT & co")
    human = SystemFactory(campaign=campaign, name="HUMAN #1")
    store_da_results(
        campaign,
        {
            False: [
                (online, 1, 1000, 73.52, 0.1237, 1, 1, 1, 500),
                (uedin, 2, 980, 71.26, 0.0004, 2, 2, 3, 490),
                (human, 3, 976, 66.8, -0.081, 2, 2, 3, 488),
            ],
            True: [
                (uedin, 1, 1200, 70.0, 0.05, 1, 1, 2, 600),
                (online, 2, 1210, 69.95, 0.04, 1, 1, 2, 605),
                (human, 3, 1190, 60.0, -0.09, 2, 3, 3, 595),
            ],
        },
    )
    JudgmentFactory(assignment__hit=HitFactory(campaign=campaign), score=50.0)
    return campaign


# --- Judgments -------------------------------------------------------------------------------


def nasty_judgment(campaign):
    """A judgment in HIT 3, slot 2 (a bad reference in group 1), with every column set and
    texts full of delimiters, quotes, line breaks, markup and non-ASCII."""
    document = DocumentFactory(campaign=campaign, external_id="doc-ä1")
    segment = SegmentFactory(
        document=document, external_id="seg,7", source=SOURCE, references=[REFERENCE, "other"]
    )
    output = OutputFactory(
        segment=segment, system=SystemFactory(campaign=campaign, name='sys "β"'), text="out"
    )
    hit = HitFactory(campaign=campaign, number=3)
    slot = HitSlotFactory(
        hit=hit,
        position=2,
        group=1,
        role=SlotRole.BAD_REFERENCE,
        output=output,
        segment=segment,
        shown_text=SHOWN,
    )
    assignment = AssignmentFactory(
        hit=hit,
        worker=WorkerFactory(platform=Platform.MTURK, external_id="A1B2C3D4"),
        status=AssignmentStatus.APPROVED,
        platform_assignment_id="3XYZASSIGN",
    )
    judgment = JudgmentFactory(
        assignment=assignment,
        slot=slot,
        score=37.5,
        given_z=-0.25,
        rank=2,
        text=ANSWER,
        yes_no=True,
        yes_no_second=False,
        details={"redundant_with": [1, 3]},
        client_started_at=AT,
        client_duration_ms=8123,
        served_at=datetime(2024, 5, 17, 9, 30, 0, tzinfo=UTC),
        server_duration_ms=8200,
    )
    Judgment.objects.filter(pk=judgment.pk).update(
        submitted_at=datetime(2024, 5, 17, 9, 30, 8, 200000, tzinfo=UTC)
    )
    return judgment


def expected_nasty_row(judgment) -> dict:
    return {
        "judgment_id": judgment.pk,
        "campaign": judgment.campaign.name,
        "hit": 3,
        "task": "assess",
        "slot_position": 2,
        "slot_group": 1,
        "role": "bad_reference",
        "about_judgment": None,
        "system": 'sys "β"',
        "document": "doc-ä1",
        "segment": "seg,7",
        "source": SOURCE,
        "reference": REFERENCE,
        "shown_text": SHOWN,
        "worker_platform": "mturk",
        "worker_external_id": "A1B2C3D4",
        "assignment_id": judgment.assignment_id,
        "platform_assignment_id": "3XYZASSIGN",
        "assignment_status": "approved",
        "score": 37.5,
        "given_z": -0.25,
        "rank": 2,
        "text": ANSWER,
        "yes_no": True,
        "yes_no_second": False,
        "details": {"redundant_with": [1, 3]},
        "client_started_at": "2024-05-17T09:30:05.123456+00:00",
        "client_duration_ms": 8123,
        "served_at": "2024-05-17T09:30:00+00:00",
        "submitted_at": "2024-05-17T09:30:08.200000+00:00",
        "server_duration_ms": 8200,
    }


def test_judgments_jsonl_round_trips_every_column_exactly(client, users):
    campaign = CampaignFactory(name="WMT24 de→en: News!", owner=users["owner"])
    judgment = nasty_judgment(campaign)
    response = client.get(url(campaign, "judgments.jsonl"), **token_header(users["owner"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/jsonl; charset=utf-8"
    assert (
        response["Content-Disposition"] == 'attachment; filename="wmt24-deen-news-judgments.jsonl"'
    )
    lines = body(response).split("\n")
    assert lines[-1] == ""
    assert [json.loads(line) for line in lines[:-1]] == [expected_nasty_row(judgment)]
    assert list(json.loads(lines[0])) == list(exports.JUDGMENT_COLUMNS)


def test_judgments_csv_round_trips_every_column_exactly(client, users):
    campaign = CampaignFactory(name="WMT24 de→en: News!", owner=users["owner"])
    judgment = nasty_judgment(campaign)
    response = client.get(url(campaign, "judgments.csv"), **token_header(users["owner"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="wmt24-deen-news-judgments.csv"'
    header, row = csv.reader(io.StringIO(body(response), newline=""))
    assert header == list(exports.JUDGMENT_COLUMNS)
    expected = expected_nasty_row(judgment)
    expected.update(
        judgment_id=str(judgment.pk),
        hit="3",
        slot_position="2",
        slot_group="1",
        about_judgment="",
        assignment_id=str(judgment.assignment_id),
        score="37.5",
        given_z="-0.25",
        rank="2",
        yes_no="true",
        yes_no_second="false",
        details='{"redundant_with":[1,3]}',
        client_duration_ms="8123",
        server_duration_ms="8200",
    )
    assert dict(zip(header, row, strict=True)) == expected


def test_empty_cells_and_a_slot_without_segment_or_output(client, users):
    campaign = CampaignFactory(owner=users["owner"])
    hit = HitFactory(campaign=campaign, number=1)
    slot = HitSlotFactory(
        hit=hit, position=1, role=SlotRole.QUESTION, output=None, segment=None, shown_text="Q?"
    )
    judgment = JudgmentFactory(assignment__hit=hit, slot=slot, score=None, text="An answer")
    response = client.get(url(campaign, "judgments.jsonl"), **token_header(users["owner"]))
    (row,) = [json.loads(line) for line in body(response).splitlines()]
    assert {
        k: row[k] for k in ("role", "system", "document", "segment", "source", "reference")
    } == {
        "role": "question",
        "system": None,
        "document": None,
        "segment": None,
        "source": None,
        "reference": None,
    }
    assert (row["shown_text"], row["text"], row["score"]) == ("Q?", "An answer", None)
    assert row["judgment_id"] == judgment.pk
    response = client.get(url(campaign, "judgments.csv"), **token_header(users["owner"]))
    header, values = csv.reader(io.StringIO(body(response), newline=""))
    row = dict(zip(header, values, strict=True))
    assert (row["system"], row["reference"], row["score"], row["yes_no"]) == ("", "", "", "")


def test_rows_come_by_hit_then_assignment_then_slot_position(client, users):
    campaign = CampaignFactory(owner=users["owner"])
    hits = {number: HitFactory(campaign=campaign, number=number) for number in (2, 1)}
    slots = {
        number: [HitSlotFactory(hit=hit, position=p) for p in (3, 1, 2)]
        for number, hit in hits.items()
    }
    for number in (2, 1):
        for worker in ("first", "second"):
            assignment = AssignmentFactory(
                hit=hits[number], worker__external_id=f"{worker}{number}"
            )
            for slot in slots[number]:
                JudgmentFactory(assignment=assignment, slot=slot)
    response = client.get(url(campaign, "judgments.jsonl"), **token_header(users["owner"]))
    rows = [json.loads(line) for line in body(response).splitlines()]
    assert [(r["hit"], r["worker_external_id"], r["slot_position"]) for r in rows] == [
        (1, f"{w}1", p) for w in ("first", "second") for p in (1, 2, 3)
    ] + [(2, f"{w}2", p) for w in ("first", "second") for p in (1, 2, 3)]


def test_only_the_campaigns_own_judgments_are_exported(client, users):
    campaign = CampaignFactory(owner=users["owner"])
    mine = JudgmentFactory(assignment__hit=HitFactory(campaign=campaign))
    JudgmentFactory()  # another campaign's
    response = client.get(url(campaign, "judgments.jsonl"), **token_header(users["owner"]))
    assert [json.loads(line)["judgment_id"] for line in body(response).splitlines()] == [mine.pk]


def test_a_campaign_without_judgments_exports_the_header_alone(client, users):
    campaign = CampaignFactory(owner=users["owner"])
    response = client.get(url(campaign, "judgments.csv"), **token_header(users["owner"]))
    assert body(response) == ",".join(exports.JUDGMENT_COLUMNS) + "\r\n"
    response = client.get(url(campaign, "judgments.jsonl"), **token_header(users["owner"]))
    assert body(response) == ""


def judgments_in_one_hit(campaign, n: int) -> None:
    hit = HitFactory(campaign=campaign)
    assignment = AssignmentFactory(hit=hit)
    for position in range(1, n + 1):
        JudgmentFactory(assignment=assignment, slot=HitSlotFactory(hit=hit, position=position))


@pytest.mark.parametrize("name", ["judgments.csv", "judgments.jsonl"])
def test_one_query_reads_the_judgments_whatever_their_number(client, users, name):
    headers = token_header(users["owner"])
    counts = {}
    for n in (1, 3):
        campaign = CampaignFactory(owner=users["owner"])
        judgments_in_one_hit(campaign, n)
        with CaptureQueriesContext(connection) as queries:
            text = body(client.get(url(campaign, name), **headers))
        reads = [q["sql"] for q in queries.captured_queries if "judgments_judgment" in q["sql"]]
        assert len(reads) == 1, reads
        assert text.count("\n") == n + (name == "judgments.csv")
        counts[n] = len(queries.captured_queries)
    assert counts[1] == counts[3]


def test_the_judgments_are_read_through_a_chunked_cursor(client, users, monkeypatch):
    """.iterator(): a server-side cursor on PostgreSQL, fetchmany batches elsewhere; never
    the whole result in memory at once."""
    campaign = CampaignFactory(owner=users["owner"])
    judgments_in_one_hit(campaign, 5)
    monkeypatch.setattr(exports, "FETCH_CHUNK_SIZE", 2)
    calls = []
    chunked_cursor = connection.chunked_cursor

    def spy():
        calls.append(connection.in_atomic_block)
        return chunked_cursor()

    monkeypatch.setattr(connection, "chunked_cursor", spy)
    text = body(client.get(url(campaign, "judgments.jsonl"), **token_header(users["owner"])))
    assert len(text.splitlines()) == 5
    # One cursor; on PostgreSQL inside a transaction (a plain, streaming server-side cursor
    # rather than a WITH HOLD one, which PostgreSQL materialises before the first row).
    assert len(calls) == 1
    if connection.vendor == "postgresql":
        assert calls == [True]


# --- Who may download --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ENDPOINTS)
@pytest.mark.parametrize(
    ("role", "status"),
    [("staff", 200), ("owner", 200), ("analyst", 200), ("outsider", 404), ("anonymous", 401)],
)
def test_permission_matrix(client, users, da_campaign, name, role, status):
    headers = {} if role == "anonymous" else token_header(users[role])
    response = client.get(url(da_campaign, name), **headers)
    assert response.status_code == status
    if status == 200:
        assert response["Content-Disposition"].startswith('attachment; filename="wmt24-deen-news-')
    else:
        assert response["Content-Type"] == "application/json"
        expected = (
            "No Campaign matches the given query."
            if status == 404
            else "Authentication credentials were not provided."
        )
        assert json.loads(response.content) == {"detail": expected}


@pytest.mark.parametrize("name", ENDPOINTS)
def test_a_campaign_that_does_not_exist_looks_like_one_you_may_not_read(client, users, name):
    response = client.get(f"/api/campaigns/987654/export/{name}", **token_header(users["staff"]))
    assert response.status_code == 404
    assert json.loads(response.content) == {"detail": "No Campaign matches the given query."}


def test_an_inactive_users_token_opens_nothing(client, users, da_campaign):
    headers = token_header(users["analyst"])
    users["analyst"].is_active = False
    users["analyst"].save(update_fields=["is_active"])
    response = client.get(url(da_campaign, "judgments.csv"), **headers)
    assert response.status_code == 401
    assert json.loads(response.content) == {"detail": "User inactive or deleted."}


def test_a_logged_in_session_works_like_a_token(client, users, da_campaign):
    client.force_login(users["analyst"])
    assert client.get(url(da_campaign, "systems.csv")).status_code == 200
    client.force_login(users["outsider"])
    assert client.get(url(da_campaign, "systems.csv")).status_code == 404


def test_errors_are_json_even_when_the_client_asks_for_csv(client, users, da_campaign):
    response = client.get(
        url(da_campaign, "judgments.csv"), HTTP_ACCEPT="text/csv", **token_header(users["outsider"])
    )
    assert (response.status_code, response["Content-Type"]) == (404, "application/json")
    response = client.get(url(da_campaign, "judgments.csv"), HTTP_ACCEPT="text/csv")
    assert (response.status_code, response["Content-Type"]) == (401, "application/json")


# --- Direct-assessment system tables -------------------------------------------------------------


def test_da_systems_csv_reliable_workers_by_default(client, users, da_campaign):
    response = client.get(url(da_campaign, "systems.csv"), **token_header(users["analyst"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="wmt24-deen-news-systems.csv"'
    assert response.content.decode() == (
        "rank_best,rank_worst,system,mean_z,mean_raw,n,cluster,n_segments\r\n"
        "1,1,Online-A,0.1237,73.52,1000,1,500\r\n"
        "2,3,UEdin_NMT & co,0.0004,71.26,980,2,490\r\n"
        "2,3,HUMAN #1,-0.081,66.8,976,2,488\r\n"
    )


def test_da_systems_tsv_with_every_worker(client, users, da_campaign):
    response = client.get(
        url(da_campaign, "systems.tsv", "?include_unreliable=1"), **token_header(users["analyst"])
    )
    assert response["Content-Type"] == "text/tab-separated-values; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="wmt24-deen-news-systems-all.tsv"'
    )
    assert response.content.decode() == (
        "#\tAve %\tAve z\tSystem\tn\tCluster\tSegments\n"
        "1-2\t70.0\t0.050\tUEdin_NMT & co\t1200\t1\t600\n"
        "1-2\t70.0\t0.040\tOnline-A\t1210\t1\t605\n"
        "3\t60.0\t-0.090\tHUMAN #1\t1190\t2\t595\n"
    )


def test_da_systems_latex(client, users, da_campaign):
    response = client.get(url(da_campaign, "systems.tex"), **token_header(users["owner"]))
    assert response["Content-Type"] == "application/x-tex; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="wmt24-deen-news-systems.tex"'
    assert response.content.decode() == (
        "% Needs \\usepackage{booktabs} in the preamble.\n"
        "\\begin{table}\n"
        "\\centering\n"
        "\\begin{tabular}{rrrl}\n"
        "\\toprule\n"
        "\\# & Ave \\% & Ave $z$ & System \\\\\n"
        "\\midrule\n"
        "1 & 73.5 & 0.124 & Online-A \\\\\n"
        "\\midrule\n"
        "2--3 & 71.3 & 0.000 & UEdin\\_NMT \\& co \\\\\n"
        "2--3 & 66.8 & $-$0.081 & HUMAN \\#1 \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
        "\\caption{WMT24 de→en: News! (de-en, direct assessment, adequacy), reliable workers "
        "only: systems by mean standardised score (Ave z); Ave \\% is the mean raw score (means "
        "of segment means, as WMT), \\# the rank range (WMT's: 1 + systems significantly better "
        "to n - systems significantly worse); rules separate significance clusters.}\n"
        "\\end{table}\n"
    )


def test_da_tables_of_a_recomputed_campaign_show_the_careful_workers_means(client, users):
    """End to end: the small campaign of tests/analytics/test_actions.py, recomputed. Only
    the careful worker is reliable; system A's outputs and repeats score 80 84 77 82 79 85
    83 79 86, B's 40 45 38 42 36 44 41 37 43; z over all 26 of the careful worker's scores.
    WMT's Ave raw averages each segment first (segments 4-6 were judged twice: output and
    repeat): A (80 + 84 + 77 + 82.5 + 79 + 85.5) / 6 = 81.33 (the flat mean was 81.67), B
    (40 + 45 + 38 + 41.5 + 36.5 + 43.5) / 6 = 40.75 (flat 40.67)."""
    small = build_small_campaign()
    share(small.campaign, users)
    actions.recompute_campaign(small.campaign)
    mean, sd = statistics.mean(CAREFUL), statistics.stdev(CAREFUL)
    a = [80, 84, 77, 82.5, 79, 85.5]
    b = [40, 45, 38, 41.5, 36.5, 43.5]
    z_a = statistics.mean((x - mean) / sd for x in a)
    z_b = statistics.mean((x - mean) / sd for x in b)
    assert (round(statistics.mean(a), 2), round(statistics.mean(b), 2)) == (81.33, 40.75)
    response = client.get(url(small.campaign, "systems.tsv"), **token_header(users["analyst"]))
    assert response.content.decode() == (
        "#\tAve %\tAve z\tSystem\tn\tCluster\tSegments\n"
        f"1\t81.3\t{z_a:.3f}\tA\t9\t1\t6\n"
        f"2\t40.8\t{z_b:.3f}\tB\t9\t2\t6\n"
    )
    response = client.get(url(small.campaign, "systems.csv"), **token_header(users["analyst"]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode(), newline="")))
    assert [
        (r["system"], float(r["mean_raw"]), float(r["mean_z"]), r["n"], r["n_segments"])
        for r in rows
    ] == [
        ("A", pytest.approx(sum(a) / 6, abs=1e-9), pytest.approx(z_a, abs=1e-9), "9", "6"),
        ("B", pytest.approx(sum(b) / 6, abs=1e-9), pytest.approx(z_b, abs=1e-9), "9", "6"),
    ]


def test_system_tables_wait_for_the_first_computation(client, users):
    campaign = CampaignFactory(owner=users["owner"])
    response = client.get(url(campaign, "systems.csv"), **token_header(users["owner"]))
    assert response.status_code == 409
    assert json.loads(response.content) == {
        "detail": f"The statistics of campaign {campaign.pk} have not been computed yet: it has "
        "no scored judgment, or the first computation is still queued."
    }


def test_kinds_without_a_system_table_say_so(client, users, monkeypatch):
    # Every kind of TASK_KINDS has statistics now: take one out of the registry.
    from analytics.kinds import registry

    campaign = CampaignFactory(kind=TaskKind.TRANSLATION, owner=users["owner"])
    monkeypatch.delitem(registry._kinds, TaskKind.TRANSLATION)
    response = client.get(url(campaign, "systems.tsv"), **token_header(users["owner"]))
    assert response.status_code == 404
    assert json.loads(response.content) == {
        "detail": f"Campaign {campaign.pk} is a {campaign.get_kind_display()} campaign: only "
        "direct-assessment, ranking, post-editing and reading-comprehension campaigns have a "
        "system table."
    }


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("?include_unreliable=maybe", {"include_unreliable": ["Must be a valid boolean."]}),
        ("?include_untrusted=", {"include_untrusted": ["Must be a valid boolean."]}),
        ("?method=bleu", {"method": ['"bleu" is not a valid choice.']}),
    ],
)
def test_bad_parameters_are_400_naming_the_parameter(client, users, da_campaign, query, error):
    response = client.get(url(da_campaign, "systems.csv", query), **token_header(users["owner"]))
    assert response.status_code == 400
    assert json.loads(response.content) == error


def test_an_empty_method_means_every_method(client, users, ranking_campaign):
    headers = token_header(users["owner"])
    every = client.get(url(ranking_campaign, "systems.csv"), **headers)
    empty = client.get(url(ranking_campaign, "systems.csv", "?method="), **headers)
    assert empty.content == every.content
    assert empty.content.decode().count("\n") == 5


def test_unknown_parameters_are_refused_rather_than_ignored(client, users, da_campaign):
    """A misspelt option would otherwise download the default table without a word."""
    headers = token_header(users["owner"])
    response = client.get(url(da_campaign, "systems.tsv", "?include_unreliabel=1"), **headers)
    assert response.status_code == 400
    assert json.loads(response.content) == {
        "include_unreliabel": [
            "Unknown parameter; this export takes include_unreliable, include_untrusted, method, "
            "include_flagged, without_suspect, final_only."
        ]
    }
    response = client.get(url(da_campaign, "judgments.csv", "?since=2024-01-01"), **headers)
    assert response.status_code == 400
    assert json.loads(response.content) == {
        "since": ["Unknown parameter; this export takes no query parameters."]
    }


# --- Ranking system tables -----------------------------------------------------------------------


@pytest.fixture
def ranking_campaign(users):
    campaign = CampaignFactory(
        name="Ranking en-cs",
        kind=TaskKind.RANKING,
        source_language="en",
        target_language="cs",
        owner=users["owner"],
    )
    a, b = (SystemFactory(campaign=campaign, name=name) for name in ("CU-Bojar", "online_B"))
    RankingResult.objects.create(
        campaign=campaign,
        computed_at=AT,
        n_judgments=40,
        n_scored_judgments=40,
        n_workers=3,
        n_ballots=8,
        n_sets=4,
        n_gold_units=0,
        gold_scheme="best_only",
        trust_min_gold=4,
        trust_min_accuracy=Decimal("0.7"),
    )
    common = {"campaign": campaign, "n": 20, "wins": 0, "ties": 0, "losses": 0}
    RankingScore.objects.bulk_create(
        [
            RankingScore(
                **common, system=b, method="trueskill", position=1, score=0.61, sigma=0.8,
                rank_best=1, rank_worst=1,
            ),
            RankingScore(
                **common, system=a, method="trueskill", position=2, score=-0.61, sigma=0.81,
                rank_best=2, rank_worst=2,
            ),
            RankingScore(
                **common, system=a, method="expected_wins", position=1, score=0.6, ci_low=0.55,
                ci_high=0.65, cluster=1, rank_best=1, rank_worst=1,
            ),
            RankingScore(
                **common, system=b, method="expected_wins", position=2, score=0.4, ci_low=0.35,
                ci_high=0.45, cluster=2, rank_best=2, rank_worst=2,
            ),
            RankingScore(
                **common, system=b, method="expected_wins", include_untrusted=True, position=1,
                score=0.52, ci_low=0.4, ci_high=0.6, cluster=1, rank_best=1, rank_worst=2,
            ),
            RankingScore(
                **common, system=a, method="expected_wins", include_untrusted=True, position=2,
                score=0.48, ci_low=0.4, ci_high=0.6, cluster=1, rank_best=1, rank_worst=2,
            ),
        ]
    )  # fmt: skip
    return campaign


def test_ranking_tsv_lists_methods_in_their_declared_order(client, users, ranking_campaign):
    response = client.get(url(ranking_campaign, "systems.tsv"), **token_header(users["owner"]))
    assert response.content.decode() == (
        # Issue 12: each score's counts (wins, ties, losses; these stored rows have none).
        "Method\t#\tScore\tCI low\tCI high\tSigma\tSystem\tn\tWins\tTies\tLosses\tCluster\n"
        "expected_wins\t1\t0.600\t0.550\t0.650\t\tCU-Bojar\t20\t0\t0\t0\t1\n"
        "expected_wins\t2\t0.400\t0.350\t0.450\t\tonline_B\t20\t0\t0\t0\t2\n"
        "trueskill\t1\t0.610\t\t\t0.800\tonline_B\t20\t0\t0\t0\t\n"
        "trueskill\t2\t-0.610\t\t\t0.810\tCU-Bojar\t20\t0\t0\t0\t\n"
    )


def test_ranking_csv_with_every_worker_and_one_method(client, users, ranking_campaign):
    response = client.get(
        url(ranking_campaign, "systems.csv", "?include_untrusted=true&method=expected_wins"),
        **token_header(users["owner"]),
    )
    assert response["Content-Disposition"] == (
        'attachment; filename="ranking-en-cs-systems-all-expected_wins.csv"'
    )
    assert response.content.decode() == (
        "method,rank_best,rank_worst,system,score,ci_low,ci_high,sigma,n,wins,ties,losses,"
        "cluster\r\n"
        "expected_wins,1,2,online_B,0.52,0.4,0.6,,20,0,0,0,1\r\n"
        "expected_wins,1,2,CU-Bojar,0.48,0.4,0.6,,20,0,0,0,1\r\n"
    )


def test_ranking_latex_one_table_per_method(client, users, ranking_campaign):
    response = client.get(
        url(ranking_campaign, "systems.tex", "?method=trueskill"), **token_header(users["owner"])
    )
    assert response.content.decode() == (
        "% Needs \\usepackage{booktabs} in the preamble.\n"
        "\\begin{table}\n"
        "\\centering\n"
        "\\begin{tabular}{rrcl}\n"
        "\\toprule\n"
        "\\# & $\\mu$ & $\\sigma$ & System \\\\\n"
        "\\midrule\n"
        "1 & 0.610 & 0.800 & online\\_B \\\\\n"
        "2 & $-$0.610 & 0.810 & CU-Bojar \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
        "\\caption{Ranking en-cs (en-cs, ranking), TrueSkill mu (WMT14 settings), trusted "
        "workers only: \\# is the rank range; rules separate significance clusters.}\n"
        "\\end{table}\n"
    )


@pytest.mark.parametrize("name", ["systems.csv", "systems.tsv", "systems.tex"])
def test_system_tables_take_the_same_queries_for_one_system_or_three(client, users, name):
    headers = token_header(users["owner"])
    counts = {}
    for n in (1, 3):
        campaign = CampaignFactory(owner=users["owner"])
        systems = [SystemFactory(campaign=campaign) for _ in range(n)]
        store_da_results(
            campaign,
            {False: [(s, i + 1, 10, 50.0, 0.0, 1, 1, n) for i, s in enumerate(systems)]},
        )
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url(campaign, name), **headers)
        lines = n + (11 if name == "systems.tex" else 1)  # LaTeX: 11 lines around the rows
        assert response.content.decode().count("\n") == lines
        counts[n] = len(queries.captured_queries)
    # The token, the user's permissions and their groups' (issue 11 item 4), the campaign,
    # whether results exist, the scores with their system names.
    assert counts == {1: 6, 3: 6}


# --- Schema ------------------------------------------------------------------------------------


def test_the_exports_are_documented_in_the_openapi_schema(admin_client):
    import yaml

    # The schema needs a login (issue 11 item 9).
    paths = yaml.safe_load(admin_client.get("/api/schema/").content)["paths"]
    media = {
        "judgments.csv": "text/csv",
        "judgments.jsonl": "application/jsonl",
        "systems.csv": "text/csv",
        "systems.tsv": "text/tab-separated-values",
        "systems.tex": "application/x-tex",
    }
    for name, media_type in media.items():
        operation = paths[f"/api/campaigns/{{campaign_id}}/export/{name}"]["get"]
        assert list(operation["responses"]["200"]["content"]) == [media_type]
        assert operation["responses"]["404"]["content"]["application/json"]
        parameters = {p["name"]: p["in"] for p in operation["parameters"]}
        if name.startswith("systems"):
            assert parameters == {
                "campaign_id": "path",
                "include_unreliable": "query",
                "include_untrusted": "query",
                "method": "query",
                "include_flagged": "query",
                "without_suspect": "query",
                "final_only": "query",
            }
            assert set(operation["responses"]) == {"200", "400", "401", "404", "409"}
        else:
            assert parameters == {"campaign_id": "path"}
            assert set(operation["responses"]) == {"200", "400", "401", "404"}
