"""The campaign a name means: looked up among the campaigns the importer may change only; a
name in use by a campaign the importer cannot see is answered exactly as a free name, in the
dry run and the import alike (issue 11, item 8: names are unique per owner, not site-wide; a
renamed dry run, then a refused import, confirmed the other campaign), and one the importer may
see but not change is named as taken."""

import io

import pytest
from django.contrib.auth import get_user_model

from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
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
    superuser = get_user_model().objects.create_superuser("root")
    importer = get_user_model().objects.create_user("importer")
    hidden = CampaignFactory(name="WMT21", imported_from="wmt-da", owner=superuser)
    CampaignFactory(name="WMT21 (2)", owner=superuser)
    nothing = Campaign.objects.none()

    # Issue 11, item 8: the dry run used to answer "WMT21 (3)", renamed_from "WMT21", which
    # told the importer that a campaign they cannot see is named "WMT21".
    checked = run("WMT21", dry_run=True, appendable=nothing, visible=nothing, owner=importer)
    free = run("WMT22", dry_run=True, appendable=nothing, visible=nothing, owner=importer)
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

    # The import too answers as for a free name. It used to be refused ("created meanwhile":
    # names were unique site-wide, which confirmed the hidden campaign); names are now unique
    # per owner, so the importer gets a new campaign of their own, named as asked.
    imported = run("WMT21", appendable=nothing, visible=nothing, owner=importer)
    other = run("WMT22", appendable=nothing, visible=nothing, owner=importer)
    # (The counts of new workers differ: the second import meets the first one's worker.)
    unlike = ("campaign", "campaign_name", "counts", "message")
    assert {k: v for k, v in imported.as_dict().items() if k not in unlike} == {
        k: v for k, v in other.as_dict().items() if k not in unlike
    }
    assert (imported.created, imported.renamed_from, imported.counts["judgments"]) == (
        True,
        "",
        1,
    )
    assert imported.message.startswith(
        "Imported 1 judgment (1 worker, 1 assignment, 1 HIT, 1 system, 1 segment) from "
        'ad-csen.tsv into new campaign "WMT21" ('
    )
    mine = Campaign.objects.get(pk=imported.campaign_id)
    assert (mine.name, mine.owner, mine.created_at > hidden.created_at) == (
        "WMT21",
        importer,
        True,
    )
    assert Campaign.objects.filter(name="WMT21").count() == 2
    hidden.refresh_from_db()
    assert (hidden.name, hidden.owner) == ("WMT21", superuser)
    assert Judgment.objects.filter(campaign=hidden).count() == 0


def test_the_importers_own_name_is_added_to_or_named_as_taken():
    importer = get_user_model().objects.create_user("importer")
    own = CampaignFactory(name="WMT21", imported_from="wmt-da", owner=importer)
    # May change it: added to (the same as a changeable name of any owner).
    summary = run("WMT21", appendable=Campaign.objects.filter(pk=own.pk), owner=importer)
    assert (summary.campaign_id, summary.created) == (own.pk, False)
    # May not change it (no change permission): the name is theirs already, so refused; a
    # new campaign of theirs cannot share it.
    nothing = Campaign.objects.none()
    with pytest.raises(ImportFailed) as failure:
        run("WMT21", appendable=nothing, visible=nothing, owner=importer)
    assert failure.value.lines() == [
        'field "name": the name "WMT21" is taken by a campaign you cannot import into; choose '
        "another name for a new campaign"
    ]
    assert Campaign.objects.count() == 1


def test_a_name_several_changeable_campaigns_share_is_refused_naming_their_ids():
    alice = get_user_model().objects.create_user("alice")
    bob = get_user_model().objects.create_user("bob")
    root = get_user_model().objects.create_superuser("root")
    first = CampaignFactory(name="WMT21", imported_from="wmt-da", owner=alice)
    second = CampaignFactory(name="WMT21", imported_from="wmt-da", owner=bob)
    with pytest.raises(ImportFailed) as failure:
        run("WMT21", owner=root)
    assert failure.value.lines() == [
        'field "name": several campaigns you may import into are named "WMT21" (id '
        f"{first.pk} (owner alice), id {second.pk} (owner bob)); give the id instead"
    ]
    # The importer's own campaign of the name is the one meant.
    assert run("WMT21", owner=bob).campaign_id == second.pk
    assert Campaign.objects.count() == 2


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
