"""What the worker-facing views of every platform share: the polite message page and the
worker's and the task's signed URLs (the campaign's title and the pages' words are in
judgments.entry.words)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import Promise

from campaigns.models import Campaign
from judgments import tokens
from judgments.entry.words import (
    INVALID_LINK,
    INVALID_LINK_TITLE,
    campaign_title,
    campaign_words,
)
from judgments.models import Assignment


def message_page(
    request: HttpRequest,
    message: str | Promise,
    *,
    campaign: Campaign | None = None,
    title: str | Promise | None = None,
    status: int = 200,
    link: tuple[str, str] | None = None,
) -> HttpResponse:
    """A polite page: a title (the campaign's, else "Invalid link"), one message and at most
    one link onwards, in the campaign's language (judgments.entry.words: a lazy message
    becomes words here)."""
    with campaign_words(campaign) as language:
        if title is None:
            title = campaign_title(campaign) if campaign is not None else INVALID_LINK_TITLE
        context = {"title": str(title), "message": str(message), "link": link, "code": language}
        return render(request, "judgments/message.html", context, status=status)


def invalid_link_page(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """404 "Invalid link" for a link of a known campaign that is not the visitor's (another
    participant's session, another HIT's id), in the campaign's language."""
    return message_page(
        request, INVALID_LINK, campaign=campaign, title=INVALID_LINK_TITLE, status=404
    )


def see_other(url: str) -> HttpResponse:
    """303: after a POST, the browser fetches the target with GET."""
    return HttpResponse(status=303, headers={"Location": url})


def worker_url(worker_id: int, campaign_id: int) -> str:
    return reverse("judgments:worker-link", args=[tokens.worker_token(worker_id, campaign_id)])


def task_url(assignment: Assignment) -> str:
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    return reverse("judgments:task", args=[token])


__all__ = [
    "INVALID_LINK",
    "campaign_title",
    "invalid_link_page",
    "message_page",
    "see_other",
    "task_url",
    "worker_url",
]
