"""The campaign admin and task kinds: the Add page asks for the kind first, a campaign's page
shows only its kind's settings, and the kind is fixed once the campaign has HITs."""

from __future__ import annotations

from decimal import Decimal
from html.parser import HTMLParser

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaigns.kinds import registry
from campaigns.models import (
    Campaign,
    DirectAssessmentSettings,
    RankingSettings,
    System,
    TaskKind,
)
from evalsite.kinds import TASK_KINDS
from tests.factories import CampaignFactory, HitFactory

pytestmark = pytest.mark.django_db

ADD_URL = reverse("admin:campaigns_campaign_add")


def change_url(campaign: Campaign) -> str:
    return reverse("admin:campaigns_campaign_change", args=[campaign.pk])


class _Form(HTMLParser):
    """What a browser posts for the page's change form: every named input, select and
    textarea with its shown value (ticked checkboxes only; disabled fields are not posted)."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self.names: list[str] = []
        self._select: str | None = None
        self._textarea: str | None = None
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == "campaign_form":
            self._in_form = True
        if not self._in_form:
            return
        name = a.get("name")
        if tag in ("input", "select", "textarea") and name:
            self.names.append(name)
        if "disabled" in a:
            return
        if tag == "input" and name:
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:
                    self.data[name] = a.get("value", "on")
            elif a.get("type") not in ("submit", "button"):
                self.data[name] = a.get("value", "")
        elif tag == "select" and name:
            self._select = name
            self.data.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += (
                data.removeprefix("\n") if not self.data[self._textarea] else data
            )


def page_form(html: str) -> _Form:
    parser = _Form()
    parser.feed(html)
    return parser


def test_the_add_page_asks_for_the_kind_first(admin_client):
    response = admin_client.get(ADD_URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Add campaign: what does it evaluate?" in html
    offered = [value for value in TASK_KINDS if f'name="kind" value="{value}"' in html]
    assert offered == list(registry.kinds()) == list(TASK_KINDS)
    # No campaign form yet: only the choice.
    assert 'id="campaign_form"' not in html
    # Every kind builds its HITs (translation was the last without a builder).
    assert "HIT building for this kind is not available yet" not in html


def test_an_unknown_kind_on_the_add_page_is_named_and_asked_again(admin_client):
    html = admin_client.get(ADD_URL + "?kind=pairwise-magic").content.decode()
    assert "“pairwise-magic” is not a task kind. Choose one below." in html
    assert 'id="campaign_form"' not in html


@pytest.mark.parametrize(
    ("kind", "shown", "hidden"),
    [
        (
            TaskKind.RANKING,
            ["ranking_settings-0-outputs_per_set", "ranking_settings-0-gold_scheme"],
            ["da_settings-0-assessment_mode", "post_editing_settings-0-segments_per_hit"],
        ),
        (
            TaskKind.DIRECT_ASSESSMENT,
            ["da_settings-0-assessment_mode", "da_settings-0-reliability_test"],
            ["ranking_settings-0-outputs_per_set", "ranking_settings-0-gold_scheme"],
        ),
        (
            TaskKind.POST_EDITING,
            ["post_editing_settings-0-segments_per_hit"],
            ["da_settings-0-assessment_mode", "ranking_settings-0-outputs_per_set"],
        ),
    ],
)
def test_the_add_page_of_a_kind_shows_that_kinds_settings_only(admin_client, kind, shown, hidden):
    html = admin_client.get(f"{ADD_URL}?kind={kind}").content.decode()
    form = page_form(html)
    for name in shown:
        assert name in form.names
    for name in hidden:
        assert name not in form.names
    # The shared fields are there; the kind is fixed to the one chosen.
    assert {"name", "redundancy", "reward", "qualification_required"} <= set(form.names)
    assert "kind" not in form.data  # disabled: shown, not posted
    assert f'<option value="{kind}" selected>' in html


def test_adding_a_direct_assessment_campaign_saves_its_settings(admin_client):
    form = page_form(
        admin_client.get(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}").content.decode()
    )
    data = dict(form.data)
    data.update(
        {
            "name": "WMT26 de-en fluency",
            "source_language": "de",
            "target_language": "en",
            "da_settings-0-assessment_mode": "fluency",
            "da_settings-0-reliability_alpha": "0.010",
            "kind": TaskKind.RANKING,  # ignored: the kind was chosen on the first page
        }
    )
    response = admin_client.post(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    campaign = Campaign.objects.get(name="WMT26 de-en fluency")
    assert campaign.kind == TaskKind.DIRECT_ASSESSMENT
    settings = DirectAssessmentSettings.objects.get(campaign=campaign)
    assert (settings.assessment_mode, settings.reliability_alpha, settings.items_per_hit) == (
        "fluency",
        Decimal("0.010"),
        100,
    )
    assert not RankingSettings.objects.filter(campaign=campaign).exists()


def test_the_settings_are_headed_once_without_a_row_number(admin_client):
    html = admin_client.get(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}").content.decode()
    assert html.count("\n    Direct assessment (slider) settings\n") == 1  # the section's h2
    assert '<span class="inline_label">' not in html  # no "...settings: #1" under it


def test_direct_assessments_hit_size_is_shown_fixed_not_as_an_input(admin_client):
    """The walkthrough typed 10 into "Items per hit" and was refused: only 100 (the 2014
    design) is accepted. The page shows the number instead of an input, and a posted value
    changes nothing."""
    html = admin_client.get(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}").content.decode()
    form = page_form(html)
    assert "da_settings-0-items_per_hit" not in form.names
    assert '<div class="readonly">100</div>' in html
    data = {
        **form.data,
        "name": "fixed size",
        "source_language": "de",
        "target_language": "en",
        "da_settings-0-assessment_mode": "adequacy",
        "da_settings-0-items_per_hit": "10",
    }
    response = admin_client.post(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    campaign = Campaign.objects.get(name="fixed size")
    assert DirectAssessmentSettings.objects.get(campaign=campaign).items_per_hit == 100


@pytest.mark.parametrize(
    "kind",
    [
        TaskKind.RANKING,
        TaskKind.POST_EDITING,
        TaskKind.TRANSLATION,
        TaskKind.READING_COMPREHENSION,
    ],
)
def test_adding_a_campaign_with_the_settings_defaults_saves_them(admin_client, kind):
    """A requester walkthrough: adding a ranking campaign was a 500 (its settings' check read
    the campaign before it existed), and a campaign saved with its kind's defaults as shown got
    no settings row (Django saves an unchanged inline row only if it changed), so it stayed
    blocked, saving again did nothing, and building its HITs was a 500."""
    form = page_form(admin_client.get(f"{ADD_URL}?kind={kind}").content.decode())
    data = {
        **form.data,
        "name": f"defaults {kind}",
        "source_language": "de",
        "target_language": "en",
    }
    response = admin_client.post(f"{ADD_URL}?kind={kind}", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    campaign = Campaign.objects.get(name=f"defaults {kind}")
    implementation = registry.get(kind)
    settings = implementation.settings_model.objects.get(campaign=campaign)
    for field in settings._meta.concrete_fields:
        if field.has_default() and not field.primary_key:
            assert getattr(settings, field.attname) == field.get_default(), field.name


def test_a_campaign_changed_to_ranking_gets_its_settings_by_saving_the_defaults(admin_client):
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING, segments_per_hit=5)
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    data = {**form.data, "kind": TaskKind.RANKING}
    admin_client.post(change_url(campaign), data)  # the kind changes; its settings are asked
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    assert "ranking_settings-0-outputs_per_set" in form.names
    response = admin_client.post(change_url(campaign), form.data)
    assert response.status_code == 302
    assert RankingSettings.objects.filter(campaign=campaign).exists()


def test_the_settings_that_shape_built_hits_are_fixed_once_there_are_hits(admin_client):
    """A requester walkthrough switched a running campaign from adequacy to fluency: a worker's
    task changed mode at item 51 and the adequacy scores were exported as "fluency"."""
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT)
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    assert "da_settings-0-assessment_mode" in form.names  # no HITs yet: still a choice
    HitFactory(campaign=campaign)
    html = admin_client.get(change_url(campaign)).content.decode()
    form = page_form(html)
    assert "da_settings-0-assessment_mode" not in form.names
    assert "da_settings-0-degradation" not in form.names
    assert "da_settings-0-reliability_alpha" in form.names  # a result setting stays open
    assert "The campaign has HITs, so the settings that shape them are fixed" in html
    mode = campaign.da_settings.assessment_mode
    other = "fluency" if mode == "adequacy" else "adequacy"
    data = {
        **form.data,
        "da_settings-0-assessment_mode": other,
        "da_settings-0-reliability_alpha": "0.010",
    }
    assert admin_client.post(change_url(campaign), data).status_code == 302
    settings = DirectAssessmentSettings.objects.get(campaign=campaign)
    assert (settings.assessment_mode, settings.reliability_alpha) == (mode, Decimal("0.010"))


def test_a_system_of_a_campaign_with_hits_cannot_be_deleted_from_its_page(admin_client):
    """The walkthrough ticked "Delete?" beside a system of a running campaign: 18 submitted
    judgments went with its outputs and HIT slots, without a question."""
    campaign = CampaignFactory(kind=TaskKind.RANKING, outputs_per_set=2)
    system = System.objects.create(campaign=campaign, name="Kurz-MT")
    System.objects.create(campaign=campaign, name="Lang-MT")
    html = admin_client.get(change_url(campaign)).content.decode()
    assert "systems-0-DELETE" in page_form(html).names
    HitFactory(campaign=campaign)
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    assert "systems-0-DELETE" not in form.names
    data = {**form.data, "systems-0-DELETE": "on"}
    assert admin_client.post(change_url(campaign), data).status_code == 302
    assert System.objects.filter(pk=system.pk).exists()


def test_a_fault_the_settings_find_with_a_fixed_field_is_shown_not_a_crash(admin_client):
    """With the layout fixed, the model's check of "Outputs per set" against the systems may
    still fail (a system removed since): the page names the field instead of failing."""
    campaign = CampaignFactory(kind=TaskKind.RANKING, outputs_per_set=3)
    System.objects.create(campaign=campaign, name="A")
    System.objects.create(campaign=campaign, name="B")
    HitFactory(campaign=campaign)
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    response = admin_client.post(change_url(campaign), form.data)
    assert response.status_code == 200
    assert (
        "Outputs per set: A ranking set shows outputs of different systems, and this campaign "
        "has 2; use at most 2."
    ) in response.content.decode()


def test_a_direct_assessment_campaign_needs_its_mode_on_the_add_page(admin_client):
    form = page_form(
        admin_client.get(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}").content.decode()
    )
    data = {**form.data, "name": "no mode", "source_language": "de", "target_language": "en"}
    response = admin_client.post(f"{ADD_URL}?kind={TaskKind.DIRECT_ASSESSMENT}", data)
    assert response.status_code == 200
    assert "Choose fluency or adequacy for direct assessment." in response.content.decode()
    assert not Campaign.objects.filter(name="no mode").exists()


def test_the_change_page_shows_only_the_campaigns_kind_settings(admin_client):
    campaign = CampaignFactory(kind=TaskKind.RANKING, outputs_per_set=4)
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    assert form.data["ranking_settings-0-outputs_per_set"] == "4"
    assert not [name for name in form.names if name.startswith("da_settings-")]
    assert "kind" in form.data  # no HITs yet: the kind may still change


def test_the_kind_is_fixed_once_the_campaign_has_hits(admin_client):
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT)
    HitFactory(campaign=campaign)
    html = admin_client.get(change_url(campaign)).content.decode()
    form = page_form(html)
    assert "kind" not in form.data  # disabled
    assert "The campaign has HITs, so its kind is fixed." in html
    data = {**form.data, "kind": TaskKind.RANKING}
    response = admin_client.post(change_url(campaign), data)
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.kind == TaskKind.DIRECT_ASSESSMENT
    assert DirectAssessmentSettings.objects.filter(campaign=campaign).exists()


def test_the_model_refuses_a_kind_change_once_there_are_hits():
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT)
    HitFactory(campaign=campaign)
    campaign.kind = TaskKind.RANKING
    with pytest.raises(ValidationError) as caught:
        campaign.full_clean()
    assert caught.value.message_dict["kind"] == [
        "The campaign already has HITs, so its kind cannot change (its judgments and results "
        "belong to the kind they were made for). Create a new campaign for another kind."
    ]


def test_a_kind_change_before_hits_asks_for_the_new_kinds_settings(admin_client):
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT, assessment_mode="fluency")
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    response = admin_client.post(change_url(campaign), {**form.data, "kind": TaskKind.RANKING})
    # Back to the same page, which now asks for the ranking settings.
    assert response.status_code == 302
    assert response["Location"] == change_url(campaign)
    page = admin_client.get(change_url(campaign)).content.decode()
    assert "The campaign is now Ranking: fill in its Ranking settings below and save." in page
    form = page_form(page)
    assert "ranking_settings-0-outputs_per_set" in form.names
    assert not [name for name in form.names if name.startswith("da_settings-")]
    data = {**form.data, "ranking_settings-0-outputs_per_set": "3"}
    response = admin_client.post(change_url(campaign), data)
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:campaigns_campaign_changelist")
    assert RankingSettings.objects.get(campaign=campaign).outputs_per_set == 3
    # The direct-assessment settings stay stored, should the requester switch back.
    assert DirectAssessmentSettings.objects.get(campaign=campaign).assessment_mode == "fluency"


def test_the_kinds_settings_stand_after_the_hit_layout_and_before_payment(admin_client):
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    html = admin_client.get(change_url(campaign)).content.decode()
    positions = [
        html.index(marker)
        for marker in (
            'name="hit_seed"',
            'name="qualification_pass_mark"',
            'name="ranking_settings-0-outputs_per_set"',
            'name="reward"',
            'name="systems-TOTAL_FORMS"',
        )
    ]
    assert positions == sorted(positions)


def test_the_requester_edits_the_consent_line_on_the_campaign_page(admin_client):
    """The worker entry page's consent line (issue 17) is a field of the campaign's page."""
    campaign = CampaignFactory(kind=TaskKind.RANKING, outputs_per_set=4)
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    assert form.data["consent_text"] == campaign.consent_text
    form.data["consent_text"] = "By starting you agree that <b>we</b> keep your answers."
    form.data["_continue"] = "Save and continue editing"
    response = admin_client.post(change_url(campaign), form.data)
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign.refresh_from_db()
    assert campaign.consent_text == "By starting you agree that <b>we</b> keep your answers."
