"""Incremental recomputes (analytics.incremental, issue 16 item 3): the arrays a worker keeps
and brings up to date equal a full load over the same judgments, and the results it stores
equal a full recompute's, exactly, through appends, late commits, rejections, exclusions and
HITs built later."""

from __future__ import annotations

import random
from decimal import Decimal
from unittest import mock

import numpy as np
import pytest
from django.db.models import Max

from analytics import actions, incremental, tasks
from analytics.incremental import direct_assessment as cached_da
from analytics.incremental.columns import Column, narrow_ids
from analytics.kinds.direct_assessment.loading import load_da_judgments
from analytics.models import CampaignResult, SystemScore, WorkerStat
from campaigns.actions import build_hits
from campaigns.kinds import new_campaign
from campaigns.models import Document, Hit, HitSlot, HitTask, Output, Segment, System
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment, Worker

pytestmark = pytest.mark.django_db

SETTLE = cached_da.SETTLE_SECONDS


@pytest.fixture(autouse=True)
def empty_cache(settings):
    incremental.clear_cache()
    # Significance on every run, unless a test carries it over (the default carries it 10 s).
    settings.ANALYTICS_SIGNIFICANCE_SECONDS = 0
    yield
    incremental.clear_cache()


SIGNIFICANCE_DETAILS = ("p_greater", "marks", "clusters", "rank_best", "rank_worst")
SIGNIFICANCE_COLUMNS = ("cluster", "rank_best", "rank_worst")


class Campaign3:
    """A DA campaign built as production builds it: 3 systems x 70 segments, three 100-item
    HITs (bad references, repeats and references linked to what they control), workers who
    answer slot by slot."""

    def __init__(self, name: str = "incremental") -> None:
        self.rng = random.Random(16)
        self.campaign = new_campaign(
            settings={"assessment_mode": "adequacy"},
            name=name,
            kind="direct_assessment",
            source_language="de",
            target_language="en",
            redundancy=3,
            status="active",
        ).save()
        actions.clear_recompute_flag(self.campaign.pk)
        document = Document.objects.create(campaign=self.campaign, external_id="d", position=1)
        systems = [System.objects.create(campaign=self.campaign, name=f"s{n}") for n in range(3)]
        for n in range(70):
            segment = Segment.objects.create(
                campaign=self.campaign,
                document=document,
                external_id=str(n + 1),
                position=n + 1,
                source=f"Quelle {n} mit einigen Woertern hier.",
                references=[f"Reference {n} with a few words in it here."],
            )
            for system in systems:
                Output.objects.create(
                    system=system,
                    segment=segment,
                    text=f"Output {n} of {system.name} with a few more words in it.",
                )
        assert build_hits(self.campaign) == 3
        self.hits = list(self.campaign.hits.order_by("number"))
        self.assignments: list[Assignment] = []
        self.next_slot: dict[int, int] = {}

    def assign(self, hit_number: int, name: str) -> Assignment:
        worker, _ = Worker.objects.get_or_create(platform="direct", external_id=name)
        assignment = Assignment.objects.create(
            campaign=self.campaign,
            hit=self.hits[hit_number],
            worker=worker,
            status=AssignmentStatus.SUBMITTED,
            expires_at=self.campaign.created_at.replace(year=2100),
        )
        self.assignments.append(assignment)
        self.next_slot[assignment.pk] = 0
        return assignment

    def assigned_last(self) -> Assignment:
        return self.assignments[-1]

    def answer(self, assignment: Assignment, n: int, *, ids: list[int] | None = None) -> None:
        """The assignment's next ``n`` slots (by position), with explicit ids if given."""
        slots = list(HitSlot.objects.filter(hit=assignment.hit).order_by("position"))
        start = self.next_slot[assignment.pk]
        rows = []
        for k, slot in enumerate(slots[start : start + n]):
            score = self.rng.randint(0, 99)
            if slot.role == "bad_reference":
                score = max(score - 40, 0)
            fields = {"id": ids[k]} if ids else {}
            rows.append(
                Judgment(
                    campaign=self.campaign,
                    worker_id=assignment.worker_id,
                    assignment=assignment,
                    slot=slot,
                    score=float(score) + (0.25 if k % 7 == 0 else 0.0),
                    client_duration_ms=self.rng.randint(800, 20000) if k % 5 else None,
                    server_duration_ms=self.rng.randint(900, 21000),
                    **fields,
                )
            )
        Judgment.objects.bulk_create(rows)
        self.next_slot[assignment.pk] = start + len(rows)


