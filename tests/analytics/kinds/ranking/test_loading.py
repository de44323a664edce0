"""analytics.kinds.ranking.loading.load_ranking_judgments: a ranking campaign as exact arrays,
in a fixed number of queries. The hand-worked campaign built here is shared by the other
ranking test modules (tests/analytics/kinds/ranking/, tests/analytics/api/)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
import pytest

from analytics import actions
from analytics.kinds.ranking.loading import (
    _expected_rank,
    by_id,
    load_ranking_judgments,
    ranking_set_id,
)
from analytics.stats.ranking import RankingJudgments
from campaigns.models import Campaign, GoldScheme, Hit, HitSlot, HitTask, SlotRole, TaskKind
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    DocumentFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

# --- The hand-worked campaign ------------------------------------------------------------------
#
# Three systems A, B, C; four segments; sets of three outputs, three sets per HIT; best-only
# gold ("G", the gold translation, expected rank 1) in two sets. A qualification HIT (number 3)
# holds one training set. Trust is decided after 2 gold units (70% right).
#
#   HIT 1: set 0 = segment 1 {A, B, C}, set 1 = segment 2 {A, B, C}, set 2 = segment 3 {G, A, C}
#   HIT 2: set 0 = segment 4 {A, B, C}, set 1 = segment 3 {G, B, C}, set 2 = segment 2 {A, B, C}
SETS = [
    (1, 0, 1, "ABC"),
    (1, 1, 2, "ABC"),
    (1, 2, 3, "GAC"),
    (2, 0, 4, "ABC"),
    (2, 1, 3, "GBC"),
    (2, 2, 2, "ABC"),
]
QUALIFICATION_SET = (3, 0, 1, "GAB")

# How each kind of worker ranks each kind of set (1 = best; ties share a rank).
CAREFUL = {
    "ABC": {"A": 1, "B": 2, "C": 3},
    "GAC": {"G": 1, "A": 2, "C": 3},
    "GBC": {"G": 1, "B": 2, "C": 3},
    "GAB": {"G": 1, "A": 2, "B": 3},
}
TIES = {  # A and B tie; gold right
    "ABC": {"A": 1, "B": 1, "C": 3},
    "GAC": {"G": 1, "A": 2, "C": 3},
    "GBC": {"G": 1, "B": 2, "C": 2},
}
REVERSED = {  # everything backwards: fails both gold units
    "ABC": {"A": 3, "B": 2, "C": 1},
    "GAC": {"G": 3, "A": 2, "C": 1},
    "GBC": {"G": 3, "B": 1, "C": 2},
}

# Workers: (name, HITs, answers, assignment status). In this order the judgments are created.
WORKERS = [
    ("careful", (1, 2), CAREFUL, AssignmentStatus.SUBMITTED),
    ("ties", (1, 2), TIES, AssignmentStatus.SUBMITTED),
    ("reversed", (1, 2), REVERSED, AssignmentStatus.SUBMITTED),
    ("excluded", (1,), CAREFUL, AssignmentStatus.SUBMITTED),
    ("rejected", (2,), TIES, AssignmentStatus.REJECTED),
]


@dataclass
class RankingCampaign:
    campaign: Campaign
    systems: dict[str, int]
    segments: dict[int, int]
    hits: dict[int, Hit]
    # (hit number, group) -> [(member, slot)] in position order
    slots: dict[tuple[int, int], list[tuple[str, HitSlot]]]
    workers: dict[str, int]
    assignments: dict[tuple[str, int], Assignment]
    gold_text: str = "The gold translation."
    rows: list[dict] = field(default_factory=list)  # the expected loaded rows, in id order

    def judgments(self, names=None, *, scored_only=False) -> RankingJudgments:
        """The expected input of the statistics, written out from the plan (not loaded)."""
        rows = [
            row
            for row in self.rows
            if (names is None or row["name"] in names) and not (scored_only and row["rejected"])
        ]
        columns = ("worker", "assignment", "ranking_set", "segment", "system", "rank")
        return RankingJudgments(
            **{name: [row[name] for row in rows] for name in columns},
            expected_rank=[row["expected_rank"] for row in rows],
            order=[float(row["id"]) for row in rows],
        )


def build_ranking_campaign(suffix: str = "", **fields) -> RankingCampaign:
    """The hand-worked campaign, every judgment stored (no recompute has run)."""
    settings = {
        "kind": TaskKind.RANKING,
        "outputs_per_set": 3,
        "sets_per_hit": 3,
        "redundancy": 4,
        "gold_scheme": GoldScheme.BEST_ONLY,
        "trust_min_gold": 2,
        "trust_min_accuracy": Decimal("0.700"),
        **fields,
    }
    campaign = CampaignFactory(**settings)
    actions.clear_recompute_flag(campaign.pk)
    document = DocumentFactory(campaign=campaign)
    systems = {name: SystemFactory(campaign=campaign, name=name) for name in "ABC"}
    segments = {
        n: SegmentFactory(document=document, position=n, external_id=str(n)) for n in range(1, 5)
    }
    outputs = {
        (name, n): OutputFactory(
            segment=segment, system=system, text=f"Segment {n} as {name} translated it."
        )
        for n, segment in segments.items()
        for name, system in systems.items()
    }
    hits = {
        number: HitFactory(
            campaign=campaign, task=HitTask.RANK, number=number, is_qualification=number == 3
        )
        for number in (1, 2, 3)
    }
    built = RankingCampaign(
        campaign=campaign,
        systems={name: system.pk for name, system in systems.items()},
        segments={n: segment.pk for n, segment in segments.items()},
        hits=hits,
        slots={},
        workers={},
        assignments={},
    )
    position = {1: 0, 2: 0, 3: 0}
    for number, group, segment_number, members in [*SETS, QUALIFICATION_SET]:
        placed = []
        for member in members:
            position[number] += 1
            segment = segments[segment_number]
            if member == "G":
                slot = HitSlotFactory(
                    hit=hits[number],
                    position=position[number],
                    group=group,
                    role=SlotRole.TRAINING if number == 3 else SlotRole.GOLD,
                    segment=segment,
                    output=None,
                    shown_text=built.gold_text,
                    expected_rank_min=1,
                    expected_rank_max=1,
                )
            else:
                output = outputs[(member, segment_number)]
                slot = HitSlotFactory(
                    hit=hits[number],
                    position=position[number],
                    group=group,
                    role=SlotRole.TRAINING if number == 3 else SlotRole.SYSTEM,
                    segment=segment,
                    output=output,
                    shown_text=output.text,
                )
            placed.append((member, slot))
        built.slots[(number, group)] = placed

    def judge(name, number, answers, status):
        assignment = built.assignments.get((name, number))
        if assignment is None:
            assignment = AssignmentFactory(
                hit=hits[number], worker_id=built.workers[name], status=status
            )
            built.assignments[(name, number)] = assignment
        for (hit_number, group), placed in built.slots.items():
            if hit_number != number:
                continue
            kind = "".join(member for member, _ in placed)
            ranks = answers[kind]
            stored = Judgment.objects.bulk_create(
                Judgment(
                    campaign=campaign,
                    worker_id=assignment.worker_id,
                    assignment=assignment,
                    slot=slot,
                    rank=ranks[member],
                )
                for member, slot in placed
            )
            if number == 3:
                continue
            set_id = ranking_set_id(hits[number].pk, group)
            segment_id = placed[0][1].segment_id
            for (member, slot), judgment in zip(placed, stored, strict=True):
                built.rows.append(
                    {
                        "id": judgment.pk,
                        "name": name,
                        "worker": assignment.worker_id,
                        "assignment": assignment.pk,
                        "ranking_set": set_id,
                        "segment": segment_id,
                        "system": -1 if member == "G" else built.systems[member],
                        "rank": ranks[member],
                        "expected_rank": 1 if member == "G" else 0,
                        "slot": slot.pk,
                        "rejected": status == AssignmentStatus.REJECTED,
                        "excluded": name == "excluded",
                    }
                )

    for name, *_ in WORKERS:
        built.workers[name] = WorkerFactory(external_id=f"{name}{suffix}").pk
    CampaignWorker.objects.create(
        campaign=campaign, worker_id=built.workers["excluded"], excluded=True
    )
    for name, numbers, answers, status in WORKERS:
        for number in numbers:
            judge(name, number, answers, status)
    judge("careful", 3, CAREFUL, AssignmentStatus.SUBMITTED)  # the qualification test
    return built


@pytest.fixture
def ranking() -> RankingCampaign:
    built = build_ranking_campaign()
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


# --- Loading -----------------------------------------------------------------------------------


def test_loads_exact_arrays_of_the_hand_built_campaign(ranking):
    JudgmentFactory(rank=2, score=None)  # another campaign's ranking: not read
    loaded = load_ranking_judgments(ranking.campaign.pk)
    j = loaded.judgments
    rows = ranking.rows
    assert len(rows) == 72  # 9 + 9 per assignment: careful, ties, reversed x 2; excluded, rejected

    def column(name):
        return [row[name] for row in rows]

    np.testing.assert_array_equal(j.worker, column("worker"))
    np.testing.assert_array_equal(j.assignment, column("assignment"))
    np.testing.assert_array_equal(j.ranking_set, column("ranking_set"))
    np.testing.assert_array_equal(j.segment, column("segment"))
    np.testing.assert_array_equal(j.system, column("system"))
    np.testing.assert_array_equal(j.rank, column("rank"))
    np.testing.assert_array_equal(j.expected_rank, column("expected_rank"))
    np.testing.assert_array_equal(j.order, column("id"))
    np.testing.assert_array_equal(loaded.slot, column("slot"))
    np.testing.assert_array_equal(loaded.rejected, column("rejected"))
    np.testing.assert_array_equal(loaded.excluded, column("excluded"))
    np.testing.assert_array_equal(
        loaded.scored, [not (row["rejected"] or row["excluded"]) for row in rows]
    )
    np.testing.assert_array_equal(loaded.excluded_workers, [ranking.workers["excluded"]])
    np.testing.assert_array_equal(loaded.untrusted_workers, [])
    # 72 kept + 3 outputs of the qualification set; 9 in the rejected assignment.
    assert (loaded.n_read, loaded.n_rejected_read, loaded.n_qualification, loaded.n_skipped) == (
        75,
        9,
        3,
        0,
    )


def test_sets_are_one_id_per_hit_and_group_shared_by_redundant_workers(ranking):
    j = load_ranking_judgments(ranking.campaign.pk).judgments
    hit1 = ranking.hits[1].pk
    assert ranking_set_id(hit1, 2) == (hit1 << 16) + 2
    assert sorted(j.sets.tolist()) == sorted(
        ranking_set_id(ranking.hits[number].pk, group) for number, group, *_ in SETS
    )
    # Set (HIT 1, group 2) is ranked by careful, ties, reversed and excluded: four ballots.
    in_set = j.ranking_set == ranking_set_id(hit1, 2)
    assert len(set(j.assignment[in_set].tolist())) == 4
    # careful, ties, reversed: 2 HITs x 3 sets; excluded and rejected: one HIT each.
    assert j.n_ballots == 3 * 6 + 3 + 3


def test_the_gold_translation_is_no_system_and_must_be_ranked_first(ranking):
    j = load_ranking_judgments(ranking.campaign.pk).judgments
    gold = j.system < 0
    assert set(j.system[gold].tolist()) == {-1}
    assert set(j.expected_rank[gold].tolist()) == {1}
    assert set(j.expected_rank[~gold].tolist()) == {0}
    np.testing.assert_array_equal(j.systems, sorted(ranking.systems.values()))
    # Two gold sets for careful, ties and reversed; one for excluded and rejected.
    assert np.count_nonzero(gold) == 2 * 3 + 1 + 1


def test_expected_rank_maps_slot_ranges_to_the_statistics_convention():
    # (min, max) -> expected: the best end is 1, any other range its worst end (N).
    low = np.array([-1, 1, 1, 3, 4, 5, 2])
    high = np.array([-1, 1, 2, 4, 5, 5, 3])
    np.testing.assert_array_equal(_expected_rank(low, high), [0, 1, 1, 4, 5, 5, 3])


def test_unordered_rows_are_put_in_id_order():
    # The queries ask for no order (PostgreSQL need not sort); the rows come out by id.
    rows = {"id": np.array([7, 3, 9, 4]), "rank": np.array([1, 2, 3, 4])}
    ordered = by_id(rows)
    assert ordered["id"].tolist() == [3, 4, 7, 9]
    assert ordered["rank"].tolist() == [2, 4, 1, 3]
    already = {"id": np.array([1, 5, 6]), "rank": np.array([3, 2, 1])}
    assert by_id(already) is already  # one check, no copy
    assert by_id({"id": np.zeros(0, dtype=np.int64)})["id"].shape == (0,)


def test_best_worst_ranges_from_slots_reach_the_loaded_arrays():
    campaign = CampaignFactory(kind=TaskKind.RANKING, gold_scheme="best_worst")
    hit = HitFactory(campaign=campaign, task=HitTask.RANK)
    document = DocumentFactory(campaign=campaign)
    segment = SegmentFactory(document=document)
    systems = [SystemFactory(campaign=campaign, name=name) for name in "WXY"]
    slots = [
        HitSlotFactory(
            hit=hit, position=1, role=SlotRole.GOLD, segment=segment, output=None,
            shown_text="gold", expected_rank_min=1, expected_rank_max=2,
        ),
    ]  # fmt: skip
    for position, system in enumerate(systems, start=2):
        output = OutputFactory(segment=segment, system=system)
        worst = position == 4
        slots.append(
            HitSlotFactory(
                hit=hit,
                position=position,
                role=SlotRole.SYSTEM,
                output=output,
                expected_rank_min=3 if worst else None,
                expected_rank_max=4 if worst else None,
            )
        )
    assignment = AssignmentFactory(hit=hit)
    for slot, rank in zip(slots, (2, 1, 3, 4), strict=True):
        JudgmentFactory(assignment=assignment, slot=slot, score=None, rank=rank)

    j = load_ranking_judgments(campaign.pk).judgments
    np.testing.assert_array_equal(j.system, [-1, systems[0].pk, systems[1].pk, systems[2].pk])
    np.testing.assert_array_equal(j.expected_rank, [1, 0, 0, 4])
    np.testing.assert_array_equal(j.rank, [2, 1, 3, 4])


def test_two_gold_slots_in_one_set_get_distinct_negative_ids():
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    hit = HitFactory(campaign=campaign, task=HitTask.RANK)
    segment = SegmentFactory(document=DocumentFactory(campaign=campaign))
    output = OutputFactory(segment=segment, system=SystemFactory(campaign=campaign))
    slots = [
        HitSlotFactory(hit=hit, position=1, role=SlotRole.SYSTEM, output=output),
        HitSlotFactory(
            hit=hit, position=2, role=SlotRole.GOLD, segment=segment, output=None,
            shown_text="gold one", expected_rank_min=1, expected_rank_max=1,
        ),
        HitSlotFactory(
            hit=hit, position=3, role=SlotRole.GOLD, segment=segment, output=None,
            shown_text="gold two",
        ),
    ]  # fmt: skip
    for worker_rank in ((3, 1, 2), (2, 1, 3)):
        assignment = AssignmentFactory(hit=hit)
        for slot, rank in zip(slots, worker_rank, strict=True):
            JudgmentFactory(assignment=assignment, slot=slot, score=None, rank=rank)
    j = load_ranking_judgments(campaign.pk).judgments
    np.testing.assert_array_equal(j.system, [output.system_id, -1, -2] * 2)


def test_excluded_and_untrusted_memberships_are_loaded(ranking):
    CampaignWorker.objects.create(
        campaign=ranking.campaign, worker_id=ranking.workers["reversed"], untrusted=True
    )
    CampaignWorker.objects.create(campaign=ranking.campaign, worker_id=ranking.workers["ties"])
    loaded = load_ranking_judgments(ranking.campaign.pk)
    np.testing.assert_array_equal(loaded.untrusted_workers, [ranking.workers["reversed"]])
    np.testing.assert_array_equal(loaded.excluded_workers, [ranking.workers["excluded"]])


def test_an_empty_campaign_loads_empty_arrays():
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    loaded = load_ranking_judgments(campaign.pk)
    assert len(loaded) == 0
    assert loaded.judgments.n_workers == 0
    assert (loaded.n_read, loaded.n_qualification, loaded.n_skipped) == (0, 0, 0)


def test_judgments_on_slots_of_other_roles_are_skipped(ranking):
    slot = ranking.slots[(1, 0)][0][1]
    HitSlot.objects.filter(pk=slot.pk).update(role=SlotRole.REFERENCE)
    loaded = load_ranking_judgments(ranking.campaign.pk)
    # careful, ties, reversed and excluded ranked that slot.
    assert (loaded.n_read, loaded.n_skipped, len(loaded)) == (75, 4, 68)


LOAD_QUERIES = 5  # Judgment, HitSlot (+ Hit), Output, rejected Assignment ids, memberships


@pytest.mark.parametrize("n_workers", [1, 3])
def test_loading_runs_a_fixed_number_of_queries(django_assert_num_queries, n_workers):
    built = build_ranking_campaign()
    Judgment.objects.filter(campaign=built.campaign).exclude(
        worker_id__in=list(built.workers.values())[:n_workers]
    ).delete()
    with django_assert_num_queries(LOAD_QUERIES):
        loaded = load_ranking_judgments(built.campaign.pk)
    assert loaded.judgments.n_workers == n_workers


@pytest.mark.django_db(transaction=True)
def test_slots_and_outputs_read_together_load_the_same_judgments(monkeypatch):
    # A large campaign on PostgreSQL reads its slots and outputs at once, each on a
    # connection of its own (analytics.copies); outside PostgreSQL, or inside a transaction
    # (which another connection would not see), in turn. Either way the very same arrays.
    from django.db import connection, transaction

    from analytics import copies
    from analytics.kinds.ranking import loading

    built = build_ranking_campaign()
    in_turn = load_ranking_judgments(built.campaign.pk)
    monkeypatch.setattr(loading, "TOGETHER_FROM_JUDGMENTS", 1)
    calls: list[list[str]] = []
    read_copies = copies.read_copies

    def recorded(kwargs, jobs):
        calls.append([query.split(" FROM ")[1].split()[0] for query, _ in jobs])
        return read_copies(kwargs, jobs)

    monkeypatch.setattr(copies, "read_copies", recorded)
    together = load_ranking_judgments(built.campaign.pk)
    with transaction.atomic():
        in_transaction = load_ranking_judgments(built.campaign.pk)
    on_postgresql = connection.vendor == "postgresql"
    assert calls == ([['"campaigns_hitslot"', '"campaigns_output"']] if on_postgresql else [])
    for loaded in (together, in_transaction):
        for name in RankingJudgments.__dataclass_fields__:
            np.testing.assert_array_equal(
                getattr(loaded.judgments, name), getattr(in_turn.judgments, name)
            )
        np.testing.assert_array_equal(loaded.slot, in_turn.slot)
    actions.clear_recompute_flag(built.campaign.pk)
