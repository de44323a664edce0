"""WMT's filtered ("good") direct-assessment files taken as published (issue 12 item 4): WMT
names them ad-<pair>-good-raw.csv / -good-stnd.csv, and a file of that name is not filtered
again by our reliability test unless the importer asks for it."""

from __future__ import annotations

import pytest

from campaigns.kinds.direct_assessment.imports import FILTERED_BY_WMT
from campaigns.models import Campaign
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW
from tests.campaigns.test_import_judgments_wmt_da import default_table, run

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "filtered"),
    [
        ("ad-csen-good-raw.csv", True),
        ("ad-csen-good-stnd.csv", True),
        ("newstest2021-humaneval/ad-deen_GOOD.tsv", True),
        ("ad-csen-raw.csv", False),
        ("ad-csen-goodness.csv", False),
        ("goodman/ad-csen.csv", False),
    ],
)
def test_wmts_file_names_say_whether_it_filtered_them(name, filtered):
    import os

    assert bool(FILTERED_BY_WMT.search(os.path.basename(name))) is filtered


def test_a_good_file_counts_every_worker_and_says_how_to_test_them_again():
    summary = run(WMT_DA_RAW, file="ad-csen-good-raw.csv")
    campaign = Campaign.objects.get()
    assert campaign.da_settings.workers_counted == "everyone"
    assert summary.notes == (
        'ad-csen-good-raw.csv: the name says WMT filtered it (a "good" file: only workers who '
        "passed WMT's reliability test), so the new campaign counts every worker's judgments "
        '(workers counted "everyone"); import with workers counted "reliable" to test each '
        "worker again",
    )
    # Both workers, as with workers_counted="everyone" (test_import_judgments_wmt_da.py).
    table = default_table(campaign)
    assert {system: row[:3] for system, row in table.items()} == {
        "A": (12, 5, 82.5),
        "B": (12, 5, 42.5),
    }


def test_the_option_still_decides_for_a_good_file():
    summary = run(WMT_DA_RAW, file="ad-csen-good-raw.csv", workers_counted="reliable")
    campaign = Campaign.objects.get()
    assert campaign.da_settings.workers_counted == "reliable"
    assert summary.notes == ()
    table = default_table(campaign)
    assert {system: row[:3] for system, row in table.items()} == {
        "A": (6, 5, 75.0),
        "B": (6, 5, 25.0),
    }
