from celery import shared_task

from judgments import actions


@shared_task
def expire_abandoned_assignments() -> int:
    """Periodic sweep (celery beat): return abandoned HITs to the pool."""
    return actions.expire_abandoned_assignments()
