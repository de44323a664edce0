from typing import Any

from django.apps import AppConfig


def grant_on_qualification(sender: Any, campaign_worker_id: int, **kwargs: Any) -> None:
    """Receiver of ``judgments.signals.mturk_qualification_earned``: hands over to
    ``campaigns.tasks.publishing.grant_on_qualification``, imported only when a worker earns a
    qualification, so that a web worker starts without Celery (issue 16 item 4)."""
    from campaigns.tasks import publishing

    publishing.grant_on_qualification(sender, campaign_worker_id=campaign_worker_id, **kwargs)


class CampaignsConfig(AppConfig):
    name = "campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Each task kind's requester side registers itself (evalsite/kinds.py).
        from campaigns.kinds import registry

        registry.load()

        # An MTurk worker who passed a qualification test gets the campaign's qualification.
        from judgments.signals import mturk_qualification_earned

        mturk_qualification_earned.connect(
            grant_on_qualification, dispatch_uid="campaigns.grant_mturk_qualification"
        )
