"""manage.py import_judgments: success output, dry runs, failures listing every problem."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from campaigns.models import Campaign
from judgments.models import Judgment
from tests.campaigns.test_import_judgments_data import WMT10_RR, WMT_DA_RAW, da_file, da_row

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("import_judgments", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def da_path(tmp_path):
    path = tmp_path / "ad-csen.tsv"
    path.write_text(WMT_DA_RAW, encoding="utf-8")
    return str(path)


def test_command_imports_and_prints_the_summary(da_path):
    owner = get_user_model().objects.create_user("ana")
    out, err = run("--format", "wmt-da", da_path, "--name", "WMT21", "--owner", "ana")
    campaign = Campaign.objects.get()
    assert out == (
        "Imported 44 judgments (2 workers, 2 assignments, 2 HITs, 2 systems, 5 segments) from "
        'ad-csen.tsv into new campaign "WMT21" (direct assessment, raw 0-100 scores).\n'
        f"Campaign id: {campaign.pk}\n"
    )
    assert err == ""
    assert campaign.owner == owner
    assert Judgment.objects.count() == 44


def test_several_files_go_into_one_campaign(tmp_path):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    lines = WMT10_RR.splitlines()
    first.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    second.write_text("\n".join([lines[0], *lines[3:]]) + "\n", encoding="utf-8")
    out, _ = run(
        "--format",
        "wmt10-rr",
        str(first),
        str(second),
        "--name",
        "WMT12",
        "--source-language",
        "cs",
        "--target-language",
        "en",
    )
    assert out.startswith(
        "Imported 11 judgments (2 workers, 4 assignments, 2 HITs, 3 systems, 2 segments) from "
        'a.csv, b.csv into new campaign "WMT12" (ranking).'
    )


def test_dry_run_writes_nothing(da_path):
    out, _ = run("--format", "wmt-da", da_path, "--name", "WMT21", "--dry-run")
    assert out == (
        "Checked ad-csen.tsv: no problems. Importing would add 44 judgments (2 workers, 2 "
        'assignments, 2 HITs, 2 systems, 5 segments) to new campaign "WMT21" (direct '
        "assessment, raw 0-100 scores); nothing was written.\n"
    )
    assert Campaign.objects.count() == 0


def test_problems_go_to_stderr_and_the_command_fails(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text(da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "101")), encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError) as failure:
        call_command("import_judgments", "--format", "wmt-da", str(path), "--name", "x", stderr=err)
    assert str(failure.value) == (
        "Nothing was imported. Fix the problems listed above and run the command again (add "
        "--dry-run to check the files without importing)."
    )
    assert err.getvalue() == (
        "1 problem found; nothing was imported.\n"
        'bad.tsv line 2, field "score": score 101 is outside 0-100; raw scores are slider '
        "positions from 0 to 100 (if the file holds standardised z-scores, import it as "
        "standardised)\n"
    )
    assert Campaign.objects.count() == 0


def test_missing_files_names_and_owners_are_refused(da_path):
    with pytest.raises(CommandError, match="No such file: nowhere.tsv"):
        run("--format", "wmt-da", "nowhere.tsv", "--name", "x")
    with pytest.raises(CommandError, match="Give the campaign a name with --name."):
        run("--format", "wmt-da", da_path)
    with pytest.raises(CommandError, match="No user 'nobody' to own the campaign."):
        run("--format", "wmt-da", da_path, "--name", "x", "--owner", "nobody")


def test_workers_counted_sets_whose_judgments_the_table_counts(da_path):
    # Issue 12: a file filtered before import is not filtered again.
    run("--format", "wmt-da", da_path, "--name", "WMT21 good", "--workers-counted", "everyone")
    assert Campaign.objects.get().da_settings.workers_counted == "everyone"
    with pytest.raises(CommandError):
        run("--format", "wmt-da", da_path, "--name", "x", "--workers-counted", "some")
