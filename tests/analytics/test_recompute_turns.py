"""One process at a time recomputes a campaign incrementally (analytics.incremental.turns):
tasks whose work a later run did return at once, a task that finds the turn taken comes back,
the holder runs again while submissions arrive, for a bounded time."""

from __future__ import annotations

import pytest

from analytics import actions, incremental, tasks
from analytics.incremental import turns
from analytics.incremental.direct_assessment import CachedDACampaign
from analytics.models import CampaignResult
from evalsite.cachesafe import cache_get, cache_set
from judgments.models import Judgment
from judgments.signals import judgments_recorded
from tests.analytics.kinds.direct_assessment.test_actions import build_small_campaign
from tests.analytics.test_tasks import forget_runs

pytestmark = pytest.mark.django_db


@pytest.fixture
def small(settings):
    settings.ANALYTICS_INCREMENTAL = True
    settings.ANALYTICS_INCREMENTAL_COUNTDOWN = 0
    settings.ANALYTICS_INCREMENTAL_SPACING_MS = 0
    incremental.clear_cache()
    built = build_small_campaign()
    forget_runs(built.campaign.pk)
    yield built
    forget_runs(built.campaign.pk)
    incremental.clear_cache()


@pytest.fixture
def reads(monkeypatch):
    """The judgment reads of the incremental cache, by the id they read after."""
    real_read = CachedDACampaign._append_after
    seen: list[int] = []

    def counted(self, after_id, **kwargs):
        seen.append(after_id)
        return real_read(self, after_id, **kwargs)

    monkeypatch.setattr(CachedDACampaign, "_append_after", counted)
    return seen


def announce(campaign_id):
    judgments_recorded.send(sender=Judgment, campaign_id=campaign_id, worker_id=1, judgment_ids=[1])


def test_a_submission_sends_the_run_count_of_its_time(small, broker):
    pk = small.campaign.pk
    announce(pk)  # no run yet: no count known, the task runs whatever the count
    assert broker.call_args.kwargs == {"args": [pk], "countdown": 0.0}
    assert tasks.recompute_campaign_results(pk) == 52
    assert actions.recompute_runs(pk) == 1
    announce(pk)
    assert broker.call_args.kwargs == {"args": [pk], "countdown": 0.0, "kwargs": {"runs_before": 1}}


def test_a_task_whose_work_a_later_run_did_returns_at_once(small, broker, reads):
    pk = small.campaign.pk
    assert tasks.recompute_campaign_results(pk, runs_before=None) == 52
    assert tasks.recompute_campaign_results(pk, runs_before=0) is None  # run 1 started after
    assert reads == [0]
    assert tasks.recompute_campaign_results(pk, runs_before=1) == 52  # nothing since: runs
    assert len(reads) == 2
    assert actions.recompute_runs(pk) == 2
    assert broker.call_count == 0


def test_a_run_counts_itself_before_it_clears_the_flag(small, broker, monkeypatch):
    """So a submission whose flag is set after the clear sends the new count (its task returns
    early only once a later run started)."""
    pk = small.campaign.pk
    steps = []
    real_note, real_clear = actions.note_recompute_started, actions.clear_recompute_flag

    def note(campaign_id, *args, **kwargs):
        steps.append("count")
        return real_note(campaign_id, *args, **kwargs)

    def clear(campaign_id):
        steps.append("clear")
        return real_clear(campaign_id)

    monkeypatch.setattr(actions, "note_recompute_started", note)
    monkeypatch.setattr(actions, "clear_recompute_flag", clear)
    assert tasks.recompute_campaign_results(pk) == 52
    assert steps == ["count", "clear"]


