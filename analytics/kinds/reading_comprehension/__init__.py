"""Reading comprehension's statistics (``analytics.kinds``): the kind registered in :mod:`.kind`.

- :mod:`.loading`: the campaign's answers and grades as numpy arrays;
- :mod:`.actions`: the recompute (it first moves the articles through their stages), the
  share correct per system with intervals, tests and clusters, the breakdowns, question
  difficulty, grader agreement, the workers, and the stale-results query of the sweep;
  :mod:`.store` stores the results;
- :mod:`.progress`: where each article is (live); :mod:`.panel`: the results panel on the
  campaign's admin page;
- :mod:`.api`: its parts of the analysts' API and of the system-table exports (:mod:`.tables`
  writes them); :mod:`.routes`: its own endpoints (questions, answers, articles, the answers
  export), shaped by :mod:`.serializers`.
"""

from analytics.kinds.reading_comprehension.kind import ReadingComprehension

__all__ = ["ReadingComprehension"]
