"""Ranking's statistics (``analytics.kinds``): the kind registered in :mod:`.kind`.

- :mod:`.loading`: the campaign's rankings as numpy arrays for the pure statistics;
- :mod:`.actions`: gold trust, the untrusted cut-off, auto-takedown, scores by every method,
  and the stale-results query of the sweep; :mod:`.store` stores the results;
- :mod:`.panel`: the results panel on the campaign's admin page;
- :mod:`.api`: its parts of the analysts' API and of the system-table exports.
"""

from analytics.kinds.ranking.kind import Ranking

__all__ = ["Ranking"]
