"""Crowd platforms: what stands between a campaign and the platform that sends its workers.

- :mod:`campaigns.platforms.mturk`: Amazon Mechanical Turk's service layer (``METHODS.md``
  section 7): plain functions over an injected boto3 client, no Django, tested with botocore's
  ``Stubber``;
- :mod:`.models`: what we remember of the platforms (``MTurkHit``, ``PlatformEvent``);
- :mod:`.clients`: the one place a boto3 client is built (tests replace it);
- :mod:`.events`: MTurk errors and conflicts stored for the admin, with what to do;
- :mod:`.publishing` and :mod:`.review`: the Django glue the admin, the management commands
  and the Celery tasks share (publish, expire, extend; sync, approve, reject, bonus, block,
  notify).

Prolific and direct links need no service layer: Prolific sends workers with URL parameters
and takes them back with a completion code (``judgments.entry.prolific``), direct links are
signed tokens (``judgments.tokens``, ``campaigns.links``).
"""
