"""WMT direct-assessment files as published (issue 12 item 4): rows that separate some fields
by spaces, or by spaces and tabs, and system names in double quotes, are read exactly as the
clean tab-separated file."""

from __future__ import annotations

import pytest

from analytics.models import SystemScore
from campaigns.importers.judgments import ImportFailed
from campaigns.importers.judgments.wmt_da import fields_of
from judgments.models import Judgment
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW, da_file, da_row
from tests.campaigns.test_import_judgments_wmt_da import run

pytestmark = pytest.mark.django_db


def messy(text: str) -> str:
    """WMT_DA_RAW as some published files have it: the first row of each pair with its first
    three separators as spaces, the second with a space before each tab, system names quoted."""
    header, *rows = text.rstrip("\n").split("\n")
    changed = []
    for number, row in enumerate(rows):
        fields = row.split("\t")
        fields[6] = f'"{fields[6]}"'
        if number % 2 == 0:
            changed.append(" ".join(fields[:4]) + "\t" + "\t".join(fields[4:]))
        else:
            changed.append(" \t".join(fields))
    return "\n".join([header, *changed]) + "\n"


def scores() -> list[tuple]:
    return sorted(
        SystemScore.objects.values_list("system__name", "mean_score", "mean_z", "n", "n_segments")
    )


def test_rows_mixing_spaces_and_tabs_and_quoted_systems_import_as_the_clean_file():
    clean = run(WMT_DA_RAW, name="clean")
    expected = (scores(), sorted(Judgment.objects.values_list("score", flat=True)))
    Judgment.objects.all().delete()
    SystemScore.objects.all().delete()
    text = messy(WMT_DA_RAW)
    assert '"A"' in text and " \t" in text and "H1 W1 cs en\t" in text
    published = run(text, name="published")
    # The same workers (already stored by the first import, so none is new this time).
    assert published.counts == {**clean.counts, "new_workers": 0}
    assert (scores(), sorted(Judgment.objects.values_list("score", flat=True))) == expected
    assert sorted(published_system_names()) == ["A", "B"]


def published_system_names() -> list[str]:
    from campaigns.models import Campaign

    return list(Campaign.objects.get(name="published").systems.values_list("name", flat=True))


def test_a_tab_separated_row_keeps_its_empty_fields():
    assert fields_of(["H1", "W1", "", "x"], 4) == ["H1", "W1", "", "x"]
    assert fields_of(["H1 W1", "", "x"], 4) == ["H1", "W1", "x"]
    assert fields_of(['"online-B"', '""', '"'], 3) == ["online-B", "", '"']


def test_a_row_that_fits_neither_way_names_both_separators():
    text = da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "50"), "H1 W1 cs en ad 1 A")
    with pytest.raises(ImportFailed) as failure:
        run(text)
    assert (
        "ad-csen.tsv line 3: 7 fields (separated by tabs or spaces), but the header has 12 "
        "columns" in failure.value.lines()
    )
