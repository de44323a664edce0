"""The worker background form (000 section 5.1): asked once per campaign before the first task,
stored on the worker and their membership, refused field by field when wrong."""

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from judgments import tokens
from judgments.actions import SubmissionError, record_judgment, single_locale_country
from judgments.entry.background import background_needed
from judgments.i18n import language_name
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    CountrySource,
    Judgment,
    Platform,
    Worker,
)
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.django_db

GOOD = {
    "native_language": "English-Spanish bilingual",
    "country": "MX",
    "years_source_language": "15",
    "years_target_language": "32",
}


@pytest.fixture
def campaign():
    campaign = CampaignFactory(
        title="Rate some English", ask_background=True, source_language="de", target_language="en"
    )
    HitSlotFactory(hit=HitFactory(campaign=campaign, number=1), position=1)
    return campaign


@pytest.fixture
def assignment(campaign):
    assignment = AssignmentFactory(hit=campaign.hits.get())
    CampaignWorker.objects.create(campaign=campaign, worker=assignment.worker)
    return assignment


def url(assignment, name="judgments:task-background"):
    return reverse(name, args=[tokens.assignment_token(assignment.pk, assignment.worker_id)])


def stored(assignment):
    worker = Worker.objects.get(pk=assignment.worker_id)
    membership = CampaignWorker.objects.get(campaign=assignment.campaign, worker=worker)
    return (
        worker.native_language,
        worker.country,
        worker.country_source,
        membership.years_source_language,
        membership.years_target_language,
        membership.background_at is not None,
    )


NOTHING = ("", "", "", None, None, False)


# --- When it is asked -------------------------------------------------------------------------


def test_a_campaign_that_does_not_ask_never_asks_and_costs_no_query(
    assignment, django_assert_num_queries
):
    assignment.campaign.ask_background = False
    with django_assert_num_queries(0):
        assert background_needed(assignment) is False


def test_it_is_needed_until_answered_in_this_campaign(assignment):
    assert background_needed(assignment) is True
    CampaignWorker.objects.filter(worker=assignment.worker).update(background_at=timezone.now())
    assert background_needed(assignment) is False
    # Another campaign that asks asks again: the years depend on its languages.
    other = CampaignFactory(ask_background=True)
    there = AssignmentFactory(hit=HitFactory(campaign=other), worker=assignment.worker)
    assert background_needed(there) is True


def test_a_worker_without_a_membership_row_is_asked(campaign):
    assignment = AssignmentFactory(hit=campaign.hits.get())
    assert background_needed(assignment) is True


def test_the_task_page_sends_the_worker_to_the_form_first(assignment):
    response = Client().get(url(assignment, "judgments:task"))
    assert (response.status_code, response["Location"]) == (302, url(assignment))


def test_the_item_and_submit_endpoints_take_no_work_until_the_form_is_answered(assignment):
    client = Client()
    answer = json.dumps({"position": 1, "score": 70})
    refused = {
        "ok": False,
        "error": "Answer the few questions about yourself first: reload the page.",
        "field": None,
    }

    item = client.get(url(assignment, "judgments:task-item"))
    submit = client.post(url(assignment, "judgments:task-submit"), answer, "application/json")

    assert (item.status_code, item.json()) == (409, refused)
    assert (submit.status_code, submit.json()) == (409, refused)
    assert Judgment.objects.count() == 0
    reloaded = Assignment.objects.get()
    assert (reloaded.status, reloaded.current_served_at) == (AssignmentStatus.STARTED, None)

    assert client.post(url(assignment), GOOD).status_code == 303
    item = client.get(url(assignment, "judgments:task-item"))
    submit = client.post(url(assignment, "judgments:task-submit"), answer, "application/json")
    assert (item.status_code, item.json()["next"]["position"]) == (200, 1)
    assert (submit.status_code, submit.json()["done"]) == (200, True)
    assert list(Judgment.objects.values_list("assignment_id", "score")) == [(assignment.pk, 70.0)]


def test_a_campaign_that_starts_asking_stops_a_task_in_progress(assignment):
    assignment.campaign.ask_background = False
    assignment.campaign.save()
    assert Client().get(url(assignment, "judgments:task-item")).status_code == 200
    assignment.campaign.ask_background = True
    assignment.campaign.save()
    with pytest.raises(SubmissionError) as refused:
        record_judgment(assignment.pk, assignment.worker_id, {"position": 1, "score": 70})
    assert (refused.value.status, refused.value.message) == (
        409,
        "Answer the few questions about yourself first: reload the page.",
    )
    assert Judgment.objects.count() == 0


