"""The hand-worked translation campaign shared by the translation analytics tests.

Two systems A and B; document D1 with sentences 1 and 2 (one translation run, HIT 1),
document D2 with sentence 3 (HIT 2); redundancy 3, three Detect-MT voters, threshold chrF 90,
exclusion at 30%. The HITs are laid out here as the conventions say (TRANSLATE slots with
role source, DETECT_MT slots about each translation), so the tests do not depend on the
campaigns side's builder.

    sentence  reference                      A's output                     B's output
    1         the cat sat on the mat         the cat is sitting on the mat  a cat sat on a mat
    2         he went to the market today    he goes to the market today    today he went to market
    3         we like green tea              we love green tea              green tea we like

Translators: t1 gives the references; t2 its own; t3 pastes system A's output everywhere
(chrF 100 to A: flagged by similarity, 3 of 3 decided, excluded). Detect-MT votes (v1, v2,
v3): t1's translations all "human"; t2's sentence 1 machine, machine, human (flagged, 2 of 3),
sentence 2 human, human (decided: not flagged), sentence 3 machine, human (pending): t2 is
flagged in 1 of 2 decided (50%) but under the three decided translations needed.

Kept (consensus): sentence 1 t1 (the only eligible one; final); sentences 2 and 3: t1 or t2 by
mean chrF (sentence 3 provisional: t2's votes are pending).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import timezone

from analytics import actions
from campaigns.models import Campaign, Hit, HitSlot, HitTask, SlotRole, TaskKind
from judgments.models import Assignment, AssignmentStatus, Judgment, Worker
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
    ("A", 1): "the cat is sitting on the mat",
    ("B", 1): "a cat sat on a mat",
    ("A", 2): "he goes to the market today",
    ("B", 2): "today he went to market",
    ("A", 3): "we love green tea",
    ("B", 3): "green tea we like",
}
TRANSLATIONS = {
    "t1": dict(REFERENCES),
    "t2": {1: "the cat sat on a mat", 2: "he went to market today", 3: "we like the green tea"},
    "t3": {n: OUTPUTS[("A", n)] for n in (1, 2, 3)},
}
# (translator, sentence) -> [(voter, looks machine made)]
VOTES = {
    ("t1", 1): [("v1", False), ("v2", False), ("v3", False)],
    ("t1", 2): [("v1", False), ("v2", False), ("v3", False)],
    ("t1", 3): [("v1", False), ("v2", False), ("v3", False)],
    ("t2", 1): [("v1", True), ("v2", True), ("v3", False)],
    ("t2", 2): [("v1", False), ("v2", False)],
    ("t2", 3): [("v1", True), ("v2", False)],
    ("t3", 1): [("v1", True)],
}
RUNS = {1: (1, 2), 2: (3,)}  # HIT number -> sentences


@dataclass
class TRCampaign:
    campaign: Campaign
    systems: dict[str, int]
    segments: dict[int, int]
    workers: dict[str, Worker] = field(default_factory=dict)
    translations: dict[tuple[str, int], Judgment] = field(default_factory=dict)
    hits: dict[int, Hit] = field(default_factory=dict)
    next_number: int = 3

    def translation(self, translator: str, sentence: int) -> Judgment:
        return self.translations[(translator, sentence)]

    def worker(self, name: str) -> Worker:
        if name not in self.workers:
            self.workers[name] = WorkerFactory(external_id=name)
        return self.workers[name]


def translate(
    built: TRCampaign, translator: str, texts: dict[int, str], status=AssignmentStatus.SUBMITTED
):
    """``translator`` translates the sentences of ``texts``: one assignment per HIT."""
    worker = built.worker(translator)
    for number, sentences in RUNS.items():
        todo = [n for n in sentences if n in texts]
        if not todo:
            continue
        hit = built.hits[number]
        assignment = AssignmentFactory(
            hit=hit, campaign=built.campaign, worker=worker, status=status,
            submitted_at=timezone.now(),
        )  # fmt: skip
        for n in todo:
            slot = hit.slots.get(segment_id=built.segments[n])
            built.translations[(translator, n)] = Judgment.objects.create(
                campaign=built.campaign, worker=worker, assignment=assignment, slot=slot,
                text=texts[n], details={"keystrokes": len(texts[n]), "pastes": 0, "seconds": 9.0},
            )  # fmt: skip


def build_detect_hits(built: TRCampaign, places: int = 3) -> None:
    """One Detect-MT HIT per translation assignment (as the campaigns side builds them)."""
    by_assignment: dict[int, list[Judgment]] = {}
    for judgment in built.translations.values():
        by_assignment.setdefault(judgment.assignment_id, []).append(judgment)
    done = set(
        HitSlot.objects.filter(
            hit__campaign=built.campaign, hit__task=HitTask.DETECT_MT
        ).values_list("about_judgment__assignment_id", flat=True)
    )
    for assignment_id in sorted(by_assignment):
        if assignment_id in done:
            continue
        hit = Hit.objects.create(
            campaign=built.campaign, task=HitTask.DETECT_MT, number=built.next_number,
            places=places,
        )  # fmt: skip
        built.next_number += 1
        for judgment in sorted(by_assignment[assignment_id], key=lambda j: j.slot.position):
            HitSlot.objects.create(
                hit=hit, position=judgment.slot.position, group=judgment.slot.group,
                role=SlotRole.SYSTEM, segment_id=judgment.slot.segment_id,
                about_judgment=judgment, shown_text=judgment.text,
            )  # fmt: skip


def vote(built: TRCampaign, votes: dict) -> None:
    slots = {
        slot.about_judgment_id: slot
        for slot in HitSlot.objects.filter(
            hit__campaign=built.campaign, hit__task=HitTask.DETECT_MT
        )
    }
    assignments: dict[tuple[str, int], Assignment] = {}
    for key, answers in votes.items():
        slot = slots[built.translations[key].pk]
        for voter, machine in answers:
            worker = built.worker(voter)
            assignment = assignments.get((voter, slot.hit_id))
            if assignment is None:
                assignment = assignments[(voter, slot.hit_id)] = AssignmentFactory(
                    hit_id=slot.hit_id, campaign=built.campaign, worker=worker,
                    status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now(),
                )  # fmt: skip
            Judgment.objects.create(
                campaign=built.campaign, worker=worker, assignment=assignment, slot=slot,
                yes_no=machine,
            )  # fmt: skip


def correct(built: TRCampaign, corrector: str, kept: Judgment, text: str) -> Judgment:
    """A correction HIT of one slot about ``kept`` (as the campaigns side builds them) and
    ``corrector``'s correction."""
    hit = Hit.objects.create(
        campaign=built.campaign, task=HitTask.POST_EDIT, number=built.next_number, places=1
    )
    built.next_number += 1
    slot = HitSlot.objects.create(
        hit=hit, position=1, group=kept.slot.group, role=SlotRole.SYSTEM,
        segment_id=kept.slot.segment_id, about_judgment=kept, shown_text=kept.text,
    )  # fmt: skip
    worker = built.worker(corrector)
    assignment = AssignmentFactory(
        hit=hit, campaign=built.campaign, worker=worker, status=AssignmentStatus.SUBMITTED,
        submitted_at=timezone.now(),
    )  # fmt: skip
    return Judgment.objects.create(
        campaign=built.campaign, worker=worker, assignment=assignment, slot=slot, text=text
    )


