"""Chaos on the real stack: 50 simulated workers answer direct-assessment items through
gunicorn (deploy/web.sh) while the Celery worker (deploy/worker.sh, with its beat) and Redis
are killed and restarted under them. Workers double-submit and retry as real browsers do.

What must hold: every answer the server accepted (a 200) is stored exactly once, and within
30 s of the last answer after the recovery the stored scores equal a fresh recompute (a lost
recompute is repaired by the periodic sweep).

Redis is a private redis-server on a free port (killing the machine's shared one would
disturb other tests), without persistence: after its restart it has forgotten every queued
task and every coalescing flag, as after a real crash.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.db.models import Max

from analytics import actions as analytics_actions
from analytics.models import CampaignResult, SystemScore
from campaigns.actions import build_hits
from campaigns.models import Campaign, TaskKind
from judgments import tokens
from judgments.models import Judgment
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)
from tests.integration.conftest import DEPLOY_DIR, Service

pytestmark = pytest.mark.integration

WORKERS = 50
ITEMS_PER_WORKER = 24
DOUBLE_SUBMIT_SHARE = 0.2
STARTUP_TIMEOUT = 120
REPAIR_SECONDS = 30
SEED = 20261125


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def build_campaign() -> Campaign:
    """Four systems x 28 segments: two 100-item HITs, 25 workers each."""
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT, redundancy=WORKERS // 2)
    analytics_actions.clear_recompute_flag(campaign.pk)
    document = DocumentFactory(campaign=campaign)
    systems = [SystemFactory(campaign=campaign, name=f"sys-{n}") for n in range(4)]
    for position in range(1, 29):
        segment = SegmentFactory(
            document=document,
            external_id=str(position),
            position=position,
            source=f"Satz {position} ist ein deutscher Satz mit mehreren Wörtern.",
            references=[f"Sentence {position} is the reference with several words in it."],
        )
        for system in systems:
            OutputFactory(
                segment=segment,
                system=system,
                text=f"Sentence {position} as {system.name} translated it, in some words.",
            )
    assert build_hits(campaign) == 2
    return campaign


@dataclass
class Tally:
    """What the simulated workers saw: accepted answers by (worker, position), retries."""

    accepted: set[tuple[int, int]] = field(default_factory=set)
    tasks: dict[int, str] = field(default_factory=dict)  # worker id -> task page URL
    doubles: int = 0
    retries: int = 0
    server_errors: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def request(url: str, payload: dict | None = None) -> tuple[int, dict]:
    data = None if payload is None else json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"} if data else {}
    req = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        body = error.read()
        try:
            return error.code, json.loads(body or b"{}")
        except ValueError:
            return error.code, {}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def task_location(base: str, worker_link: str, tally: Tally) -> str:
    """Follow the worker's private link once to the assignment's task page URL."""
    opener = urllib.request.build_opener(NoRedirect)
    page = ""
    for _ in range(50):
        try:
            with opener.open(base + worker_link, timeout=30) as response:
                page = response.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            if error.code in (301, 302, 303):
                return error.headers["Location"]
            page = f"{error.code} {error.read().decode(errors='replace')}"
            with tally.lock:
                tally.server_errors += error.code >= 500
                tally.retries += 1
        except OSError as error:
            page = repr(error)
            with tally.lock:
                tally.retries += 1
        time.sleep(0.3)
    raise AssertionError(f"{worker_link} never handed out a task; it answered:\n{page[:3000]}")


def simulate(base: str, worker_id: int, worker_link: str, tally: Tally) -> None:
    """One worker: open the task, answer ITEMS_PER_WORKER items, sometimes twice, retrying
    network errors and 5xx as the task page's script does."""
    rng = random.Random(SEED + worker_id)
    task = task_location(base, worker_link, tally)
    task = task if task.startswith("http") else base + task
    with tally.lock:
        tally.tasks[worker_id] = task
    item_url, submit_url = task + "item", task + "submit"
    status, body = 0, {}
    for _ in range(50):
        try:
            status, body = request(item_url)
        except OSError:
            status = 0
        if status == 200:
            break
        with tally.lock:
            tally.retries += 1
            tally.server_errors += status >= 500
        time.sleep(0.3)
    assert status == 200, (status, body)
    for _ in range(ITEMS_PER_WORKER):
        item = body["next"]
        if item is None:
            return
        answer = {
            "position": item["position"],
            "score": rng.randint(0, 100),
            "client_started_at": datetime.now(UTC).isoformat(),
            "client_duration_ms": rng.randint(1500, 9000),
        }
        sends = 2 if rng.random() < DOUBLE_SUBMIT_SHARE else 1
        for send in range(sends):
            for _attempt in range(100):
                try:
                    status, reply = request(submit_url, answer)
                except OSError:
                    status, reply = 0, {}
                if status == 200:
                    break
                with tally.lock:
                    tally.retries += 1
                    tally.server_errors += status >= 500
                time.sleep(0.2)
            assert status == 200, (status, reply)
            with tally.lock:
                tally.accepted.add((worker_id, item["position"]))
                tally.doubles += send
            if send:
                assert reply.get("already_recorded") is True, reply
            else:
                body = reply