def assert_same_load(cache: cached_da.CachedDACampaign) -> None:
    """The cache's LoadedCampaign equals a full load's, array by array."""
    mine, full = cache.loaded(), load_da_judgments(cache.campaign_id)
    for name in (
        "worker",
        "assignment",
        "slot",
        "role",
        "system",
        "item",
        "pair_slot",
        "score",
        "seconds",
        "given_z",
    ):
        a, b = getattr(mine.judgments, name), getattr(full.judgments, name)
        assert a.dtype == b.dtype, name
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    # The pair links the cache keeps (analytics.incremental.links) are the ones derived anew.
    assert mine.judgments.partner.dtype == full.judgments.partner.dtype
    assert np.array_equal(mine.judgments.partner, full.judgments.partner)
    assert mine.judgments.n_unmatched_controls == full.judgments.n_unmatched_controls
    assert mine.judgments.scale_max == full.judgments.scale_max
    for name in ("rejected", "excluded", "excluded_workers"):
        assert np.array_equal(getattr(mine, name), getattr(full, name)), name
    for name in ("campaign_id", "n_read", "n_rejected_read", "n_skipped"):
        assert getattr(mine, name) == getattr(full, name), name
    assert len(mine) == Judgment.objects.filter(campaign_id=cache.campaign_id).count()


def stored(campaign, *, agreement: bool = True, significance: bool = True) -> dict:
    """Everything stored for the campaign but when and how long (and the incremental stamp;
    without ``agreement``, the variants' agreement too; without ``significance``, the
    variants' p-values, marks, clusters and rank ranges)."""
    result = CampaignResult.objects.get(campaign=campaign)
    fields = {
        f.name: getattr(result, f.name)
        for f in CampaignResult._meta.concrete_fields
        if f.name not in ("computed_at", "compute_seconds", "details")
    }
    left_out = (() if agreement else ("agreement",)) + (
        () if significance else SIGNIFICANCE_DETAILS
    )
    fields["details"] = {
        key: {name: part for name, part in value.items() if name not in left_out}
        for key, value in result.details.items()
        if key != "as_of"
    }
    workers = list(
        WorkerStat.objects.filter(campaign=campaign)
        .order_by("worker_id")
        .values_list(*[f.name for f in WorkerStat._meta.concrete_fields if f.name != "id"])
    )
    system_fields = [
        f.name
        for f in SystemScore._meta.concrete_fields
        if f.name != "id" and (significance or f.name not in SIGNIFICANCE_COLUMNS)
    ]
    systems = list(
        SystemScore.objects.filter(campaign=campaign)
        .order_by("include_unreliable", "position")
        .values_list(*system_fields)
    )
    return {"result": fields, "workers": workers, "systems": systems}


def assert_incremental_equals_full(
    campaign, *, agreement: bool = True, significance: bool = True
) -> dict:
    """The incremental recompute stores what a full one stores (but the agreement or the
    significance, when carried over); returns its stamp."""
    incremental.recompute(campaign)
    mine = stored(campaign, agreement=agreement, significance=significance)
    as_of = CampaignResult.objects.get(campaign=campaign).details["as_of"]
    actions.recompute_campaign(campaign)
    assert mine == stored(campaign, agreement=agreement, significance=significance)
    return as_of


def agreements(campaign) -> dict:
    details = CampaignResult.objects.get(campaign=campaign).details
    return {key: details[key]["agreement"] for key in ("reliable", "all")}


