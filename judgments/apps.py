from django.apps import AppConfig
from django.core import checks

from judgments import kinds
from judgments.i18n import check_catalogs


class JudgmentsConfig(AppConfig):
    name = "judgments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Each task kind's worker side registers itself (judgments/kinds/<kind>.py).
        kinds.registry.load()
        checks.register(check_catalogs)
