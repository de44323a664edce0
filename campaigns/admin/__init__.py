"""The requester's side of evalsite in the Django admin (autodiscovered as ``campaigns.admin``).

Importing the package registers every ModelAdmin of the campaigns app:

- :mod:`.campaign`: the campaigns (``CampaignAdmin``), built from the mixins of :mod:`.kinds`,
  :mod:`.judgment_import`, :mod:`.mturk`, :mod:`.mturk_review` and :mod:`.links`, with the form
  and plain inlines of :mod:`.campaign_form`;
- :mod:`.content`: their systems, documents, segments, outputs, gold answers and HITs;
- :mod:`.mturk`: the MTurk HITs and platform events.

:mod:`.access` limits every list to the campaigns shared with the user (the analytics and
judgments admins use it too); :mod:`.segment_import` and :mod:`.import_jobs` are the import
pages the campaign admin routes to.
"""

from campaigns.admin import campaign, content, mturk

__all__ = ["campaign", "content", "mturk"]
