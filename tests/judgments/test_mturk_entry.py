"""MTurk's ExternalQuestion page over HTTP: the preview, the accept (worker and assignment
created, resumed or re-used), refusals that change nothing, and the post back to MTurk."""

from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import (
    AssessmentMode,
    CampaignStatus,
    HitTask,
    SlotRole,
    TaskKind,
)
from campaigns.platforms.models import MTurkHit
from judgments import tokens
from judgments.actions import HandOutKind, accept_mturk_assignment, single_locale_country
from judgments.entry.mturk import mturk_done_context, mturk_resume_url
from judgments.kinds import registry as kind_registry
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    CountrySource,
    Judgment,
    Platform,
    Worker,
)
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

SANDBOX = "https://workersandbox.mturk.com"
WORKER_ID = "A1B2C3WORKER"
ASSIGNMENT_ID = "3ASSIGNMENT0001"
MTURK_HIT_ID = "3HIT0001"
SECRET_SYSTEM = "SECRET-SYSTEM-NAME"
INVALID_LINK = (
    "This link is not valid. Check that you opened the whole link, or ask whoever sent it to "
    "you for a new one."
)
OPEN_FROM_MTURK = "Open the HIT again from MTurk&#x27;s website."
TURK_SUBMIT_PROBLEM = (
    "The link&#x27;s turkSubmitTo is not one of MTurk&#x27;s addresses "
    "(https://www.mturk.com or https://workersandbox.mturk.com), so this page could not send "
    "your work back to MTurk."
)
NASTY = '<script>alert(1)</script> & "x"'


@pytest.fixture
def hit():
    """A published three-item adequacy HIT whose first item is a degraded copy (a bad
    reference) of a system's output."""
    campaign = CampaignFactory(
        title="Rate English translations",
        instructions="Read both texts, then move the slider.",
        assessment_mode=AssessmentMode.ADEQUACY,
        redundancy=3,
        assignment_duration_seconds=3600,
    )
    hit = HitFactory(campaign=campaign, number=1)
    system = SystemFactory(campaign=campaign, name=SECRET_SYSTEM)
    for position in (1, 2, 3):
        segment = SegmentFactory(
            document__campaign=campaign, references=[f"Gray reference {position}."]
        )
        output = OutputFactory(segment=segment, system=system, text=f"System output {position}.")
        HitSlotFactory(
            hit=hit,
            position=position,
            group=1,
            role=SlotRole.BAD_REFERENCE if position == 1 else SlotRole.SYSTEM,
            output=output,
            segment=segment,
            shown_text=NASTY if position == 1 else f"Black text {position}.",
        )
    publish(hit, MTURK_HIT_ID)
    return hit


def publish(hit, mturk_hit_id, *, sandbox=True):
    """The MTurkHit row publishing made: ``hit`` is on MTurk as ``mturk_hit_id``."""
    return MTurkHit.objects.create(
        hit=hit,
        mturk_hit_id=mturk_hit_id,
        hit_type_id="3TYPE",
        sandbox=sandbox,
        max_assignments=hit.campaign.redundancy,
    )


def mturk_url(hit, **params):
    return reverse("judgments:mturk-task", args=[hit.pk]) + "?" + urlencode(params)


def accept_url(hit, **overrides):
    params = {
        "assignmentId": ASSIGNMENT_ID,
        "hitId": MTURK_HIT_ID,
        "workerId": WORKER_ID,
        "turkSubmitTo": SANDBOX,
    }
    params.update(overrides)
    return mturk_url(hit, **{key: value for key, value in params.items() if value is not None})


def task_url(assignment):
    return reverse(
        "judgments:task", args=[tokens.assignment_token(assignment.pk, assignment.worker_id)]
    )


def counts():
    return (
        Worker.objects.count(),
        CampaignWorker.objects.count(),
        Assignment.objects.count(),
        Judgment.objects.count(),
    )


def preview_params():
    return {
        "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE",
        "hitId": MTURK_HIT_ID,
    }


# --- Preview ---------------------------------------------------------------------------------


