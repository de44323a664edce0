from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Each task kind's requester side registers itself (evalsite/kinds.py).
        from campaigns.kinds import registry

        registry.load()

        # An MTurk worker who passed a qualification test gets the campaign's qualification.
        from campaigns.tasks.publishing import grant_on_qualification
        from judgments.signals import mturk_qualification_earned

        mturk_qualification_earned.connect(
            grant_on_qualification, dispatch_uid="campaigns.grant_mturk_qualification"
        )
