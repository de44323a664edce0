"""A gold answer is chosen by name within its campaign (a requester's report: the form asked
for numeric ids, with pop-ups listing every campaign's segments and outputs): the segment
and the outputs are admin autocompletes asking searches of the campaign's rows only, the
outputs labelled by their system's name and the start of their text, and the model's checks
keep the outputs to their segment and the best and the worst apart."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from analytics.models import CampaignAccess
from campaigns.models import GoldAnswer, Output
from tests.campaigns.kinds.ranking.test_gold_import import gold_campaign

pytestmark = pytest.mark.django_db

ADD = reverse("admin:campaigns_goldanswer_add")
SEGMENTS = reverse("admin:campaigns_goldanswer_segments")
OUTPUTS = reverse("admin:campaigns_goldanswer_outputs")
GOLD_PERMISSIONS = ["add_goldanswer", "change_goldanswer", "view_goldanswer"]


@pytest.fixture
def campaign(django_user_model):
    owner = django_user_model.objects.create_user("owner", password="pw", is_staff=True)
    owner.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", *GOLD_PERMISSIONS])
    )
    campaign = gold_campaign(owner=owner)
    # Another owner's campaign with the same ids and texts: never offered.
    gold_campaign(name="other")
    return campaign


@pytest.fixture
def client(campaign):
    client = Client()
    client.force_login(campaign.owner)
    return client


def output(campaign, segment: str, system: str) -> Output:
    return Output.objects.get(
        segment__campaign=campaign, segment__external_id=segment, system__name=system
    )


def texts(response) -> list[str]:
    assert response.status_code == 200
    return [row["text"] for row in response.json()["results"]]


def test_the_add_page_from_the_campaign_s_gold_answers_offers_its_rows_by_name(client, campaign):
    changelist = reverse("admin:campaigns_goldanswer_changelist")
    listing = client.get(changelist, {"segment__campaign__id__exact": campaign.pk})
    add_link = f"{ADD}?_changelist_filters=segment__campaign__id__exact%3D{campaign.pk}"
    assert f'href="{add_link}"' in listing.content.decode()
    html = client.get(add_link).content.decode()
    assert f'data-ajax--url="{SEGMENTS}?campaign={campaign.pk}"' in html
    assert html.count(f'data-ajax--url="{OUTPUTS}?campaign={campaign.pk}"') == 2
    assert html.count("admin-autocomplete") >= 3
    assert "vForeignKeyRawIdAdminField" not in html  # no number boxes
    assert 'id="lookup_id_segment"' not in html  # no magnifier pop-ups
    assert 'id="add_id_best_output"' not in html
    assert "/static/js/gold-answer-form.js" in html


def test_segments_are_found_by_their_ids_or_source_in_the_campaign_only(client, campaign):
    assert texts(client.get(SEGMENTS, {"campaign": campaign.pk, "term": "news-1 3"})) == [
        "doc news-1, seg 3: Satz 3."
    ]
    assert texts(client.get(SEGMENTS, {"campaign": campaign.pk, "term": "satz"})) == [
        f"doc news-1, seg {n}: Satz {n}." for n in range(1, 7)
    ]


def test_outputs_are_named_by_system_and_text_within_the_chosen_segment(client, campaign):
    segment = campaign.segments.get(external_id="2").pk
    asked = {"campaign": campaign.pk, "segment": segment}
    assert texts(client.get(OUTPUTS, asked)) == [
        "Lindenbaum: Lindenbaum says 2.",
        "UEDIN: UEDIN says 2.",
        "online-A: online-A says 2.",
        "online-B: online-B says 2.",
    ]
    assert texts(client.get(OUTPUTS, {**asked, "term": "online b"})) == [
        "online-B: online-B says 2."
    ]
    # Without a segment (before one is chosen), each output says whose segment it is.
    found = texts(client.get(OUTPUTS, {"campaign": campaign.pk, "term": "uedin"}))
    assert found[:2] == [
        "doc news-1, seg 1 \u00b7 UEDIN: UEDIN says 1.",
        "doc news-1, seg 2 \u00b7 UEDIN: UEDIN says 2.",
    ]
    assert len(found) == 6


def test_long_texts_are_cut_and_searches_come_in_pages(client, campaign):
    long = output(campaign, "1", "UEDIN")
    long.text = "word " * 30
    long.save()
    found = texts(client.get(OUTPUTS, {"campaign": campaign.pk, "term": "word"}))
    assert found == ["doc news-1, seg 1 \u00b7 UEDIN: " + ("word " * 12)[:59] + "\u2026"]
    first = client.get(OUTPUTS, {"campaign": campaign.pk}).json()
    assert (len(first["results"]), first["pagination"]) == (20, {"more": True})
    second = client.get(OUTPUTS, {"campaign": campaign.pk, "page": 2}).json()
    assert (len(second["results"]), second["pagination"]) == (4, {"more": False})


def test_searches_answer_only_who_may_change_the_campaign(client, campaign, django_user_model):
    other = campaign.__class__.objects.get(name="other")
    assert client.get(SEGMENTS, {"campaign": other.pk}).status_code == 404
    assert client.get(OUTPUTS, {"campaign": other.pk}).status_code == 404
    # Without a campaign: the campaigns the user may change only.
    assert len(texts(client.get(SEGMENTS, {"term": "satz"}))) == 6
    reader = django_user_model.objects.create_user("reader", password="pw", is_staff=True)
    reader.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", *GOLD_PERMISSIONS])
    )
    CampaignAccess.objects.create(campaign=campaign, user=reader, level="read")
    reading = Client()
    reading.force_login(reader)
    assert reading.get(SEGMENTS, {"campaign": campaign.pk}).status_code == 404
    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_goldanswer"))
    reading.force_login(viewer)
    assert reading.get(SEGMENTS, {"campaign": campaign.pk}).status_code == 403


def post(client, campaign, **values):
    data = {"segment": "", "best_output": "", "gold_text": "", "worst_output": ""}
    data.update({k: str(v.pk) if hasattr(v, "pk") else v for k, v in values.items()})
    return client.post(f"{ADD}?campaign={campaign.pk}", data)


def test_a_gold_answer_is_saved_with_outputs_of_its_segment(client, campaign):
    segment = campaign.segments.get(external_id="4")
    response = post(
        client,
        campaign,
        segment=segment,
        best_output=output(campaign, "4", "Lindenbaum"),
        worst_output=output(campaign, "4", "online-B"),
    )
    assert response.status_code == 302
    answer = GoldAnswer.objects.get()
    assert (answer.segment, answer.best_output.system.name, answer.worst_output.system.name) == (
        segment,
        "Lindenbaum",
        "online-B",
    )
    page = client.get(reverse("admin:campaigns_goldanswer_change", args=[answer.pk]))
    html = page.content.decode()
    # The chosen rows by name; the outputs' search asks for this segment's.
    assert "doc news-1, seg 4: Satz 4." in html
    assert "Lindenbaum: Lindenbaum says 4." in html
    assert f"{OUTPUTS}?campaign={campaign.pk}&amp;segment={segment.pk}" in html


def test_outputs_of_another_segment_or_the_same_output_twice_are_refused(client, campaign):
    segment = campaign.segments.get(external_id="4")
    response = post(
        client,
        campaign,
        segment=segment,
        best_output=output(campaign, "3", "UEDIN"),
        worst_output=output(campaign, "4", "UEDIN"),
    )
    assert response.context["adminform"].form.errors == {
        "best_output": ["Choose an output of this segment."]
    }
    same = output(campaign, "4", "UEDIN")
    response = post(client, campaign, segment=segment, best_output=same, worst_output=same)
    assert response.context["adminform"].form.errors == {
        "worst_output": ["The worst output cannot also be the best."]
    }
    other = campaign.__class__.objects.get(name="other")
    response = post(
        client,
        campaign,
        segment=other.segments.get(external_id="4"),
        best_output=output(other, "4", "UEDIN"),
    )
    choice = "Select a valid choice. That choice is not one of the available choices."
    assert response.context["adminform"].form.errors == {
        "segment": [choice],
        "best_output": [choice],
    }
    assert not GoldAnswer.objects.exists()
