#!/usr/bin/env python
"""Import speed: 20 systems x 3,000 segments (60,000 outputs) in the TSV format.

    .venv/bin/python bench/import_speed.py [--systems 20] [--segments 3000] [--keep]

Writes the TSV to a temporary folder and imports it into a fresh campaign through
campaigns.importers (check_import, then write_checked: what run_import does), timing the two
steps. With DATABASE_URL set, it runs against that database (the campaign is deleted afterwards
unless --keep); without it, against a temporary SQLite file with the project's default SQLite
settings, so the development database is never touched.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

WORDS = (
    "the of and to in a is that for it as was with be by on not he I this are or his from at "
    "which but have an they you were her she there been one all we their has would when if so "
    "Übersetzung naïve café «quoted» <tag> & 東京 مرحبا"
).split()


def sentence(rng: random.Random, low: int = 8, high: int = 30) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))) + "."


def write_tsv(path: Path, systems: int, segments: int, per_document: int = 20) -> int:
    rng = random.Random(20)
    names = [f"system-{n:02d}" for n in range(1, systems + 1)]
    rows = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("doc_id\tseg_id\tsource\treference\tsystem\toutput\n")
        for number in range(1, segments + 1):
            doc_id = f"doc-{(number - 1) // per_document + 1:04d}"
            source, reference = sentence(rng), sentence(rng)
            for name in names:
                out.write(f"{doc_id}\t{number}\t{source}\t{reference}\t{name}\t{sentence(rng)}\n")
                rows += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--segments", type=int, default=3000)
    parser.add_argument("--keep", action="store_true", help="Keep the campaign (DATABASE_URL).")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        from django.conf import settings

        temporary_db = not os.environ.get("DATABASE_URL")
        if temporary_db:
            settings.DATABASES["default"]["NAME"] = str(Path(tmp) / "bench.sqlite3")

        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        from campaigns.importers import check_import, write_checked
        from campaigns.kinds import new_campaign
        from campaigns.models import Document, Output, Segment, System

        if temporary_db:
            call_command("migrate", verbosity=0)

        path = Path(tmp) / "bench.tsv"
        started = time.perf_counter()
        rows = write_tsv(path, args.systems, args.segments)
        generated = time.perf_counter() - started
        size_mb = path.stat().st_size / 1e6

        campaign = new_campaign(
            settings={"assessment_mode": "adequacy"},
            name=f"bench-import-{uuid.uuid4().hex[:8]}",
            kind="direct_assessment",
            source_language="de",
            target_language="en",
        ).save()
        started = time.perf_counter()
        checked = check_import(campaign, "tsv", path)
        checked_at = time.perf_counter()
        summary = write_checked(checked)
        written_at = time.perf_counter()

        found = (
            Document.objects.filter(campaign=campaign).count(),
            Segment.objects.filter(campaign=campaign).count(),
            System.objects.filter(campaign=campaign).count(),
            Output.objects.filter(segment__campaign=campaign).count(),
        )
        database = connection.vendor + (
            f" {connection.Database.sqlite_version} (temporary file)"
            if connection.vendor == "sqlite" and temporary_db
            else ""
        )
        print(f"database:        {database}")
        print(
            f"file:            {rows:,} rows, {size_mb:.1f} MB "
            f"({args.systems} systems x {args.segments:,} segments), generated in "
            f"{generated:.2f} s"
        )
        print(f"parse+validate:  {checked_at - started:.2f} s")
        print(f"write:           {written_at - checked_at:.2f} s")
        print(f"total:           {written_at - started:.2f} s")
        print(
            "rows in the database: documents {:,}, segments {:,}, systems {:,}, "
            "outputs {:,}".format(*found)
        )
        print(f"summary: {summary.message}")
        expected = (summary.documents, summary.segments, summary.systems, summary.outputs)
        if found != expected:
            raise SystemExit(f"row counts {found} differ from the summary {expected}")
        if not temporary_db and not args.keep:
            campaign.delete()


if __name__ == "__main__":
    main()
