"""A NUL byte in an import file (issue 11, item 5): PostgreSQL cannot store one, so before the
fix the import died with a database error (a 500 on the admin pages and /api/imports/, a
traceback from the commands). Every way in now reports the file, the line and the field, and
imports nothing."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from campaigns.importers import ImportFailed, WmtFiles, run_import
from campaigns.importers.judgments import ImportOptions, import_judgments
from campaigns.models import Campaign, Output, Segment, TaskKind
from judgments.models import Judgment
from tests.campaigns.test_import_judgments_data import da_file, da_row
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

HEADER = "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"
NUL_TSV = HEADER + "d1\t1\tEins\tOne\tA\tone-A\n" + "d1\t2\tZwei\tTwo\tA\tt\x00wo-A\n"
ADVICE = "save it as plain text (UTF-8, no NUL bytes) and import it again"
TSV_PROBLEM = (
    f'demo.tsv line 3, field "output": the file contains a NUL byte (0x00) on line 3; {ADVICE}'
)
NUL_DA = da_file(
    da_row("H1", "W1", "A", "SYSTEM", "1", "50"), da_row("H1", "W\x001", "A", "SYSTEM", "2", "60")
)
DA_PROBLEM = (
    f'ad-csen.tsv line 3, field "WorkerId": the file contains a NUL byte (0x00) on line 3; {ADVICE}'
)


def named(data: bytes, name: str) -> io.BytesIO:
    file = io.BytesIO(data)
    file.name = name
    return file


def problems(campaign, fmt, data: bytes, name: str) -> list[str]:
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, fmt, named(data, name))
    assert (Segment.objects.count(), Output.objects.count()) == (0, 0)
    return [str(problem) for problem in failure.value.problems]


@pytest.fixture
def campaign():
    return CampaignFactory(name="news", kind=TaskKind.DIRECT_ASSESSMENT)


def test_a_nul_byte_in_a_tsv_names_the_file_line_and_column(campaign):
    assert problems(campaign, "tsv", NUL_TSV.encode(), "demo.tsv") == [TSV_PROBLEM]


def test_a_nul_byte_in_a_csv_and_in_the_header(campaign):
    text = "doc_id,seg_id,source,reference,system,output\nd1,1,Ei\x00ns,One,A,one-A\n"
    assert problems(campaign, "csv", text.encode(), "demo.csv") == [
        f'demo.csv line 2, field "source": the file contains a NUL byte (0x00) on line 2; {ADVICE}'
    ]
    header = HEADER.replace("output", "out\x00put") + "d1\t1\tEins\tOne\tA\tone-A\n"
    assert problems(campaign, "tsv", header.encode(), "demo.tsv") == [
        f'demo.tsv line 1, field "out\x00put": the file contains a NUL byte (0x00) on line 1; '
        f"{ADVICE}"
    ]


def test_a_nul_character_in_json_is_refused_on_its_field(campaign):
    row = {
        "doc_id": "d1",
        "seg_id": "1",
        "source": "Eins",
        "reference": "One",
        "system": "A\u0000",
        "output": "one\u0000",
    }
    assert problems(campaign, "jsonl", (json.dumps(row) + "\n").encode(), "demo.jsonl") == [
        'demo.jsonl line 1, field "system": the system name contains a NUL character '
        f"(\\u0000, byte 0x00); {ADVICE}",
    ]
    row["system"] = "A"
    assert problems(campaign, "jsonl", (json.dumps(row) + "\n").encode(), "demo.jsonl") == [
        'demo.jsonl line 1, field "output": the output contains a NUL character '
        f"(\\u0000, byte 0x00); {ADVICE}",
    ]


def test_a_nul_byte_in_wmt_plain_text_and_appraise_json(campaign):
    files = WmtFiles(
        source=named(b"Eins\nZw\x00ei\n", "src.txt"),
        references=[named(b"One\nTwo\n", "ref.txt")],
        systems={"A": named(b"one\ntwo\n", "A.txt")},
    )
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, "wmt", files)
    assert [str(p) for p in failure.value.problems] == [
        f"src.txt line 2: the file contains a NUL byte (0x00) on line 2; {ADVICE}"
    ]
    assert problems(campaign, "appraise", b'[\n{"items": [\x00]}\n]\n', "batch.json") == [
        f"batch.json line 2: the file contains a NUL byte (0x00) on line 2; {ADVICE}"
    ]


def test_a_nul_byte_in_a_judgment_file(tmp_path):
    with pytest.raises(ImportFailed) as failure:
        import_judgments([named(NUL_DA.encode(), "ad-csen.tsv")], ImportOptions("wmt-da", "x"))
    assert [str(p) for p in failure.value.problems] == [DA_PROBLEM]
    assert (Campaign.objects.count(), Judgment.objects.count()) == (0, 0)


def test_the_admin_segment_upload_lists_the_nul_byte(client, campaign):
    user = get_user_model().objects.create(username="root", is_staff=True, is_superuser=True)
    client.force_login(user)
    url = reverse("admin:campaigns_campaign_import", args=[campaign.pk])
    upload = SimpleUploadedFile("demo.tsv", NUL_TSV.encode())
    response = client.post(url, {"format": "tsv", "file": upload})
    assert response.status_code == 200
    assert [str(problem) for problem in response.context["problems"]] == [TSV_PROBLEM]
    assert Segment.objects.count() == 0


def test_the_admin_judgment_upload_lists_the_nul_byte(client):
    user = get_user_model().objects.create(username="root", is_staff=True, is_superuser=True)
    client.force_login(user)
    upload = SimpleUploadedFile("ad-csen.tsv", NUL_DA.encode())
    response = client.post(
        "/admin/campaigns/campaign/import-judgments/",
        {"files": upload, "format": "wmt-da", "name": "x"},
    )
    assert response.status_code == 200
    assert [str(problem) for problem in response.context["problems"]] == [DA_PROBLEM]
    assert (Campaign.objects.count(), Judgment.objects.count()) == (0, 0)


def test_the_api_answers_400_naming_the_nul_byte():
    user = get_user_model().objects.create_user("analyst")
    user.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    upload = SimpleUploadedFile("ad-csen.tsv", NUL_DA.encode())
    response = client.post("/api/imports/", {"file": upload, "format": "wmt-da", "name": "x"})
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "file": "ad-csen.tsv",
            "line": 3,
            "field": "WorkerId",
            "message": f"the file contains a NUL byte (0x00) on line 3; {ADVICE}",
        }
    ]
    assert (Campaign.objects.count(), Judgment.objects.count()) == (0, 0)


def test_the_commands_fail_naming_the_nul_byte(tmp_path, campaign):
    segments = tmp_path / "demo.tsv"
    segments.write_bytes(NUL_TSV.encode())
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_segments", "--campaign", "news", str(segments), stdout=io.StringIO(), stderr=err
        )
    assert err.getvalue() == f"1 problem found; nothing was imported.\n{TSV_PROBLEM}\n"
    assert Segment.objects.count() == 0

    judgments = tmp_path / "ad-csen.tsv"
    judgments.write_bytes(NUL_DA.encode())
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_judgments",
            str(judgments),
            "--format",
            "wmt-da",
            "--name",
            "x",
            stdout=io.StringIO(),
            stderr=err,
        )
    assert err.getvalue() == f"1 problem found; nothing was imported.\n{DA_PROBLEM}\n"
    assert Judgment.objects.count() == 0