def test_a_task_sent_before_a_run_runs_for_a_pending_submission_when_no_one_holds_the_turn(
    small, broker, reads
):
    """A run started since the task was sent, but a submission is pending (its flag set) and
    the turn is free: the task runs rather than leave it to a task that may not come."""
    pk = small.campaign.pk
    assert tasks.recompute_campaign_results(pk) == 52
    announce(pk)  # pending; it sends a task of its own (runs_before=1)
    assert actions.recompute_pending(pk)
    assert tasks.recompute_campaign_results(pk, runs_before=0) == 52
    assert len(reads) == 2
    assert not actions.recompute_pending(pk)
    # With the turn held by another process, the holder covers it: the task returns.
    announce(pk)
    cache_set(turns.turn_key(pk), "elsewhere:1", turns.TURN_TIMEOUT)
    assert tasks.recompute_campaign_results(pk, runs_before=1) is None
    assert len(reads) == 2


def test_a_task_that_finds_the_turn_taken_comes_back_later(small, broker, reads, settings):
    pk = small.campaign.pk
    settings.ANALYTICS_INCREMENTAL_SPACING_MS = 1500
    cache_set(turns.turn_key(pk), "elsewhere:1", turns.TURN_TIMEOUT)
    assert tasks.recompute_campaign_results(pk, runs_before=0) is None
    assert reads == []
    assert not CampaignResult.objects.filter(campaign=small.campaign).exists()
    broker.assert_called_once_with(args=[pk], countdown=1.5, kwargs={"runs_before": 0})
    # Never sooner than BOUNCE_MIN_SECONDS, with no spacing either.
    settings.ANALYTICS_INCREMENTAL_SPACING_MS = 0
    assert tasks.recompute_campaign_results(pk) is None
    assert broker.call_args.kwargs == {
        "args": [pk],
        "countdown": turns.BOUNCE_MIN_SECONDS,
        "kwargs": {"runs_before": None},
    }
    assert cache_get(turns.turn_key(pk)) == "elsewhere:1"  # another's turn is left alone
    # The holder gone (its turn expired): the task runs.
    forget_runs(pk)
    assert tasks.recompute_campaign_results(pk, runs_before=0) == 52


def test_the_holder_runs_again_while_submissions_arrive_then_gives_the_turn_back(
    small, broker, reads, monkeypatch
):
    pk = small.campaign.pk
    real_recompute = turns.recompute
    holders = []

    def recompute(campaign, **options):
        holders.append(cache_get(turns.turn_key(pk)))
        if len(holders) <= 2:
            announce(pk)  # a submission during each of the first two runs
        return real_recompute(campaign, **options)

    monkeypatch.setattr(turns, "recompute", recompute)
    assert tasks.recompute_campaign_results(pk) == 52
    assert len(reads) == 3  # three runs in one task
    assert holders == [turns._holder_name()] * 3
    assert cache_get(turns.turn_key(pk)) is None  # given back
    assert not actions.recompute_pending(pk)
    # The tasks the two submissions sent have nothing left to do.
    assert [call.kwargs["kwargs"] for call in broker.call_args_list] == [
        {"runs_before": 1},
        {"runs_before": 2},
    ]
    for call in broker.call_args_list:
        assert tasks.recompute_campaign_results(pk, **call.kwargs["kwargs"]) is None
    assert len(reads) == 3


def test_the_holder_keeps_the_turn_for_a_bounded_time(small, broker, reads, monkeypatch, settings):
    pk = small.campaign.pk
    settings.ANALYTICS_TURN_HOLD_SECONDS = 0
    real_recompute = turns.recompute

    def recompute(campaign, **options):
        announce(pk)  # submissions never stop
        return real_recompute(campaign, **options)

    monkeypatch.setattr(turns, "recompute", recompute)
    assert tasks.recompute_campaign_results(pk) == 52
    assert len(reads) == 1  # gave the turn back after one run...
    assert actions.recompute_pending(pk)  # ...to the task the submission sent
    assert cache_get(turns.turn_key(pk)) is None
    assert tasks.recompute_campaign_results(pk, **broker.call_args.kwargs["kwargs"]) == 52
    assert len(reads) == 2


