"""Simulated campaigns: careful workers vs random clickers on systems of known quality.

HITs follow Graham et al. (2014) Table 2: 10 sets of 10; sets S_i and S_i+5 hold, in each
direction, a bad reference and its source output, an output and its exact repeat, a reference
and its corresponding output, plus 4 ordinary outputs each: 70 outputs, 10 bad references, 10
repeats and 10 references per 100-item HIT.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from analytics.stats.direct_assessment import DAJudgments, Role, analyse_campaign

N_SYSTEMS = 4
SYSTEM_QUALITY = np.array([42.0, 50.0, 58.0, 66.0])  # system s's mean quality; true order 3>2>1>0
BAD_REF_DROP = 35.0  # a careful worker scores a degraded output clearly lower

# Any warning (scipy division by zero, precision loss, ...) is a failure.
# Every warning of the statistics (scipy's small-sample and division warnings) is an error here;
# a socket some earlier test left to the garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


def _hit_template() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Role, local output index (0..69) and paired position (or -1) of the 100 slots."""
    role = np.full(100, Role.SYSTEM, dtype=np.int8)
    out = np.full(100, -1, dtype=np.int64)
    pair = np.full(100, -1, dtype=np.int64)
    o = 0
    for i in range(5):
        a, b = 10 * i, 10 * (i + 5)
        src_a, rep_b, ref_c, src_d, rep_e, ref_f = range(o, o + 6)
        o += 6
        # Set S_i: bad ref of A, output B, reference of C, output D, repeat of E, output F.
        # Set S_i+5: output A, repeat of B, output C, bad ref of D, output E, reference of F.
        layout_a = [
            (Role.BAD_REFERENCE, src_a, b + 0),
            (Role.SYSTEM, rep_b, -1),
            (Role.REFERENCE, ref_c, b + 2),
            (Role.SYSTEM, src_d, -1),
            (Role.REPEAT, rep_e, b + 4),
            (Role.SYSTEM, ref_f, -1),
        ]
        layout_b = [
            (Role.SYSTEM, src_a, -1),
            (Role.REPEAT, rep_b, a + 1),
            (Role.SYSTEM, ref_c, -1),
            (Role.BAD_REFERENCE, src_d, a + 3),
            (Role.SYSTEM, rep_e, -1),
            (Role.REFERENCE, ref_f, a + 5),
        ]
        for base, layout in ((a, layout_a), (b, layout_b)):
            for k, (r, local, p) in enumerate(layout):
                role[base + k], out[base + k], pair[base + k] = r, local, p
            for k in range(6, 10):
                out[base + k] = o
                o += 1
    assert o == 70
    return role, out, pair


ROLE_T, OUT_T, PAIR_T = _hit_template()


def simulate_campaign(
    rng: np.random.Generator,
    *,
    n_careful: int,
    n_random: int,
    hits_per_worker: int,
    workers_per_hit: int,
    n_segments: int = 600,
) -> tuple[DAJudgments, np.ndarray]:
    """Build judgments; returns them and a per-worker "is careful" flag (aligned to ids 0..)."""
    n_workers = n_careful + n_random
    n_assign = n_workers * hits_per_worker
    n_hits = n_assign // workers_per_hit
    careful = np.arange(n_workers) < n_careful

    # Each HIT: 70 distinct source segments, systems in about equal shares (17-18 each).
    seg = np.argsort(rng.random((n_hits, n_segments)), axis=1)[:, :70]
    sysm = rng.permuted(np.tile(np.resize(np.arange(N_SYSTEMS), 70), (n_hits, 1)), axis=1)
    out_id = seg * N_SYSTEMS + sysm  # global output id
    seg_effect = rng.normal(0, 6, n_segments)
    out_effect = rng.normal(0, 5, n_segments * N_SYSTEMS)
    quality = SYSTEM_QUALITY[sysm] + seg_effect[seg] + out_effect[out_id]  # (n_hits, 70)
    ref_quality = 88 + rng.normal(0, 3, n_segments)

    # Assignment k: worker k // hits_per_worker on HIT k % n_hits (distinct HITs per worker).
    assign = np.arange(n_assign)
    worker = assign // hits_per_worker
    hit = (assign % hits_per_worker) * (n_hits // hits_per_worker) + worker % (
        n_hits // hits_per_worker
    )
    q = quality[hit][:, OUT_T]  # (n_assign, 100): quality of the output behind each slot
    q = np.where(ROLE_T == Role.BAD_REFERENCE, q - BAD_REF_DROP, q)
    q = np.where(ROLE_T == Role.REFERENCE, ref_quality[seg[hit][:, OUT_T]], q)

    # Careful workers: personal offset and scale (leniency), plus noise.
    offset = rng.uniform(-15, 15, n_workers)[worker][:, None]
    scale = rng.uniform(0.7, 1.2, n_workers)[worker][:, None]
    careful_score = np.clip(offset + scale * q + rng.normal(0, 7, q.shape), 0, 100)
    random_score = rng.uniform(0, 100, q.shape)
    score = np.where(careful[worker][:, None], careful_score, random_score)
    seconds = np.where(careful[worker][:, None], rng.gamma(4, 4, q.shape), rng.gamma(2, 1, q.shape))

    shape = (n_assign, 100)
    slot = hit[:, None] * 100 + np.arange(100)[None, :]
    pair_slot = np.where(PAIR_T >= 0, hit[:, None] * 100 + PAIR_T[None, :], -1)
    system = np.where(np.isin(ROLE_T, (Role.SYSTEM, Role.REPEAT)), sysm[hit][:, OUT_T], -1)
    judgments = DAJudgments(
        worker=np.broadcast_to(worker[:, None], shape).ravel(),
        assignment=np.broadcast_to(assign[:, None], shape).ravel(),
        slot=slot.ravel(),
        role=np.broadcast_to(ROLE_T, shape).ravel(),
        system=system.ravel(),
        item=out_id[hit][:, OUT_T].ravel(),
        pair_slot=pair_slot.ravel(),
        score=score.ravel(),
        seconds=seconds.ravel(),
    )
    return judgments, careful


