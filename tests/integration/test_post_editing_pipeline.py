"""Post-editing on the real stack (issue 13 item 8): two editors' HITs through the real
submission code path (record_judgment, which sends judgments_recorded after each commit); a
real Celery worker (deploy/worker.sh) on Redis and PostgreSQL builds the verification HITs from
the submitted edits by itself, a verifier answers them, and the worker's recompute stores the
HTER that the hand-worked tables below predict, with the did-nothing flag on the editor who left
everything untouched.

The campaign and the hand-worked numbers at the top are shared with
tests/e2e/test_post_editing_full_loop.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from analytics import actions as analytics_actions
from campaigns.actions import build_hits
from campaigns.models import Campaign, Hit, HitTask, TaskKind
from judgments import actions as judgment_actions
from judgments.models import Assignment, Judgment
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)
from tests.integration.conftest import DEPLOY_DIR

pytestmark = pytest.mark.integration

# --- Shared with the browser test --------------------------------------------------------

REFERENCES = {1: "the cat sat on the mat", 2: "it is raining today", 3: "we eat bread every day"}
MT = {
    (1, "sys-a"): "the cat sat on mat",
    (1, "sys-b"): "a cat sat on the mat",
    (2, "sys-a"): "it rains today",
    (2, "sys-b"): "it is raining today",
    (3, "sys-a"): "we eat bread each day",
    (3, "sys-b"): "we eat the bread every day",
}
# The careful editor's edit of each output, and TER(hypothesis = MT output, reference = the
# edit) worked by hand with tercom's defaults (lower-cased, words split on spaces):
#   1/sys-a: "the cat sat on mat" -> "the cat sat on a mat": insert "a", 1 edit / 6 words;
#   1/sys-b: "a cat sat on the mat" -> "the cat sat on this mat": a->the, the->this: 2 / 6;
#   2/sys-a: "it rains today" -> "it rains heavily today": insert "heavily", 1 / 4;
#   2/sys-b: "it is raining today" -> "it is raining hard today": insert "hard", 1 / 5;
#   3/sys-a: "we eat bread each day" -> "we eat fresh bread each day": insert "fresh", 1 / 6;
#   3/sys-b: "we eat the bread every day" -> "we eat bread every day": delete "the", 1 / 5.
EDITS = {
    (1, "sys-a"): ("the cat sat on a mat", 1, 6),
    (1, "sys-b"): ("the cat sat on this mat", 2, 6),
    (2, "sys-a"): ("it rains heavily today", 1, 4),
    (2, "sys-b"): ("it is raining hard today", 1, 5),
    (3, "sys-a"): ("we eat fresh bread each day", 1, 6),
    (3, "sys-b"): ("we eat bread every day", 1, 5),
}
# TER of each MT output against the reference, used when no edit of the output passed:
#   1/sys-a: insert "the": 1 / 6;  1/sys-b: a->the: 1 / 6;
#   2/sys-a: "it rains today" vs "it is raining today": rains->is, insert "raining": 2 / 4;
#   2/sys-b: identical: 0 / 4;
#   3/sys-a: each->every: 1 / 5;  3/sys-b: delete "the": 1 / 5.
AGAINST_REFERENCE = {
    (1, "sys-a"): (1, 6),
    (1, "sys-b"): (1, 6),
    (2, "sys-a"): (2, 4),
    (2, "sys-b"): (0, 4),
    (3, "sys-a"): (1, 5),
    (3, "sys-b"): (1, 5),
}


def build_post_editing_campaign(**fields) -> Campaign:
    """Two systems, one document of three segments, one editor per output (redundancy 1) and
    one verifier per edit: the builder makes one run and two HITs, each showing the three
    segments, consecutive segments by different systems (three edits a HIT: enough for the
    did-nothing flag, which needs at least three edits of a worker)."""
    settings = {"verifiers_per_edit": 1, "segments_per_hit": 10} | fields.pop("settings", {})
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING, redundancy=1, **settings, **fields)
    analytics_actions.clear_recompute_flag(campaign.pk)
    document = DocumentFactory(campaign=campaign)
    systems = {name: SystemFactory(campaign=campaign, name=name) for name in ("sys-a", "sys-b")}
    for position, reference in REFERENCES.items():
        segment = SegmentFactory(
            document=document,
            external_id=str(position),
            position=position,
            source=f"Satz {position}",
            references=[reference],
        )
        for name, system in systems.items():
            OutputFactory(segment=segment, system=system, text=MT[position, name])
    assert build_hits(campaign) == 2
    return campaign


def cells_of(assignment: Assignment) -> dict[int, tuple[int, str]]:
    """Server-side knowledge of each position of an edit HIT: (segment position, system)."""
    rows = assignment.hit.slots.values_list("position", "segment__position", "output__system__name")
    return {position: (segment, system) for position, segment, system in rows}


def expected_hter(careful_cells, untouched_cells) -> dict[str, dict[str, Fraction]]:
    """Per system: corpus HTER (edits summed over segments / reference words summed) and the
    mean of segment HTER, when the careful editor's edits passed verification and the
    untouched ones failed (so those outputs fall back to TER against the reference)."""
    per_system: dict[str, list[tuple[int, int]]] = {}
    for cell in careful_cells:
        _, edits, words = EDITS[cell]
        per_system.setdefault(cell[1], []).append((edits, words))
    for cell in untouched_cells:
        per_system.setdefault(cell[1], []).append(AGAINST_REFERENCE[cell])
    return {
        system: {
            "corpus": Fraction(sum(e for e, _ in rows), sum(w for _, w in rows)),
            "mean": sum((Fraction(e, w) for e, w in rows), Fraction(0)) / len(rows),
            "passed": sum(1 for cell in careful_cells if cell[1] == system),
            "outputs": len(rows),
        }
        for system, rows in per_system.items()
    }


# --- The pipeline --------------------------------------------------------------------------

WORKER_READY_TIMEOUT = 30
STEP_TIMEOUT = 60


def edit_hit(assignment: Assignment, careful: bool) -> Assignment:
    """One editor's whole HIT through record_judgment: the careful editor types EDITS, the
    other says "no changes needed" for every segment."""
    worker = assignment.worker
    assert assignment.hit.task == HitTask.POST_EDIT
    for position, cell in sorted(cells_of(assignment).items()):
        judgment_actions.record_judgment(
            assignment.pk,
            worker.pk,
            {
                "position": position,
                "text": EDITS[cell][0] if careful else MT[cell],
                "keystrokes": 9 if careful else 0,
                "no_changes": not careful,
                "resets": 0,
                "pasted": False,
                "client_duration_ms": 8000 if careful else 900,
            },
        )
    return assignment


def verify_hit(worker, campaign, passes) -> Assignment:
    """One verification HIT: ``passes(edit judgment)`` answers both questions."""
    assignment = judgment_actions.next_assignment_for(worker, campaign).assignment
    assert assignment.hit.task == HitTask.VERIFY_EDIT
    for slot in assignment.hit.slots.select_related("about_judgment").order_by("position"):
        answer = passes(slot.about_judgment)
        judgment_actions.record_judgment(
            assignment.pk,
            worker.pk,
            {"position": slot.position, "same_meaning": answer, "acceptable": answer},
        )
    return assignment


def test_a_celery_worker_builds_verification_hits_and_stores_hter(
    postgres_required,
    redis_url,
    unique_queue,
    subprocess_env,
    start_service,
    settings,
):
    from analytics.models import PostEditingResult, PostEditingSystemScore, PostEditingWorkerStat
    from evalsite.celery import app as celery_app

    assert celery_app.conf.task_always_eager is False  # sent through Redis, not inline
    settings.ANALYTICS_RECOMPUTE_QUEUE = unique_queue
    settings.ANALYTICS_RECOMPUTE_COUNTDOWN = 1.0
    campaign = build_post_editing_campaign()

    worker = start_service(
        "celery-worker",
        [
            str(DEPLOY_DIR / "worker.sh"),
            "--pool=solo",
            "--concurrency=1",
            f"--queues={unique_queue}",
            f"--hostname={unique_queue}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        subprocess_env,
    )
    worker.wait_until(lambda: " ready." in worker.log(), WORKER_READY_TIMEOUT, "worker ready")

    careful = judgment_actions.create_pseudonymous_worker()
    untouched = judgment_actions.create_pseudonymous_worker()
    verifier = judgment_actions.create_pseudonymous_worker()
    # Both editors start before either submits: verification HITs, once they exist, are
    # handed out first.
    careful_hit, untouched_hit = (
        judgment_actions.next_assignment_for(editor, campaign).assignment
        for editor in (careful, untouched)
    )
    edit_hit(careful_hit, careful=True)
    edit_hit(untouched_hit, careful=False)
    assert Judgment.objects.filter(campaign=campaign).count() == 6

    # No requester step: the worker's recompute builds one verification HIT per submitted
    # edit assignment.
    verification = Hit.objects.filter(campaign=campaign, task=HitTask.VERIFY_EDIT)
    worker.wait_until(lambda: verification.count() == 2, STEP_TIMEOUT, "2 verification HITs")
    assert set(verification.values_list("places", flat=True)) == {1}

    careful_edits = set(careful_hit.judgments.values_list("pk", flat=True))
    for _ in range(2):  # one verification HIT per editor, the careful editor's edits pass
        verify_hit(verifier, campaign, lambda edit: edit.pk in careful_edits)
    assert judgment_actions.next_assignment_for(verifier, campaign).assignment is None

    def reflects_everything() -> bool:
        result = PostEditingResult.objects.filter(campaign=campaign).first()
        return result is not None and result.n_judgments == 12

    worker.wait_until(reflects_everything, STEP_TIMEOUT, "results over all 12 judgments")

    # With every editor counted, the untouched editor's failed edits make their outputs fall
    # back to TER against the reference; by default that editor, flagged for doing nothing,
    # is left out, and outputs with no counted edit are not scored yet.
    careful_cells = list(cells_of(careful_hit).values())
    untouched_cells = list(cells_of(untouched_hit).values())
    for include_flagged, expected in (
        (True, expected_hter(careful_cells, untouched_cells)),
        (False, expected_hter(careful_cells, [])),
    ):
        stored = {
            score.system.name: score
            for score in PostEditingSystemScore.objects.filter(
                campaign=campaign, include_flagged=include_flagged
            ).select_related("system")
        }
        assert set(stored) == {"sys-a", "sys-b"}
        for name, numbers in expected.items():
            score = stored[name]
            assert score.corpus == pytest.approx(float(numbers["corpus"]), abs=1e-12)
            assert score.mean == pytest.approx(float(numbers["mean"]), abs=1e-12)
            assert (score.n_outputs, score.n_passed) == (numbers["outputs"], numbers["passed"])

    profiles = {
        stat.worker_id: stat for stat in PostEditingWorkerStat.objects.filter(campaign=campaign)
    }
    assert profiles[untouched.pk].did_nothing is True
    assert profiles[careful.pk].did_nothing is False
    assert profiles[careful.pk].copied_reference is False
    result = PostEditingResult.objects.get(campaign=campaign)
    assert (result.n_edits, result.n_votes, result.n_passed, result.n_failed) == (6, 6, 3, 3)
    analytics_actions.clear_recompute_flag(campaign.pk)
