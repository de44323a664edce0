"""One worker process at a time recomputes a campaign incrementally, and keeps the turn while
submissions keep coming (issue 16 item 3).

Each worker process keeps its own cache (:mod:`analytics.incremental`). Celery's prefork pool
runs one process per core by default and hands a task to whichever process is free, so
without this module the runs of one busy campaign alternate between the processes: each
process reads the whole campaign once (2.5 CPU s and its own ~150 MiB at a million
judgments), and a run enqueued while another is still going starts at once in the other
process, so two runs of the same campaign compete for the same cores.

Here a run first takes the campaign's *turn*, a cache key added atomically (Redis
``SET NX``) holding the process's name (host and pid), refreshed after every run and
expiring after ``TURN_TIMEOUT`` seconds if its process dies (a task on the same machine finds
a dead holder's pid gone and takes the turn at once). Then:

- A task that finds its work done already returns at once: the task carries the campaign's
  run count read when it was enqueued (:func:`analytics.actions.recompute_runs`, one counter
  in the cache that every run increments as it starts, before reading); a higher count now
  means a run started after the submission that enqueued it had committed, and read its
  judgment. (A count, not a time: the web and worker machines' clocks may differ.)
- A task that finds the turn taken by another process enqueues itself again, with the same
  count, after the spacing (:func:`analytics.actions.incremental_spacing`, at least
  ``BOUNCE_MIN_SECONDS``): by then the holder has usually covered it and it returns at once; if
  the holder died, it runs once the turn expires.
- The holder, after a run, runs again while the campaign's recompute flag says a submission
  arrived since the run started (:func:`analytics.actions.recompute_pending`), waiting out the
  rest of the spacing first (and computes a due agreement in that wait, after the fresh
  scores are stored: ``recompute(defer_agreement=True)``), for at most
  ``ANALYTICS_TURN_HOLD_SECONDS`` in one task; then it gives the turn back (the pending task,
  when it comes, takes it, in whichever process is free).

- A process that takes a turn given back less than ``HANDOVER_SECONDS`` ago by another live
  process of this machine, and has no arrays of the campaign, leaves it to that process (the
  task comes back): a full read in the taker held up every submission's results for 10-25 s
  of a loaded machine at a million judgments, once per process, when a holder gave the turn
  back (its hold over, or no submission pending for a moment).

So under a steady load one process recomputes the campaign, run after run, with one cache and
one first read. Without a cache (Redis down) every task runs, as before.
"""

from __future__ import annotations

import logging
import os
import socket
import time

from django.conf import settings

from analytics import actions
from analytics.incremental import (
    agreement_age,
    cached_campaigns,
    compute_deferred_agreement,
    recompute,
)
from analytics.models import CampaignResult
from campaigns.models import Campaign
from evalsite.cachesafe import cache_add, cache_delete, cache_get, cache_set

__all__ = [
    "AGREEMENT_PATIENCE",
    "BOUNCE_MIN_SECONDS",
    "HANDOVER_SECONDS",
    "TURN_TIMEOUT",
    "hold_seconds",
    "last_holder_key",
    "recompute_in_turn",
    "turn_key",
]

logger = logging.getLogger(__name__)

# A turn not refreshed for this long belongs to a dead process (a first read of a million
# judgments on a loaded machine takes under a minute; a run longer than this lets another
# process take a turn too, which costs CPU, not correctness).
TURN_TIMEOUT = 90.0
# The longest one task keeps the turn, run after run, is settings.ANALYTICS_TURN_HOLD_SECONDS
# (60): meanwhile its worker process takes no other task, so with more busy campaigns than
# worker processes the others' recomputes (and imports, the sweep) wait this long at most.
# Giving the turn back lets the next run go to any process; one that never recomputed the
# campaign reads it in full once (2.5 CPU s at a million judgments; measured: such a first
# read put 11 s into the freshness bench's p95), later ones read what is new since their own
# last run.


def hold_seconds() -> float:
    return float(settings.ANALYTICS_TURN_HOLD_SECONDS)


# A task that found the turn taken comes back after at least this long.
BOUNCE_MIN_SECONDS = 0.5


# While submissions keep coming, a due agreement waits for a pause in them (a run after which
# none is pending), for at most this many times ANALYTICS_AGREEMENT_SECONDS since the one shown
# was computed: it costs 0.5-0.8 CPU s at a million judgments, 1-3 s of a loaded machine's wall
# time in which no run starts, so computed every minute it delayed the fresh scores of the
# submissions of those seconds (issue 16 item 3: the freshness p95 of a window that held one).
AGREEMENT_PATIENCE = 5


def _agreement_overdue(campaign_id: int) -> bool:
    age = agreement_age(campaign_id)
    return age is None or age >= AGREEMENT_PATIENCE * settings.ANALYTICS_AGREEMENT_SECONDS


def turn_key(campaign_id: int) -> str:
    return f"evalsite:recompute-turn:{campaign_id}"


# For this long after a process gives a campaign's turn back (its hold is over, or nothing was
# pending), a process of the same machine without the campaign's arrays leaves the turn to it
# (_left_to_the_last_holder): no longer than the full read it saves takes a loaded machine, in
# case the last holder is busy with other tasks meanwhile.
HANDOVER_SECONDS = 15.0


