"""Crowd translation's statistics (``analytics.kinds``): the kind registered in :mod:`.kind`.

- :mod:`.loading`: the campaign's translations, Detect-MT votes, corrections, sentences, MT
  outputs and the requester's choices;
- :mod:`.actions`: the recompute (it first builds the Detect-MT HITs, and the correction HITs
  last): flags, flag rates and exclusions, the kept translation per sentence, BLEU and chrF,
  the system table with 004's percentage of baseline, and the stale-results query of the
  sweep; :mod:`.store` stores the results;
- :mod:`.panel`: the results panel on the campaign's admin page; :mod:`.flags`: each
  translation's flags in words (:func:`translation_flags`, for the "Choose translations"
  page);
- :mod:`.api`: its parts of the analysts' API and of the system-table exports; :mod:`.routes`:
  its own endpoints (translations, translators, the kept test set, the system table, the
  test-set exports).
"""

from analytics.kinds.translation.flags import kept_translations, translation_flags
from analytics.kinds.translation.kind import Translation

__all__ = ["Translation", "kept_translations", "translation_flags"]
