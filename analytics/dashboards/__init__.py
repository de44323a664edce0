"""Dashboards with plots (issue 17 item 2): the admin's dashboard page of a campaign and its
plots as SVG or PNG, shared with the API (``analytics.api.plots``).

- :mod:`.catalogue`: the plots by name, which kinds have them, their bytes (cached per stored
  result);
- :mod:`.kinds`: what each kind plots (system scores, distributions), read from the stored
  results with one query per table;
- :mod:`.data`: the plots every kind has (progress, countries) and the kind-specific
  reliability and agreement plots;
- :mod:`.intervals`, :mod:`.voters`: the two computations the stored results do not hold
  (pure numpy, no Django);
- :mod:`.views`, :mod:`.urls`: the admin pages ("campaign-dashboard", "campaign-plot").

The drawing itself is ``analytics.plots`` (pure, no Django).
"""
