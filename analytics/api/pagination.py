"""Pagination of the API's lists: numbered pages of 100 by default, ``?page_size=`` up to
1,000. Whole campaigns are downloaded with the streamed exports, not page by page."""

from __future__ import annotations

from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000
