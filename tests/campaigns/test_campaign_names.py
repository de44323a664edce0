"""Campaign names are unique per owner (and among campaigns without owner), not site-wide
(issue 11 item 8): a name used by a campaign someone cannot see never changes their answer;
a name the same owner uses is refused clearly; a name several campaigns share is refused by
the commands, which list the campaigns and ask for the id."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from campaigns.models import Campaign, TaskKind
from judgments.models import Judgment
from tests.campaigns.test_admin_kinds import page_form
from tests.campaigns.test_import_judgments_data import da_file, da_row
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db
ADD_URL = reverse("admin:campaigns_campaign_add")
DA_TEXT = da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "50"))


def user(username: str, *codenames: str, **fields):
    made = get_user_model().objects.create_user(username, password="pw", **fields)
    made.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    return made


def test_two_owners_may_each_have_a_name_but_one_owner_not_twice():
    alice, bob = user("alice"), user("bob")
    CampaignFactory(name="WMT21", owner=alice)
    CampaignFactory(name="WMT21", owner=bob)
    CampaignFactory(name="WMT21")  # and one without owner
    for owner in (alice, None):
        with pytest.raises(IntegrityError), transaction.atomic():
            CampaignFactory(name="WMT21", owner=owner)
    assert Campaign.objects.filter(name="WMT21").count() == 3


def test_deleting_an_owner_keeps_their_campaigns_unless_names_would_clash():
    alice, bob = user("alice"), user("bob")
    kept = CampaignFactory(name="WMT21", owner=alice)
    alice.delete()
    kept.refresh_from_db()
    assert kept.owner is None
    # Bob's "WMT21" would become a second campaign without owner of that name: refused.
    blocking = CampaignFactory(name="WMT21", owner=bob)
    with pytest.raises(ProtectedError) as refused:
        bob.delete()
    assert set(refused.value.protected_objects) == {blocking}
    assert get_user_model().objects.filter(username="bob").exists()


def _add_page_data(client) -> dict:
    kind = TaskKind.DIRECT_ASSESSMENT
    data = dict(page_form(client.get(f"{ADD_URL}?kind={kind}").content.decode()).data)
    data.update(
        {
            "name": "WMT21",
            "source_language": "de",
            "target_language": "en",
            "da_settings-0-assessment_mode": "adequacy",
        }
    )
    return data


def test_the_add_page_allows_another_owners_name_and_refuses_the_users_own(client):
    root = get_user_model().objects.create_superuser("root", password="pw")
    hidden = CampaignFactory(name="WMT21", owner=root)
    requester = user(
        "req", "add_campaign", "change_campaign", "view_campaign", "view_user", is_staff=True
    )
    client.force_login(requester)
    url = f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}"
    data = _add_page_data(client)
    # Only superusers choose the owner (else a form error would tell what another user's
    # campaigns are named): the field is shown, not posted.
    assert "owner" not in data
    data["owner"] = str(root.pk)  # a forged field is ignored
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    mine = Campaign.objects.get(name="WMT21", owner=requester)
    assert Campaign.objects.get(pk=hidden.pk).owner == root

    # The same name again, by the same requester: a form error on the name, not a 500.
    response = client.post(url, _add_page_data(client))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "name": [
            f"You already have a campaign of this name ({mine.get_kind_display()}, created "
            f"{mine.created_at:%Y-%m-%d %H:%M}); campaign names are unique among each owner's "
            "campaigns: choose another name."
        ]
    }
    assert Campaign.objects.filter(name="WMT21").count() == 2


def test_a_superuser_choosing_an_owner_is_told_that_owner_uses_the_name(client):
    root = get_user_model().objects.create_superuser("root", password="pw")
    alice = user("alice")
    CampaignFactory(name="WMT21", owner=alice)
    client.force_login(root)
    data = {**_add_page_data(client), "owner": str(alice.pk)}
    response = client.post(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}", data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "name": [
            "The campaign's owner already has a campaign of this name; campaign names are "
            "unique among each owner's campaigns: choose another name."
        ]
    }
    # Left blank, the owner is the superuser, who has no "WMT21": created.
    response = client.post(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}", _add_page_data(client))
    assert response.status_code == 302
    assert Campaign.objects.get(name="WMT21", owner=root)


def test_the_replayed_attack_an_import_under_a_hidden_name_answers_as_a_free_name():
    """Issue 11 item 8, the live replay: POST /api/imports/ with the name of a superuser's
    campaign the user cannot see answered 400 "created meanwhile", a free name 201."""
    root = get_user_model().objects.create_superuser("root")
    secret = CampaignFactory(name="secret", imported_from="wmt-da", owner=root)
    creator = user("creator", "add_campaign")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=creator).key}")

    def post(name: str):
        upload = io.BytesIO(DA_TEXT.encode("utf-8"))
        upload.name = "ad-csen.tsv"
        return client.post("/api/imports/", {"file": upload, "format": "wmt-da", "name": name})

    answers = {name: post(name) for name in ("secret", "free")}
    assert {name: response.status_code for name, response in answers.items()} == {
        "secret": 201,
        "free": 201,
    }
    for name, response in answers.items():
        body = response.json()
        campaign = Campaign.objects.get(pk=body["campaign"])
        assert (body["campaign_name"], body["created"], body["renamed_from"]) == (name, True, None)
        assert (campaign.name, campaign.owner) == (name, creator)
    secret_body = answers["secret"].json()
    free_body = answers["free"].json()
    unlike = ("campaign", "campaign_name", "counts", "message")
    assert {k: v for k, v in secret_body.items() if k not in unlike} == {
        k: v for k, v in free_body.items() if k not in unlike
    }
    # The superuser's campaign is untouched.
    assert Campaign.objects.get(pk=secret.pk).owner == root
    assert Judgment.objects.filter(campaign=secret).count() == 0


def test_import_segments_create_refuses_a_name_a_campaign_without_owner_has():
    taken = CampaignFactory(name="WMT21")
    CampaignFactory(name="WMT22", owner=user("alice"))
    arguments = ("--kind", "ranking", "--source-language", "de", "--target-language", "en")
    with pytest.raises(CommandError) as refused:
        call_command("import_segments", "--create", "WMT21", *arguments, "missing.tsv")
    assert str(refused.value) == (
        f'Cannot create the campaign: campaign {taken.pk} (no owner) is named "WMT21" already; '
        f"choose another name, or add to it with --campaign {taken.pk}."
    )
    assert Campaign.objects.count() == 2


@pytest.mark.parametrize(
    "command",
    [
        ("import_segments", "--campaign", "WMT21", "file.tsv"),
        ("worker_links", "WMT21", "--count", "1"),
    ],
)
def test_commands_given_a_shared_name_ask_for_the_id(command):
    first = CampaignFactory(name="WMT21", owner=user("alice"))
    second = CampaignFactory(name="WMT21")
    with pytest.raises(CommandError) as refused:
        call_command(*command)
    assert str(refused.value) == (
        f'Several campaigns are named "WMT21" (id {first.pk} (owner alice), id {second.pk} '
        "(no owner)); give the id instead."
    )
    # By its id, it is found.
    assert call_command("worker_links", str(second.pk), "--count", "1") is None


def test_import_judgments_given_a_shared_name_asks_for_the_id(tmp_path):
    first = CampaignFactory(name="WMT21", owner=user("alice"), imported_from="wmt-da")
    second = CampaignFactory(name="WMT21", imported_from="wmt-da")
    path = tmp_path / "ad-csen.tsv"
    path.write_text(DA_TEXT, encoding="utf-8")
    errors = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_judgments", "--format", "wmt-da", str(path), "--name", "WMT21", stderr=errors
        )
    assert errors.getvalue().splitlines()[1:] == [
        f'field "name": several campaigns you may import into are named "WMT21" (id {first.pk} '
        f"(owner alice), id {second.pk} (no owner)); give the id instead"
    ]
    out = io.StringIO()
    call_command(
        "import_judgments",
        "--format",
        "wmt-da",
        str(path),
        "--campaign",
        str(second.pk),
        stdout=out,
    )
    assert Judgment.objects.filter(campaign=second).count() == 1
    assert Judgment.objects.filter(campaign=first).count() == 0
