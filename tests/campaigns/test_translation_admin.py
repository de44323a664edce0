"""Crowd translation in the admin (issue 15 item 4): the Choose translations page (one document
a page; the requester's choice saved, cleared, refused for a foreign translation; a recompute
scheduled; everything escaped; staff with access only) and the chosen translations inline."""

import html as html_lib

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

import analytics.actions
import analytics.kinds.translation
from campaigns.actions import build_hits
from campaigns.kinds.translation.models import TranslationChoice
from campaigns.models import HitTask, TaskKind
from judgments.models import CampaignWorker, Judgment
from tests.campaigns.test_translation_hits import submit, take, tr_campaign
from tests.factories import CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"


@pytest.fixture
def root():
    return User.objects.create(username="root", is_staff=True, is_superuser=True)


@pytest.fixture
def admin_client(client, root):
    client.force_login(root)
    return client


@pytest.fixture
def recomputes(monkeypatch):
    """The campaigns whose recompute was scheduled (nothing is computed)."""
    scheduled = []
    monkeypatch.setattr(analytics.actions, "schedule_recompute", scheduled.append)
    return scheduled


@pytest.fixture
def flags(monkeypatch):
    """The analytics' flags and automatic choices, as the test sets them."""
    found = {"flags": {}, "kept": {}}
    monkeypatch.setattr(
        analytics.kinds.translation, "translation_flags", lambda campaign: found["flags"]
    )
    monkeypatch.setattr(
        analytics.kinds.translation,
        "kept_translations",
        lambda campaign: found["kept"],
        raising=False,
    )
    return found


def choose_url(campaign, page=None):
    url = reverse("admin:campaigns_campaign_translation_choose", args=[campaign.pk])
    return f"{url}?page={page}" if page else url


def translated():
    """Two documents (d1: 2 sentences, d2: 1), d1 translated by two workers, one of them
    writing markup."""
    campaign = tr_campaign(doc_lengths=(2, 1), redundancy=2)
    first = campaign.segments.get(document__external_id="d1", position=1)
    first.source = f"Quelle mit {SCRIPT} & <b>"
    first.save()
    build_hits(campaign)
    alice = WorkerFactory(external_id="alice", label="Alice <i>")
    bob = WorkerFactory(external_id="bob")
    submit(take(alice, campaign, HitTask.TRANSLATE), text=f"Alice {SCRIPT}")
    submit(take(bob, campaign, HitTask.TRANSLATE), text="Bob")
    return campaign


def translations(campaign, worker_id):
    """segment position -> the worker's translation (a Judgment) in d1."""
    return {
        j.slot.segment.position: j
        for j in Judgment.objects.filter(
            campaign=campaign, worker__external_id=worker_id
        ).select_related("slot__segment")
    }


def test_the_page_shows_every_translation_with_its_flags_escaped(admin_client, flags):
    campaign = translated()
    alice, bob = translations(campaign, "alice"), translations(campaign, "bob")
    flags["flags"] = {alice[1].pk: [f"machine made (2 of 3 votes) {SCRIPT}"], bob[1].pk: []}
    flags["kept"] = {bob[1].slot.segment_id: (bob[1].pk, "most similar to the others (61.3)")}
    CampaignWorker.objects.filter(campaign=campaign, worker__external_id="alice").update(
        excluded=True
    )

    response = admin_client.get(choose_url(campaign))

    assert response.status_code == 200
    page = response.content.decode()
    assert SCRIPT not in page and "<b>" not in page and "<i>" not in page
    assert html_lib.escape(f"Quelle mit {SCRIPT} & <b>", quote=False) in page
    assert html_lib.escape(f"Alice {SCRIPT}", quote=False) in page
    assert "alice (Alice &lt;i&gt;) <strong>(excluded)</strong>" in page
    assert "machine made (2 of 3 votes) &lt;script&gt;" in page
    assert "Kept now: automatic: most similar to the others (61.3)" in page
    assert "Document 1 of 2: <strong>d1</strong>" in page
    # One radio per translation plus "Automatic", which is checked (no choice yet).
    first = bob[1].slot.segment_id
    assert page.count(f'name="choice-{first}"') == 3
    assert f'id="choice-{first}-auto" checked' in page
    assert "Save the choices of this document" in page


