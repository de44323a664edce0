"""Reading comprehension in the admin: the campaign page's articles and questions inlines
(questions editable until answering starts, then read-only with the reason) and the stages
page (advance now, start answering, access)."""

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from campaigns.actions import build_hits
from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionOrigin,
    RCQuestionStatus,
    RCStage,
)
from campaigns.models import Hit, HitTask
from tests.campaigns.test_admin_kinds import page_form
from tests.campaigns.test_rc_stages import author, rc_campaign, submit, take
from tests.factories import WorkerFactory

pytestmark = pytest.mark.django_db

# As the page shows it (escaped).
LOCKED = (
    "Answering has started for article &quot;d1&quot;, so its questions can no longer be changed, "
    "added or deleted: workers&#x27; answers (and their grades) refer to the questions as they "
    "were asked."
)


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create(username="root", is_staff=True, is_superuser=True))
    return client


def change_url(campaign):
    return reverse("admin:campaigns_campaign_change", args=[campaign.pk])


def stages_url(campaign):
    return reverse("admin:campaigns_campaign_rc_stages", args=[campaign.pk])


def in_review():
    """d1 in review with two kept questions (imported), d2 in authoring."""
    campaign = rc_campaign(docs=("d1", "d2"), review_questions=True, name="rc")
    d1 = campaign.documents.get(external_id="d1")
    for number, text in ((1, "Why?"), (2, "Who?")):
        RCQuestion.objects.create(
            campaign=campaign,
            document=d1,
            number=number,
            text=text,
            sample_answer="Because.",
            origin=RCQuestionOrigin.IMPORTED,
        )
    build_hits(campaign)
    return campaign


def question_rows(form):
    """The questions formset's field names by row prefix."""
    prefix = next(n.split("-")[0] for n in form.names if n.endswith("-TOTAL_FORMS") and "rc_q" in n)
    return prefix


def test_the_campaign_page_shows_articles_and_questions(admin_client):
    campaign = in_review()
    response = admin_client.get(change_url(campaign))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Reading comprehension: articles and their stages" in html
    assert f'<a href="{stages_url(campaign)}">Reading-comprehension stages</a>' in html
    assert "Waiting for the requester to start answering" in html
    assert "2 kept of 2" in html
    form = page_form(html)
    prefix = question_rows(form)
    assert form.data[f"{prefix}-0-text"] == "Why?"
    assert form.data[f"{prefix}-1-text"] == "Who?"


def test_questions_are_edited_and_added_before_answering(admin_client):
    campaign = in_review()
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    prefix = question_rows(form)
    d1 = campaign.documents.get(external_id="d1")
    data = {
        **form.data,
        f"{prefix}-0-text": "Why did she leave?",
        f"{prefix}-1-status": RCQuestionStatus.DROPPED_REQUESTER,
        f"{prefix}-2-document": str(d1.pk),
        f"{prefix}-2-number": "",
        f"{prefix}-2-text": "Where?",
        f"{prefix}-2-sample_answer": "Home.",
        f"{prefix}-2-status": RCQuestionStatus.KEPT,
    }
    response = admin_client.post(change_url(campaign), data)
    assert response.status_code == 302, response.context["inline_admin_formsets"]
    assert list(
        RCQuestion.objects.filter(campaign=campaign)
        .order_by("number")
        .values_list("number", "text", "status", "origin")
    ) == [
        (1, "Why did she leave?", RCQuestionStatus.KEPT, RCQuestionOrigin.IMPORTED),
        (2, "Who?", RCQuestionStatus.DROPPED_REQUESTER, RCQuestionOrigin.IMPORTED),
        (3, "Where?", RCQuestionStatus.KEPT, RCQuestionOrigin.REQUESTER),
    ]


def test_questions_are_read_only_once_answering_starts(admin_client):
    campaign = in_review()
    response = admin_client.post(
        stages_url(campaign),
        {"action": "start", "document": [str(campaign.documents.get(external_id="d1").pk)]},
    )
    assert response.status_code == 302
    html = admin_client.get(change_url(campaign)).content.decode()
    form = page_form(html)
    prefix = question_rows(form)
    # Disabled fields are not posted: the rows cannot be changed.
    assert f"{prefix}-0-text" not in form.data
    assert "No: answering has started, the answers refer to it as it was asked." in html
    # Deleting one is refused with the reason.
    response = admin_client.post(change_url(campaign), {**form.data, f"{prefix}-0-DELETE": "on"})
    assert response.status_code == 200
    assert LOCKED in response.content.decode()
    # So is a new question for the article.
    d1 = campaign.documents.get(external_id="d1")
    response = admin_client.post(
        change_url(campaign),
        {
            **form.data,
            f"{prefix}-2-document": str(d1.pk),
            f"{prefix}-2-text": "New?",
            f"{prefix}-2-sample_answer": "No.",
            f"{prefix}-2-status": RCQuestionStatus.KEPT,
        },
    )
    assert response.status_code == 200
    assert LOCKED in response.content.decode()
    assert RCQuestion.objects.filter(campaign=campaign).count() == 2


def test_the_stages_page_starts_answering_on_ticked_articles(admin_client):
    campaign = in_review()
    page = admin_client.get(stages_url(campaign))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Reading-comprehension stages of rc" in html
    assert "Start answering on the ticked articles" in html
    assert "0 of 1 HIT(s) done" in html  # d2's authoring HIT
    d1 = campaign.documents.get(external_id="d1")
    response = admin_client.post(
        stages_url(campaign), {"action": "start", "document": [str(d1.pk)]}
    )
    assert response.status_code == 302
    messages = [str(m) for m in admin_client.get(stages_url(campaign)).context["messages"]]
    assert messages == [
        "d1: answering HITs 2-4 built (2 question(s), 2 system(s), the human translation)"
    ]
    assert RCArticle.objects.get(document=d1).stage == RCStage.ANSWERING


def test_advance_stages_now(admin_client):
    campaign = rc_campaign(authors_per_article=1, questions_per_author=1, name="rc")
    build_hits(campaign)
    response = admin_client.post(stages_url(campaign), {"action": "advance"})
    assert response.status_code == 302
    messages = [str(m) for m in admin_client.get(stages_url(campaign)).context["messages"]]
    assert messages == ["Nothing was due: every article waits for its HITs."]
    submit(take(campaign, WorkerFactory()), 1, author(["Why?"]))
    admin_client.post(stages_url(campaign), {"action": "advance"})
    messages = [str(m) for m in admin_client.get(stages_url(campaign)).context["messages"]]
    assert messages == ["d1: 1 question(s) written; selection HIT 2 built (1 question(s))"]
    assert Hit.objects.filter(campaign=campaign, task=HitTask.RC_SELECT).count() == 1


def test_the_stages_page_is_for_those_the_campaign_is_shared_with(client):
    campaign = in_review()
    staff = User.objects.create(username="staff", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
    )
    client.force_login(staff)
    assert client.get(stages_url(campaign)).status_code == 404
    assert client.post(stages_url(campaign), {"action": "advance"}).status_code == 404
    # The owner who may only read sees the page without its forms and cannot post.
    reader = User.objects.create(username="reader", is_staff=True)
    reader.user_permissions.add(*Permission.objects.filter(codename="view_campaign"))
    campaign.owner = reader
    campaign.save()
    client.force_login(reader)
    page = client.get(stages_url(campaign))
    assert page.status_code == 200
    assert "Advance stages now" not in page.content.decode()
    assert client.post(stages_url(campaign), {"action": "advance"}).status_code == 403