def test_the_preview_shows_the_first_item_read_only_and_creates_nothing(client, hit):
    response = client.get(mturk_url(hit, **preview_params()))

    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}
    assert "no-store" in response["Cache-Control"]
    assert '<h1 lang="en">Rate English translations</h1>' in html
    assert '<p class="notice preview-notice" role="status" id="preview-notice" lang="en">' in html
    assert "Accept the HIT to start.</p>" in html
    assert "<p>Read both texts, then move the slider.</p>" in html
    assert '<p class="progress-text" id="progress-text">1 of 3</p>' in html
    assert "The black text adequately expresses the meaning of the gray text." in html
    target = hit.campaign.target_language  # the texts carry their language
    assert (
        f'<p class="text text-gray" id="gray-text" dir="auto" lang="{target}">Gray reference 1.</p>'
        in html
    )
    assert (
        f'<p class="text text-main" id="main-text" dir="auto" lang="{target}">'
        "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;</p>"
    ) in html
    assert (
        '<input type="range" id="score" class="untouched" min="0" max="100" step="1" value="50"\n'
        '             aria-labelledby="statement" aria-describedby="anchors" disabled>'
    ) in html
    assert '<button type="button" id="next" class="button-primary" disabled>Next</button>' in html
    # Only the first item, no script, and nothing about what the item is for.
    assert "Black text 2." not in html and "Gray reference 2." not in html
    assert "<script" not in html
    for secret in (SECRET_SYSTEM, "bad_reference", "Bad reference", "degraded", "System output"):
        assert secret not in html
    assert counts() == (0, 0, 0, 0)


def test_without_any_parameter_the_page_is_the_preview(client, hit):
    response = client.get(reverse("judgments:mturk-task", args=[hit.pk]))
    assert response.status_code == 200
    assert "Accept the HIT to start.</p>" in response.content.decode()
    assert counts() == (0, 0, 0, 0)


def test_a_fluency_preview_has_no_gray_text(client, hit):
    hit.campaign.da_settings.assessment_mode = AssessmentMode.FLUENCY
    hit.campaign.da_settings.save()
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert "The text is fluent English." in html
    assert 'id="gray-text"' not in html and "Gray reference" not in html
    assert f'id="main-text" dir="auto" lang="{hit.campaign.target_language}">&lt;script&gt;' in html