def test_appended_judgments_are_read_alone_and_give_a_full_loads_arrays_and_results():
    built = Campaign3()
    first, second = built.assign(0, "w1"), built.assign(0, "w2")
    built.answer(first, 60)
    built.answer(second, 35)
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    refresh = cache.refresh(now=0.0)
    assert (refresh.full, refresh.reason, refresh.n_new) == (True, "first load", 95)
    assert_same_load(cache)

    built.answer(first, 40)
    built.answer(second, 65)
    third = built.assign(1, "w3")
    built.answer(third, 100)
    # Past the settle time: the first 95 rows are kept, only what came after them is read.
    refresh = cache.refresh(now=SETTLE + 1)
    assert (refresh.full, refresh.n_new) == (False, 205)
    assert cache.settled_id == Judgment.objects.order_by("id")[94].pk
    refresh = cache.refresh(now=SETTLE + 2)  # nothing new, but 205 rows not settled yet
    assert (refresh.full, refresh.n_new) == (False, 205)
    refresh = cache.refresh(now=2 * SETTLE + 2)
    assert (refresh.full, refresh.n_new) == (False, 0)
    assert_same_load(cache)
    assert refresh.last_id == Judgment.objects.aggregate(m=Max("id"))["m"]


def test_a_row_that_commits_after_a_higher_id_is_read_while_unsettled():
    built = Campaign3()
    worker = built.assign(0, "w1")
    built.answer(worker, 10, ids=[1000 + k for k in range(10)])
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    cache.refresh(now=0.0)
    # A transaction that took id 990 before 1000-1009 commits only now.
    built.answer(worker, 1, ids=[990])
    refresh = cache.refresh(now=1.0)
    assert (refresh.full, refresh.n_new) == (False, 11)  # the unsettled rows, read again
    assert_same_load(cache)


def test_a_row_committed_after_its_ids_settled_is_caught_by_the_count_and_a_full_read():
    built = Campaign3()
    worker = built.assign(0, "w1")
    built.answer(worker, 10, ids=[1000 + k for k in range(10)])
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    cache.refresh(now=0.0)
    cache.refresh(now=SETTLE + 1)  # 1000-1009 settle
    assert cache.settled_id == 1009
    built.answer(worker, 1, ids=[995])  # very late
    cache.verified_at = -cached_da.VERIFY_SECONDS  # the count check is due
    refresh = cache.refresh(now=SETTLE + 2)
    assert (refresh.full, refresh.reason, refresh.n_new) == (True, "count differs", 11)
    assert_same_load(cache)


def test_rejections_exclusions_and_hits_built_later_are_reflected_without_a_full_read():
    built = Campaign3()
    a, b, c = built.assign(0, "w1"), built.assign(1, "w2"), built.assign(2, "w3")
    for assignment in (a, b, c):
        built.answer(assignment, 100)
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    cache.refresh(now=0.0)
    assert_same_load(cache)

    Assignment.objects.filter(pk=b.pk).update(status=AssignmentStatus.REJECTED)
    CampaignWorker.objects.create(campaign=built.campaign, worker=c.worker, excluded=True)
    assert cache.refresh(now=SETTLE + 1).full is False
    assert_same_load(cache)
    assert cache.loaded().n_rejected_read == 100

    # A HIT added after the first load: its slots are read when a judgment needs them.
    hit = Hit.objects.create(campaign=built.campaign, task=HitTask.ASSESS, number=4)
    for slot in HitSlot.objects.filter(hit=built.hits[0]).order_by("position"):
        HitSlot.objects.create(
            hit=hit,
            position=slot.position,
            group=slot.group,
            role=slot.role,
            segment=slot.segment,
            output=slot.output,
            shown_text=slot.shown_text,
        )
    built.hits.append(hit)
    late = built.assign(3, "w4")
    built.answer(late, 30)  # system outputs only (controls would need their links copied)
    refresh = cache.refresh(now=SETTLE + 2)
    assert (refresh.full, refresh.n_new) == (False, 30)
    assert_same_load(cache)


