"""Signals other apps connect to. Sent only after the database commit that stored the rows."""

from django.dispatch import Signal

# Sent by judgments.actions.record_judgment through transaction.on_commit, once per committed
# submission that stored new judgments (an idempotent retry stores nothing and sends nothing).
#   sender:        judgments.models.Judgment
#   campaign_id:   int, the campaign the judgments belong to
#   worker_id:     int, the worker who gave them
#   judgment_ids:  list[int], the ids of the new Judgment rows
# Receivers run after the commit; one that raises is logged and does not fail the worker's
# request (the judgments are stored; analytics' periodic sweep repairs what a receiver missed).
judgments_recorded = Signal()

# Sent through transaction.on_commit by judgments.actions.set_excluded (the requester's
# exclusions) and set_untrusted (the gold-unit trust cut-off) when a membership changed: an
# excluded or untrusted worker's judgments leave the scores; a re-admitted worker's come back.
#   sender:        judgments.models.CampaignWorker
#   campaign_ids:  list[int], the campaigns whose exclusions changed
exclusions_changed = Signal()

# Sent through transaction.on_commit by judgments.actions.score_qualification when an MTurk
# worker passed the qualification test of a campaign that has an MTurk qualification type:
# the crowd-platform glue (campaigns.apps) grants it on MTurk, in a Celery task.
#   sender:              judgments.models.CampaignWorker
#   campaign_worker_id:  int, the membership that passed
mturk_qualification_earned = Signal()
