"""What each task kind plots: its system scores (the forest plot), its score distributions
and its own plots, read from the stored results with one query per table.

One module per kind (``analytics/dashboards/kinds/<kind>.py``), registered in
:data:`DASHBOARD_KINDS` as ``analytics.kinds`` registers the statistics (``evalsite.kinds``):
the dashboards' shared code (``analytics.dashboards.catalogue``) asks
``DASHBOARD_KINDS.get(campaign.kind)`` and never compares the kind with a particular one.
Figures are drawn by the pure functions of ``analytics.plots``; these modules only read rows
into their arguments.
"""

from analytics.dashboards.kinds.base import DashboardKind, registry

# Every kind of evalsite.kinds.TASK_KINDS that has a module here.
registry.load()
DASHBOARD_KINDS = registry

__all__ = ["DASHBOARD_KINDS", "DashboardKind"]
