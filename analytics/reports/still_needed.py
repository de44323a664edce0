"""Judgments still needed (issue 17 item 4): which pairs of systems the campaign's own
significance test does not separate yet, and how many more judgments would, at what cost.

The test is the kind's own, on the same rows and with the same settings as the stored
results: the kind's loader and configuration are called and the statistics' functions run on
what they return (``analytics.kinds.direct_assessment`` and ``analytics.kinds.ranking``). The
sample-size arithmetic is :mod:`analytics.stats.power` (its docstring gives the formulas,
their sources and their assumptions); the pricing is ``analytics.reports.estimates``; each
kind's estimator is in ``analytics.reports.kinds``.

The method: each kind's ``METHODS`` (``analytics.reports.kinds``). Direct assessment offers
Noether's formula (the default) and the seeded resampling simulation of the same test
(``?method=simulation``; its replicates, seed and bounds are stated in the answer's
``method``); ranking has the bootstrap's normal approximation only.

* **Direct assessment**: the one-sided Wilcoxon rank-sum test on segment-mean z-scores (or
  per-judgment z, the campaign's "significance unit"), reliable workers (or every worker, as
  the campaign counts them). A pair (better, worse by Ave z) is separated when p < 0.05. Not
  separated: Noether's formula on the observed P(better > worse) gives the observations each
  system needs for power 0.8; a segment mean needs the system's current judgments per segment.
  A HIT of ``items_per_hit`` items gives each of the m systems (output and repeat share of the
  built HITs) x items / m judgments; only the share of judgments that count today (reliable
  workers' outputs over all scored outputs) counts in the future too. So the assignments are
  ceil(max over the two systems of judgments needed / (per-system judgments per assignment x
  counted share)). When the segments a system needs exceed the campaign's segments, more
  judgments of the same segments only sharpen the segment means: the page says to import
  segments.
* **Ranking**: the bootstrap of the campaign's ranking score (Expected Wins when it ranks by
  TrueSkill, which has no bootstrap), resampling ranking sets. Separated when the bootstrap
  p < 0.05. Not separated: k = ((z_0.95 + z_0.8) se / d)^2 times today's ranking sets, with d
  the score difference and se its bootstrap standard deviation; a ranking set brings its
  current judgments per set; a HIT holds ``sets_per_hit`` x ``outputs_per_set`` judgments,
  of which the non-gold share counts, times the counted (trusted) share.

Cost: the assignments times the reward plus the platform's fee (MTurk's when the campaign's
HITs were published there, priced as on the production marketplace with the campaign's
redundancy as the HIT's assignments; Prolific's when the campaign names a Prolific study;
none for direct links), ``analytics.reports.cost``.

The estimate is computed once per stored result and cached (keyed by its ``computed_at``, as
the API's segment table): it loads every judgment and, for ranking, bootstraps like the
recompute does.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import datetime

from django.core.exceptions import ObjectDoesNotExist
from django.forms.models import model_to_dict

from analytics.kinds import statistics_of
from analytics.reports.estimates import PairEstimate, StillNeeded
from analytics.reports.kinds import kind_report
from campaigns.kinds import settings_accessors
from campaigns.models import Campaign
from evalsite.cachesafe import cache_get, cache_set

__all__ = ["MethodNotAvailable", "PairEstimate", "StillNeeded", "estimate_methods", "still_needed"]

CACHE_SECONDS = 24 * 60 * 60
CACHE_VERSION = 3


class MethodNotAvailable(ValueError):
    """A method the campaign's kind does not estimate by; the message names the ones it has."""


def estimate_methods(campaign: Campaign) -> tuple[tuple[str, str], ...]:
    """The kind's estimation methods (value, label), the default first; none for kinds
    without an estimate."""
    return kind_report(campaign).methods


def _cache_key(campaign: Campaign, computed_at: datetime, method: str) -> str:
    return ":".join(
        [
            f"analytics:reports:still-needed:v{CACHE_VERSION}",
            str(campaign.pk),
            # Timestamps as numbers: no characters a cache backend refuses in a key.
            str(campaign.created_at.timestamp()),
            str(computed_at.timestamp()),
            method,
            # The price and the assignments follow the campaign's payment and HIT layout
            # settings (e.g. items per HIT), which a recompute does not depend on.
            str(campaign.reward),
            str(campaign.redundancy),
            str(campaign.mturk_masters),
            campaign.prolific_study_id or "-",
            _kind_settings(campaign),
        ]
    )


def _kind_settings(campaign: Campaign) -> str:
    """A digest of the kind's settings row (empty without one), for the cache key (short and
    plain, as cache keys must be)."""
    for accessor in settings_accessors():
        try:
            row = getattr(campaign, accessor)
        except ObjectDoesNotExist:
            continue
        text = repr(sorted(model_to_dict(row).items()))
        return hashlib.sha256(text.encode()).hexdigest()[:16]
    return ""


def still_needed(campaign: Campaign, method: str | None = None) -> StillNeeded:
    """The estimate for ``campaign`` (module docstring) by ``method`` (one of
    :func:`estimate_methods`; None: the kind's default): computed from the data once per
    stored result and method, then read from the cache. Raises :class:`MethodNotAvailable`
    for a method the kind has not."""
    methods = [value for value, _ in estimate_methods(campaign)]
    if method and method not in methods:
        raise MethodNotAvailable(
            f"{campaign.get_kind_display()} campaigns estimate by "
            + (" or ".join(f"'{value}'" for value in methods) if methods else "no method")
            + f", not '{method}'."
        )
    method = method or (methods[0] if methods else "")
    statistics = statistics_of(campaign)
    base = StillNeeded(
        campaign_id=campaign.pk,
        campaign_name=campaign.name,
        kind=campaign.kind,
        computed_at=None,
        available=False,
        method_id=method,
        methods=tuple(methods),
    )
    estimator = kind_report(campaign).estimate
    if statistics is None or estimator is None:
        label = campaign.get_kind_display()
        return replace(
            base,
            reason=f"{label} campaigns have no estimate of judgments still needed: only "
            "direct assessment (rank-sum test) and ranking (bootstrap) have one.",
        )
    computed_at = statistics.stored_computed_at(campaign)
    if computed_at is None:
        return replace(
            base,
            reason="The campaign's statistics have not been computed yet: it has no scored "
            "judgment, or the first computation is still queued.",
        )
    key = _cache_key(campaign, computed_at, method)
    cached = cache_get(key)
    if cached is not None:
        return cached
    result = estimator(campaign, replace(base, computed_at=computed_at), method)
    cache_set(key, result, CACHE_SECONDS)
    return result