# --- The form ---------------------------------------------------------------------------------


def test_the_form_asks_the_four_questions_of_000_with_the_languages_in_words(assignment):
    response = Client(enforce_csrf_checks=True).get(url(assignment))

    assert response.status_code == 200
    html = response.content.decode()
    labels = re.findall(r'<label for="id_(\w+)">([^<]+)</label>', html)
    assert labels == [
        ("native_language", "What is your native language?"),
        ("country", "In which country do you live?"),
        ("years_source_language", "For how many years have you spoken German?"),
        ("years_target_language", "For how many years have you spoken English?"),
    ]
    assert f'<form method="post" action="{url(assignment)}" class="background-form">' in html
    assert '<option value="" selected>Choose a country</option>' in html
    assert '<option value="DE">Germany</option>' in html
    assert len(re.findall(r'<option value="[A-Z]{2}"', html)) == 249
    assert 'type="number" name="years_source_language" min="0" max="120"' in html
    assert "csrfmiddlewaretoken" not in html
    assert response.cookies == {}
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"
    # Shown inside MTurk's iframe, like the task page.
    assert "frame-ancestors https://worker.mturk.com" in response["Content-Security-Policy"]
    assert "X-Frame-Options" not in response


def test_the_form_pre_fills_what_is_known_about_the_worker(assignment):
    Worker.objects.filter(pk=assignment.worker_id).update(
        native_language="Deutsch", country="AT", country_source=CountrySource.MTURK_LOCALE
    )
    html = Client().get(url(assignment)).content.decode()
    assert 'value="Deutsch"' in html
    assert '<option value="AT" selected>Austria</option>' in html


@pytest.mark.parametrize(
    ("locales", "selected"),
    [(["US-CA", "us"], "US"), (["GB"], "GB"), (["US", "GB"], None), ([], None)],
)
def test_an_mturk_worker_gets_the_country_of_the_campaigns_locale(assignment, locales, selected):
    Worker.objects.filter(pk=assignment.worker_id).update(platform=Platform.MTURK)
    assignment.campaign.mturk_locales = locales
    assignment.campaign.save()
    html = Client().get(url(assignment)).content.decode()
    assert re.findall(r'<option value="(\w*)" selected>', html) == [selected or ""]


@pytest.mark.parametrize(
    ("locales", "country"),
    [
        (["US"], "US"),
        (["US-CA", "US-NY"], "US"),
        ([" de "], "DE"),
        (["US", "CA"], None),
        ([], None),
        ([""], None),
    ],
)
def test_the_country_of_mturk_locales(locales, country):
    assert single_locale_country(locales) == country


@pytest.mark.parametrize(
    ("code", "name"),
    [
        ("de", "German"),
        ("pt-BR", "Brazilian Portuguese"),
        ("zh-Hans", "Simplified Chinese"),
        ("de-AT", "German"),
        ("haw", "haw"),
    ],
)
def test_languages_are_named_in_words_or_by_code(code, name):
    assert language_name(code) == name


# --- Answers ----------------------------------------------------------------------------------


def test_answers_are_stored_and_the_worker_goes_on_to_the_task(assignment):
    client = Client(enforce_csrf_checks=True)

    response = client.post(url(assignment), GOOD)

    assert (response.status_code, response["Location"]) == (303, url(assignment, "judgments:task"))
    assert stored(assignment) == ("English-Spanish bilingual", "MX", "form", 15, 32, True)
    task = client.get(response["Location"])
    assert task.status_code == 200
    assert "The black text adequately expresses the meaning of the gray text." in (
        task.content.decode()
    )


