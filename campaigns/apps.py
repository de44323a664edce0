from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Each task kind's requester side registers itself (evalsite/kinds.py).
        from campaigns.kinds import registry

        registry.load()
