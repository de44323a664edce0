"""manage.py import_segments: success output, dry runs, failures listing every problem."""

import io

import pytest
from django.core.management import CommandError, call_command

from campaigns.models import Campaign, Document, Output, Segment, System, TaskKind
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

GOOD_TSV = (
    "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"
    "d1\t1\tEins\tOne\tA\tone-A\n"
    "d1\t1\tEins\tOne\tB\tone-B\n"
    "d1\t2\tZwei\tTwo\tA\ttwo-A\n"
    "d1\t2\tZwei\tTwo\tB\ttwo-B\n"
)


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("import_segments", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def counts():
    return (
        Document.objects.count(),
        Segment.objects.count(),
        System.objects.count(),
        Output.objects.count(),
    )


@pytest.fixture
def good_tsv(tmp_path):
    path = tmp_path / "demo.tsv"
    path.write_text(GOOD_TSV, encoding="utf-8")
    return str(path)


def test_import_into_existing_campaign_by_name_and_by_id(good_tsv, tmp_path):
    campaign = CampaignFactory(name="news", kind=TaskKind.RANKING)
    out, err = run("--campaign", "news", good_tsv)
    assert out == (
        "Imported 1 new document, 2 segments and 4 outputs of 2 systems (2 new) from demo.tsv.\n"
    )
    assert err == ""
    assert counts() == (1, 2, 2, 4)

    more = tmp_path / "more.tsv"
    more.write_text(GOOD_TSV.replace("d1", "d2"), encoding="utf-8")
    out, _ = run("--campaign", str(campaign.pk), str(more))
    assert out.startswith("Imported 1 new document, 2 segments and 4 outputs of 2 systems (0 new)")


def test_a_comma_separated_file_named_tsv_is_read_as_csv_unless_tsv_is_asked_for(tmp_path):
    CampaignFactory(name="news", kind=TaskKind.RANKING)
    path = tmp_path / "excel.tsv"
    path.write_text(GOOD_TSV.replace("\t", ","), encoding="utf-8")
    with pytest.raises(CommandError):
        run("--campaign", "news", "--format", "tsv", str(path))
    assert counts() == (0, 0, 0, 0)
    out, _ = run("--campaign", "news", str(path))
    assert out.startswith("Imported 1 new document, 2 segments and 4 outputs of 2 systems")


def test_create_campaign_and_import(good_tsv):
    out, _ = run(
        "--create", "fresh", "--kind", "direct_assessment", "--assessment-mode", "adequacy",
        "--source-language", "de", "--target-language", "en", good_tsv,
    )  # fmt: skip
    campaign = Campaign.objects.get(name="fresh")
    assert out.splitlines()[0] == f'Created campaign "fresh" (id {campaign.pk}).'
    assert (campaign.kind, campaign.da_settings.assessment_mode) == (
        "direct_assessment",
        "adequacy",
    )
    assert counts() == (1, 2, 2, 4)


def test_dry_run_writes_nothing_not_even_the_campaign(good_tsv):
    out, _ = run(
        "--create", "fresh", "--kind", "ranking", "--source-language", "de",
        "--target-language", "en", "--dry-run", good_tsv,
    )  # fmt: skip
    assert out == (
        'Campaign "fresh" would be created.\n'
        "Checked demo.tsv: no problems. Importing would add 1 new document, 2 segments and "
        "4 outputs of 2 systems (2 new); nothing was written.\n"
    )
    assert not Campaign.objects.exists()
    assert counts() == (0, 0, 0, 0)


def test_failure_lists_every_problem_and_exits_1(tmp_path):
    CampaignFactory(name="news", kind=TaskKind.RANKING)
    path = tmp_path / "bad.tsv"
    path.write_text(
        "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"
        "d\t1\tEins\tOne\tA\t\n"
        "d\t2\t\tTwo\tA\ttwo\n",
        encoding="utf-8",
    )
    err = io.StringIO()
    with pytest.raises(CommandError) as failure:
        call_command("import_segments", "--campaign", "news", str(path), stderr=err)
    assert failure.value.returncode == 1
    assert str(failure.value) == (
        "Nothing was imported. Fix the problems listed above in the files and run the command "
        "again (add --dry-run to check the files without importing)."
    )
    assert err.getvalue().splitlines() == [
        "2 problems found; nothing was imported.",
        'bad.tsv line 2, field "output": empty segment; every output needs text',
        'bad.tsv line 3, field "source": empty segment; every source needs text',
    ]
    assert counts() == (0, 0, 0, 0)


def test_wmt_files_with_named_and_derived_systems(tmp_path):
    CampaignFactory(name="news", kind=TaskKind.RANKING)
    files = {
        "src.de": "Eins\nZwei\n",
        "ref.en": "One\nTwo\n",
        "test.de-en.UEDIN.1": "one U\ntwo U\n",
        "test.de-en.online-B.0": "one B\ntwo B\n",
        "other.txt": "one X\ntwo X\n",
        "docids": "a\nb\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    out, _ = run(
        "--campaign", "news",
        "--source", str(tmp_path / "src.de"),
        "--reference", str(tmp_path / "ref.en"),
        "--system", str(tmp_path / "test.de-en.UEDIN.1"),
        "--system", str(tmp_path / "test.de-en.online-B.0"),
        "--system", f"X={tmp_path / 'other.txt'}",
        "--docids", str(tmp_path / "docids"),
    )  # fmt: skip
    assert out.startswith("Imported 2 new documents, 2 segments and 6 outputs of 3 systems")
    assert sorted(System.objects.values_list("name", flat=True)) == ["UEDIN.1", "X", "online-B.0"]


def test_usage_errors():
    CampaignFactory(name="news")
    with pytest.raises(CommandError, match='No campaign named or numbered "nope"'):
        run("--campaign", "nope", "x.tsv")
    with pytest.raises(CommandError, match=r"Cannot tell the format of x\.txt"):
        run("--campaign", "news", "x.txt")
    with pytest.raises(CommandError, match="No such file: missing.tsv"):
        run("--campaign", "news", "missing.tsv")
    with pytest.raises(CommandError, match="--create needs --kind, --source-language"):
        run("--create", "new", "x.tsv")
    with pytest.raises(CommandError, match="Cannot create the campaign: assessment_mode: Choose"):
        run(
            "--create", "new", "--kind", "direct_assessment", "--source-language", "de",
            "--target-language", "en", "x.tsv",
        )  # fmt: skip
    with pytest.raises(CommandError, match="The wmt format needs --source FILE"):
        run("--campaign", "news", "--format", "wmt", "--reference", "r")