def test_stored_results_equal_a_full_recompute_at_every_step_and_say_what_they_reflect(
    settings,
):
    settings.ANALYTICS_AGREEMENT_SECONDS = 0  # agreement on every run too
    built = Campaign3()
    campaign = built.campaign
    a, b = built.assign(0, "careful"), built.assign(0, "other")
    built.answer(a, 50)
    built.answer(b, 50)
    as_of = assert_incremental_equals_full(campaign)
    assert as_of["incremental"] is False  # the first read is full
    assert (as_of["n_judgments"], as_of["rows_read"]) == (100, 100)
    assert as_of["judgment_id"] == Judgment.objects.aggregate(m=Max("id"))["m"]

    for step in range(3):
        built.answer(a, 10 + step)
        built.answer(b, 7)
        if step == 1:
            Assignment.objects.filter(pk=b.pk).update(status=AssignmentStatus.REJECTED)
        if step == 2:
            c = built.assign(1, "third")
            built.answer(c, 100)
            CampaignWorker.objects.create(campaign=campaign, worker=a.worker, excluded=True)
        as_of = assert_incremental_equals_full(campaign)
        assert as_of["incremental"] is True
        assert as_of["n_judgments"] == Judgment.objects.filter(campaign=campaign).count()
        assert as_of["judgment_id"] == Judgment.objects.aggregate(m=Max("id"))["m"]

    # New settings are read on every run.
    settings_row = campaign.da_settings
    settings_row.reliability_alpha = Decimal("0.100")
    settings_row.save()
    campaign.refresh_from_db()
    assert_incremental_equals_full(campaign)


def test_between_agreement_runs_everything_else_is_fresh_and_agreement_says_its_judgments(
    settings,
):
    settings.ANALYTICS_AGREEMENT_SECONDS = 3600
    built = Campaign3()
    campaign = built.campaign
    a, b = built.assign(0, "careful"), built.assign(0, "other")
    built.answer(a, 60)
    built.answer(b, 60)
    first = assert_incremental_equals_full(campaign)  # the first run computes agreement
    assert first["agreement"] == {
        key: first[key] for key in ("judgment_id", "n_judgments", "read_at")
    }
    first_agreements = agreements(campaign)

    built.answer(a, 40)
    built.answer(b, 40)
    c = built.assign(1, "third")
    built.answer(c, 100)
    later = assert_incremental_equals_full(campaign, agreement=False)
    assert later["n_judgments"] == 300
    assert later["agreement"] == first["agreement"]  # carried over, and said so
    incremental.recompute(campaign)
    assert agreements(campaign) == first_agreements
    actions.recompute_campaign(campaign)
    assert agreements(campaign) != first_agreements  # 180 more judgments changed it

    settings.ANALYTICS_AGREEMENT_SECONDS = 0  # due: computed again
    as_of = assert_incremental_equals_full(campaign)
    assert as_of["agreement"]["n_judgments"] == 300


def test_a_deferred_agreement_is_computed_after_the_store_and_shown_by_the_next_run(settings):
    """``defer_agreement`` (the turn holder's runs): a due agreement does not hold up the
    fresh scores; it is computed after the store, over that run's judgments, and the next
    run shows it, equal to a full recompute's over the same judgments."""
    settings.ANALYTICS_AGREEMENT_SECONDS = 60
    built = Campaign3()
    campaign = built.campaign
    a, b = built.assign(0, "careful"), built.assign(0, "other")
    built.answer(a, 60)
    built.answer(b, 60)
    # The first run has no agreement to show meanwhile: computed at once, nothing deferred.
    incremental.recompute(campaign, defer_agreement=True)
    first = CampaignResult.objects.get(campaign=campaign).details["as_of"]
    assert first["agreement"]["n_judgments"] == 120
    assert incremental.compute_deferred_agreement(campaign.pk) is False

    built.answer(a, 40)
    built.answer(b, 40)
    incremental._cache[campaign.pk].carried_at -= 61  # the agreement is due
    incremental.recompute(campaign, defer_agreement=True)
    second = CampaignResult.objects.get(campaign=campaign).details["as_of"]
    assert second["n_judgments"] == 200
    assert second["agreement"] == first["agreement"]  # the earlier one, said so
    fresh_but_agreement = stored(campaign, agreement=False)
    actions.recompute_campaign(campaign)
    assert stored(campaign, agreement=False) == fresh_but_agreement
    full_agreements = agreements(campaign)

    assert incremental.compute_deferred_agreement(campaign.pk) is True
    assert incremental.compute_deferred_agreement(campaign.pk) is False  # once
    incremental.recompute(campaign, defer_agreement=True)  # shows the one computed
    third = CampaignResult.objects.get(campaign=campaign).details["as_of"]
    assert third["agreement"] == {
        key: second[key] for key in ("judgment_id", "n_judgments", "read_at")
    }
    assert agreements(campaign) == full_agreements  # over the same 200 judgments

    # Agreement on every run (0 s): each run shows its own, nothing is deferred.
    settings.ANALYTICS_AGREEMENT_SECONDS = 0
    built.answer(built.assign(1, "third"), 30)
    incremental.recompute(campaign, defer_agreement=True)
    assert (
        CampaignResult.objects.get(campaign=campaign).details["as_of"]["agreement"]["n_judgments"]
        == 230
    )
    assert incremental.compute_deferred_agreement(campaign.pk) is False