def test_choosing_saves_the_choice_and_schedules_a_recompute(
    admin_client, root, flags, recomputes, django_capture_on_commit_callbacks
):
    campaign = translated()
    alice, bob = translations(campaign, "alice"), translations(campaign, "bob")
    s1, s2 = alice[1].slot.segment_id, alice[2].slot.segment_id

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            choose_url(campaign, page=1), {f"choice-{s1}": alice[1].pk, f"choice-{s2}": "auto"}
        )

    assert response.status_code == 302
    assert response["Location"].endswith("?page=1")
    choice = TranslationChoice.objects.get()
    assert (choice.segment_id, choice.judgment_id, choice.campaign_id) == (
        s1,
        alice[1].pk,
        campaign.pk,
    )
    assert choice.chosen_by == root
    assert recomputes == [campaign.pk]
    page = admin_client.get(choose_url(campaign)).content.decode()
    assert "Kept now: chosen by root on" in page
    assert f'id="choice-{s1}-{alice[1].pk}" checked' in page

    # Another translation, then back to the automatic selection.
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(choose_url(campaign), {f"choice-{s1}": bob[1].pk})
    assert TranslationChoice.objects.get().judgment_id == bob[1].pk
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(choose_url(campaign), {f"choice-{s1}": "auto"})
    assert not TranslationChoice.objects.exists()
    assert recomputes == [campaign.pk] * 3

    # Nothing changed: no recompute.
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(choose_url(campaign), {f"choice-{s1}": "auto"})
    assert recomputes == [campaign.pk] * 3


def test_a_translation_of_another_sentence_is_refused(admin_client, flags, recomputes):
    campaign = translated()
    alice = translations(campaign, "alice")
    s1 = alice[1].slot.segment_id

    response = admin_client.post(choose_url(campaign), {f"choice-{s1}": alice[2].pk}, follow=True)

    assert "that is not one of its translations; its choice is unchanged" in (
        response.content.decode()
    )
    assert not TranslationChoice.objects.exists()
    admin_client.post(choose_url(campaign), {f"choice-{s1}": "not-a-number"})
    assert not TranslationChoice.objects.exists()
    assert recomputes == []


def test_one_document_a_page(admin_client, flags):
    campaign = translated()
    page = admin_client.get(choose_url(campaign, page=2)).content.decode()
    assert "Document 2 of 2: <strong>d2</strong>" in page
    assert "Satz 2.1" in page and "Satz 1.2" not in page
    assert "No translation yet." in page


def test_the_page_is_for_staff_the_campaign_is_shared_with(client, flags, recomputes):
    campaign = translated()
    s1 = translations(campaign, "alice")[1].slot.segment_id
    alice_first = translations(campaign, "alice")[1].pk

    anonymous = client.get(choose_url(campaign))
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    worker_like = User.objects.create(username="plain")
    client.force_login(worker_like)
    assert client.get(choose_url(campaign)).status_code == 302

    staff = User.objects.create(username="staff", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
    )
    client.force_login(staff)
    assert client.get(choose_url(campaign)).status_code == 404
    assert client.post(choose_url(campaign), {f"choice-{s1}": alice_first}).status_code == 404

    reader = User.objects.create(username="reader", is_staff=True)
    reader.user_permissions.add(*Permission.objects.filter(codename="view_campaign"))
    campaign.owner = reader
    campaign.save()
    client.force_login(reader)
    page = client.get(choose_url(campaign))
    assert page.status_code == 200
    assert "Save the choices of this document" not in page.content.decode()
    assert client.post(choose_url(campaign), {f"choice-{s1}": alice_first}).status_code == 403
    assert not TranslationChoice.objects.exists()


def test_other_kinds_have_no_choose_page(admin_client):
    ranking = CampaignFactory(kind=TaskKind.RANKING)
    assert admin_client.get(choose_url(ranking)).status_code == 404


def test_the_campaign_page_links_the_choose_page_and_lists_the_choices(admin_client, root):
    campaign = translated()
    change = reverse("admin:campaigns_campaign_change", args=[campaign.pk])
    link = f'<a href="{choose_url(campaign)}">Choose translations</a>'
    assert link in admin_client.get(change).content.decode()  # before any choice too
    alice = translations(campaign, "alice")
    TranslationChoice.objects.create(
        campaign=campaign,
        segment_id=alice[1].slot.segment_id,
        judgment=alice[1],
        chosen_by=root,
    )

    page = admin_client.get(change).content.decode()

    assert link in page
    assert "Crowd translation: translations you chose to keep" in page
    assert html_lib.escape(f"Alice {SCRIPT}", quote=False) in page
    assert SCRIPT not in page


def test_without_the_analytics_automatic_choice_the_page_points_to_the_results(
    admin_client, monkeypatch
):
    monkeypatch.setattr(analytics.kinds.translation, "translation_flags", lambda campaign: {})
    monkeypatch.delattr(analytics.kinds.translation, "kept_translations", raising=False)
    campaign = translated()
    page = admin_client.get(choose_url(campaign)).content.decode()
    assert "Kept now: the automatic choice: see the kept test set in the campaign" in page
