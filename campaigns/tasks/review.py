"""Celery tasks: syncing assignments with MTurk."""

__all__: list[str] = []