@pytest.mark.parametrize(
    ("changes", "errors"),
    [
        (
            {key: "" for key in GOOD},
            {
                "native_language": "Tell us your native language, for example English or Spanish.",
                "country": "Choose the country you live in.",
                "years_source_language": "Give the number of years you have spoken German (0 if "
                "you do not speak it).",
                "years_target_language": "Give the number of years you have spoken English (0 if "
                "you do not speak it).",
            },
        ),
        (
            {"native_language": "   "},
            {"native_language": "Tell us your native language, for example English or Spanish."},
        ),
        (
            {"native_language": "x" * 101},
            {"native_language": "Keep the answer under 100 characters."},
        ),
        ({"country": "XX"}, {"country": "Choose a country from the list."}),
        ({"country": "de"}, {"country": "Choose a country from the list."}),
        ({"years_source_language": "121"}, {"years_source_language": "Give at most 120 years."}),
        (
            {"years_target_language": "-1"},
            {"years_target_language": "The number of years cannot be negative."},
        ),
        (
            {"years_source_language": "ten"},
            {"years_source_language": "Give a whole number of years, such as 5."},
        ),
        (
            {"years_source_language": "2.5"},
            {"years_source_language": "Give a whole number of years, such as 5."},
        ),
    ],
    ids=[
        "empty",
        "blank-language",
        "long-language",
        "unknown-country",
        "lower-case-country",
        "too-many-years",
        "negative-years",
        "words",
        "fraction",
    ],
)
def test_wrong_answers_get_the_form_again_with_a_message_per_field(assignment, changes, errors):
    response = Client().post(url(assignment), {**GOOD, **changes})

    assert response.status_code == 400
    html = response.content.decode()
    found = dict(re.findall(r'<p class="field-error" id="id_(\w+)_error_1">([^<]+)</p>', html))
    assert found == {field: message.replace("'", "&#x27;") for field, message in errors.items()}
    assert (
        '<p class="error" role="alert">Some answers are missing or need a change: see the '
        "messages below.</p>"
    ) in html
    assert stored(assignment) == NOTHING


def test_a_refused_form_keeps_the_answers_escaped(assignment):
    nasty = '<script>alert("x")</script>'
    response = Client().post(url(assignment), {**GOOD, "native_language": nasty, "country": ""})
    html = response.content.decode()
    assert nasty not in html
    assert 'value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"' in html
    assert '<option value="" selected>Choose a country</option>' in html


def test_answers_are_not_changed_by_a_second_post(assignment):
    client = Client()
    client.post(url(assignment), GOOD)
    first = CampaignWorker.objects.get(worker=assignment.worker).background_at

    again = client.post(url(assignment), {**GOOD, "country": "FR", "years_source_language": "1"})

    assert (again.status_code, again["Location"]) == (303, url(assignment, "judgments:task"))
    assert stored(assignment) == ("English-Spanish bilingual", "MX", "form", 15, 32, True)
    assert CampaignWorker.objects.get(worker=assignment.worker).background_at == first
    # And the form is not shown again: straight on to the task.
    response = client.get(url(assignment))
    assert (response.status_code, response["Location"]) == (302, url(assignment, "judgments:task"))


def test_a_campaign_that_does_not_ask_sends_the_form_on_to_the_task(assignment):
    assignment.campaign.ask_background = False
    assignment.campaign.save()
    response = Client().post(url(assignment), GOOD)
    assert (response.status_code, response["Location"]) == (303, url(assignment, "judgments:task"))
    assert stored(assignment) == NOTHING


@pytest.mark.parametrize(
    "status", [AssignmentStatus.SUBMITTED, AssignmentStatus.EXPIRED, AssignmentStatus.RETURNED]
)
def test_a_task_that_is_no_longer_open_takes_no_answers(assignment, status):
    Assignment.objects.filter(pk=assignment.pk).update(status=status)
    response = Client().post(url(assignment), GOOD)
    assert (response.status_code, response["Location"]) == (303, url(assignment, "judgments:task"))
    assert stored(assignment) == NOTHING


def test_the_form_creates_the_membership_when_missing(campaign):
    assignment = AssignmentFactory(hit=campaign.hits.get())
    response = Client().post(url(assignment), GOOD)
    assert response.status_code == 303
    assert stored(assignment) == ("English-Spanish bilingual", "MX", "form", 15, 32, True)


def test_a_new_answer_replaces_the_country_mturk_implied(assignment):
    Worker.objects.filter(pk=assignment.worker_id).update(
        country="US", country_source=CountrySource.MTURK_LOCALE
    )
    Client().post(url(assignment), GOOD)
    assert stored(assignment)[1:3] == ("MX", CountrySource.FORM)


def test_only_get_and_post(assignment):
    assert Client().put(url(assignment)).status_code == 405
