"""The hand-worked post-editing campaign shared by the post-editing test modules.

Two systems A and B; document D1 with segments 1 and 2, document D2 with segment 3; runs of
two segments (``segments_per_hit`` 2), redundancy 2. ``campaigns.actions.build_hits`` lays
out four edit HITs (a Latin square per run): {A1, B2}, {B1, A2}, {A3}, {B3}. Editors ed1 and
ed2 do the HITs holding A1 and A3, ed3 and ed4 those holding B1 and B3; ed4 leaves every
segment untouched. ``campaigns.kinds.post_editing.verification.build_verification_hits``
builds one verification HIT per edit assignment, and verifiers v1, v2, v3 vote on some
edits (a vote is yes when both answers are yes).

No punctuation and lower case, so that TER is plain word edits (sacrebleu agrees: checked in
tests/analytics/kinds/post_editing/test_actions.py). TER(hypothesis -> reference) = edits /
words of the reference:

    segment  reference                       A's output                B's output
    1        the cat sat on the mat          the cat sits on mat  2/6  a cat sat on the mat  1/6
    2        he went to the market today     he goes to market today 2/6  he went to the market 1/6
    3        we like green tea               we like green tea    0/4  we love the green tea  2/4

    edit (TER MT -> edit; edit -> reference)        votes                  outcome
    ed1 A1 "the cat sat on the mat"   2/6; 0/6      v1 yes, v2 yes         passed
    ed2 A1 "the cat sat on mat"       1/5; 1/6      v1 no, v2 yes          failed (tie)
    ed1 B2 "he went to the market today" 1/6; 0/6   v1 yes, v2 no, v3 no   failed
    ed2 B2 unchanged                  0/5; 1/6      none                   unverified
    ed1 A3 unchanged                  0/4; 0/4      none                   unverified
    ed2 A3 unchanged                  0/4; 0/4      none                   unverified
    ed3 B1 "the cat sat on the mat"   1/6; 0/6      v1 no, v2 no           failed
    ed3 A2 "he went to the market today" 2/6; 0/6   v1 yes                 passed
    ed3 B3 "we love green tea"        1/4; 1/4      v2 yes, v3 yes         passed
    ed4 B1, A2, B3 unchanged   0/6, 0/5, 0/5; 1/6, 2/6, 2/4   none          unverified
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import timezone

from analytics import actions
from campaigns.actions import build_hits
from campaigns.kinds.post_editing.verification import build_verification_hits
from campaigns.models import Campaign, HitSlot, HitTask, TaskKind
from judgments.models import Assignment, AssignmentStatus, Judgment, Platform, Worker
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)

REFERENCES = {
    1: "the cat sat on the mat",
    2: "he went to the market today",
    3: "we like green tea",
}
OUTPUTS = {
    ("A", 1): "the cat sits on mat",
    ("B", 1): "a cat sat on the mat",
    ("A", 2): "he goes to market today",
    ("B", 2): "he went to the market",
    ("A", 3): "we like green tea",
    ("B", 3): "we love the green tea",
}
# Who edits which outputs (the editors of one HIT edit the same outputs), and how.
EDITS = {
    "ed1": {
        ("A", 1): "the cat sat on the mat",
        ("B", 2): "he went to the market today",
        ("A", 3): "we like green tea",
    },
    "ed2": {
        ("A", 1): "the cat sat on mat",
        ("B", 2): "he went to the market",
        ("A", 3): "we like green tea",
    },
    "ed3": {
        ("B", 1): "the cat sat on the mat",
        ("A", 2): "he went to the market today",
        ("B", 3): "we love green tea",
    },
    "ed4": {
        ("B", 1): "a cat sat on the mat",
        ("A", 2): "he goes to market today",
        ("B", 3): "we love the green tea",
    },
}
# (editor, output) -> [(verifier, same meaning, acceptable)]
VOTES = {
    ("ed1", ("A", 1)): [("v1", True, True), ("v2", True, True)],
    ("ed2", ("A", 1)): [("v1", False, True), ("v2", True, True)],
    ("ed1", ("B", 2)): [("v1", True, True), ("v2", True, False), ("v3", False, False)],
    ("ed3", ("B", 1)): [("v1", False, True), ("v2", True, False)],
    ("ed3", ("A", 2)): [("v1", True, True)],
    ("ed3", ("B", 3)): [("v2", True, True), ("v3", True, True)],
}
# The professional's edits of every output (003's gold), for the campaigns with a gold editor.
GOLD_EDITS = {
    ("A", 1): "the cat sat on the mat",
    ("B", 1): "the cat sat on the mat",
    ("A", 2): "he went to the market today",
    ("B", 2): "he went to the market today",
    ("A", 3): "we like green tea",
    ("B", 3): "we like green tea",
}


@dataclass
class PECampaign:
    campaign: Campaign
    systems: dict[str, int]
    segments: dict[int, int]
    outputs: dict[tuple[str, int], int]
    workers: dict[str, Worker]
    edits: dict[tuple[str, tuple[str, int]], Judgment] = field(default_factory=dict)
    votes: list[Judgment] = field(default_factory=list)
    suffix: str = ""  # of the workers' external ids, for several campaigns in one test

    def edit(self, editor: str, system: str, segment: int) -> Judgment:
        return self.edits[(editor, (system, segment))]


def _slots_by_output(campaign: Campaign) -> dict[int, HitSlot]:
    return {
        slot.output_id: slot
        for slot in HitSlot.objects.filter(hit__campaign=campaign, hit__task=HitTask.POST_EDIT)
    }


def edit_hit(built: PECampaign, editor: str, outputs: dict, platform: str = Platform.DIRECT):
    """``editor`` edits ``outputs`` ({(system, segment): text}), one submitted assignment per
    edit HIT they touch, judgments in slot order."""
    slots = _slots_by_output(built.campaign)
    by_hit: dict[int, list[tuple[HitSlot, tuple[str, int], str]]] = {}
    for key, text in outputs.items():
        slot = slots[built.outputs[key]]
        by_hit.setdefault(slot.hit_id, []).append((slot, key, text))
    worker = built.workers.get(editor) or WorkerFactory(
        external_id=editor + built.suffix, platform=platform
    )
    built.workers[editor] = worker
    now = timezone.now()
    for hit_id in sorted(by_hit):
        assignment = AssignmentFactory(
            hit_id=hit_id,
            campaign=built.campaign,
            worker=worker,
            status=AssignmentStatus.SUBMITTED,
            submitted_at=now,
        )
        for slot, key, text in sorted(by_hit[hit_id], key=lambda item: item[0].position):
            built.edits[(editor, key)] = Judgment.objects.create(
                campaign=built.campaign,
                worker=worker,
                assignment=assignment,
                slot=slot,
                text=text,
                details={"keystrokes": len(text), "no_changes": text == slot.shown_text},
                client_duration_ms=20_000,
            )


def vote(built: PECampaign, votes: dict) -> None:
    """The verifiers' votes: one assignment per (verifier, verification HIT)."""
    slots = {
        slot.about_judgment_id: slot
        for slot in HitSlot.objects.filter(
            hit__campaign=built.campaign, hit__task=HitTask.VERIFY_EDIT
        )
    }
    assignments: dict[tuple[str, int], Assignment] = {}
    for (editor, key), answers in votes.items():
        slot = slots[built.edits[(editor, key)].pk]
        for verifier, same, acceptable in answers:
            worker = built.workers.get(verifier) or WorkerFactory(
                external_id=verifier + built.suffix
            )
            built.workers[verifier] = worker
            assignment = assignments.get((verifier, slot.hit_id))
            if assignment is None:
                assignment = assignments[(verifier, slot.hit_id)] = AssignmentFactory(
                    hit_id=slot.hit_id,
                    campaign=built.campaign,
                    worker=worker,
                    status=AssignmentStatus.SUBMITTED,
                    submitted_at=timezone.now(),
                )
            built.votes.append(
                Judgment.objects.create(
                    campaign=built.campaign,
                    worker=worker,
                    assignment=assignment,
                    slot=slot,
                    yes_no=same,
                    yes_no_second=acceptable,
                )
            )


