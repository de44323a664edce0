"""Post-editing in the analysts' API: the kind's fields in the shared endpoints (campaign,
systems, significance, segments, workers), its system tables, its own endpoints (every edit
with its TER, verification outcomes), who may read them, and their query counts; figures of
the hand-worked campaign (tests/analytics/kinds/post_editing/test_actions.py)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from analytics import actions
from analytics.kinds.post_editing.edits import EDIT_COLUMNS
from analytics.models import PostEditingSystemScore
from tests.analytics.api.conftest import NOT_READERS, READERS, ROLES, UNAUTHENTICATED, make_cast
from tests.analytics.kinds.post_editing.campaign import build_pe_campaign, edit_hit

pytestmark = pytest.mark.django_db

TERCOM = "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"


@pytest.fixture
def built():
    campaign = build_pe_campaign()
    actions.recompute_campaign(campaign.campaign)
    yield campaign
    actions.clear_recompute_flag(campaign.campaign.pk)


@pytest.fixture
def cast(built):
    return make_cast(built.campaign)


def get(cast, url: str, role: str = "analyst", status: int = 200):
    response = cast.client(role).get(url)
    assert response.status_code == status, response.content[:500]
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    if response["Content-Type"].startswith("application/json"):
        return response.json()
    return response.content.decode()


def stored(built, name, include_flagged=False):
    return PostEditingSystemScore.objects.get(
        campaign=built.campaign, system_id=built.systems[name], include_flagged=include_flagged
    )


# --- Shared endpoints ----------------------------------------------------------------------------


def test_the_campaign_names_its_mode_and_ter_signature(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/")
    assert (data["kind"], data["post_editing_mode"], data["ter_signature"]) == (
        "post_editing",
        "monolingual",
        TERCOM,
    )
    assert (data["assessment_mode"], data["rank_by"]) == ("", "")
    results = data["results"]
    assert (results["n_judgments"], results["n_scored_judgments"], results["n_workers"]) == (
        24,
        21,
        7,
    )


def test_systems_with_their_hter_best_first(cast, built):
    rows = get(cast, f"/api/campaigns/{built.campaign.pk}/systems/")["results"]
    assert [row["name"] for row in rows] == ["B", "A"]
    assert (rows[0]["direct_assessment"], rows[0]["ranking"]) == (None, [])
    b = rows[0]["post_editing"]
    want = stored(built, "B")
    assert b == {
        "include_flagged": False,
        "position": 1,
        "corpus": pytest.approx(2 / 15),
        "corpus_ci_low": want.corpus_ci_low,
        "corpus_ci_high": want.corpus_ci_high,
        "mean": pytest.approx(5 / 36),
        "mean_ci_low": want.mean_ci_low,
        "mean_ci_high": want.mean_ci_high,
        "edits": 2,
        "ref_length": 15.0,
        "n_outputs": 3,
        "n_from_reference": 1,
        "n_edits": 4,
        "n_passed": 2,
        "n_verified": 3,
        "verified_share": 0.75,
        "cluster": 1,
        "rank_best": 1,
        "rank_worst": 2,
        "rank_range": "1–2",
    }
    every = get(cast, f"/api/campaigns/{built.campaign.pk}/systems/?include_flagged=1")
    assert [row["post_editing"]["corpus"] for row in every["results"]] == [
        0.0,
        pytest.approx(2 / 15),
    ]
    assert get(
        cast, f"/api/campaigns/{built.campaign.pk}/systems/?include_flagged=maybe", status=400
    ) == {"include_flagged": ["Must be a valid boolean."]}


def test_significance_is_the_stored_paired_wilcoxon(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/significance/")
    assert data["variant"] == "unflagged"
    assert data["test"].startswith("one-sided paired Wilcoxon signed-rank test on segment HTER")
    assert [(s["name"], s["cluster"]) for s in data["systems"]] == [("B", 1), ("A", 1)]
    assert [s["score"] for s in data["systems"]] == [pytest.approx(5 / 36), pytest.approx(2 / 9)]
    # Best first: "B lower than A" is 3/8, "A lower than B" 6/8 (test_actions.py).
    assert data["p_values"] == [[None, 0.375], [0.75, None]]
    assert data["marks"] == [["", ""], ["", ""]]


def test_segment_hter_per_output(cast, built):
    rows = get(cast, f"/api/campaigns/{built.campaign.pk}/segments/")["results"]
    got = [
        (r["document_external_id"], r["segment_external_id"], r["system"], r["n"], r["n_passed"])
        for r in rows
    ]
    assert got == [
        ("D1", "1", "A", 2, 1),
        ("D1", "1", "B", 1, 0),
        ("D1", "2", "A", 1, 1),
        ("D1", "2", "B", 2, 1),
        ("D2", "3", "A", 2, 2),
        ("D2", "3", "B", 1, 1),
    ]
    assert [r["hter"] for r in rows] == pytest.approx([2 / 6, 1 / 6, 2 / 6, 0, 0, 1 / 4])
    assert rows[0]["mean_z"] is None and rows[0]["wins"] is None
    every = get(cast, f"/api/campaigns/{built.campaign.pk}/segments/?include_flagged=1")
    assert [r["hter"] for r in every["results"]] == pytest.approx([2 / 6, 0, 0, 0, 0, 0])


def test_workers_with_their_profiles(cast, built):
    rows = get(cast, f"/api/campaigns/{built.campaign.pk}/workers/")["results"]
    by_id = {row["external_id"]: row for row in rows}
    assert by_id["ed4"]["post_editing"] == {
        "n_edits": 3,
        "n_votes": 0,
        "mean_ter_to_mt": 0.0,
        "mean_ter_to_reference": pytest.approx(1 / 3),
        "share_unchanged": 1.0,
        "share_copied": 0.0,
        "did_nothing": True,
        "copied_reference": False,
        "n_passed": 0,
        "n_failed": 0,
        "n_unverified": 3,
        "n_gold_segments": 0,
        "gold_distance": None,
        "weight": None,
        "gold": False,
        "in_scores": False,
    }
    assert by_id["v2"]["post_editing"]["n_votes"] == 5
    assert (by_id["ed1"]["reliability"], by_id["ed1"]["trust"]) == (None, None)


# --- System tables -------------------------------------------------------------------------------


def test_the_system_table_as_csv_tsv_and_latex(cast, built):
    base = f"/api/campaigns/{built.campaign.pk}/export"
    b, a = stored(built, "B"), stored(built, "A")
    text = get(cast, f"{base}/systems.csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "rank_best", "rank_worst", "system", "hter", "hter_ci_low", "hter_ci_high", "mean_hter",
        "mean_hter_ci_low", "mean_hter_ci_high", "n_outputs", "n_edits", "n_verified", "cluster",
    ]  # fmt: skip
    assert rows[1] == [
        "1", "2", "B", repr(b.corpus), repr(b.corpus_ci_low), repr(b.corpus_ci_high),
        repr(b.mean), repr(b.mean_ci_low), repr(b.mean_ci_high), "3", "4", "3", "1",
    ]  # fmt: skip
    assert rows[2][:4] == ["1", "2", "A", "0.25"]
    tsv = get(cast, f"{base}/systems.tsv")
    assert tsv.splitlines() == [
        "#\tHTER\t95% CI\tMean HTER\tSystem\tOutputs\tEdits\tCluster",
        f"1-2\t0.133\t[{b.corpus_ci_low:.3f}, {b.corpus_ci_high:.3f}]\t0.139\tB\t3\t4\t1",
        f"1-2\t0.250\t[{a.corpus_ci_low:.3f}, {a.corpus_ci_high:.3f}]\t0.222\tA\t3\t5\t1",
    ]
    latex = get(cast, f"{base}/systems.tex")
    assert r"\# & HTER & 95\% interval & Mean & System \\" in latex
    assert "1--2 & 0.133 &" in latex
    assert "TER: nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0." in latex
    every = cast.client("analyst").get(f"{base}/systems.tsv?include_flagged=1")
    assert every["Content-Disposition"].endswith('-systems-all.tsv"')
    assert "1-2\t0.000\t" in every.content.decode()


def test_before_the_first_recompute_the_system_table_is_409():
    built = build_pe_campaign()
    cast = make_cast(built.campaign)
    response = cast.client("owner").get(f"/api/campaigns/{built.campaign.pk}/export/systems.csv")
    assert response.status_code == 409
    actions.clear_recompute_flag(built.campaign.pk)


# --- Every edit, and verification outcomes -----------------------------------------------------


def test_every_edit_with_its_ter_as_csv(cast, built):
    text = get(cast, f"/api/campaigns/{built.campaign.pk}/export/edits.csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(EDIT_COLUMNS)
    assert len(rows) == 12
    by_id = {int(row["judgment_id"]): row for row in rows}
    ed1 = by_id[built.edit("ed1", "A", 1).pk]
    assert {k: ed1[k] for k in ("worker_external_id", "system", "document", "segment")} == {
        "worker_external_id": "ed1",
        "system": "A",
        "document": "D1",
        "segment": "1",
    }
    assert (ed1["mt_output"], ed1["edit"], ed1["reference"]) == (
        "the cat sits on mat",
        "the cat sat on the mat",
        "the cat sat on the mat",
    )
    ed2 = by_id[built.edit("ed2", "A", 1).pk]
    assert [ed2[k] for k in EDIT_COLUMNS[-13:]] == [
        "1", "5.0", "0.2", "1", "6.0", repr(1 / 6), "1", "1", "failed", "false", "true",
        "false", TERCOM,
    ]  # fmt: skip
    assert (ed1["verification"], ed1["chosen"], ed1["ter"]) == ("passed", "true", repr(1 / 3))
    ed4 = by_id[built.edit("ed4", "B", 1).pk]
    assert (ed4["verification"], ed4["counted"], ed4["chosen"]) == ("unverified", "false", "false")


def test_every_edit_as_json_lines(cast, built):
    text = get(cast, f"/api/campaigns/{built.campaign.pk}/export/edits.jsonl")
    rows = [json.loads(line) for line in text.splitlines()]
    assert [row["judgment_id"] for row in rows] == sorted(e.pk for e in built.edits.values())
    b3 = next(row for row in rows if row["judgment_id"] == built.edit("ed3", "B", 3).pk)
    assert (b3["ter_edits"], b3["ter_ref_length"], b3["ter"], b3["yes_votes"], b3["no_votes"]) == (
        1,
        4.0,
        0.25,
        2,
        0,
    )
    assert (b3["verification"], b3["chosen"], b3["details"]["keystrokes"]) == ("passed", True, 17)


def test_an_edit_not_scored_yet_has_no_numbers(cast, built):
    edit_hit(built, "ed5", {("A", 3): "we like the green tea"})
    text = get(cast, f"/api/campaigns/{built.campaign.pk}/export/edits.jsonl")
    row = json.loads(text.splitlines()[-1])
    assert (row["worker_external_id"], row["ter"], row["ter_signature"]) == ("ed5", None, None)


def test_verification_outcomes(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/verification/")
    assert data["crowd_edits"] == {"unverified": 6, "passed": 3, "failed": 3}
    assert data["systems"] == [
        {"id": built.systems["A"], "name": "A", "unverified": 3, "passed": 2, "failed": 1},
        {"id": built.systems["B"], "name": "B", "unverified": 3, "passed": 1, "failed": 2},
    ]
    assert data["count"] == 12
    first = data["results"][0]
    assert first == {
        "judgment_id": built.edit("ed1", "A", 1).pk,
        "worker_external_id": "ed1",
        "system": "A",
        "document_external_id": "D1",
        "segment_external_id": "1",
        "ter": pytest.approx(1 / 3),
        "yes_votes": 2,
        "no_votes": 0,
        "verdict": "passed",
        "gold": False,
        "counted": True,
    }
    failed = get(cast, f"/api/campaigns/{built.campaign.pk}/verification/?verdict=failed")
    assert {row["judgment_id"] for row in failed["results"]} == {
        built.edit(*key).pk for key in (("ed2", "A", 1), ("ed1", "B", 2), ("ed3", "B", 1))
    }
    bad = get(cast, f"/api/campaigns/{built.campaign.pk}/verification/?verdict=maybe", status=400)
    assert bad == {"verdict": ['"maybe" is not a valid choice.']}


def test_a_campaign_of_another_kind_has_no_edits(cast):
    other = cast.other_campaign  # direct assessment
    text = get(cast, f"/api/campaigns/{other.pk}/export/edits.csv", "staff")
    assert text.splitlines() == [",".join(EDIT_COLUMNS)]
    data = get(cast, f"/api/campaigns/{other.pk}/verification/", "staff")
    assert (data["count"], data["crowd_edits"]) == (0, {"unverified": 0, "passed": 0, "failed": 0})


# --- Who may read ------------------------------------------------------------------------------

URLS = (
    "/api/campaigns/{id}/",
    "/api/campaigns/{id}/significance/",
    "/api/campaigns/{id}/systems/",
    "/api/campaigns/{id}/segments/",
    "/api/campaigns/{id}/workers/",
    "/api/campaigns/{id}/export/systems.csv",
    "/api/campaigns/{id}/export/systems.tex",
    "/api/campaigns/{id}/export/edits.csv",
    "/api/campaigns/{id}/export/edits.jsonl",
    "/api/campaigns/{id}/verification/",
)


@pytest.mark.parametrize("url", URLS)
def test_only_the_campaigns_readers_get_anything(cast, built, url):
    real = url.format(id=built.campaign.pk)
    absent = url.format(id=built.campaign.pk + 1000)
    for role in ROLES:
        response = cast.client(role).get(real)
        if response.streaming:
            b"".join(response.streaming_content)
        want = 401 if role in UNAUTHENTICATED else 200 if role in READERS else 404
        assert response.status_code == want, role
        if role in NOT_READERS:
            assert cast.client(role).get(absent).status_code == 404
    for method in ("post", "put", "patch", "delete"):
        assert getattr(cast.client("owner"), method)(real).status_code == 405


# --- Query counts ------------------------------------------------------------------------------


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
        if response.streaming:
            b"".join(response.streaming_content)
    assert response.status_code == 200
    return len(captured)


def test_the_kinds_endpoints_run_the_same_queries_whatever_their_size(cast, built):
    client = cast.client("owner")
    base = f"/api/campaigns/{built.campaign.pk}"
    small = {
        url: queries(client, f"{base}/{url}")
        for url in ("verification/?page_size=1", "systems/", "export/edits.csv", "segments/")
    }
    for n in range(5, 9):
        edit_hit(built, f"ed{n}", {("A", 1): "the cat sat on the mat", ("B", 2): "he went"})
    actions.recompute_campaign(built.campaign)
    large = {
        url: queries(client, f"{base}/{url}")
        for url in ("verification/?page_size=100", "systems/", "export/edits.csv", "segments/")
    }
    assert list(small.values()) == list(large.values())
    # Token, permissions (2), campaign; load (8, with the settings row and the stored result
    # for the flagged workers), the page's names, the result's time.
    assert small["verification/?page_size=1"] == 15