def test_the_stamp_is_not_written_over_newer_results():
    built = Campaign3()
    a = built.assign(0, "w1")
    built.answer(a, 40)
    newer = actions.recompute_campaign(built.campaign)
    newer.computed_at = newer.computed_at.replace(year=2100)
    newer.save()
    incremental.recompute(built.campaign)
    assert "as_of" not in CampaignResult.objects.get(campaign=built.campaign).details


def test_the_cache_keeps_campaigns_within_its_budget(settings):
    one, two = Campaign3("one"), Campaign3("two")
    for built in (one, two):
        built.answer(built.assign(0, f"w{built.campaign.pk}"), 100)
    incremental.recompute(one.campaign)
    incremental.recompute(two.campaign)
    sizes = incremental.cached_campaigns()
    assert list(sizes) == [one.campaign.pk, two.campaign.pk]  # least recently used first
    settings.ANALYTICS_CACHE_MIB = 0
    incremental.recompute(one.campaign)
    assert incremental.cached_campaigns() == {}  # over the budget even alone: not kept


def test_the_task_recomputes_incrementally_unless_turned_off(settings):
    settings.ANALYTICS_INCREMENTAL = True
    built = Campaign3()
    a = built.assign(0, "w1")
    built.answer(a, 40)
    assert tasks.recompute_campaign_results(built.campaign.pk) == 40
    built.answer(a, 5)
    assert tasks.recompute_campaign_results(built.campaign.pk) == 45
    as_of = CampaignResult.objects.get(campaign=built.campaign).details["as_of"]
    assert (as_of["incremental"], as_of["rows_read"]) == (True, 45)  # nothing settled yet
    built.answer(a, 5)  # stale now: the sweep's repair run reads what is new too
    assert tasks.recompute_campaign_results(built.campaign.pk, only_if_stale=True) == 50
    as_of = CampaignResult.objects.get(campaign=built.campaign).details["as_of"]
    assert (as_of["incremental"], as_of["n_judgments"]) == (True, 50)

    settings.ANALYTICS_INCREMENTAL = False
    built.answer(a, 5)
    assert tasks.recompute_campaign_results(built.campaign.pk) == 55
    assert "as_of" not in CampaignResult.objects.get(campaign=built.campaign).details


def test_the_statistics_take_the_cached_columns_without_a_copy():
    built = Campaign3()
    built.answer(built.assign(0, "w1"), 50)
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    cache.refresh(now=0.0)
    judgments = cache.loaded().judgments
    for name in ("worker", "assignment", "slot", "system", "item", "pair_slot", "seconds"):
        assert np.shares_memory(getattr(judgments, name), cache.columns[name].data), name
        assert not cache.columns[name].data.flags.writeable
    # The scores (whole numbers and quarters here) are kept as float32, half the memory, and
    # handed over as the float64 a full load reads.
    assert cache.columns["score"].data.dtype == np.float32
    assert judgments.score.dtype == np.float64 and not judgments.score.flags.writeable
    assert judgments.score.tolist() == cache.columns["score"].view().tolist()
    built.answer(built.assigned_last(), 10)
    cache.refresh(now=1.0)  # unsettled rows rewritten in place: the columns stay exact
    assert_same_load(cache)