def stored_scores(campaign: Campaign) -> list[tuple]:
    return list(
        SystemScore.objects.filter(campaign=campaign)
        .order_by("include_unreliable", "system__name")
        .values_list("include_unreliable", "system__name", "n", "mean_score", "mean_z", "cluster")
    )


def test_answers_survive_killed_workers_and_redis_and_the_scores_catch_up(
    postgres_required, subprocess_env, start_service, tmp_path: Path
):
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        pytest.fail("This test needs redis-server (apt-get install redis-server).")
    campaign = build_campaign()
    workers = [WorkerFactory() for _ in range(WORKERS)]
    links = {
        worker.pk: f"/work/w/{tokens.worker_token(worker.pk, campaign.pk)}/" for worker in workers
    }

    redis_port = free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    redis_args = [
        redis_server,
        "--port",
        str(redis_port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
    ]

    def start_redis() -> Service:
        service = start_service("redis", redis_args, subprocess_env)

        def answers() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", redis_port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    return sock.recv(16).startswith(b"+PONG")
            except OSError:
                return False

        service.wait_until(answers, 20, "redis answering PING")
        return service

    web_port = free_port()
    base = f"http://127.0.0.1:{web_port}"
    env = {
        **subprocess_env,
        "REDIS_URL": redis_url,
        "DEBUG": "0",
        "HTTPS": "0",
        # The workers' links are signed here: the web process must know the same key.
        "SECRET_KEY": settings.SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(tmp_path / "static"),
        "PORT": str(web_port),
        "WEB_CONCURRENCY": "2",
        "WEB_THREADS": "8",
        "ANALYTICS_RECOMPUTE_COUNTDOWN": "1",
        "CELERY_BEAT_SCHEDULE_FILE": str(tmp_path / "beat-schedule"),
    }

    def start_celery() -> Service:
        service = start_service(
            "celery-worker",
            [
                str(DEPLOY_DIR / "worker.sh"),
                "--pool=solo",
                "--beat",
                f"--schedule={tmp_path / 'beat-schedule'}",
                "--without-gossip",
                "--without-mingle",
            ],
            env,
        )
        service.wait_until(lambda: " ready." in service.log(), 60, "the Celery worker ready")
        return service

    redis = start_redis()
    web = start_service("web", [str(DEPLOY_DIR / "web.sh")], env)

    def web_up() -> bool:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=5):
                return True
        except urllib.error.HTTPError:
            return True  # answering: a 503 names what is down, the web process is up
        except OSError:
            return False

    web.wait_until(web_up, STARTUP_TIMEOUT, "gunicorn answering")
    celery = start_celery()

    tally = Tally()
    chaos_done = threading.Event()

    def chaos() -> None:
        nonlocal redis, celery
        # Let a quarter of the answers through, then kill both mid-run.
        while len(tally.accepted) < WORKERS * ITEMS_PER_WORKER // 4:
            time.sleep(0.05)
        celery.process.send_signal(signal.SIGKILL)
        redis.process.send_signal(signal.SIGKILL)
        celery.stop(5)
        redis.stop(5)
        time.sleep(3)  # answers keep coming while both are down
        redis = start_redis()
        time.sleep(1)
        celery = start_celery()
        chaos_done.set()

    chaos_thread = threading.Thread(target=chaos, daemon=True)
    chaos_thread.start()
    with ThreadPoolExecutor(max_workers=12) as pool:
        futures = [
            pool.submit(simulate, base, worker_id, link, tally) for worker_id, link in links.items()
        ]
        for future in futures:
            future.result()
    chaos_thread.join(60)
    assert chaos_done.is_set(), "the chaos thread did not finish"
    traffic_ended = time.monotonic()

    # Every accepted answer is stored, exactly once.
    stored = set(
        Judgment.objects.filter(campaign=campaign).values_list(
            "assignment__worker_id", "slot__position"
        )
    )
    assert len(tally.accepted) == WORKERS * ITEMS_PER_WORKER
    assert Judgment.objects.filter(campaign=campaign).count() == len(stored)
    assert stored == tally.accepted
    assert tally.doubles > 0

    # Within 30 s the stored results cover every judgment...
    newest = Judgment.objects.filter(campaign=campaign).aggregate(t=Max("submitted_at"))["t"]

    def caught_up() -> bool:
        result = CampaignResult.objects.filter(campaign=campaign).first()
        return (
            result is not None
            and result.n_judgments == len(stored)
            and result.computed_at >= newest
        )

    while not caught_up():
        assert time.monotonic() - traffic_ended < REPAIR_SECONDS, (
            f"stored results still stale {REPAIR_SECONDS}s after the traffic ended "
            f"(retries {tally.retries}, 5xx {tally.server_errors}).\n{celery.describe()}"
        )
        time.sleep(0.5)
    repaired_after = time.monotonic() - traffic_ended
    # ...and equal a fresh recompute.
    before = stored_scores(campaign)
    assert before
    analytics_actions.recompute_campaign(Campaign.objects.get(pk=campaign.pk))
    assert stored_scores(campaign) == before

    # A lost recompute: a few more answers, then the Celery worker is killed while it holds
    # their (delayed) recompute, whose coalescing flag stays in Redis. The periodic sweep must
    # notice the stale results within 30 s of the worker's restart.
    for worker_id in list(tally.tasks)[:5]:
        task = tally.tasks[worker_id]
        status, body = request(task + "item")
        assert status == 200, body
        item = body["next"]
        status, reply = request(task + "submit", {"position": item["position"], "score": 50})
        assert status == 200, reply
        tally.accepted.add((worker_id, item["position"]))
    celery.process.send_signal(signal.SIGKILL)
    celery.stop(5)
    celery = start_celery()
    restarted = time.monotonic()
    stored = set(
        Judgment.objects.filter(campaign=campaign).values_list(
            "assignment__worker_id", "slot__position"
        )
    )
    assert stored == tally.accepted
    newest = Judgment.objects.filter(campaign=campaign).aggregate(t=Max("submitted_at"))["t"]
    while not caught_up():
        assert time.monotonic() - restarted < REPAIR_SECONDS, (
            f"a lost recompute was not repaired within {REPAIR_SECONDS}s.\n{celery.describe()}"
        )
        time.sleep(0.5)
    swept_after = time.monotonic() - restarted
    before = stored_scores(campaign)
    analytics_actions.recompute_campaign(Campaign.objects.get(pk=campaign.pk))
    assert stored_scores(campaign) == before
    print(
        f"chaos: {len(stored)} answers stored of {len(tally.accepted)} accepted, "
        f"{tally.doubles} double submits, {tally.retries} retries ({tally.server_errors} 5xx); "
        f"results caught up {repaired_after:.1f}s after the traffic ended; a lost recompute "
        f"repaired {swept_after:.1f}s after the worker restarted"
    )