def test_the_ranking_preview_shows_the_first_set_with_disabled_rank_buttons(client):
    campaign = CampaignFactory(
        kind=TaskKind.RANKING,
        title="Rank translations",
        instructions="Rank them.",
        outputs_per_set=3,
    )
    hit = HitFactory(campaign=campaign, task=HitTask.RANK, number=1)
    systems = [SystemFactory(campaign=campaign, name=f"{SECRET_SYSTEM}-{n}") for n in range(3)]
    for group, source in ((4, "Erster Satz."), (7, "Zweiter Satz.")):
        segment = SegmentFactory(
            document__campaign=campaign, source=source, references=[f"Reference of {source}"]
        )
        for index, system in enumerate(systems):
            output = OutputFactory(segment=segment, system=system, text=f"{source} output {index}")
            HitSlotFactory(
                hit=hit,
                position=(group - 4) * 3 + index + 1,
                group=group,
                role=SlotRole.GOLD if index == 0 else SlotRole.SYSTEM,
                output=output,
                segment=segment,
                shown_text=f"{source} shown {index}",
                expected_rank_min=1 if index == 0 else None,
                expected_rank_max=1 if index == 0 else None,
            )
    publish(hit, "3RANKHIT")

    response = client.get(mturk_url(hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE"))

    html = response.content.decode()
    assert response.status_code == 200
    assert "Accept the HIT to start.</p>" in html
    assert "Rank the translations of each sentence from best (1) to worst (3)" in html
    assert '<h2 class="rank-set-title" id="preview-set-title"><span>Set 1 of 2</span></h2>' in html
    assert '<dd class="rank-src" dir="auto" lang="de">Erster Satz.</dd>' in html
    assert '<dd class="rank-ref" dir="auto" lang="en">Reference of Erster Satz.</dd>' in html
    for index, letter in enumerate("ABC"):
        assert f'<p class="rank-output-label">Translation {letter}</p>' in html
        assert f'dir="auto" lang="en">Erster Satz. shown {index}</p>' in html
        assert f'aria-label="Rank of translation {letter}"' in html
    assert html.count('aria-pressed="false" disabled>') == 9
    assert '<button type="button" id="next" class="button-primary" disabled>Submit</button>' in html
    assert "Zweiter Satz." not in html
    for secret in (SECRET_SYSTEM, "gold", "Gold", "output 0", "expected"):
        assert secret not in html
    assert counts() == (0, 0, 0, 0)


def test_a_task_without_a_page_previews_its_instructions_only(client, monkeypatch):
    # Every task has a page now: Detect-MT's page taken away stands for a task without one.
    monkeypatch.delitem(kind_registry[TaskKind.TRANSLATION]._pages, HitTask.DETECT_MT)
    campaign = CampaignFactory(
        kind=TaskKind.TRANSLATION,
        title="Spot machine translations",
        instructions="Say which texts a machine wrote.",
    )
    hit = HitFactory(campaign=campaign, task=HitTask.DETECT_MT, number=1)
    HitSlotFactory(hit=hit, position=1, shown_text="Machine text to read.")
    publish(hit, MTURK_HIT_ID)
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert "<p>Say which texts a machine wrote.</p>" in html
    assert "Accept the HIT to start.</p>" in html
    assert "Machine text to read." not in html and "<input" not in html and "<button" not in html


def test_the_preview_of_a_paused_campaign_says_not_to_accept(client, hit):
    hit.campaign.status = CampaignStatus.PAUSED
    hit.campaign.save()
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert "This campaign is paused. Please come back later. Do not accept this HIT now." in html
    assert "Accept the HIT to start." not in html


@pytest.mark.parametrize("accepting", [False, True])
def test_a_draft_campaign_or_an_unknown_hit_is_not_found(client, hit, accepting):
    url = accept_url(hit) if accepting else mturk_url(hit, **preview_params())
    hit.campaign.status = CampaignStatus.DRAFT
    hit.campaign.save()
    draft = client.get(url)
    assert draft.status_code == 404
    assert INVALID_LINK.replace("'", "&#x27;") in draft.content.decode()
    unknown = client.get(reverse("judgments:mturk-task", args=[hit.pk + 100]))
    assert unknown.status_code == 404
    assert counts() == (0, 0, 0, 0)


def test_a_hit_id_that_is_not_the_published_one_is_not_found(client, hit):
    preview = client.get(mturk_url(hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId="3X"))
    accept = client.get(accept_url(hit, hitId="3OTHERHIT"))
    assert (preview.status_code, accept.status_code) == (404, 404)
    assert "This link is not valid." in accept.content.decode()
    assert counts() == (0, 0, 0, 0)


@pytest.mark.parametrize("accepting", [False, True])
def test_an_unpublished_hit_is_not_found(client, hit, accepting):
    unpublished = HitFactory(campaign=hit.campaign, number=2)
    HitSlotFactory(hit=unpublished, position=1, shown_text="Unpublished black text.")
    url = accept_url(unpublished) if accepting else mturk_url(unpublished, **preview_params())

    response = client.get(url)

    html = response.content.decode()
    assert response.status_code == 404
    assert INVALID_LINK.replace("'", "&#x27;") in html
    assert "Unpublished black text." not in html and "Accept the HIT to start." not in html
    assert counts() == (0, 0, 0, 0)
    # Without any parameter too: no preview of work MTurk never offered.
    bare = client.get(reverse("judgments:mturk-task", args=[unpublished.pk]))
    assert bare.status_code == 404
    assert counts() == (0, 0, 0, 0)


def test_only_get_is_answered(client, hit):
    assert client.post(accept_url(hit)).status_code == 405
    assert counts() == (0, 0, 0, 0)


# --- Accept ----------------------------------------------------------------------------------


def test_accepting_creates_the_worker_and_the_assignment_and_opens_the_task(client, hit):
    before = timezone.now()
    response = client.get(accept_url(hit, turkSubmitTo=SANDBOX + "/"))
    after = timezone.now()

    worker = Worker.objects.get()
    assert (worker.platform, worker.external_id) == (Platform.MTURK, WORKER_ID)
    assert (worker.country, worker.country_source) == ("", "")
    membership = CampaignWorker.objects.get()
    assert (membership.campaign_id, membership.worker_id) == (hit.campaign_id, worker.pk)
    assignment = Assignment.objects.get()
    assert (assignment.hit_id, assignment.worker_id, assignment.status) == (
        hit.pk,
        worker.pk,
        AssignmentStatus.STARTED,
    )
    assert (
        assignment.platform_assignment_id,
        assignment.platform_hit_id,
        assignment.turk_submit_to,
    ) == (ASSIGNMENT_ID, MTURK_HIT_ID, SANDBOX)
    assert before + timedelta(hours=1) <= assignment.expires_at <= after + timedelta(hours=1)
    assert response.status_code == 302
    assert response["Location"] == task_url(assignment)
    assert response.cookies == {}

    page = client.get(response["Location"])
    assert page.status_code == 200
    assert 'id="score"' in page.content.decode()


def test_the_same_assignment_id_again_resumes_the_assignment(client, hit):
    first = client.get(accept_url(hit))
    assignment = Assignment.objects.get()
    JudgmentFactory(assignment=assignment, slot=hit.slots.get(position=1), score=40.0)

    again = client.get(accept_url(hit))

    assert again["Location"] == first["Location"]
    assert counts() == (1, 1, 1, 1)
    reloaded = Assignment.objects.get()
    assert (reloaded.status, reloaded.expires_at) == (
        AssignmentStatus.STARTED,
        assignment.expires_at,
    )


def test_an_expired_assignment_opened_again_from_mturk_starts_again(client, hit):
    client.get(accept_url(hit))
    assignment = Assignment.objects.get()
    JudgmentFactory(assignment=assignment, slot=hit.slots.get(position=1), score=40.0)
    Assignment.objects.filter(pk=assignment.pk).update(
        status=AssignmentStatus.EXPIRED, expires_at=timezone.now() - timedelta(minutes=1)
    )

    response = client.get(accept_url(hit))

    reloaded = Assignment.objects.get()
    assert response["Location"] == task_url(assignment)
    assert reloaded.status == AssignmentStatus.STARTED
    assert reloaded.expires_at > timezone.now() + timedelta(minutes=59)
    assert reloaded.platform_assignment_id == ASSIGNMENT_ID
    assert counts() == (1, 1, 1, 1)  # the answer given before is kept


def test_a_submitted_assignment_goes_to_its_completion_page_even_when_the_campaign_closed(
    client, hit
):
    client.get(accept_url(hit))
    Assignment.objects.update(status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now())
    hit.campaign.status = CampaignStatus.FINISHED
    hit.campaign.save()

    response = client.get(accept_url(hit))

    assignment = Assignment.objects.get()
    assert response["Location"] == task_url(assignment)
    html = client.get(response["Location"]).content.decode()
    assert (
        f'<form id="mturk-submit" class="mturk-submit" method="post" '
        f'action="{SANDBOX}/mturk/externalSubmit">'
    ) in html
    assert f'<input type="hidden" name="assignmentId" value="{ASSIGNMENT_ID}">' in html
    assert '<input type="hidden" name="evalsite" value="done">' in html
    assert (
        '<button type="submit" class="button-primary" id="mturk-submit-button">'
        "Submit the HIT to MTurk</button>"
    ) in html
    assert '<script src="/static/js/mturk-submit.js" defer></script>' in html
    assert "Do another task" not in html  # MTurk, not our link, hands out the next HIT
    assert assignment.status == AssignmentStatus.SUBMITTED


def test_another_workers_assignment_id_is_refused_and_changes_nothing(client, hit):
    client.get(accept_url(hit))
    before = list(Assignment.objects.values())

    response = client.get(accept_url(hit, workerId="A9INTRUDER"))

    assert response.status_code == 404
    assert "This link is not valid." in response.content.decode()
    assert counts() == (1, 1, 1, 0)
    assert not Worker.objects.filter(external_id="A9INTRUDER").exists()
    assert list(Assignment.objects.values()) == before


def test_an_assignment_id_of_another_hit_is_refused(client, hit):
    other = HitFactory(campaign=hit.campaign, number=2)
    publish(other, "3HIT0002")
    client.get(accept_url(hit))
    before = list(Assignment.objects.values())

    response = client.get(accept_url(other, hitId="3HIT0002"))

    assert response.status_code == 404
    assert INVALID_LINK.replace("'", "&#x27;") in response.content.decode()
    assert list(Assignment.objects.values()) == before
    assert counts() == (1, 1, 1, 0)


def test_a_direct_workers_assignment_with_the_same_id_is_refused(client, hit):
    direct = WorkerFactory(external_id=WORKER_ID)  # same id, another platform
    AssignmentFactory(hit=hit, worker=direct, platform_assignment_id=ASSIGNMENT_ID)
    response = client.get(accept_url(hit))
    assert response.status_code == 404
    assert counts() == (1, 0, 1, 0)


@pytest.mark.parametrize(
    "turk_submit_to",
    [
        "https://evil.example",
        "https://www.mturk.com.evil.example",
        "http://www.mturk.com",
        "https://www.mturk.com//",
        "https://WWW.MTURK.COM",
        "https://www.mturk.com/mturk/externalSubmit",
        "",
    ],
)
def test_a_turk_submit_to_that_is_not_mturks_is_refused(client, hit, turk_submit_to):
    response = client.get(accept_url(hit, turkSubmitTo=turk_submit_to))
    assert response.status_code == 400
    assert f"{TURK_SUBMIT_PROBLEM} {OPEN_FROM_MTURK}" in response.content.decode()
    assert counts() == (0, 0, 0, 0)


def test_a_sandbox_hit_refuses_production_as_turk_submit_to(client, hit):
    response = client.get(accept_url(hit, turkSubmitTo="https://www.mturk.com"))
    assert response.status_code == 400
    assert (
        "This HIT is on MTurk&#x27;s sandbox, but the link&#x27;s turkSubmitTo is "
        "https://www.mturk.com, the address of MTurk&#x27;s production site, so this page "
        "would send your work to the wrong site instead of https://workersandbox.mturk.com. "
        f"{OPEN_FROM_MTURK}"
    ) in response.content.decode()
    assert counts() == (0, 0, 0, 0)


def test_a_production_hit_refuses_the_sandbox_as_turk_submit_to(client, hit):
    MTurkHit.objects.filter(hit=hit).update(sandbox=False)
    refused = client.get(accept_url(hit, turkSubmitTo=SANDBOX))
    assert refused.status_code == 400
    assert (
        "This HIT is on MTurk&#x27;s production site, but the link&#x27;s turkSubmitTo is "
        "https://workersandbox.mturk.com, the address of MTurk&#x27;s sandbox, so this page "
        "would send your work to the wrong site instead of https://www.mturk.com. "
        f"{OPEN_FROM_MTURK}"
    ) in refused.content.decode()
    assert counts() == (0, 0, 0, 0)

    accepted = client.get(accept_url(hit, turkSubmitTo="https://www.mturk.com/"))
    assignment = Assignment.objects.get()
    assert accepted["Location"] == task_url(assignment)
    assert assignment.turk_submit_to == "https://www.mturk.com"


@pytest.mark.parametrize("sandbox", [True, False])
def test_a_further_submit_host_is_accepted_for_either_site(client, hit, settings, sandbox):
    stand_in = "http://127.0.0.1:8765"
    settings.MTURK_SUBMIT_HOSTS = [*settings.MTURK_SUBMIT_HOSTS, stand_in]
    MTurkHit.objects.filter(hit=hit).update(sandbox=sandbox)

    response = client.get(accept_url(hit, turkSubmitTo=stand_in))

    assignment = Assignment.objects.get()
    assert response["Location"] == task_url(assignment)
    assert assignment.turk_submit_to == stand_in


def test_ids_that_are_not_mturks_are_refused_with_every_problem_named(client, hit):
    response = client.get(
        accept_url(hit, workerId="a1lowercase", assignmentId="3ASSIGN-1", hitId=None)
    )
    assert response.status_code == 400
    assert (
        "The workerId in the link is not MTurk&#x27;s id of your worker account (capital "
        "letters and digits). The assignmentId in the link is not MTurk&#x27;s id of your "
        "assignment (capital letters and digits). The link has no hitId, MTurk&#x27;s id of the "
        f"HIT. {OPEN_FROM_MTURK}"
    ) in response.content.decode()
    missing = client.get(accept_url(hit, workerId=None))
    assert missing.status_code == 400
    assert "The link has no workerId, MTurk&#x27;s id of your worker account." in (
        missing.content.decode()
    )
    too_long = client.get(accept_url(hit, workerId="A" * 65))
    assert too_long.status_code == 400
    assert counts() == (0, 0, 0, 0)


def test_a_hit_returned_and_accepted_again_reuses_the_row_under_the_new_id(client, hit):
    client.get(accept_url(hit))
    assignment = Assignment.objects.get()
    JudgmentFactory(assignment=assignment, slot=hit.slots.get(position=1), score=40.0)
    Assignment.objects.filter(pk=assignment.pk).update(
        status=AssignmentStatus.RETURNED,
        platform_status="Returned",
        platform_synced_at=timezone.now(),
    )

    response = client.get(accept_url(hit, assignmentId="3ASSIGNMENT0002"))

    reloaded = Assignment.objects.get()
    assert reloaded.pk == assignment.pk
    assert response["Location"] == task_url(assignment)
    assert (reloaded.status, reloaded.platform_assignment_id) == (
        AssignmentStatus.STARTED,
        "3ASSIGNMENT0002",
    )
    assert (reloaded.platform_status, reloaded.platform_synced_at) == ("", None)
    assert reloaded.expires_at > timezone.now() + timedelta(minutes=59)
    assert Judgment.objects.get().assignment_id == assignment.pk


def test_a_hit_finished_under_another_assignment_id_is_refused(client, hit):
    client.get(accept_url(hit))
    Assignment.objects.update(status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now())
    before = list(Assignment.objects.values())

    response = client.get(accept_url(hit, assignmentId="3ASSIGNMENT0002"))

    assert response.status_code == 409
    assert (
        "You have already finished this HIT under another assignment, and each worker may do "
        "it once. Please return this assignment on MTurk. Thank you!"
    ) in response.content.decode()
    assert list(Assignment.objects.values()) == before


def test_a_live_assignment_is_not_handed_to_a_second_assignment_id(client, hit):
    hit.campaign.mturk_locales = ["US"]
    hit.campaign.save()
    first = client.get(accept_url(hit))
    # Cleared, so that a forged accept that went on would note the locale's country again.
    Worker.objects.update(country="", country_source="")
    before = list(Assignment.objects.values())

    # Someone who knows the worker's WorkerId, with an assignment id of their own.
    forged = client.get(accept_url(hit, assignmentId="3FORGED0001"))

    assert forged.status_code == 409
    assert (
        "You already hold this HIT under another MTurk assignment; return one of them. Then "
        "open the one you kept from MTurk&#x27;s website."
    ) in forged.content.decode()
    assert "Location" not in forged
    assert list(Assignment.objects.values()) == before
    assert Assignment.objects.get().platform_assignment_id == ASSIGNMENT_ID
    assert list(Worker.objects.values_list("country", "country_source")) == [("", "")]
    assert counts() == (1, 1, 1, 0)
    # The worker's own assignment id still opens their task.
    assert client.get(accept_url(hit))["Location"] == first["Location"]


def test_a_started_assignment_past_its_deadline_is_reused_under_the_new_id(client, hit):
    client.get(accept_url(hit))
    assignment = Assignment.objects.get()
    Assignment.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = client.get(accept_url(hit, assignmentId="3ASSIGNMENT0002"))

    reloaded = Assignment.objects.get()
    assert response["Location"] == task_url(assignment)
    assert (reloaded.pk, reloaded.status, reloaded.platform_assignment_id) == (
        assignment.pk,
        AssignmentStatus.STARTED,
        "3ASSIGNMENT0002",
    )
    assert reloaded.expires_at > timezone.now() + timedelta(minutes=59)


def test_a_worker_may_hold_several_hits_of_a_campaign_at_once(client, hit):
    other = HitFactory(campaign=hit.campaign, number=2)
    publish(other, "3HIT0002")
    client.get(accept_url(hit))
    client.get(accept_url(other, assignmentId="3ASSIGNMENT0002", hitId="3HIT0002"))
    assert sorted(Assignment.objects.values_list("hit_id", "platform_assignment_id")) == [
        (hit.pk, ASSIGNMENT_ID),
        (other.pk, "3ASSIGNMENT0002"),
    ]
    assert counts() == (1, 1, 2, 0)


def test_mturk_enforces_the_redundancy_so_a_full_hit_is_still_accepted(client, hit):
    hit.campaign.redundancy = 1
    hit.campaign.save()
    AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)
    response = client.get(accept_url(hit))
    assert response.status_code == 302
    assert Assignment.objects.filter(platform_assignment_id=ASSIGNMENT_ID).count() == 1


# --- Refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "message"),
    [
        (CampaignStatus.PAUSED, 200, "This campaign is paused. Please come back later."),
        (CampaignStatus.FINISHED, 410, "This campaign has finished. Thank you for your interest."),
    ],
)
def test_a_closed_campaign_asks_the_worker_to_return_the_hit(client, hit, status, code, message):
    hit.campaign.status = status
    hit.campaign.save()
    response = client.get(accept_url(hit))
    assert response.status_code == code
    assert f"{message} Please return this HIT on MTurk." in response.content.decode()
    assert counts() == (0, 0, 0, 0)


