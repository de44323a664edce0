from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    name = "analytics"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from analytics.kinds import registry

        # Each task kind's statistics (analytics.kinds.<kind>), by evalsite.kinds.TASK_KINDS.
        registry.load()

        # The Celery tasks (analytics.tasks) are not imported here: the worker autodiscovers
        # them, and analytics.actions enqueues the recompute by its name
        # (evalsite.celery.task_named imports the module on first use). A web worker so
        # starts without Celery (issue 16 item 4).

        # Live statistics: every committed submission schedules a (coalesced) recompute.
        from analytics.actions import on_exclusions_changed, on_judgments_recorded
        from judgments.signals import exclusions_changed, judgments_recorded

        judgments_recorded.connect(
            on_judgments_recorded, dispatch_uid="analytics.recompute_on_judgments_recorded"
        )
        # Excluding or re-admitting a worker (admin, API or task) changes who is in the scores.
        exclusions_changed.connect(
            on_exclusions_changed, dispatch_uid="analytics.recompute_on_exclusions_changed"
        )