def last_holder_key(campaign_id: int) -> str:
    return f"evalsite:recompute-last-holder:{campaign_id}"


def _holder_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _runs_here(holder: str) -> bool | None:
    """Whether the process named ``holder`` (:func:`_holder_name`) runs: True or False for a
    process of this machine, None for one of another machine (which cannot be asked)."""
    host, _, pid = holder.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it runs (as another user)
    return True


def _let_go_of_a_dead_holder(campaign_id: int) -> bool:
    """If the campaign's turn is held by a process of this machine that no longer runs (a
    worker killed mid-run), let the turn go and say so: it is taken over at once instead of
    after TURN_TIMEOUT. A holder on another machine is waited for."""
    holder = cache_get(turn_key(campaign_id))
    if not isinstance(holder, str) or _runs_here(holder) is not False:
        return False
    logger.warning(
        "Campaign %s's recompute turn was held by %s, which is gone", campaign_id, holder
    )
    if cache_get(turn_key(campaign_id)) == holder:
        cache_delete(turn_key(campaign_id))
    return True


def recompute_in_turn(campaign: Campaign, runs_before: int | None = None) -> CampaignResult | None:
    """Recompute the campaign incrementally in this process if it is this task's turn (see
    the module docstring); the last stored result, or None when this task had nothing to do
    (its work was done by another run, or it comes back later)."""
    if (
        runs_before is not None
        and actions.recompute_runs(campaign.pk) > runs_before
        # A submission pending while no process holds the turn (its holder gave it back):
        # this task runs for it, whatever task that submission sent.
        and not (
            actions.recompute_pending(campaign.pk) and cache_get(turn_key(campaign.pk)) is None
        )
    ):
        logger.info("Campaign %s was recomputed since this task was sent", campaign.pk)
        return None
    me = _holder_name()
    taken = cache_add(turn_key(campaign.pk), me, TURN_TIMEOUT)
    if taken is False and _let_go_of_a_dead_holder(campaign.pk):
        taken = cache_add(turn_key(campaign.pk), me, TURN_TIMEOUT)
    if taken and _left_to_the_last_holder(campaign.pk, me):
        cache_delete(turn_key(campaign.pk))
        taken = False
    if taken is False:
        later = max(actions.incremental_spacing(), BOUNCE_MIN_SECONDS)
        actions.enqueue_recompute(campaign.pk, later, runs_before=runs_before)
        logger.info(
            "Campaign %s is being recomputed by %s; this task comes back in %.1f s",
            campaign.pk,
            cache_get(turn_key(campaign.pk)) or "the process that just gave its turn back",
            later,
        )
        return None
    try:
        return _hold(campaign, me)
    finally:
        if taken and cache_get(turn_key(campaign.pk)) == me:
            cache_set(last_holder_key(campaign.pk), (me, time.time()), HANDOVER_SECONDS + 5)
            cache_delete(turn_key(campaign.pk))


def _left_to_the_last_holder(campaign_id: int, me: str) -> bool:
    """Whether this process, which has no arrays of the campaign, leaves the turn it just took
    to the process that gave it back less than ``HANDOVER_SECONDS`` ago (on this machine, still
    running: it keeps the arrays): this task comes back instead of reading the campaign in
    full (3 CPU s at a million judgments, 10-25 s of a loaded machine's wall time, every
    submission of those seconds waiting), and the last holder, free again, most likely takes
    it within a second or two. After that, whoever takes it reads in full."""
    if campaign_id in cached_campaigns():
        return False
    last = cache_get(last_holder_key(campaign_id))
    if not isinstance(last, tuple | list) or len(last) != 2:
        return False
    holder, released_at = last
    if holder == me or not isinstance(holder, str) or not isinstance(released_at, int | float):
        return False
    if time.time() - released_at >= HANDOVER_SECONDS:
        return False
    return _runs_here(holder) is True  # gone: its arrays too


def _hold(campaign: Campaign, me: str) -> CampaignResult:
    """Run, and run again while submissions keep arriving (for at most :func:`hold_seconds`)."""
    held_since = time.monotonic()
    while True:
        started = time.monotonic()
        # The run count first, then the flag (both before reading: see analytics.actions): a
        # submission whose flag is set after the clear reads the new count, so the task it
        # sends returns early only once a later run started. The other way round, a submission
        # between the two sent the old count: its task returned at once while its flag stayed
        # set, no other submission sent one, and after a hold nothing ran until the sweep
        # (an 18 s gap in the freshness bench).
        actions.note_recompute_started(campaign.pk)  # the next run keeps its distance
        actions.clear_recompute_flag(campaign.pk)
        result = recompute(campaign, defer_agreement=True)
        pending = actions.recompute_pending(campaign.pk)
        # The agreement after the fresh scores are stored: in the spacing's wait, when the
        # run left one (the next run shows it), once submissions pause or it is overdue
        # (AGREEMENT_PATIENCE); a run it waits for leaves one again.
        if not pending or _agreement_overdue(campaign.pk):
            compute_deferred_agreement(campaign.pk)
        cache_set(turn_key(campaign.pk), me, TURN_TIMEOUT)
        if not pending:
            return result
        if time.monotonic() - held_since >= hold_seconds():
            return result  # the pending task takes over
        time.sleep(max(actions.incremental_spacing() - (time.monotonic() - started), 0.0))