def test_given_z_scores_get_a_column_only_once_a_row_has_one():
    built = Campaign3()
    first = built.assign(0, "w1")
    built.answer(first, 30)
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    cache.refresh(now=0.0)
    assert cache.given_z is None and cache.loaded().judgments.has_given_z.sum() == 0
    assert_same_load(cache)
    # An imported worker's standardised scores (no raw score) arrive after the first read.
    imported = built.assign(1, "w2")
    built.answer(imported, 20)
    Judgment.objects.filter(assignment=imported).update(score=None, given_z=0.5)
    cache.refresh(now=SETTLE + 1)
    assert cache.given_z is not None and len(cache.given_z.view()) == len(cache) == 50
    assert int(cache.loaded().judgments.has_given_z.sum()) == 20
    assert_same_load(cache)


def test_columns_grow_narrow_and_widen_when_an_id_does_not_fit():
    column = Column(np.int32, narrow=True)
    column.append(np.array([1, 2, 3]))
    assert column.view().dtype == np.int32 and column.data.shape[0] == 1024
    column.append(np.array([2**31 + 5]))
    assert column.view().dtype == np.int64
    assert column.view().tolist() == [1, 2, 3, 2**31 + 5]
    column.truncate(2)
    column.append(np.arange(2000))
    assert column.view().tolist() == [1, 2, *range(2000)]
    assert not column.view().flags.writeable
    wide = Column(np.int64)
    wide.append(np.array([5], dtype=np.int32))
    assert wide.view().dtype == np.int64
    with pytest.raises(ValueError, match="cannot truncate"):
        column.truncate(5000)
    assert narrow_ids(np.array([-1, 7])).dtype == np.int32


def test_float_columns_stay_float32_while_exact_and_widen_once_a_value_is_not():
    column = Column(np.float64, narrow=True)
    column.append(np.array([0.0, 100.0, 37.25, np.nan]))
    assert column.view().dtype == np.float32
    np.testing.assert_array_equal(column.view(), [0.0, 100.0, 37.25, np.nan])
    column.append(np.array([33.3]))  # not a float32: every value kept exactly as float64
    assert column.view().dtype == np.float64
    assert column.view()[4] == 33.3
    np.testing.assert_array_equal(column.view()[:4], [0.0, 100.0, 37.25, np.nan])
    column.append(np.array([1.0]))  # widened for good
    assert column.view().dtype == np.float64
    assert column.view().tolist()[5] == 1.0 and not column.view().flags.writeable


def test_a_control_read_before_the_output_it_controls_is_linked_once_the_output_comes():
    built = Campaign3()
    assignment = built.assign(0, "backwards")
    other = built.assign(1, "steady")
    built.answer(other, 40)
    slots = list(HitSlot.objects.filter(hit=assignment.hit).order_by("-position"))
    controls = [slot for slot in slots if slot.controls_id is not None]
    assert controls  # the HIT has controls whose outputs come earlier in position order

    def judge(chosen):
        Judgment.objects.bulk_create(
            Judgment(
                campaign=built.campaign,
                worker_id=assignment.worker_id,
                assignment=assignment,
                slot=slot,
                score=float(50 + k % 40),
                server_duration_ms=3000,
            )
            for k, slot in enumerate(chosen)
        )

    judge(controls)  # every control first, their outputs not judged yet
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    cache.refresh(now=0.0)
    assert_same_load(cache)
    unmatched = cache.loaded().judgments.n_unmatched_controls
    assert unmatched >= len(controls)  # (and the other assignment's, whose outputs come later)
    built.answer(other, 10)  # another assignment's rows in between
    cache.refresh(now=SETTLE + 1)
    judge([slot for slot in slots if slot.controls_id is None][:50])  # outputs, some of them
    refresh = cache.refresh(now=2 * SETTLE + 2)
    assert refresh.full is False
    assert_same_load(cache)
    assert cache.loaded().judgments.n_unmatched_controls < unmatched


