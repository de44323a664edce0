"""analytics.kinds.direct_assessment.loading: a campaign's DA judgments as exact arrays, in a
fixed number of queries."""

import numpy as np
import pytest

from analytics.kinds.direct_assessment.loading import load_da_judgments, subset
from analytics.stats.direct_assessment import Role
from analytics.stats.direct_assessment.judgments import COLUMNS
from campaigns.models import SlotRole
from judgments.models import AssignmentStatus, CampaignWorker
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

S, R, B, F = Role.SYSTEM, Role.REPEAT, Role.BAD_REFERENCE, Role.REFERENCE


@pytest.fixture
def small():
    """Two systems, three segments, one HIT of seven slots, three workers.

    Slots: 1 system A/seg1, 2 system B/seg1, 3 system A/seg2, 4 bad reference of slot 1,
    5 repeat of slot 2, 6 reference controlling slot 3, 7 a gold slot (not direct
    assessment: skipped). Worker 1 judges every slot; worker 2's assignment is rejected;
    worker 3 is excluded. Another campaign's judgment must not be read.
    """
    campaign = CampaignFactory()
    document = DocumentFactory(campaign=campaign)
    seg = [SegmentFactory(document=document, position=i + 1) for i in range(3)]
    a = SystemFactory(campaign=campaign, name="A")
    b = SystemFactory(campaign=campaign, name="B")
    out = {
        "a1": OutputFactory(segment=seg[0], system=a),
        "b1": OutputFactory(segment=seg[0], system=b),
        "a2": OutputFactory(segment=seg[1], system=a),
        "b3": OutputFactory(segment=seg[2], system=b),
    }
    hit = HitFactory(campaign=campaign, number=1)

    def slot(position, role, output, controls=None):
        return HitSlotFactory(
            hit=hit, position=position, role=role, output=output, controls=controls
        )

    s1 = slot(1, SlotRole.SYSTEM, out["a1"])
    s2 = slot(2, SlotRole.SYSTEM, out["b1"])
    s3 = slot(3, SlotRole.SYSTEM, out["a2"])
    s4 = slot(4, SlotRole.BAD_REFERENCE, out["a1"], s1)
    s5 = slot(5, SlotRole.REPEAT, out["b1"], s2)
    s6 = slot(6, SlotRole.REFERENCE, out["a2"], s3)
    s7 = slot(7, SlotRole.GOLD, out["b3"])
    slots = [s1, s2, s3, s4, s5, s6, s7]

    w1, w2, w3 = (WorkerFactory() for _ in range(3))
    a1 = AssignmentFactory(hit=hit, worker=w1, status=AssignmentStatus.SUBMITTED)
    a2 = AssignmentFactory(hit=hit, worker=w2, status=AssignmentStatus.REJECTED)
    a3 = AssignmentFactory(hit=hit, worker=w3, status=AssignmentStatus.STARTED)
    CampaignWorker.objects.create(campaign=campaign, worker=w3, excluded=True)
    CampaignWorker.objects.create(campaign=campaign, worker=w1, excluded=False)

    # (assignment, slot, score, client ms, server ms)
    rows = [
        (a1, s1, 80.0, 4000, 4500),
        (a1, s2, 60.0, None, 7250),
        (a1, s3, 70.5, None, None),
        (a1, s4, 20.0, 3000, None),
        (a1, s5, 62.0, 2500, 9999),
        (a1, s6, 95.0, 1000, 1100),
        (a1, s7, 50.0, 1000, 1100),  # gold: skipped
        (a2, s1, 10.0, 500, 600),
        (a2, s4, 90.0, 400, 500),
        (a3, s2, 33.0, 2000, 2100),
        (a3, s7, None, 2000, 2100),  # no score: not read
    ]
    judgments = [
        JudgmentFactory(
            assignment=assignment,
            slot=slot_,
            score=score,
            client_duration_ms=client,
            server_duration_ms=server,
        )
        for assignment, slot_, score, client, server in rows
    ]
    JudgmentFactory(score=12.0)  # another campaign
    return {
        "campaign": campaign,
        "systems": (a, b),
        "outputs": out,
        "slots": slots,
        "workers": (w1, w2, w3),
        "assignments": (a1, a2, a3),
        "judgments": judgments,
    }