def test_template_has_the_10x10_structure() -> None:
    counts = np.bincount(ROLE_T, minlength=4)
    assert counts.tolist() == [70, 10, 10, 10]  # system, repeat, bad reference, reference
    controls = np.flatnonzero(PAIR_T >= 0)
    assert np.all(ROLE_T[PAIR_T[controls]] == Role.SYSTEM)
    assert np.all(OUT_T[PAIR_T[controls]] == OUT_T[controls])
    # The two members of every pair are in sets S_i and S_i+5: 40+ items apart.
    assert np.all(np.abs(PAIR_T[controls] // 10 - controls // 10) == 5)
    assert np.all(np.abs(PAIR_T[controls] - controls) >= 41)


def test_simulated_campaign_flags_clickers_and_ranks_systems() -> None:
    rng = np.random.default_rng(20140426)
    judgments, careful = simulate_campaign(
        rng, n_careful=30, n_random=10, hits_per_worker=2, workers_per_hit=4
    )
    assert len(judgments) == 40 * 2 * 100

    report = analyse_campaign(judgments)
    rel = report.reliability
    assert np.array_equal(rel.workers, np.arange(40))
    flagged_random = np.count_nonzero(~rel.reliable[~careful])
    kept_careful = np.count_nonzero(rel.reliable[careful])
    assert flagged_random >= 9
    assert kept_careful >= 27
    assert np.all(rel.n_bad_ref_pairs == 20) and np.all(rel.n_repeat_pairs == 20)
    # Fast clickers show up as low seconds and high p (2013 Figure 4).
    assert rel.mean_seconds[~careful].max() < rel.mean_seconds[careful].min()
    # Assumption A: careful workers' repeats do not drift (2014: ~99% of reliable workers).
    assert rel.assumption_a_share >= 0.9

    # Systems in their true order by mean z over reliable workers, all four separated.
    assert report.systems.system.tolist() == [3, 2, 1, 0]
    assert np.all(np.diff(report.systems.mean_z) < 0)
    assert report.clusters.tolist() == [1, 2, 3, 4]
    assert report.marks[0, 3] == "***"

    # Filtering random clickers improves intra-annotator agreement (2013 Table 2's direction).
    assert (
        report.agreement_included.same_judge.mean_abs_diff
        < report.agreement_all.same_judge.mean_abs_diff
    )
    assert (
        report.agreement_included.same_judge.kappa(5).kappa
        > report.agreement_all.same_judge.kappa(5).kappa
    )
    assert report.agreement_all.distinct_judges.n_pairs > 0


def test_100k_judgments_from_500_workers_run_vectorised() -> None:
    """Smoke check for scale (the lead's bench measures time): nothing here is per-row."""
    rng = np.random.default_rng(7)
    judgments, careful = simulate_campaign(
        rng, n_careful=400, n_random=100, hits_per_worker=2, workers_per_hit=5
    )
    assert len(judgments) == 100_000
    start = time.perf_counter()
    report = analyse_campaign(judgments)
    elapsed = time.perf_counter() - start
    print(f"analyse_campaign on 100,000 judgments / 500 workers: {elapsed:.2f} s")
    assert report.reliability.workers.shape == (500,)
    assert report.systems.system.tolist() == [3, 2, 1, 0]
