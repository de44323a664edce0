"""The qualification test (002's training phase): its pure score and its stored result."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from functools import partial

from django.db import transaction

from campaigns.models import HitSlot
from judgments.models import (
    Assignment,
    CampaignWorker,
    Judgment,
    Platform,
)
from judgments.signals import mturk_qualification_earned

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class QualificationScore:
    """How a worker did on a qualification test: ``checked`` outputs had a known range of
    right ranks, ``correct`` of them were ranked inside it."""

    correct: int
    checked: int

    @property
    def share(self) -> Fraction | None:
        return Fraction(self.correct, self.checked) if self.checked else None

    @property
    def score(self) -> float | None:
        """The share as stored (``CampaignWorker.qualification_score``); None if nothing was
        checked."""
        share = self.share
        return None if share is None else float(share)

    def passes(self, pass_mark: Decimal | float | Fraction) -> bool:
        """Score >= pass mark, compared exactly (4 of 5 passes a mark of 0.8). A test with
        nothing to check cannot fail anyone: it passes (the hand-out logs it)."""
        share = self.share
        if share is None:
            return True
        mark = Fraction(str(pass_mark)) if isinstance(pass_mark, float) else Fraction(pass_mark)
        return share >= mark


def score_qualification(
    answers: Iterable[tuple[int | None, int | None, int | None]],
) -> QualificationScore:
    """Score a qualification test from ``(rank given, expected_rank_min, expected_rank_max)``
    per slot. Slots without an expected range are not checked (in 002's training sets only
    the gold translation, and in best+worst the known-worst output, have a known answer); a
    checked slot is right when its rank lies in ``[min, max]``; an unanswered one (rank None)
    is wrong. Pure: no database."""
    correct = checked = 0
    for rank, low, high in answers:
        if low is None or high is None:
            continue
        checked += 1
        if rank is not None and low <= rank <= high:
            correct += 1
    return QualificationScore(correct=correct, checked=checked)


def _store_qualification(assignment: Assignment, now: datetime) -> CampaignWorker:
    """Score a finished qualification assignment and store the result on the worker's
    membership (inside the caller's transaction)."""
    rows = Judgment.objects.filter(
        assignment=assignment, slot__expected_rank_min__isnull=False
    ).values_list("rank", "slot__expected_rank_min", "slot__expected_rank_max")
    # A checked slot left unanswered (only possible in an assignment finished by other means)
    # counts as wrong.
    unanswered = (
        HitSlot.objects.filter(hit=assignment.hit_id, expected_rank_min__isnull=False)
        .exclude(judgments__assignment=assignment)
        .values_list("expected_rank_min", "expected_rank_max")
    )
    result = score_qualification([*rows, *((None, low, high) for low, high in unanswered)])
    if result.checked == 0:
        logger.warning(
            "Qualification HIT %d has no slot with an expected rank: every worker passes it",
            assignment.hit_id,
        )
    passed = result.passes(assignment.campaign.qualification_pass_mark)
    membership, _ = CampaignWorker.objects.update_or_create(
        campaign_id=assignment.campaign_id,
        worker_id=assignment.worker_id,
        defaults={
            "qualification_passed": passed,
            "qualification_score": result.score,
            "qualified_at": now,
        },
    )
    logger.info(
        "Worker %d %s the qualification test of campaign %d (%d of %d)",
        assignment.worker_id,
        "passed" if passed else "failed",
        assignment.campaign_id,
        result.correct,
        result.checked,
    )
    if passed:
        _schedule_mturk_grant(assignment, membership)
    return membership


def _schedule_mturk_grant(assignment: Assignment, membership: CampaignWorker) -> None:
    """An MTurk worker who passed gets the campaign's MTurk qualification, so MTurk lets them
    accept its regular HITs. After the commit: the grant is a network call that must neither
    hold the transaction open nor run for a result that was rolled back."""
    campaign = assignment.campaign
    if not campaign.mturk_qualification_type_id:
        return
    if assignment.worker.platform != Platform.MTURK:
        return
    # A signal, not a call: the platform glue (campaigns.tasks) depends on judgments, not the
    # other way round.
    transaction.on_commit(
        partial(
            mturk_qualification_earned.send,
            sender=CampaignWorker,
            campaign_worker_id=membership.pk,
        )
    )
