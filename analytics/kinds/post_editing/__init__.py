"""Post-editing's statistics (``analytics.kinds``): the kind registered in :mod:`.kind`.

- :mod:`.scoring`: the TER numbers of every edit and output, computed once and stored;
- :mod:`.loading`: the campaign's edits, votes and stored numbers as numpy arrays;
- :mod:`.actions`: verification, HTER, 000's subsampling table, 003's combinations, worker
  profiles, and the stale-results query of the sweep; :mod:`.store` stores the results;
- :mod:`.panel`: the results panel on the campaign's admin page;
- :mod:`.api`: its parts of the analysts' API and of the system-table exports; :mod:`.edits`:
  its own endpoints (every edit with its TER, verification outcomes).
"""

from analytics.kinds.post_editing.kind import PostEditing

__all__ = ["PostEditing"]
