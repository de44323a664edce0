"""A campaign's report and "judgments still needed" (issue 17 items 3 and 4).

- :mod:`.cost` (pure): rewards plus the platforms' fees, approved, submitted, in progress and
  not started kept apart, projected to completion;
- :mod:`.summary` (pure): time per assignment, evaluation period, trust split, countries;
- :mod:`.trust`: each worker's trust as the campaign's kind decides it (one query);
- :mod:`.loading`: the report's rows, one query per table, and the report computed from them;
- :mod:`.still_needed`: the pairs of systems not separated yet and the judgments that would
  separate them (the statistics are :mod:`analytics.stats.power`);
- :mod:`.export` (pure): the report as CSV;
- :mod:`.views` and :mod:`.urls`: the admin pages (``campaign-report``,
  ``campaign-report-download``, ``campaign-still-needed``); the API is
  :mod:`analytics.api.reports`.
"""