def build_tr_campaign(*, votes: bool = True, **settings) -> TRCampaign:
    fields = {
        "kind": TaskKind.TRANSLATION,
        "redundancy": 3,
        "segments_per_hit": 2,
        "detect_mt_voters": 3,
        "hit_seed": 3,
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
        )  # fmt: skip
        for n in (1, 2, 3)
    }
    for (name, n), text in OUTPUTS.items():
        OutputFactory(segment=segments[n], system=systems[name], text=text)
    built = TRCampaign(
        campaign=campaign,
        systems={name: system.pk for name, system in systems.items()},
        segments={n: segment.pk for n, segment in segments.items()},
    )
    for number, sentences in RUNS.items():
        hit = Hit.objects.create(
            campaign=campaign, task=HitTask.TRANSLATE, number=number,
            document=segments[sentences[0]].document,
        )  # fmt: skip
        for position, n in enumerate(sentences, start=1):
            HitSlot.objects.create(
                hit=hit, position=position, group=number, role=SlotRole.SOURCE,
                segment=segments[n], shown_text=f"Quelle {n}",
            )  # fmt: skip
        built.hits[number] = hit
    for translator, texts in TRANSLATIONS.items():
        translate(built, translator, texts)
    build_detect_hits(built)
    if votes:
        vote(built, VOTES)
    return built