def test_an_excluded_worker_gets_nothing(client, hit):
    worker = Worker.objects.create(platform=Platform.MTURK, external_id=WORKER_ID)
    CampaignWorker.objects.create(campaign=hit.campaign, worker=worker, excluded=True)
    response = client.get(accept_url(hit))
    assert response.status_code == 410
    assert (
        "There are no more tasks for you in this campaign. Thank you. Please return this HIT "
        "on MTurk."
    ) in response.content.decode()
    assert Assignment.objects.count() == 0


def test_a_worker_who_failed_the_qualification_test_gets_nothing(client, hit):
    hit.campaign.qualification_required = True
    hit.campaign.save()
    worker = Worker.objects.create(platform=Platform.MTURK, external_id=WORKER_ID)
    CampaignWorker.objects.create(campaign=hit.campaign, worker=worker, qualification_passed=False)
    response = client.get(accept_url(hit))
    assert response.status_code == 410
    assert "You did not pass the qualification test" in response.content.decode()
    assert Assignment.objects.count() == 0


# --- The worker's country from MTurk's locale ----------------------------------------------


@pytest.mark.parametrize(
    ("locales", "country", "source"),
    [
        (["US-CA", "US-NY"], "US", CountrySource.MTURK_LOCALE),
        (["DE"], "DE", CountrySource.MTURK_LOCALE),
        (["US", "GB"], "", ""),
        ([], "", ""),
    ],
)
def test_a_single_locale_country_becomes_the_workers_country(client, hit, locales, country, source):
    hit.campaign.mturk_locales = locales
    hit.campaign.save()
    client.get(accept_url(hit))
    worker = Worker.objects.get()
    assert (worker.country, worker.country_source) == (country, source)


