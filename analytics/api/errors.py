"""Errors the API's views and the kinds' API pieces (``analytics.kinds``) raise."""

from __future__ import annotations

from rest_framework.exceptions import APIException

__all__ = ["NotComputed"]


class NotComputed(APIException):
    """409: the campaign exists and may be read, but has no stored results yet."""

    status_code = 409
    default_code = "not_computed"
    default_detail = "The campaign's statistics have not been computed yet."
