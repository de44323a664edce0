"""MTurk's iframe in Chromium, with a local stand-in for MTurk's worker site.

The stand-in is an HTTP server on 127.0.0.1 (another origin than the live server's
``localhost``): its page frames our ExternalURL with MTurk's four parameters, as
worker.mturk.com does, and it records what reaches its ``/mturk/externalSubmit``. A worker
previews the HIT, accepts it, does it inside the frame, and the completion page posts the
assignment to the stand-in. The same page framed by an origin that is not in
``MTURK_FRAME_ANCESTORS`` is refused by the browser, and no other page may be framed at all.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from campaigns.models import AssessmentMode, SlotRole
from campaigns.platforms.models import MTurkHit
from judgments import tokens
from judgments.models import Assignment, AssignmentStatus, Judgment, Platform, Worker
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    HitFactory,
    HitSlotFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)

pytestmark = pytest.mark.e2e

WORKER_ID = "A2E2EWORKER"
ASSIGNMENT_ID = "3E2EASSIGNMENT"
MTURK_HIT_ID = "3E2EHIT"
FRAME_ID = "mturk-frame"
POST_TIMEOUT_S = 10
MTURK_ONLY = (
    "frame-ancestors https://worker.mturk.com https://workersandbox.mturk.com https://www.mturk.com"
)


class StandInMTurk(ThreadingHTTPServer):
    """MTurk's worker site as far as an ExternalQuestion sees it: a page framing
    ``frame_url``, and ``/mturk/externalSubmit``, which records each POST's form fields."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), StandInHandler)
        self.frame_url = "about:blank"
        self.posts: list[dict[str, list[str]]] = []
        self.posted = threading.Event()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class StandInHandler(BaseHTTPRequestHandler):
    server: StandInMTurk

    def log_message(self, format: str, *args) -> None:
        pass  # keep the test output clean

    def _send_html(self, body: str) -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path != "/":
            self.send_error(404)
            return
        self._send_html(
            "<!doctype html><title>Stand-in MTurk</title><h1>HIT</h1>"
            f'<iframe id="{FRAME_ID}" src="{html.escape(self.server.frame_url)}" '
            'style="width: 100%; height: 900px"></iframe>'
        )

    def do_POST(self) -> None:
        if self.path != "/mturk/externalSubmit":
            self.send_error(404)
            return
        length = int(self.headers.get("Content-Length", "0"))
        fields = parse_qs(self.rfile.read(length).decode(), keep_blank_values=True)
        self.server.posts.append(fields)
        self.server.posted.set()
        self._send_html('<!doctype html><p id="received">MTurk received the HIT.</p>')


@pytest.fixture
def mturk() -> Iterator[StandInMTurk]:
    server = StandInMTurk()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def build_small_da_hit():
    """A ten-item adequacy HIT in the 2014 shape: seven system outputs, a degraded copy, a
    second showing and the human translation; published on MTurk's sandbox."""
    campaign = CampaignFactory(
        title="Rate English translations",
        instructions="Read both texts, then move the slider.",
        assessment_mode=AssessmentMode.ADEQUACY,
        redundancy=3,
    )
    document = DocumentFactory(campaign=campaign)
    hit = HitFactory(campaign=campaign, number=1)
    first = None
    for position in range(1, 8):
        segment = SegmentFactory(
            document=document, campaign=campaign, references=[f"Gray sentence {position}."]
        )
        output = OutputFactory(
            segment=segment,
            system=SystemFactory(campaign=campaign, name=f"SECRET-SYSTEM-{position}"),
            text=f"Black sentence {position}.",
        )
        slot = HitSlotFactory(hit=hit, position=position, group=1, output=output, segment=segment)
        first = first or slot
    for position, role, text in (
        (8, SlotRole.BAD_REFERENCE, "Black sentence"),
        (9, SlotRole.REPEAT, "Black sentence 1."),
        (10, SlotRole.REFERENCE, "Gray sentence 1."),
    ):
        HitSlotFactory(
            hit=hit,
            position=position,
            group=1,
            role=role,
            output=first.output,
            segment=first.segment,
            shown_text=text,
            controls=first,
        )
    # Published on MTurk: the ExternalURL of any other HIT is not found.
    MTurkHit.objects.create(
        hit=hit, mturk_hit_id=MTURK_HIT_ID, hit_type_id="3E2ETYPE", sandbox=True, max_assignments=3
    )
    return hit


def external_url(live_server, hit, **params) -> str:
    return f"{live_server.url}{reverse('judgments:mturk-task', args=[hit.pk])}?{urlencode(params)}"


def accepted_url(live_server, hit, mturk: StandInMTurk) -> str:
    return external_url(
        live_server,
        hit,
        assignmentId=ASSIGNMENT_ID,
        hitId=MTURK_HIT_ID,
        workerId=WORKER_ID,
        turkSubmitTo=mturk.origin,
    )


def task_path(assignment: Assignment) -> str:
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    return reverse("judgments:task", args=[token])


def score_for(position: int) -> int:
    """50 (the slider's start) moved right by a few steps, different for each item."""
    return 50 + position