def test_the_holder_waits_out_the_spacing_between_its_runs(small, broker, monkeypatch, settings):
    pk = small.campaign.pk
    settings.ANALYTICS_INCREMENTAL_SPACING_MS = 400
    real_recompute = turns.recompute
    calls = []

    def recompute(campaign, **options):
        calls.append(campaign.pk)
        if len(calls) == 1:
            announce(pk)
        return real_recompute(campaign, **options)

    slept = []
    monkeypatch.setattr(turns, "recompute", recompute)
    monkeypatch.setattr(turns.time, "sleep", slept.append)
    assert tasks.recompute_campaign_results(pk) == 52
    assert len(calls) == 2
    assert len(slept) == 1 and 0.0 < slept[0] <= 0.4


def test_without_the_cache_every_task_runs(small, broker, reads, monkeypatch):
    pk = small.campaign.pk
    monkeypatch.setattr(turns, "cache_add", lambda *args: None)  # Redis down
    monkeypatch.setattr(actions, "recompute_runs", lambda campaign_id: 0)
    assert tasks.recompute_campaign_results(pk, runs_before=0) == 52
    assert tasks.recompute_campaign_results(pk, runs_before=0) == 52
    assert len(reads) == 2
    assert broker.call_count == 0


def test_the_holder_computes_a_due_agreement_after_storing_the_scores(small, broker, settings):
    pk = small.campaign.pk
    settings.ANALYTICS_AGREEMENT_SECONDS = 60
    assert tasks.recompute_campaign_results(pk) == 52  # the first run: computed at once
    first = CampaignResult.objects.get(campaign=small.campaign).details["as_of"]
    incremental._cache[pk].carried_at -= 61  # the agreement is due
    assert tasks.recompute_campaign_results(pk, runs_before=1) == 52
    second = CampaignResult.objects.get(campaign=small.campaign).details["as_of"]
    assert second["agreement"] == first["agreement"]  # stored before its own agreement...
    entry = incremental._cache[pk]
    assert entry.deferred is None  # ...which the holder then computed
    assert entry.carried.as_of == {
        key: second[key] for key in ("judgment_id", "n_judgments", "read_at")
    }


def test_while_submissions_keep_coming_a_due_agreement_waits_for_a_pause(
    small, broker, settings, monkeypatch
):
    """A due agreement is left for later while a submission is pending after the run (the
    run after it leaves its own again), and computed after the run that finds none pending:
    over that run's judgments, once."""
    pk = small.campaign.pk
    settings.ANALYTICS_AGREEMENT_SECONDS = 60
    assert tasks.recompute_campaign_results(pk) == 52
    first = CampaignResult.objects.get(campaign=small.campaign).details["as_of"]
    incremental._cache[pk].carried_at -= 61  # due, not overdue (under 5 x 60 s)
    real_recompute, real_compute = turns.recompute, turns.compute_deferred_agreement
    runs, computed = [], []

    def recompute(campaign, **options):
        runs.append(campaign.pk)
        if len(runs) <= 2:
            announce(pk)  # a submission during each of the first two runs
        return real_recompute(campaign, **options)

    def compute(campaign_id):
        computed.append((len(runs), incremental._cache[campaign_id].deferred is not None))
        return real_compute(campaign_id)

    monkeypatch.setattr(turns, "recompute", recompute)
    monkeypatch.setattr(turns, "compute_deferred_agreement", compute)
    assert tasks.recompute_campaign_results(pk, runs_before=1) == 52
    assert computed == [(3, True)]  # after the third run only, which left one
    third = CampaignResult.objects.get(campaign=small.campaign).details["as_of"]
    assert third["agreement"] == first["agreement"]  # every run showed the earlier one
    entry = incremental._cache[pk]
    assert entry.deferred is None
    assert entry.carried.as_of == {
        key: third[key] for key in ("judgment_id", "n_judgments", "read_at")
    }


