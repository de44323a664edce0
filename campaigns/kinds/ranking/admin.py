"""Ranking's own inline on the campaign page: the requester's reference ranking and oracle
(``analytics.models.RankingReference``), validated against the campaign's system names."""

from __future__ import annotations

from django.contrib import admin

from analytics.models import RankingReference


class RankingReferenceInline(admin.StackedInline):
    model = RankingReference
    extra = 1
    max_num = 1
    can_delete = True
    verbose_name = "reference ranking and oracle"
    verbose_name_plural = "Reference ranking and oracle (for Spearman's rho and oracle agreement)"
    fields = ("reference_ranking", "oracle")
