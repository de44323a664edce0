"""Celery tasks: publishing to MTurk and granting its qualification."""

__all__: list[str] = []
