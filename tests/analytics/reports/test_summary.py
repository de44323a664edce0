"""analytics.reports.summary against hand-worked numbers (002 Tables A.1-A.4)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from analytics.reports.summary import (
    CountryRow,
    TrustRow,
    countries,
    evaluation_period,
    time_per_assignment,
    trust_split,
)


def test_time_per_assignment_median_and_quartiles():
    # 10, 20, 30, 40 s: numpy's linear quartiles 17.5 and 32.5, median 25, mean 25, 100 s in
    # all (100 / 3600 h). The untimed assignment is counted apart.
    t = time_per_assignment([40.0, None, 10.0, 30.0, 20.0])
    assert (t.n, t.n_untimed) == (4, 1)
    assert (t.q1, t.median, t.q3, t.mean) == (17.5, 25.0, 32.5, 25.0)
    assert t.total_hours == pytest.approx(100 / 3600)
    empty = time_per_assignment([None])
    assert (empty.n, empty.n_untimed, empty.median, empty.total_hours) == (0, 1, None, None)


def test_evaluation_period_from_first_to_last_judgment():
    first = datetime(2026, 3, 1, 12, tzinfo=UTC)
    last = datetime(2026, 3, 5, 0, tzinfo=UTC)
    middle = datetime(2026, 3, 2, tzinfo=UTC)
    period = evaluation_period([middle, first], [middle, last])
    assert (period.first, period.last) == (first, last)
    assert period.days == 3.5
    assert evaluation_period([], []).days is None


def test_judgments_by_trusted_and_untrusted_workers():
    judgments = {1: 30, 2: 10, 3: 50, 4: 10}
    status = {1: "trusted", 2: "untrusted", 3: "trusted"}  # worker 4: no status, undecided
    assert trust_split(judgments, status) == [
        TrustRow("trusted", 2, 80, 0.8),
        TrustRow("untrusted", 1, 10, 0.1),
        TrustRow("undecided", 1, 10, 0.1),
    ]
    assert trust_split({}, {})[0] == TrustRow("trusted", 0, 0, None)
    with pytest.raises(ValueError, match="unknown trust status"):
        trust_split({1: 1}, {1: "maybe"})


def test_workers_per_country_most_first_unknown_last():
    country = {1: "US", 2: "DE", 3: "", 4: "US", 5: "AT", 6: "DE", 7: ""}
    judgments = {1: 5, 2: 3, 4: 1, 5: 2, 7: 4}
    assert countries(country, judgments) == [
        CountryRow("DE", 2, 3),
        CountryRow("US", 2, 6),
        CountryRow("AT", 1, 2),
        CountryRow("unknown", 2, 4),
    ]