def build_pe_campaign(
    *, gold: bool = False, votes: bool = True, suffix: str = "", **settings
) -> PECampaign:
    """The hand-worked campaign with every edit and vote stored (no recompute has run).
    ``gold``: the professional "pro" (an imported worker, the settings' gold editor) edits
    every output too. ``suffix`` is appended to every worker's external id."""
    fields = {
        "kind": TaskKind.POST_EDITING,
        "redundancy": 2,
        "segments_per_hit": 2,
        "verifiers_per_edit": 3,
        "hit_seed": 7,
        **({"gold_editor": "pro" + suffix} if gold else {}),
        **settings,
    }
    campaign = CampaignFactory(**fields)
    actions.clear_recompute_flag(campaign.pk)
    d1 = DocumentFactory(campaign=campaign, external_id="D1", position=1)
    d2 = DocumentFactory(campaign=campaign, external_id="D2", position=2)
    systems = {name: SystemFactory(campaign=campaign, name=name) for name in "AB"}
    segments = {
        n: SegmentFactory(
            document=d1 if n < 3 else d2,
            position=n if n < 3 else 1,
            external_id=str(n),
            source=f"Quelle {n}",
            references=[REFERENCES[n]],
        )
        for n in (1, 2, 3)
    }
    outputs = {
        (name, n): OutputFactory(segment=segments[n], system=systems[name], text=text).pk
        for (name, n), text in OUTPUTS.items()
    }
    build_hits(campaign)
    built = PECampaign(
        campaign=campaign,
        systems={name: system.pk for name, system in systems.items()},
        segments={n: segment.pk for n, segment in segments.items()},
        outputs=outputs,
        workers={},
        suffix=suffix,
    )
    for editor, edits in EDITS.items():
        edit_hit(built, editor, edits)
    if gold:
        edit_hit(built, "pro", GOLD_EDITS, platform=Platform.IMPORTED)
    build_verification_hits(campaign)
    if votes:
        vote(built, VOTES)
    return built
