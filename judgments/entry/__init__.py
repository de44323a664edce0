"""How workers arrive from each crowd platform, and what every platform's pages share.

- :mod:`.mturk`: MTurk's ExternalQuestion page (preview, accept, the final post to
  ``turkSubmitTo``);
- :mod:`.prolific`: the Prolific study URL and the redirect to Prolific's completion page;
- :mod:`.background`: the optional background form before a worker's first HIT;
- :mod:`.framing`: which pages MTurk may frame (the task pages) and which nobody may;
- :mod:`.presenters`: the HIT's first unit, for MTurk's preview (what a worker's browser
  receives of a unit is each kind's page's: ``judgments.kinds``).

Direct links (``/work/w/<token>/``, ``/work/<campaign>/start``) live in ``judgments.views``.
Whatever the platform, the worker ends up on the same task page, authorised by the same
signed assignment token.
"""
