"""Each assignment's worker's reliability (direct assessment) or trust (ranking) and the
system's recommendation, from analytics' stored results, for the review pages."""

from __future__ import annotations

from django.db.models import Case, CharField, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce

from analytics.models import RankingWorkerStat, Recommendation, TrustStatus, WorkerStat
from judgments.models import Assignment

RANKING_RECOMMENDATION_LABELS = {
    Recommendation.APPROVE: "Approve (trusted on the gold units)",
    Recommendation.PAY: (
        "Approve, leave out of scores (failed the gold units; reject only clear random clicking)"
    ),
    Recommendation.WAIT: "Wait (too few gold units to tell)",
}


def annotate_worker_quality(assignments: QuerySet[Assignment]) -> QuerySet[Assignment]:
    """Each assignment's worker's standing in its campaign, from analytics' stored results:
    direct assessment ``da_reliable``, ``da_p_value``; ranking ``trust_status``,
    ``trust_accuracy``; and ``recommendation`` (a :class:`Recommendation` value, empty before
    the first computation). Subqueries: one query for the whole page, not one per row.

    Ranking's recommendation follows 001: a worker who failed the gold units is left out of
    the scores but paid; only clear random clicking deserves a rejection, and the requester
    decides.
    """
    da = WorkerStat.objects.filter(
        campaign_id=OuterRef("campaign_id"), worker_id=OuterRef("worker_id")
    )
    trust = RankingWorkerStat.objects.filter(
        campaign_id=OuterRef("campaign_id"), worker_id=OuterRef("worker_id")
    )
    return assignments.annotate(
        da_reliable=Subquery(da.values("reliable")[:1]),
        da_p_value=Subquery(da.values("p_value")[:1]),
        trust_status=Subquery(trust.values("status")[:1]),
        trust_accuracy=Subquery(trust.values("accuracy")[:1]),
        # Why rejection is recommended (direct assessment; issue 12), shown with the label.
        recommendation_reason=Subquery(da.values("recommendation_reason")[:1]),
    ).annotate(
        recommendation=Coalesce(
            Subquery(da.values("recommendation")[:1]),
            Case(
                *(
                    When(Q(trust_status=status), then=Value(ranking_recommendation(status)))
                    for status in TrustStatus.values
                ),
                default=Value(""),
                output_field=CharField(),
            ),
        ),
    )


def reliability_text(reliable: bool, p_value: float | None) -> str:
    """Direct assessment: the reliability test's verdict and p-value (2014: reliable when the
    worker scores degraded outputs significantly lower)."""
    if p_value is None:
        tested = " (not tested yet)"
    elif p_value < 0.001:
        tested = " (p < 0.001)"  # three decimals would print a small p as "p = 0.000"
    else:
        tested = f" (p = {p_value:.3f})"
    return ("reliable" if reliable else "not reliable") + tested


def trust_text(status: str, accuracy: float | None) -> str:
    """Ranking: the trust decided from gold units, with the worker's gold accuracy."""
    gold = f" (gold accuracy {accuracy:.0%})" if accuracy is not None else ""
    return f"{TrustStatus(status).label.lower()}{gold}"


def ranking_recommendation(status: str) -> str:
    """The recommendation for a ranking worker's trust (the annotation's ``Case``)."""
    return {
        TrustStatus.TRUSTED: Recommendation.APPROVE,
        TrustStatus.UNTRUSTED: Recommendation.PAY,
        TrustStatus.UNDECIDED: Recommendation.WAIT,
    }[TrustStatus(status)].value


def recommendation_text(value: str, *, ranking: bool, reason: str = "") -> str:
    if not value:
        return "No recommendation yet"
    if ranking:
        return RANKING_RECOMMENDATION_LABELS[Recommendation(value)]
    label = Recommendation(value).label
    return f"{label}: {reason}" if reason else label


def quality_text(assignment: Assignment) -> str:
    """The annotated reliability or trust of the assignment's worker."""
    if getattr(assignment, "da_reliable", None) is not None:
        return reliability_text(assignment.da_reliable, assignment.da_p_value)
    if getattr(assignment, "trust_status", None):
        return trust_text(assignment.trust_status, assignment.trust_accuracy)
    return "no statistics yet"


def recommendation_label(assignment: Assignment) -> str:
    """The annotated recommendation, worded for the campaign's kind."""
    ranking = getattr(assignment, "da_reliable", None) is None and bool(
        getattr(assignment, "trust_status", None)
    )
    return recommendation_text(
        getattr(assignment, "recommendation", "") or "",
        ranking=ranking,
        reason=getattr(assignment, "recommendation_reason", "") or "",
    )