def test_a_country_the_worker_gave_is_kept(client, hit):
    hit.campaign.mturk_locales = ["US"]
    hit.campaign.save()
    Worker.objects.create(
        platform=Platform.MTURK,
        external_id=WORKER_ID,
        country="CA",
        country_source=CountrySource.FORM,
    )
    client.get(accept_url(hit))
    worker = Worker.objects.get()
    assert (worker.country, worker.country_source) == ("CA", CountrySource.FORM)


def test_single_locale_country():
    assert single_locale_country(["us-ca", "US"]) == "US"
    assert single_locale_country(["US", "GB-ENG"]) is None
    assert single_locale_country([]) is None


# --- The action on its own ---------------------------------------------------------------------


def test_the_action_sets_the_deadline_from_the_campaign(hit):
    now = timezone.now().replace(microsecond=0)
    hand_out = accept_mturk_assignment(
        hit, WORKER_ID, ASSIGNMENT_ID, MTURK_HIT_ID, SANDBOX, now=now
    )
    assert hand_out.kind == HandOutKind.NEW
    assert hand_out.assignment.expires_at == now + timedelta(seconds=3600)
    again = accept_mturk_assignment(
        hit, WORKER_ID, ASSIGNMENT_ID, MTURK_HIT_ID, SANDBOX, now=now + timedelta(minutes=5)
    )
    assert (again.kind, again.assignment.pk) == (HandOutKind.RESUMED, hand_out.assignment.pk)
    later = now + timedelta(hours=2)
    restarted = accept_mturk_assignment(
        hit, WORKER_ID, ASSIGNMENT_ID, MTURK_HIT_ID, SANDBOX, now=later
    )
    assert restarted.kind == HandOutKind.REACTIVATED
    assert Assignment.objects.get().expires_at == later + timedelta(seconds=3600)


