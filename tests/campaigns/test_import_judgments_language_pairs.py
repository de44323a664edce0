"""Files of several language pairs, one pair imported at a time with the option language_pair
(issue 12): WMT08's judgments (every task in one file) and WMT's direct-assessment files, and
the option (with reference_system) through the three entry points: manage.py
import_judgments, POST /api/imports/ and the admin's "Import judgments" page."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from analytics.models import RankingScore
from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
from campaigns.models import Campaign
from judgments.models import Judgment
from tests.campaigns.test_import_judgments_data import (
    WMT08_RR,
    da_file,
    da_row,
)
from tests.campaigns.test_import_judgments_ranking import EXPECTED, stored_scores

pytestmark = pytest.mark.django_db

GERMAN_TASK = "WMT08 German-English News Commentary"
# WMT08_RR's four sets (Czech-English), plus two German-English sets.
WMT08_TWO_PAIRS = (
    WMT08_RR
    + f"{GERMAN_TASK},RANK,0,1,30,X,2,,Y,1,,Z,3,\n"
    + f"{GERMAN_TASK},RANK,0,3,30,X,3,,Y,1,,Z,2,\n"
)
# Three German-English rankings of four systems and the reference, for the entry points:
#   J1 s1: A 1, B 2, C 3, _ref 1; J2 s1: A 2, B 1, C 3, _ref 1; J1 s2: A 1, B 2, C 2, _ref 1.
# With _ref left out: A beats B twice and C three times, loses to B once: 5 wins, 0 ties,
# 1 loss, WMT12's ratio 5/6; B beats A once and C twice, ties C once, loses to A twice:
# 3, 1, 2, ratio 3/5; C: 0, 1, 5, ratio 0.
PAIRWISE = "\n".join(
    [
        "srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,"
        "system2rank,rankingID",
        "deu,eng,1,1,J1,A,1,B,2,1",
        "deu,eng,1,1,J1,A,1,C,3,1",
        "deu,eng,1,1,J1,A,1,_ref,1,1",
        "deu,eng,1,1,J1,B,2,C,3,1",
        "deu,eng,1,1,J1,B,2,_ref,1,1",
        "deu,eng,1,1,J1,C,3,_ref,1,1",
        "deu,eng,1,1,J2,A,2,B,1,2",
        "deu,eng,1,1,J2,A,2,C,3,2",
        "deu,eng,1,1,J2,B,1,C,3,2",
        "deu,eng,2,2,J1,A,1,B,2,3",
        "deu,eng,2,2,J1,A,1,C,2,3",
        "deu,eng,2,2,J1,B,2,C,2,3",
        "cze,eng,7,7,J9,A,1,B,2,4",
    ]
)
WMT12_RATIOS = {"A": (5, 0, 1, 5 / 6), "B": (3, 1, 2, 3 / 5), "C": (0, 1, 5, 0.0)}


def upload(text: str, name: str) -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8"))
    data.name = name
    return data


def wmt12_ratios(campaign: Campaign) -> dict:
    return {
        row.system.name: (row.wins, row.ties, row.losses, pytest.approx(row.score))
        for row in RankingScore.objects.filter(
            campaign=campaign, include_untrusted=False, method="win_ratio_wmt12"
        ).select_related("system")
    }


def test_wmt08_file_of_every_task_imports_the_pair_chosen():
    options = ImportOptions("wmt08-rr", name="WMT08 cs-en", language_pair="cs-en")
    summary = import_judgments([upload(WMT08_TWO_PAIRS, "wmt08.csv")], options)
    campaign = Campaign.objects.get()
    assert (campaign.source_language, campaign.target_language) == ("cs", "en")
    assert summary.ignored == {
        "CONSTITUENT rows (only RANK rows are imported)": 1,
        "outputs left unranked (-1 or empty)": 1,
        "rows of other language pairs than cs-en": 2,
    }
    assert stored_scores(campaign) == EXPECTED  # the Czech-English sets only
    assert not Judgment.objects.filter(slot__segment__document__external_id=GERMAN_TASK)

    with pytest.raises(ImportFailed) as failure:
        import_judgments(
            [upload(WMT08_TWO_PAIRS, "wmt08.csv")], ImportOptions("wmt08-rr", name="all")
        )
    assert failure.value.lines() == [
        'field "language_pair": the file holds several language pairs: Czech-English (4 rows, '
        "first on wmt08.csv line 2); German-English (2 rows, first on wmt08.csv line 7); a "
        "campaign is one language pair, so choose the pair to import with the option "
        "language_pair (e.g. language_pair=de-en; --language-pair in manage.py "
        'import_judgments, "Language pair" on the admin\'s import page) and import each pair '
        "into its own campaign",
    ]


def test_a_direct_assessment_file_of_several_pairs_imports_the_pair_chosen():
    text = da_file(
        da_row("H1", "W1", "A", "SYSTEM", "1", "50"),
        da_row("H1", "W1", "B", "SYSTEM", "2", "oops"),  # another pair: skipped, not checked
        da_row("H2", "W2", "A", "SYSTEM", "1", "40", src="de"),
        da_row("H2", "W2", "B", "SYSTEM", "2", "60", src="de"),
    )
    options = ImportOptions("wmt-da", name="WMT de-en", language_pair="de-en")
    summary = import_judgments([upload(text, "ad-latest.csv")], options)
    campaign = Campaign.objects.get()
    assert (campaign.source_language, campaign.target_language) == ("de", "en")
    assert summary.ignored == {"rows of other language pairs than de-en": 2}
    assert summary.counts["judgments"] == 2
    assert sorted(Judgment.objects.values_list("worker__external_id", "score")) == [
        ("W2", 40.0),
        ("W2", 60.0),
    ]


def test_the_command_takes_language_pair_and_reference_system(tmp_path):
    path = tmp_path / "wmt16.all.csv"
    path.write_text(PAIRWISE.replace("_ref", "Human") + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "import_judgments",
        "--format",
        "wmt10-rr",
        str(path),
        "--name",
        "WMT16 de-en",
        "--language-pair",
        "de-en",
        "--reference-system",
        "Human",
        stdout=out,
        stderr=err,
    )
    campaign = Campaign.objects.get()
    assert (campaign.source_language, campaign.target_language) == ("de", "en")
    assert campaign.ranking_settings.reference_system == "Human"
    assert wmt12_ratios(campaign) == {
        name: (w, t, lo, pytest.approx(score)) for name, (w, t, lo, score) in WMT12_RATIOS.items()
    }
    assert "Skipped: 1 rows of other language pairs than de-en" in out.getvalue()


def test_the_api_takes_language_pair_and_reference_system():
    user = get_user_model().objects.create_user("analyst")
    user.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    data = {
        "file": SimpleUploadedFile("wmt16.all.csv", PAIRWISE.encode("utf-8")),
        "format": "wmt10-rr",
        "name": "WMT16 de-en",
    }
    response = client.post("/api/imports/", data)
    assert response.status_code == 400
    assert "language_pair" in str(response.json())
    data["file"] = SimpleUploadedFile("wmt16.all.csv", PAIRWISE.encode("utf-8"))
    response = client.post(
        "/api/imports/", {**data, "language_pair": "de-en", "reference_system": "_ref"}
    )
    assert response.status_code == 201, response.json()
    campaign = Campaign.objects.get()
    assert campaign.ranking_settings.reference_system == "_ref"
    assert response.json()["ignored"] == {"rows of other language pairs than de-en": 1}
    assert wmt12_ratios(campaign)["A"] == (5, 0, 1, pytest.approx(5 / 6))


@pytest.mark.urls("tests.campaigns.test_import_judgments_admin")
def test_the_admin_page_takes_language_pair_and_reference_system(client):
    user = get_user_model().objects.create_user("req", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["add_campaign", "change_campaign", "view_campaign"]
        )
    )
    client.force_login(user)
    url = "/admin/campaigns/campaign/import-judgments/"
    form = client.get(url).context["form"]
    assert {"language_pair", "reference_system"} <= set(form.fields)
    response = client.post(
        url,
        {
            "files": SimpleUploadedFile("wmt16.all.csv", PAIRWISE.encode("utf-8")),
            "format": "wmt10-rr",
            "name": "WMT16 de-en",
            "language_pair": "de-en",
            "reference_system": "_ref",
        },
    )
    assert response.status_code == 302
    campaign = Campaign.objects.get()
    assert (campaign.source_language, campaign.ranking_settings.reference_system) == ("de", "_ref")
    assert wmt12_ratios(campaign)["B"] == (3, 1, 2, pytest.approx(3 / 5))
