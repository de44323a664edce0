"""Direct assessment's statistics (``analytics.kinds``): the kind registered in :mod:`.kind`.

- :mod:`.loading`: the campaign's judgments as numpy arrays for the pure statistics;
- :mod:`.actions`: computing and storing the results, and the stale-results query of the
  sweep;
- :mod:`.panel`: the results panel on the campaign's admin page;
- :mod:`.api`: its parts of the analysts' API and of the system-table exports.
"""

from analytics.kinds.direct_assessment.kind import DirectAssessment

__all__ = ["DirectAssessment"]