def significance_of(campaign) -> dict:
    details = CampaignResult.objects.get(campaign=campaign).details
    return {
        key: {name: details[key][name] for name in SIGNIFICANCE_DETAILS}
        for key in ("reliable", "all")
    }


def test_between_significance_runs_scores_are_fresh_and_significance_says_its_judgments(
    settings,
):
    settings.ANALYTICS_SIGNIFICANCE_SECONDS = 3600
    settings.ANALYTICS_AGREEMENT_SECONDS = 0  # agreement on every run
    built = Campaign3()
    campaign = built.campaign
    a, b = built.assign(0, "careful"), built.assign(0, "other")
    built.answer(a, 100)
    built.answer(b, 100)
    first = assert_incremental_equals_full(campaign)  # the first run computes it
    assert first["significance"] == {
        key: first[key] for key in ("judgment_id", "n_judgments", "read_at")
    }
    first_significance = significance_of(campaign)
    order = list(
        SystemScore.objects.filter(campaign=campaign)
        .order_by("include_unreliable", "position")
        .values_list("system_id", flat=True)
    )
    assert len(order) == 6  # both variants have every system

    # A third worker agrees with the ranking (best system's outputs 90, then 50, then 10): the
    # means move, the order stays.
    c = built.assign(1, "third")
    score_of = dict(zip(order[:3], (90.0, 50.0, 10.0), strict=True))
    Judgment.objects.bulk_create(
        Judgment(
            campaign=campaign,
            worker_id=c.worker_id,
            assignment=c,
            slot=slot,
            score=score_of[slot.output.system_id],
            server_duration_ms=4000,
        )
        for slot in HitSlot.objects.filter(hit=c.hit, role="system").select_related("output")
    )
    n = Judgment.objects.filter(campaign=campaign).count()
    later = assert_incremental_equals_full(campaign, significance=False)
    assert later["n_judgments"] == n  # means, counts, workers: fresh
    # The systems' order stayed (this data): significance carried over, and said so.
    incremental.recompute(campaign)
    kept = list(
        SystemScore.objects.filter(campaign=campaign)
        .order_by("include_unreliable", "position")
        .values_list("system_id", flat=True)
    )
    assert kept == order
    assert (
        CampaignResult.objects.get(campaign=campaign).details["as_of"]["significance"]
        == (first["significance"])
    )
    assert significance_of(campaign) == first_significance
    actions.recompute_campaign(campaign)
    assert significance_of(campaign) != first_significance  # the new judgments changed it

    settings.ANALYTICS_SIGNIFICANCE_SECONDS = 0  # due: computed again
    as_of = assert_incremental_equals_full(campaign)
    assert as_of["significance"]["n_judgments"] == n


def test_significance_is_computed_again_when_the_systems_order_changes(settings):
    settings.ANALYTICS_SIGNIFICANCE_SECONDS = 3600
    settings.ANALYTICS_AGREEMENT_SECONDS = 0  # agreement on every run
    built = Campaign3()
    campaign = built.campaign
    a = built.assign(0, "careful")
    built.answer(a, 60)
    first = assert_incremental_equals_full(campaign)
    worst = SystemScore.objects.filter(campaign=campaign, include_unreliable=True).order_by(
        "-position"
    )[0]
    # A newcomer scores the last system's outputs 100 and the others' 0: it moves up, so
    # everything is computed again and equals a full recompute's, significance too.
    newcomer = built.assign(1, "generous")
    Judgment.objects.bulk_create(
        Judgment(
            campaign=campaign,
            worker_id=newcomer.worker_id,
            assignment=newcomer,
            slot=slot,
            score=100.0 if slot.output.system_id == worst.system_id else 0.0,
            server_duration_ms=4000,
        )
        for slot in HitSlot.objects.filter(hit=newcomer.hit, role="system").select_related("output")
    )
    as_of = assert_incremental_equals_full(campaign)
    assert as_of["significance"]["judgment_id"] > first["significance"]["judgment_id"]
    moved = SystemScore.objects.get(
        campaign=campaign, include_unreliable=True, system=worst.system
    ).position
    assert moved < worst.position


