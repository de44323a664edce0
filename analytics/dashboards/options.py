"""The plots' switches (issue 17): the same variants the results endpoints read, by the same
names and through the same code.

- the kind's "every worker" variant, named by its statistics' ``variant_param``
  (``include_unreliable`` for direct assessment, ``include_untrusted`` for ranking,
  ``include_flagged`` for post-editing, ``without_suspect`` for reading comprehension) and
  decided by ``AnalyticsKind.include_all``, exactly as ``/api/campaigns/<id>/systems/`` does;
- ranking's ``method`` (Expected Wins, Bradley-Terry, TrueSkill, the win ratios), validated
  by the same serializer as the systems endpoint (``ScoreParamsSerializer``); left out, the
  campaign's own "rank by".

Rejected assignments and excluded workers are in no variant of the stored results (they
never count in the scores, as the results endpoints say), so the plots have no switch for
them either. Kinds whose scores have no variant (translation) show no switch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rest_framework.exceptions import ValidationError

from analytics.api.serializers import ScoreParamsSerializer
from analytics.kinds import statistics_of
from campaigns.models import Campaign

__all__ = ["DEFAULT", "PlotOptions", "option_names", "plot_options"]


@dataclass(frozen=True)
class PlotOptions:
    """``include_all``: the kind's "every worker" variant; ``method``: ranking's scoring
    method as asked (None: the campaign's own)."""

    include_all: bool = False
    method: str | None = None

    def key(self) -> str:
        """For cache keys and file names: empty for the default."""
        parts = ["all" if self.include_all else "", self.method or ""]
        return "-".join(part for part in parts if part)


DEFAULT = PlotOptions()


def option_names() -> tuple[str, ...]:
    """Every query parameter the plots read (every kind's, as the systems endpoint
    validates them for every campaign)."""
    return tuple(ScoreParamsSerializer().fields)


def plot_options(campaign: Campaign, params: Any) -> PlotOptions:
    """The switches in ``params`` (a request's query, without ``format``) for ``campaign``.
    Raises rest_framework's ValidationError naming the parameter for a bad value."""
    # A plain dict: DRF reads an empty value in a QueryDict as "left out", and
    # ?include_unreliable= should be an error, as the exports say.
    data = {
        name: value
        for name, value in (params.dict() if hasattr(params, "dict") else dict(params)).items()
        if name in option_names()
    }
    serializer = ScoreParamsSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    validated = serializer.validated_data
    statistics = statistics_of(campaign)
    include_all = statistics is not None and statistics.include_all(validated)
    return PlotOptions(include_all=include_all, method=validated.get("method") or None)


def errors_text(error: ValidationError) -> str:
    """A ValidationError's messages as one line per parameter, for the admin's 400 page."""
    detail = error.detail
    if isinstance(detail, dict):
        return "\n".join(
            f"{name}: {' '.join(str(message) for message in messages)}"
            for name, messages in detail.items()
        )
    return str(detail)
