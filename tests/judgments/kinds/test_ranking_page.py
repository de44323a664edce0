"""The ranking page over HTTP: the shell, the page of sets as JSON, one POST per set."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import HitTask, TaskKind
from judgments import tokens
from judgments.kinds import registry as kind_registry
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import AssignmentFactory, HitFactory, HitSlotFactory
from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return ranking_campaign(title="Rank translations", instructions="Best first.")


@pytest.fixture
def assignment(campaign):
    return AssignmentFactory(hit=build_ranking_hit(campaign, texts={2: "<b>bold</b> & more"}))


def url(assignment, name="judgments:task"):
    return reverse(name, args=[tokens.assignment_token(assignment.pk, assignment.worker_id)])


def post_json(client, target, payload):
    return client.post(target, data=json.dumps(payload), content_type="application/json")


def expected_set(number, group, first_text=None):
    outputs = [
        {"position": group * 4 + n + 1, "text": f"Translation {number}.{group + 1} by engine {n}."}
        for n in range(4)
    ]
    if first_text is not None:
        outputs[1]["text"] = first_text
    return {
        "set": group,
        "number": group + 1,
        "source": f"Quellsatz {number}.{group + 1}.",
        "reference": f"Reference sentence {number}.{group + 1}.",
        "outputs": outputs,
    }


def test_the_ranking_page_is_a_shell_with_its_words_and_no_cookie(assignment):
    response = Client(enforce_csrf_checks=True).get(url(assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}
    assert "no-store" in response["Cache-Control"]
    assert '<script src="/static/js/rank.js" defer></script>' in html
    assert "/static/js/assess.js" not in html
    assert (
        "Rank the translations of each sentence from best (1) to worst (4), compared with each "
        "other. Ties are allowed" in html
    )
    assert 'data-label-source="Source"' in html and 'data-label-target="Reference"' in html
    assert 'data-label-missing-set="Set {n}: {outputs}"' in html
    assert 'data-source-lang="de"' in html and 'data-target-lang="en"' in html
    assert f'data-item-url="{url(assignment, "judgments:task-item")}"' in html
    assert f'data-submit-url="{url(assignment, "judgments:task-submit")}"' in html
    assert ">Submit</button>" in html
    assert "Quellsatz" not in html and "Translation 1" not in html  # no set in the shell
    assert "qualification test" not in html


def test_the_item_endpoint_sends_the_page_of_sets(assignment):
    body = Client().get(url(assignment, "judgments:task-item")).json()
    assert body == {
        "ok": True,
        "next": {
            "page": 1,
            "pages": 1,
            "sets": [
                expected_set(1, 0, first_text="<b>bold</b> & more"),
                expected_set(1, 1),
                expected_set(1, 2),
            ],
        },
        "done": False,
        "progress": {"done": 0, "total": 3},
    }
    assignment.refresh_from_db()
    assert assignment.current_served_at is not None


def test_one_post_per_set_then_the_completion_page(assignment):
    client = Client(enforce_csrf_checks=True)
    submit = url(assignment, "judgments:task-submit")

    first = post_json(
        client,
        submit,
        {"set": 0, "ranks": {"1": 2, "2": 1, "3": 2, "4": 3}, "client_duration_ms": 5},
    )
    assert first.status_code == 200
    assert first.cookies == {}
    assert first.json() == {
        "ok": True,
        "next": {"page": 1, "pages": 1, "sets": [expected_set(1, 1), expected_set(1, 2)]},
        "done": False,
        "progress": {"done": 1, "total": 3},
    }
    retry = post_json(client, submit, {"set": 0, "ranks": {"1": 2, "2": 1, "3": 2, "4": 3}})
    assert retry.json() == {**first.json(), "already_recorded": True}

    post_json(client, submit, {"set": 1, "ranks": {"5": 1, "6": 1, "7": 1, "8": 1}})
    last = post_json(client, submit, {"set": 2, "ranks": {"9": 4, "10": 3, "11": 2, "12": 1}})
    assert last.json() == {
        "ok": True,
        "next": None,
        "done": True,
        "progress": {"done": 3, "total": 3},
    }
    assert list(Judgment.objects.order_by("slot__position").values_list("rank", flat=True)) == [
        2,
        1,
        2,
        3,
        1,
        1,
        1,
        1,
        4,
        3,
        2,
        1,
    ]
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    html = client.get(url(assignment)).content.decode()
    assert "<h1>Thank you!</h1>" in html


@pytest.mark.parametrize(
    ("body", "status", "expected"),
    [
        (
            '{"set": 0, "ranks": {"1": 1, "1": 2, "2": 1, "3": 1, "4": 1}}',
            400,
            {
                "ok": False,
                "error": 'The answer names "1" more than once; send each field and each '
                "position once.",
                "field": None,
            },
        ),
        (
            '{"set": 0, "set": 0, "ranks": {"1": 1, "2": 1, "3": 1, "4": 1}}',
            400,
            {
                "ok": False,
                "error": 'The answer names "set" more than once; send each field and each '
                "position once.",
                "field": None,
            },
        ),
        (
            "set=0",
            400,
            {
                "ok": False,
                "error": "The answer could not be read: send JSON such as "
                '{"set": 0, "ranks": {"1": 2, "2": 1}}.',
                "field": None,
            },
        ),
        (
            '{"set": 1, "ranks": {"5": 1, "6": 1, "7": 1, "8": 1}}',
            400,
            {
                "ok": False,
                "error": "Answer set 1 first; the sets are answered in order.",
                "field": "set",
            },
        ),
        (
            '{"set": 0, "ranks": {"1": 1, "2": 1, "3": 1}}',
            400,
            {
                "ok": False,
                "error": "Every output of set 1 needs a rank; missing: position 4.",
                "field": "ranks",
            },
        ),
    ],
)
def test_submission_errors_are_json_a_person_can_act_on(assignment, body, status, expected):
    response = Client().post(
        url(assignment, "judgments:task-submit"), data=body, content_type="application/json"
    )
    assert (response.status_code, response.json()) == (status, expected)
    assert Judgment.objects.count() == 0


def test_changing_a_saved_set_is_a_409(assignment):
    submit = url(assignment, "judgments:task-submit")
    post_json(Client(), submit, {"set": 0, "ranks": {"1": 1, "2": 2, "3": 3, "4": 4}})
    response = post_json(Client(), submit, {"set": 0, "ranks": {"1": 2, "2": 2, "3": 3, "4": 4}})
    assert (response.status_code, response.json()) == (
        409,
        {
            "ok": False,
            "error": "Set 1 is already answered, and answers cannot be changed (there is no "
            "going back). Continue with set 2.",
            "field": "set",
        },
    )


def test_a_page_of_two_with_three_sets_says_page_1_of_2_then_2_of_2(campaign):
    campaign.ranking_settings.sets_per_hit = 2
    campaign.ranking_settings.save()
    assignment = AssignmentFactory(hit=build_ranking_hit(campaign, number=2))
    client = Client()
    body = client.get(url(assignment, "judgments:task-item")).json()
    assert (body["next"]["page"], body["next"]["pages"]) == (1, 2)
    assert [s["set"] for s in body["next"]["sets"]] == [0, 1]
    submit = url(assignment, "judgments:task-submit")
    post_json(client, submit, {"set": 0, "ranks": {"1": 1, "2": 1, "3": 1, "4": 1}})
    body = post_json(client, submit, {"set": 1, "ranks": {"5": 1, "6": 1, "7": 1, "8": 1}}).json()
    assert (body["next"]["page"], body["next"]["pages"]) == (2, 2)
    assert [s["number"] for s in body["next"]["sets"]] == [3]
    assert ">Submit</button>" in client.get(url(assignment)).content.decode()


def test_the_entry_page_does_not_count_the_qualification_test(client, campaign):
    build_ranking_hit(campaign, number=1)
    build_ranking_hit(campaign, number=2)
    build_ranking_hit(campaign, number=3, is_qualification=True)
    html = client.get(reverse("judgments:campaign-entry", args=[campaign.pk])).content.decode()
    # Two tasks of the campaign's redundancy (1) place each, both open.
    assert "2 tasks in this campaign; 2 of 2 places open now" in html


def test_a_task_kind_without_a_page_says_so(campaign, monkeypatch):
    # Every task has a page now: Detect-MT's page taken away stands for a task without one.
    monkeypatch.delitem(kind_registry[TaskKind.TRANSLATION]._pages, HitTask.DETECT_MT)
    hit = HitFactory(campaign=campaign, number=9, task=HitTask.DETECT_MT)
    HitSlotFactory(hit=hit, position=1)
    assignment = AssignmentFactory(hit=hit)
    client = Client()
    assert client.get(url(assignment)).status_code == 501
    item = client.get(url(assignment, "judgments:task-item"))
    assert (item.status_code, item.json()["error"]) == (
        501,
        "This kind of task cannot be shown yet.",
    )
    response = post_json(
        client, url(assignment, "judgments:task-submit"), {"position": 1, "text": "x"}
    )
    assert (response.status_code, response.json()["error"]) == (
        400,
        "This kind of task cannot take answers here.",
    )
    assert Assignment.objects.get().status == AssignmentStatus.STARTED


def test_a_german_ranking_campaigns_page_and_messages_are_german(assignment):
    """The catalogs translate the ranking page and the messages about its answers: a German
    ranking campaign's page is German, and says so (lang)."""
    campaign = assignment.campaign
    campaign.instructions_language = "de"
    campaign.save()
    client = Client()
    html = client.get(url(assignment)).content.decode()
    assert '<html lang="de">' in html
    assert 'class="task task-rank" lang="de"' in html
    assert 'data-label-source="Ausgangstext"' in html and ">Absenden</button>" in html
    response = post_json(client, url(assignment, "judgments:task-submit"), {"set": 0})
    assert response.json()["error"] == (
        "ranks ist erforderlich: Geben Sie jeder Übersetzung der Gruppe einen Rang."
    )
