"""Celery tasks of the crowd platforms (autodiscovered as ``campaigns.tasks``).

Thin, as everywhere: ids in, an early return with a log line when the row is gone, one call
into ``campaigns.platforms``. Publishing and qualification grants are in :mod:`.publishing`,
the assignment sync in :mod:`.review`, import jobs in :mod:`.imports`, reading
comprehension's stages in :mod:`.reading_comprehension`.
"""

from campaigns.tasks.imports import *  # noqa: F403
from campaigns.tasks.publishing import *  # noqa: F403
from campaigns.tasks.reading_comprehension import *  # noqa: F403
from campaigns.tasks.review import *  # noqa: F403
