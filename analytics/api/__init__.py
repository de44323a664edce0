"""The analysts' REST API (Django REST framework), mounted at /api/.

- :mod:`.permissions`: who sees which campaign (staff, the owning requester, analysts granted
  access; everyone else gets 404);
- :mod:`.views`: read-only endpoints over campaigns, systems and scores, workers, HITs,
  assignments and judgments;
- :mod:`.exports`: streamed exports (judgments as CSV and JSON Lines; system tables as CSV,
  WMT-style TSV and LaTeX);
- :mod:`.imports`: importing published judgment files into an imported campaign;
- :mod:`.urls`: the routes, the OpenAPI schema and its documentation page.
"""
