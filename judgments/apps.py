from django.apps import AppConfig


class JudgmentsConfig(AppConfig):
    name = "judgments"
    default_auto_field = "django.db.models.BigAutoField"
