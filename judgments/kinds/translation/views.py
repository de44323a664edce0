"""The source sentence's image (issue 15 item 2; 004): ``GET /work/a/<token>/source/<position>``.

Served only to the worker holding the assignment (the signed token names the assignment and
its worker) while it is open, for a slot of the assignment's HIT on a page that shows sources
(translation and Detect-MT), in a campaign that shows sources as images; every other request
is a 404 that says nothing about why. The slot is addressed by its position in the HIT, the
same handle the pages send back with their answers: the URL never holds the text. The image
can be framed as the task pages can (MTurk's worker hosts); ``Cache-Control: private`` keeps
it out of shared caches. Three queries: the assignment with its HIT and campaign, the
campaign's settings, the slot with its segment.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, QueryDict
from django.views.decorators.http import require_GET

from campaigns.models import HitSlot, HitTask
from judgments import actions, tokens
from judgments.actions import SubmissionError
from judgments.entry.framing import allow_mturk_framing
from judgments.kinds.translation.common import shows_image
from judgments.kinds.translation.source_image import render_sentence

# The tasks whose pages show the source sentence.
SOURCE_TASKS = frozenset({HitTask.TRANSLATE, HitTask.DETECT_MT})
# The images of one task may be cached by the worker's browser for as long as a task lasts.
CACHE_CONTROL = "private, max-age=3600"
# The widths a picture may be drawn for (CSS pixels), in steps, and the densest screen served.
MIN_WIDTH, MAX_WIDTH, WIDTH_STEP, MAX_SCALE = 160, 720, 40, 3


@allow_mturk_framing
@require_GET
def source_image(request: HttpRequest, token: str, position: int) -> HttpResponse:
    """The PNG of the source sentence at ``position`` of the assignment's HIT; 404 else."""
    try:
        link = tokens.read_assignment_token(token)
        assignment = actions.get_assignment(link.assignment_id, link.worker_id)
        actions.check_open(assignment)
    except (tokens.BadToken, SubmissionError):
        return _not_found()
    if assignment.hit.task not in SOURCE_TASKS or not shows_image(assignment.campaign):
        return _not_found()
    slot = (
        HitSlot.objects.select_related("segment")
        .filter(hit_id=assignment.hit_id, position=position, segment__isnull=False)
        .first()
    )
    if slot is None:
        return _not_found()
    size = assignment.campaign.translation_settings.source_font_size
    width, scale = drawing_size(request.GET)
    png = render_sentence(slot.segment.source, font_size=size * scale, max_width=width * scale)
    response = HttpResponse(png, "image/png")
    response["Cache-Control"] = CACHE_CONTROL
    return response


def drawing_size(query: QueryDict) -> tuple[int, int]:
    """The width (CSS pixels) and pixel density the page asks the picture for
    (``?width=360&scale=2``, task-common.js: the page's width in 40-pixel steps, the screen's
    density): the sentence wraps to the width, and everything is drawn ``scale`` times as
    large, so that the letters have the campaign's size in CSS pixels on any screen. A value
    that is missing or not a whole number is the default; others are brought into range (a
    picture never larger than 720 x 3 pixels wide, so no request can make an expensive one)."""

    def whole(name: str, default: int, low: int, high: int) -> int:
        try:
            value = int(query.get(name, default))
        except (TypeError, ValueError):
            return default
        return max(low, min(high, value))

    width = whole("width", MAX_WIDTH, MIN_WIDTH, MAX_WIDTH) // WIDTH_STEP * WIDTH_STEP
    return width, whole("scale", 1, 1, MAX_SCALE)


def _not_found() -> HttpResponse:
    response = HttpResponseNotFound("Not found.", content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response
