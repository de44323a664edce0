"""The campaign a name means: looked up among the campaigns the importer may change only; a
name in use by a campaign the importer cannot see is answered exactly as a free name (issue 11,
item 8: a renamed dry run confirmed the other campaign), and one the importer may see but not
change is named as taken."""

import io

import pytest

from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
from campaigns.importers.judgments.target import free_name
from campaigns.models import Campaign
from judgments.models import Judgment
from tests.campaigns.test_import_judgments_data import da_file, da_row
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db
TEXT = da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "50"))


def upload() -> io.BytesIO:
    data = io.BytesIO(TEXT.encode("utf-8"))
    data.name = "ad-csen.tsv"
    return data


def run(name: str, *, dry_run: bool = False, **more):
    return import_judgments([upload()], ImportOptions("wmt-da", name=name, **more), dry_run=dry_run)


def test_a_name_in_use_by_a_campaign_the_importer_cannot_see_is_answered_as_a_free_one():
    hidden = CampaignFactory(name="WMT21", imported_from="wmt-da")
    CampaignFactory(name="WMT21 (2)")
    nothing = Campaign.objects.none()

    # Issue 11, item 8: the dry run used to answer "WMT21 (3)", renamed_from "WMT21", which
    # told the importer that a campaign they cannot see is named "WMT21".
    checked = run("WMT21", dry_run=True, appendable=nothing, visible=nothing)
    free = run("WMT22", dry_run=True, appendable=nothing, visible=nothing)
    assert checked.as_dict() == {
        **free.as_dict(),
        "campaign_name": "WMT21",
        "message": free.message.replace("WMT22", "WMT21"),
    }
    assert (checked.campaign_name, checked.created, checked.renamed_from) == ("WMT21", True, "")
    assert checked.message == (
        "Checked ad-csen.tsv: no problems. Importing would add 1 judgment (1 worker, 1 "
        'assignment, 1 HIT, 1 system, 1 segment) to new campaign "WMT21" (direct '
        "assessment, raw 0-100 scores); nothing was written. The files hold no bad-reference "
        "item, so no worker can be tested for reliability: the new campaign counts every "
        'worker\'s judgments (workers counted "everyone", as for files filtered before import).'
    )  # issue 12: a file without bad references counts every worker, and says so
    assert Campaign.objects.count() == 2

    # Writing needs the name, which is not free: refused, nothing written.
    with pytest.raises(ImportFailed) as failure:
        run("WMT21", appendable=nothing, visible=nothing)
    assert [line.split(":")[0] for line in failure.value.lines()] == ['field "name"']
    assert Campaign.objects.count() == 2
    assert Judgment.objects.filter(campaign=hidden).count() == 0


def test_a_name_the_importer_may_see_but_not_change_is_named_as_taken():
    seen = CampaignFactory(name="WMT21", imported_from="wmt-da")
    with pytest.raises(ImportFailed) as failure:
        run(
            "WMT21",
            appendable=Campaign.objects.none(),
            visible=Campaign.objects.filter(pk=seen.pk),
        )
    assert failure.value.lines() == [
        'field "name": the name "WMT21" is taken by a campaign you cannot import into; choose '
        "another name for a new campaign"
    ]
    assert Campaign.objects.count() == 1


def test_a_name_among_the_importers_campaigns_is_added_to_and_no_renaming_is_said():
    mine = CampaignFactory(name="WMT21", imported_from="wmt-da", source_language="cs")
    summary = run("WMT21", appendable=Campaign.objects.filter(pk=mine.pk))
    assert (summary.campaign_id, summary.created, summary.renamed_from) == (mine.pk, False, "")
    assert summary.as_dict()["renamed_from"] is None


def test_an_importer_who_may_not_create_campaigns_is_told_so_whatever_exists():
    CampaignFactory(name="WMT21", imported_from="wmt-da")
    expected = (
        'field "name": no campaign you may import into is named "{}", and creating a campaign '
        "needs the permission to add campaigns (campaigns.add_campaign)"
    )
    nothing = Campaign.objects.none()
    for name in ("WMT21", "unused"):
        with pytest.raises(ImportFailed) as failure:
            run(name, appendable=nothing, visible=nothing, may_create=False)
        assert failure.value.lines() == [expected.format(name)]
    assert Campaign.objects.count() == 1


def test_free_names_count_up_and_fit_the_column():
    assert free_name("X") == "X (2)"
    CampaignFactory(name="X (2)")
    CampaignFactory(name="X (3)")
    assert free_name("X") == "X (4)"
    long = "L" * 200
    CampaignFactory(name=long)
    assert free_name(long) == "L" * 196 + " (2)"
    CampaignFactory(name="L" * 196 + " (2)")
    assert free_name(long) == "L" * 196 + " (3)"
