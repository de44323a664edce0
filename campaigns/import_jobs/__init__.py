"""Import jobs (issue 11 item 6): a big upload is checked and written by a Celery worker, not
inside the web request, while its page shows the progress.

``models`` holds :class:`ImportJob` (re-exported by ``campaigns.models``), ``files`` keeps the
uploads in a private folder until the job ends, ``progress`` records how far a running job is,
and ``actions`` creates, runs and ends jobs; ``campaigns.tasks.imports`` is the Celery task.
This package's ``__init__`` imports nothing, so that ``campaigns.models`` can import the model.
"""