def test_an_overdue_agreement_is_computed_though_submissions_keep_coming(
    small, broker, settings, monkeypatch
):
    pk = small.campaign.pk
    settings.ANALYTICS_AGREEMENT_SECONDS = 60
    settings.ANALYTICS_TURN_HOLD_SECONDS = 0  # one run, a submission pending after it
    assert tasks.recompute_campaign_results(pk) == 52
    incremental._cache[pk].carried_at -= turns.AGREEMENT_PATIENCE * 60 + 1
    real_recompute = turns.recompute

    def recompute(campaign, **options):
        announce(pk)
        return real_recompute(campaign, **options)

    monkeypatch.setattr(turns, "recompute", recompute)
    assert tasks.recompute_campaign_results(pk, runs_before=1) == 52
    assert actions.recompute_pending(pk)
    second = CampaignResult.objects.get(campaign=small.campaign).details["as_of"]
    entry = incremental._cache[pk]
    assert entry.deferred is None
    assert entry.carried.as_of == {
        key: second[key] for key in ("judgment_id", "n_judgments", "read_at")
    }
    assert incremental.agreement_age(pk) < 60
    assert incremental.agreement_age(pk + 1000) is None  # a campaign this process has not


def test_a_process_without_the_arrays_leaves_a_turn_just_given_back_to_its_last_holder(
    small, broker, reads
):
    """Taken within HANDOVER_SECONDS of its release by a live process of this machine that
    keeps the arrays, the turn is left to it (the task comes back, nothing is read); later, or
    with the arrays here, or with that process gone, the task runs."""
    import os
    import socket
    import time

    pk = small.campaign.pk
    elsewhere = f"{socket.gethostname()}:{os.getppid()}"  # alive, on this machine
    cache_set(turns.last_holder_key(pk), (elsewhere, time.time()), 10)
    assert tasks.recompute_campaign_results(pk, runs_before=0) is None
    assert reads == []
    assert cache_get(turns.turn_key(pk)) is None  # not kept either
    broker.assert_called_once_with(
        args=[pk], countdown=turns.BOUNCE_MIN_SECONDS, kwargs={"runs_before": 0}
    )
    # Given back longer ago: this process reads the campaign in full.
    cache_set(turns.last_holder_key(pk), (elsewhere, time.time() - turns.HANDOVER_SECONDS), 10)
    assert tasks.recompute_campaign_results(pk, runs_before=0) == 52
    assert reads == [0]
    # It gives the turn back in its turn, noting itself as the last holder.
    assert cache_get(turns.last_holder_key(pk))[0] == turns._holder_name()
    # With the arrays here, a turn just given back by another process is taken.
    cache_set(turns.last_holder_key(pk), (elsewhere, time.time()), 10)
    assert tasks.recompute_campaign_results(pk, runs_before=1) == 52
    assert len(reads) == 2
    # Without them, and the last holder gone (its arrays too): taken at once.
    incremental.clear_cache()
    done = subprocess_pid()
    cache_set(turns.last_holder_key(pk), (f"{socket.gethostname()}:{done}", time.time()), 10)
    assert tasks.recompute_campaign_results(pk, runs_before=2) == 52
    assert reads[-1] == 0 and len(reads) == 3
    assert broker.call_count == 1


def subprocess_pid() -> int:
    """The pid of a process that ran and ended."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def test_a_turn_held_by_a_process_of_this_machine_that_is_gone_is_taken_over(small, broker, reads):
    import socket
    import subprocess
    import sys

    pk = small.campaign.pk
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    gone = f"{socket.gethostname()}:{done.stdout.strip()}"  # a worker killed mid-run
    cache_set(turns.turn_key(pk), gone, turns.TURN_TIMEOUT)
    assert tasks.recompute_campaign_results(pk) == 52
    assert reads == [0] and broker.call_count == 0
    # A holder that runs (this process, say), or one of another machine, is waited for.
    for holder in (turns._holder_name(), "elsewhere:1"):
        cache_set(turns.turn_key(pk), holder, turns.TURN_TIMEOUT)
        assert tasks.recompute_campaign_results(pk) is None
        assert cache_get(turns.turn_key(pk)) == holder
    assert len(reads) == 1
