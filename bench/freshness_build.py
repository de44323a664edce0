"""A direct-assessment campaign of a million judgments, built in about a minute (for
bench/freshness.py): outputs and HITs the way production builds them
(``campaigns.actions.build_hits``), workers and assignments with ``bulk_create``, and the
judgments written by PostgreSQL's ``COPY FROM STDIN`` from numpy arrays (no model instance per
judgment). The judgments follow bench/da_stats.py's model: 90% careful workers (output quality
by system, a personal leniency, noise; bad references 30 lower, references about 88), 10%
random clickers (uniform scores, fast); 2% of the assignments rejected, 5 workers excluded.

Besides the pre-filled HITs (every one done by ``redundancy`` workers), ``spare_hits`` HITs are
left open and ``load_workers`` workers without assignments are created, so that a load can
hand them out through the real endpoints.
"""

from __future__ import annotations

import io
import random
import time

import numpy as np

from bench.da_stats import EXCLUDED_WORKERS, RANDOM_SHARE, REJECTED_SHARE, sentence

__all__ = ["build_campaign"]


def build_campaign(
    judgments: int,
    *,
    systems: int = 10,
    workers: int = 500,
    redundancy: int = 5,
    spare_hits: int = 200,
    load_workers: int = 400,
    tag: str = "",
) -> dict:
    """Build the campaign; returns its id, the load workers' links and what was built."""
    from django.db import connection, transaction
    from django.utils import timezone

    from campaigns.actions import build_hits
    from campaigns.kinds import new_campaign
    from campaigns.models import Document, HitSlot, Output, Segment, System
    from judgments import tokens
    from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Worker

    if judgments % (100 * redundancy):
        raise ValueError("judgments must be a multiple of 100 x redundancy")
    started = time.perf_counter()
    rng = random.Random(2014)
    n_assignments = judgments // 100
    n_filled = n_assignments // redundancy
    n_hits = n_filled + spare_hits
    n_segments = -(-n_hits * 70 // systems)  # every system's outputs fill its HIT shares
    campaign = new_campaign(
        settings={"assessment_mode": "adequacy"},
        name=f"bench-freshness-{tag or int(time.time())}",
        kind="direct_assessment",
        source_language="de",
        target_language="en",
        redundancy=redundancy,
        status="active",
    ).save()
    with transaction.atomic():
        document = Document.objects.create(campaign=campaign, external_id="doc", position=1)
        system_rows = System.objects.bulk_create(
            System(campaign=campaign, name=f"system-{n:02d}") for n in range(systems)
        )
        segments = Segment.objects.bulk_create(
            (
                Segment(
                    campaign=campaign,
                    document=document,
                    external_id=str(n + 1),
                    position=n + 1,
                    source=sentence(rng),
                    references=[sentence(rng)],
                )
                for n in range(n_segments)
            ),
            batch_size=2000,
        )
        Output.objects.bulk_create(
            (
                Output(system=s, segment=g, text=sentence(rng))
                for g in segments
                for s in system_rows
            ),
            batch_size=5000,
        )
    hits = build_hits(campaign)

    worker_rows = Worker.objects.bulk_create(
        Worker(platform="direct", external_id=f"fresh-{campaign.pk}-{n:04d}")
        for n in range(workers + load_workers)
    )
    regular, loaders = worker_rows[:workers], worker_rows[workers:]
    CampaignWorker.objects.bulk_create(
        CampaignWorker(campaign=campaign, worker=w, excluded=n < EXCLUDED_WORKERS)
        for n, w in enumerate(regular)
    )
    hit_ids = list(campaign.hits.order_by("number").values_list("pk", flat=True))[:n_filled]
    far = campaign.created_at.replace(year=campaign.created_at.year + 1)
    # HIT h goes to workers h*r .. h*r + r-1 (mod the worker count): distinct per HIT.
    assignments = Assignment.objects.bulk_create(
        (
            Assignment(
                campaign=campaign,
                reward=campaign.reward,
                hit_id=hit_ids[h],
                worker=regular[(h * redundancy + j) % len(regular)],
                status=AssignmentStatus.REJECTED
                if rng.random() < REJECTED_SHARE
                else AssignmentStatus.SUBMITTED,
                expires_at=far,
            )
            for h in range(n_filled)
            for j in range(redundancy)
        ),
        batch_size=2000,
    )

    slots = np.array(
        list(
            HitSlot.objects.filter(hit_id__in=hit_ids)
            .order_by("hit__number", "position")
            .values_list("hit_id", "pk", "output_id", "output__system_id", "role")
        ),
        dtype=object,
    )
    slot_hit = slots[:, 0].astype(np.int64)
    slot_id = slots[:, 1].astype(np.int64)
    slot_output = slots[:, 2].astype(np.int64)
    slot_system = slots[:, 3].astype(np.int64)
    slot_role = slots[:, 4].astype(str)
    np_rng = np.random.default_rng(2014)
    system_ids = np.array([s.pk for s in system_rows], dtype=np.int64)
    quality = np.linspace(75, 40, systems)
    system_quality = np.zeros(int(system_ids.max()) + 1)
    system_quality[system_ids] = quality
    output_noise = np_rng.normal(0, 10, int(slot_output.max()) + 1)
    base = system_quality[slot_system] + output_noise[slot_output]
    base = np.where(slot_role == "reference", 88.0, base)
    base = np.where(slot_role == "bad_reference", base - 30, base)
    # The slots of each pre-filled HIT, by position.
    by_hit = {hit: np.flatnonzero(slot_hit == hit) for hit in hit_ids}
    random_workers = {w.pk for w in regular if rng.random() < RANDOM_SHARE}

    now = timezone.now().isoformat()
    buffer = io.StringIO()
    n_written = 0
    with connection.cursor() as cursor:
        for assignment in assignments:
            rows = by_hit[assignment.hit_id]
            n = rows.shape[0]
            if assignment.worker_id in random_workers:
                scores = np_rng.integers(0, 101, n).astype(float)
                ms = np_rng.lognormal(np.log(1500), 0.3, n)
            else:
                leniency = np_rng.normal(0, 8)
                scores = np.clip(np.rint(base[rows] + leniency + np_rng.normal(0, 7, n)), 0, 100)
                ms = np_rng.lognormal(np.log(12000), 0.5, n)
            prefix = f"{campaign.pk}\t{assignment.worker_id}\t{assignment.pk}\t"
            for slot, score, duration in zip(slot_id[rows], scores, ms.astype(int), strict=True):
                buffer.write(
                    f"{prefix}{slot}\t{score:g}\t{duration}\t{duration + 150}\t{now}\t\t{{}}\n"
                )
            n_written += n
            if buffer.tell() > 8 * 2**20:
                _copy(cursor, buffer)
        _copy(cursor, buffer)
        cursor.execute("ANALYZE judgments_judgment")
    return {
        "campaign": campaign.pk,
        "links": [f"/work/w/{tokens.worker_token(w.pk, campaign.pk)}/" for w in loaders],
        "hits": hits,
        "filled_hits": n_filled,
        "segments": n_segments,
        "assignments": len(assignments),
        "judgments": n_written,
        "random_workers": len(random_workers),
        "seconds": round(time.perf_counter() - started, 1),
    }


def _copy(cursor, buffer: io.StringIO) -> None:
    buffer.seek(0)
    cursor.copy_expert(
        "COPY judgments_judgment (campaign_id, worker_id, assignment_id, slot_id, score, "
        "client_duration_ms, server_duration_ms, submitted_at, text, details) FROM STDIN",
        buffer,
    )
    buffer.seek(0)
    buffer.truncate()