def test_a_worker_does_a_hit_inside_mturks_frame_and_it_is_posted_back(
    page, live_server, transactional_db, settings, mturk
):
    settings.MTURK_FRAME_ANCESTORS = [mturk.origin]
    settings.MTURK_SUBMIT_HOSTS = [mturk.origin]
    hit = build_small_da_hit()
    frame = page.frame_locator(f"#{FRAME_ID}")

    # Preview: the first item read-only, nothing written.
    mturk.frame_url = external_url(
        live_server, hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId=MTURK_HIT_ID
    )
    page.goto(mturk.origin + "/")
    expect(frame.locator("#preview-notice")).to_have_text("Accept the HIT to start.")
    expect(frame.locator("#main-text")).to_have_text("Black sentence 1.")
    expect(frame.locator("#score")).to_be_disabled()
    expect(frame.locator("#next")).to_be_disabled()
    assert Assignment.objects.count() == 0 and Worker.objects.count() == 0

    # Accepted: MTurk frames the same URL with the worker's ids.
    mturk.frame_url = accepted_url(live_server, hit, mturk)
    page.goto(mturk.origin + "/")
    progress, slider = frame.locator("#progress-text"), frame.locator("#score")
    for position in range(1, 11):
        expect(progress).to_have_text(f"{position} of 10")
        for _ in range(position):
            slider.press("ArrowRight")
        expect(slider).to_have_value(str(score_for(position)))
        slider.press("Enter")

    # The completion page posts the assignment to the stand-in's externalSubmit by itself.
    assert mturk.posted.wait(POST_TIMEOUT_S), "nothing reached /mturk/externalSubmit"
    expect(frame.locator("#received")).to_have_text("MTurk received the HIT.")
    assert mturk.posts == [{"assignmentId": [ASSIGNMENT_ID], "evalsite": ["done"]}]

    assignment = Assignment.objects.select_related("worker").get()
    assert (assignment.worker.platform, assignment.worker.external_id) == (
        Platform.MTURK,
        WORKER_ID,
    )
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert (
        assignment.platform_assignment_id,
        assignment.platform_hit_id,
        assignment.turk_submit_to,
    ) == (ASSIGNMENT_ID, MTURK_HIT_ID, mturk.origin)
    stored = dict(
        Judgment.objects.filter(assignment=assignment).values_list("slot__position", "score")
    )
    assert stored == {position: float(score_for(position)) for position in range(1, 11)}
    assert page.context.cookies() == []  # no session or CSRF cookie was needed, or set


def frame_in_stand_in(page, mturk: StandInMTurk, url: str, served: str):
    """Open the stand-in's page framing ``url``; return the response the frame finally got
    from our server (whose URL starts with ``served``: the server did its part, the refusal
    is the browser's) and Chromium's console message about the CSP violation."""
    mturk.frame_url = url
    with page.expect_console_message(lambda message: "frame-ancestors" in message.text) as refusal:
        with page.expect_response(lambda response: response.url.startswith(served)) as framed:
            page.goto(mturk.origin + "/")
    return framed.value, refusal.value.text


def policy(response) -> tuple[str, str]:
    """The page's frame-ancestors directive, and its script-src (the site's whole policy is
    evalsite.security's, issue 11 item 9: only frame-ancestors differs by page)."""
    directives = dict(
        (part.strip().split(" ", 1) + [""])[:2]
        for part in response.headers["content-security-policy"].split(";")
    )
    return "frame-ancestors " + directives["frame-ancestors"], directives["script-src"]


def refusal_message(live_server, ancestors: str) -> str:
    # Chromium names the framed page's origin, not its whole URL.
    return (
        f"Framing '{live_server.url}/' violates the following Content Security Policy "
        f'directive: "{ancestors}". The request has been blocked.\n'
    )


def refused_in_the_frame(page) -> None:
    """The frame shows Chromium's error page, not ours."""
    child = next(frame for frame in page.frames if frame.parent_frame is page.main_frame)
    expect(page.frame_locator(f"#{FRAME_ID}").locator("#task")).to_have_count(0)
    assert child.url == "chrome-error://chromewebdata/"


def test_the_task_page_refuses_a_frame_from_an_origin_that_is_not_allowed(
    page, live_server, transactional_db, settings, mturk
):
    # Everything would work but the framing: MTURK_FRAME_ANCESTORS keeps MTurk's own hosts.
    settings.MTURK_SUBMIT_HOSTS = [mturk.origin]
    hit = build_small_da_hit()

    response, refusal = frame_in_stand_in(
        page, mturk, accepted_url(live_server, hit, mturk), f"{live_server.url}/work/a/"
    )

    assignment = Assignment.objects.get()  # the server did its part: the browser refused
    assert response.url == f"{live_server.url}{task_path(assignment)}"
    assert (response.status, *policy(response)) == (200, MTURK_ONLY, "'self'")
    assert "x-frame-options" not in response.headers
    assert refusal == refusal_message(live_server, MTURK_ONLY)
    refused_in_the_frame(page)
    assert Judgment.objects.count() == 0


@pytest.mark.parametrize("path", ["home", "entry"])
def test_no_other_page_may_be_framed_even_by_mturk(
    page, live_server, transactional_db, settings, mturk, path
):
    settings.MTURK_FRAME_ANCESTORS = [mturk.origin]
    hit = build_small_da_hit()
    served_path = (
        reverse("home")
        if path == "home"
        else reverse("judgments:campaign-entry", args=[hit.campaign_id])
    )

    url = f"{live_server.url}{served_path}"
    response, refusal = frame_in_stand_in(page, mturk, url, url)

    assert (response.status, *policy(response)) == (200, "frame-ancestors 'none'", "'self'")
    assert response.headers["x-frame-options"] == "DENY"
    assert refusal == refusal_message(live_server, "frame-ancestors 'none'")
    refused_in_the_frame(page)