# --- The post back to MTurk ------------------------------------------------------------------


def test_the_done_context_of_an_mturk_assignment(hit):
    hand_out = accept_mturk_assignment(hit, WORKER_ID, ASSIGNMENT_ID, MTURK_HIT_ID, SANDBOX)
    assert mturk_done_context(hand_out.assignment) == {
        "action": "https://workersandbox.mturk.com/mturk/externalSubmit",
        "assignment_id": ASSIGNMENT_ID,
    }


def test_no_done_context_for_a_direct_worker_or_a_host_no_longer_allowed(hit, settings):
    direct = AssignmentFactory(hit=hit, turk_submit_to=SANDBOX, platform_assignment_id="3X")
    assert mturk_done_context(direct) is None
    hand_out = accept_mturk_assignment(hit, WORKER_ID, ASSIGNMENT_ID, MTURK_HIT_ID, SANDBOX)
    settings.MTURK_SUBMIT_HOSTS = ["https://www.mturk.com"]
    assert mturk_done_context(hand_out.assignment) is None


def test_a_finished_mturk_qualification_test_posts_to_mturk_instead_of_moving_on(client, hit):
    test_hit = HitFactory(campaign=hit.campaign, number=9, is_qualification=True)
    hand_out = accept_mturk_assignment(test_hit, WORKER_ID, ASSIGNMENT_ID, "3TEST", SANDBOX)
    Assignment.objects.update(status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now())
    response = client.get(task_url(hand_out.assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        f'<form id="mturk-submit" class="mturk-submit" method="post" '
        f'action="{SANDBOX}/mturk/externalSubmit">'
    ) in html
    assert f'<input type="hidden" name="assignmentId" value="{ASSIGNMENT_ID}">' in html
    assert '<input type="hidden" name="evalsite" value="done">' in html
    assert "Do another task" not in html
    worker_link = reverse(
        "judgments:worker-link",
        args=[tokens.worker_token(hand_out.assignment.worker_id, hit.campaign_id)],
    )
    assert worker_link not in html and "/work/w/" not in html


def test_a_direct_workers_completion_page_has_no_mturk_form(client, hit):
    assignment = AssignmentFactory(
        hit=hit, status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now()
    )
    html = client.get(task_url(assignment)).content.decode()
    assert "Thank you!" in html
    assert "mturk" not in html.lower()
    # No other task for this worker: no button (issue 17); with one, the button.
    assert "Do another task" not in html
    HitSlotFactory(hit=HitFactory(campaign=hit.campaign))
    assert "Do another task" in client.get(task_url(assignment)).content.decode()


def test_the_resume_url_of_an_mturk_assignment_starts_it_again(client, hit):
    hand_out = accept_mturk_assignment(hit, WORKER_ID, ASSIGNMENT_ID, MTURK_HIT_ID, SANDBOX)
    Assignment.objects.update(status=AssignmentStatus.EXPIRED)

    url = mturk_resume_url(hand_out.assignment)

    assert url == accept_url(hit)
    response = client.get(url)
    assert response["Location"] == task_url(hand_out.assignment)
    assert Assignment.objects.get().status == AssignmentStatus.STARTED
    assert mturk_resume_url(AssignmentFactory(hit=hit)) is None