def test_row_masks_are_taken_over_while_their_ids_stay_and_tested_again_when_they_change():
    cache = cached_da.CachedDACampaign(0)
    values = np.array([5, 7, 5, 9, 7], dtype=np.int32)
    first = cache._member_rows("rejected", values, np.array([7]))
    assert first.tolist() == [False, True, False, False, True]
    assert not first.flags.writeable
    grown = np.array([5, 7, 5, 9, 7, 7, 3], dtype=np.int32)
    with mock.patch.object(cached_da.np, "isin", wraps=np.isin) as isin:
        again = cache._member_rows("rejected", grown, np.array([7]))
    assert again.tolist() == [False, True, False, False, True, True, False]
    assert isin.call_args.args[0].tolist() == [7, 3]  # the new rows alone
    # Other ids (an assignment rejected since): every row tested again.
    changed = cache._member_rows("rejected", grown, np.array([5, 7]))
    assert changed.tolist() == [True, True, True, False, True, True, False]
    # Rows cut and read again (unsettled) are tested again, also with the same ids.
    cache.masks["rejected"] = (np.array([5, 7]), changed, 2)
    cut = cache._member_rows("rejected", np.array([5, 7, 9, 9], dtype=np.int32), np.array([5, 7]))
    assert cut.tolist() == [True, True, False, False]


@pytest.mark.django_db(transaction=True)
def test_a_first_read_outside_a_transaction_reads_every_table_together(monkeypatch):
    """A worker's first read of a campaign reads as a full recompute does: on PostgreSQL
    outside a transaction the judgments (here as two streams), slots and outputs are COPYs
    in flight together; the cache equals a full load and one read inside a transaction."""
    from django.db import connection, transaction

    from analytics import copies
    from analytics.kinds.direct_assessment import loading

    built = Campaign3("together")
    first, second = built.assign(0, "w1"), built.assign(1, "w2")
    built.answer(first, 60)
    built.answer(second, 35)
    calls, real = [], copies.read_copies

    def recorded(kwargs, jobs):
        calls.append([query for query, _ in jobs])
        return real(kwargs, jobs)

    monkeypatch.setattr(copies, "read_copies", recorded)
    monkeypatch.setattr(loading, "SPLIT_JUDGMENT_IDS", 1)
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    assert cache.refresh(now=0.0).n_new == 95
    if connection.vendor == "postgresql":
        (queries,) = calls
        tables = sorted(query.split(" FROM ")[1].split()[0] for query in queries)
        assert tables == [
            '"campaigns_hitslot"',
            '"campaigns_output"',
            '"judgments_judgment"',
            '"judgments_judgment"',
        ]
    else:
        assert calls == []
    assert_same_load(cache)
    with transaction.atomic():
        inside = cached_da.CachedDACampaign(built.campaign.pk)
        inside.refresh(now=0.0)
    for name, column in cache.columns.items():
        assert column.view().tolist() == inside.columns[name].view().tolist(), name
    for name in ("slot_id", "slot_role", "slot_output", "slot_control", "output_id"):
        assert getattr(cache, name).tolist() == getattr(inside, name).tolist(), name
    assert cache.item_code.view().tolist() == inside.item_code.view().tolist()
    assert [a.tolist() for a in cache.segment_items()] == [
        a.tolist() for a in inside.segment_items()
    ]


def test_rows_all_cut_unsettled_are_read_again_keeping_their_items_numbers():
    built = Campaign3("recut")
    built.answer(built.assign(0, "w1"), 40)
    cache = cached_da.CachedDACampaign(built.campaign.pk)
    cache.refresh(now=0.0)
    assert cache.settled_id == 0  # every row inserted just now: none settled yet
    codes, items = cache.item_code.view().tolist(), cache.item_ids.tolist()
    refresh = cache.refresh(now=1.0)  # every row cut and read again
    assert (refresh.full, refresh.n_new) == (False, 40)
    assert cache.item_code.view().tolist() == codes
    assert cache.item_ids.tolist() == items
    assert_same_load(cache)