def test_loads_exact_arrays_of_a_hand_built_campaign(small):
    loaded = load_da_judgments(small["campaign"].pk)
    j = loaded.judgments
    s1, s2, s3, s4, s5, s6, _ = (slot.pk for slot in small["slots"])
    w1, w2, w3 = (worker.pk for worker in small["workers"])
    a1, a2, a3 = (assignment.pk for assignment in small["assignments"])
    a, b = (system.pk for system in small["systems"])
    o = {name: output.pk for name, output in small["outputs"].items()}

    # Judgment id order; the gold judgment and the unscored one are left out.
    np.testing.assert_array_equal(j.worker, [w1, w1, w1, w1, w1, w1, w2, w2, w3])
    np.testing.assert_array_equal(j.assignment, [a1, a1, a1, a1, a1, a1, a2, a2, a3])
    np.testing.assert_array_equal(j.slot, [s1, s2, s3, s4, s5, s6, s1, s4, s2])
    np.testing.assert_array_equal(j.role, [S, S, S, B, R, F, S, B, S])
    np.testing.assert_array_equal(j.system, [a, b, a, -1, b, -1, a, -1, b])
    np.testing.assert_array_equal(
        j.item, [o["a1"], o["b1"], o["a2"], o["a1"], o["b1"], o["a2"], o["a1"], o["a1"], o["b1"]]
    )
    np.testing.assert_array_equal(j.pair_slot, [-1, -1, -1, s1, s2, s3, -1, s1, -1])
    np.testing.assert_array_equal(j.score, [80.0, 60.0, 70.5, 20.0, 62.0, 95.0, 10.0, 90.0, 33.0])
    # Client time when present, else server time, else NaN.
    np.testing.assert_array_equal(j.seconds, [4.0, 7.25, np.nan, 3.0, 2.5, 1.0, 0.5, 0.4, 2.0])
    np.testing.assert_array_equal(j.partner, [-1, -1, -1, 0, 1, 2, -1, 6, -1])

    np.testing.assert_array_equal(loaded.rejected, [0, 0, 0, 0, 0, 0, 1, 1, 0])
    np.testing.assert_array_equal(loaded.excluded, [0, 0, 0, 0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(loaded.scored, [1, 1, 1, 1, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(loaded.excluded_workers, [w3])
    assert (loaded.n_read, loaded.n_rejected_read, loaded.n_skipped) == (10, 2, 1)


def test_slots_and_outputs_read_out_of_id_order_load_the_same(small, monkeypatch):
    """Slots and outputs are read without ORDER BY (PostgreSQL returns them in table order,
    which an UPDATE changes) and sorted by id after reading: the same arrays either way."""
    from analytics.kinds.direct_assessment import loading

    want = load_da_judgments(small["campaign"].pk)
    # Updated rows move to the end of a PostgreSQL table: the first slots and outputs then
    # come last; the reversal below makes sure they come out of order on every backend.
    for slot in small["slots"][:3]:
        slot.save()
    read = loading.load_columns_together

    def reversed_rows(reads):
        return [
            {name: column[::-1].copy() for name, column in columns.items()}
            for columns in read(reads)
        ]

    monkeypatch.setattr(loading, "load_columns_together", reversed_rows)
    got = load_da_judgments(small["campaign"].pk)
    for name in ("worker", "slot", "role", "system", "item", "pair_slot", "score", "seconds"):
        np.testing.assert_array_equal(
            getattr(got.judgments, name)[::-1], getattr(want.judgments, name), err_msg=name
        )
    np.testing.assert_array_equal(got.judgments.partner[::-1] >= 0, want.judgments.partner >= 0)


# Every column of the loaded judgments, and the control pairs derived from them.
JUDGMENT_FIELDS = (*COLUMNS, "partner")


def _assert_same_load(got, want):
    assert len(got) == len(want) > 0
    for name in JUDGMENT_FIELDS:
        np.testing.assert_array_equal(
            getattr(got.judgments, name), getattr(want.judgments, name), err_msg=name
        )
    np.testing.assert_array_equal(got.rejected, want.rejected)
    np.testing.assert_array_equal(got.excluded, want.excluded)
    np.testing.assert_array_equal(got.excluded_workers, want.excluded_workers)
    assert (got.n_read, got.n_rejected_read, got.n_skipped) == (
        want.n_read,
        want.n_rejected_read,
        want.n_skipped,
    )


@pytest.fixture
def copy_queries(monkeypatch):
    """The queries of every read_copies call (analytics.copies), one list per call."""
    from analytics import copies

    calls = []
    real = copies.read_copies

    def recorded(kwargs, jobs):
        calls.append([query for query, _ in jobs])
        return real(kwargs, jobs)

    monkeypatch.setattr(copies, "read_copies", recorded)
    return calls


@pytest.mark.django_db(transaction=True)
def test_tables_read_together_load_the_same(small, copy_queries):
    """On PostgreSQL outside a transaction the judgments, slots and outputs are read at once,
    each on a connection of its own (analytics.copies); the arrays are those read one after
    another on Django's connection inside a transaction."""
    from django.db import connection, transaction

    from analytics.loading import reads_together

    campaign_id = small["campaign"].pk
    assert reads_together() == (connection.vendor == "postgresql")
    got = load_da_judgments(campaign_id)
    if connection.vendor == "postgresql":
        assert len(copy_queries) == 1
        tables = [query.split(" FROM ")[1].split()[0] for query in copy_queries[0]]
        assert tables == ['"judgments_judgment"', '"campaigns_hitslot"', '"campaigns_output"']
    else:
        assert copy_queries == []
    with transaction.atomic():
        assert not reads_together()
        want = load_da_judgments(campaign_id)
    assert len(copy_queries) == (1 if connection.vendor == "postgresql" else 0)
    _assert_same_load(got, want)


@pytest.mark.django_db(transaction=True)
def test_an_error_reading_the_slots_reaches_the_caller(postgres_required, small, monkeypatch):
    """One of the reads fails on the server (a division by zero in the slots' COPY): the
    caller gets the error."""
    from analytics.kinds.direct_assessment import loading

    real_side_reads = loading._side_reads

    def failing(campaign_id):
        slots, outputs = real_side_reads(campaign_id)
        broken = slots.queryset.extra(
            where=["1 / (campaigns_hitslot.id - campaigns_hitslot.id) = 1"]
        )
        return [loading.ColumnsRead(broken, slots.columns), outputs]

    monkeypatch.setattr(loading, "_side_reads", failing)
    with pytest.raises(Exception, match="division by zero"):
        load_da_judgments(small["campaign"].pk)


@pytest.mark.django_db(transaction=True)
def test_judgments_read_as_two_streams_load_the_same(small, monkeypatch, copy_queries):
    """On PostgreSQL outside a transaction, a campaign whose judgment ids span at least
    SPLIT_JUDGMENT_IDS is read as two COPY streams (the ids up to the middle of their range
    and those above), beside the slots and outputs: the same arrays, in id order, as one
    stream inside a transaction."""
    from django.db import connection, transaction

    from analytics.kinds.direct_assessment import loading

    campaign_id = small["campaign"].pk
    monkeypatch.setattr(loading, "SPLIT_JUDGMENT_IDS", 1)
    got = load_da_judgments(campaign_id)
    if connection.vendor == "postgresql":
        (queries,) = copy_queries
        judgment_queries = [q for q in queries if 'FROM "judgments_judgment"' in q]
        assert len(judgment_queries) == 2
        assert '"judgments_judgment"."id" <= ' in judgment_queries[0]
        assert '"judgments_judgment"."id" > ' in judgment_queries[1]
    with transaction.atomic():
        want = load_da_judgments(campaign_id)
    _assert_same_load(got, want)
    # Below the threshold: one stream.
    monkeypatch.setattr(loading, "SPLIT_JUDGMENT_IDS", 10**12)
    copy_queries.clear()
    load_da_judgments(campaign_id)
    if connection.vendor == "postgresql":
        (queries,) = copy_queries
        assert len([q for q in queries if 'FROM "judgments_judgment"' in q]) == 1


@pytest.mark.django_db(transaction=True)
def test_an_error_in_the_second_judgment_stream_reaches_the_caller(
    postgres_required, small, monkeypatch
):
    """The second judgment stream's parsing fails (its sink): the caller gets the error."""
    from analytics import copies
    from analytics.kinds.direct_assessment import loading

    real = copies.read_copies

    class Broken:
        def write(self, data):
            raise RuntimeError("second stream unreadable")

    def second_broken(kwargs, jobs):
        jobs = list(jobs)
        jobs[1] = (jobs[1][0], Broken())
        return real(kwargs, jobs)

    monkeypatch.setattr(copies, "read_copies", second_broken)
    monkeypatch.setattr(loading, "SPLIT_JUDGMENT_IDS", 1)
    with pytest.raises(RuntimeError, match="second stream unreadable"):
        load_da_judgments(small["campaign"].pk)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("split", [1, 10**9])
def test_judgment_ids_with_gaps_load_the_same(monkeypatch, split):
    """Another campaign's judgments and judgments without a score between the campaign's
    (ids with gaps, in both halves of their range): on PostgreSQL the arrays as long as the
    ids' span are cut to the rows read (the second half's rows moved up after the first
    half's), in one stream or two; the same arrays as inside a transaction."""
    from django.db import transaction

    from analytics.kinds.direct_assessment import loading

    campaign = CampaignFactory()
    hit = HitFactory(campaign=campaign)
    first = HitSlotFactory(hit=hit, position=1)
    bad = HitSlotFactory(
        hit=hit, position=2, role=SlotRole.BAD_REFERENCE, output=first.output, controls=first
    )
    repeat = HitSlotFactory(
        hit=hit, position=3, role=SlotRole.REPEAT, output=first.output, controls=first
    )
    for n in range(4):
        assignment = AssignmentFactory(hit=hit)
        for k, slot in enumerate((first, bad, repeat)):
            JudgmentFactory(
                assignment=assignment, slot=slot, score=10.0 * n + k, client_duration_ms=900 + n
            )
            JudgmentFactory(score=50.0)  # another campaign's, between them
        if n == 0:
            JudgmentFactory(assignment=assignment, slot=HitSlotFactory(hit=hit), score=None)
    monkeypatch.setattr(loading, "SPLIT_JUDGMENT_IDS", split)
    got = load_da_judgments(campaign.pk)
    with transaction.atomic():
        want = load_da_judgments(campaign.pk)
    assert len(got) == len(want) == 12
    for name in ("worker", "assignment", "slot", "role", "item", "score", "seconds", "partner"):
        np.testing.assert_array_equal(
            getattr(got.judgments, name), getattr(want.judgments, name), err_msg=name
        )
    assert got.judgments.score.tolist() == [10.0 * n + k for n in range(4) for k in range(3)]


def test_by_id_sorts_only_when_needed():
    from analytics.kinds.direct_assessment.loading import _by_id

    in_order = {"id": np.array([3, 5, 9]), "x": np.array([1.0, 2.0, 3.0])}
    assert _by_id(in_order) is in_order
    shuffled = _by_id({"id": np.array([9, 3, 5]), "x": np.array([3.0, 1.0, 2.0])})
    assert shuffled["id"].tolist() == [3, 5, 9]
    assert shuffled["x"].tolist() == [1.0, 2.0, 3.0]


def test_subset_keeps_control_pairs_of_the_rows_kept(small):
    loaded = load_da_judgments(small["campaign"].pk)
    scored = subset(loaded.judgments, loaded.scored)
    assert len(scored) == 6
    np.testing.assert_array_equal(scored.partner, [-1, -1, -1, 0, 1, 2])
    assert scored.n_workers == 1


def test_an_empty_campaign_loads_empty_arrays():
    campaign = CampaignFactory()
    loaded = load_da_judgments(campaign.pk)
    assert len(loaded) == 0
    assert loaded.judgments.n_workers == 0
    assert (loaded.n_read, loaded.n_rejected_read, loaded.n_skipped) == (0, 0, 0)


def _campaign_with_workers(n_workers):
    """One HIT of a system slot, its bad reference and a repeat, judged by n workers."""
    campaign = CampaignFactory()
    hit = HitFactory(campaign=campaign)
    first = HitSlotFactory(hit=hit, position=1)
    bad = HitSlotFactory(
        hit=hit, position=2, role=SlotRole.BAD_REFERENCE, output=first.output, controls=first
    )
    repeat = HitSlotFactory(
        hit=hit, position=3, role=SlotRole.REPEAT, output=first.output, controls=first
    )
    for _ in range(n_workers):
        assignment = AssignmentFactory(hit=hit)
        for slot in (first, bad, repeat):
            JudgmentFactory(assignment=assignment, slot=slot, client_duration_ms=1500)
    return campaign


# Judgment, HitSlot, Output, rejected Assignment ids, excluded workers, on every backend (on
# PostgreSQL the judgments come by a binary COPY parsed in pieces, not counted first).
LOAD_QUERIES = 5


@pytest.mark.parametrize("n_workers", [1, 3])
def test_loading_runs_a_fixed_number_of_queries(django_assert_num_queries, n_workers):
    campaign = _campaign_with_workers(n_workers)
    with django_assert_num_queries(LOAD_QUERIES):
        loaded = load_da_judgments(campaign.pk)
    assert len(loaded) == 3 * n_workers
    assert loaded.judgments.n_workers == n_workers


def test_a_judged_slot_of_another_campaign_is_a_data_error():
    campaign = _campaign_with_workers(1)
    stray = JudgmentFactory(score=40.0)
    type(stray).objects.filter(pk=stray.pk).update(campaign=campaign)
    with pytest.raises(ValueError, match="judged slot"):
        load_da_judgments(campaign.pk)
