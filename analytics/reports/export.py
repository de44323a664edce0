"""The report as a CSV file: one long table (section, item, measure, value) flattened from the
API's JSON shape (``analytics.api.reports.CampaignReportSerializer``), so that the CSV, the
JSON and the page never disagree. Pure."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["report_csv", "report_rows"]

COLUMNS = ("section", "item", "measure", "value")


PLAIN_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
# What a spreadsheet reads as the start of a formula (OWASP's CSV injection advice, as
# campaigns.links.safe_cell; repeated here to keep this module free of Django).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    """A cell a spreadsheet will not run as a formula: text such as the campaign's name or a
    country starting with = + - @ gets a leading apostrophe;
    numbers, also as text ("-0.25"), pass unchanged."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return value if PLAIN_NUMBER.fullmatch(value) else "'" + value
    return value


def report_rows(data: dict[str, Any]) -> Iterator[tuple[str, str, str, Any]]:
    """(section, item, measure, value) rows of the report's JSON shape."""
    campaign = data["campaign"]
    for name in ("id", "name", "kind"):
        yield "campaign", "", name, campaign[name]
    for name in ("generated_at", "reward", "redundancy", "n_judgments"):
        yield "campaign", "", name, data[name]
    for row in data["task_rewards"]:
        yield "campaign", row["task"], "reward", row["reward"]
    for status, n in data["assignments"].items():
        yield "assignments", status, "count", n
    cost = data["cost"]
    for name in ("currency", "paid", "committed", "projected"):
        yield "cost", "", name, cost[name]
    for line in cost["lines"]:
        for measure in ("count", "rewards", "fees", "total"):
            yield "cost", line["key"], measure, line[measure]
    for platform, fees in cost["fees_by_platform"].items():
        yield "cost", f"fees_{platform}", "fees", fees
    for measure, value in data["time_per_assignment"].items():
        yield "time_per_assignment", "", measure, value
    for measure, value in data["evaluation_period"].items():
        yield "evaluation_period", "", measure, value
    for row in data["trust"]["rows"]:
        for measure in ("workers", "judgments", "share_of_judgments"):
            yield "trust", row["status"], measure, row[measure]
    for row in data["countries"]:
        for measure in ("workers", "judgments"):
            yield "countries", row["country"], measure, row[measure]


def report_csv(data: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for section, item, measure, value in report_rows(data):
        writer.writerow((section, item, measure, _cell(value)))
    return out.getvalue()
