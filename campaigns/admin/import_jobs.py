"""The admin's import job page (issue 11 item 6): how far a big import is, then its result or
every problem, with links onward.

The "Import segments" and "Import judgments" pages send an upload bigger than
``IMPORT_INLINE_MAX_BYTES`` here (``campaigns.import_jobs.actions``). The page refreshes its
progress bar from the job's status URL (static/js/import-job.js: a same-origin script, as the
CSP requires) and reloads itself when the job ends. Only the job's owner and superusers see a
job; anyone else gets 404, as if it did not exist. Routed by
``CampaignJudgmentImportAdminMixin.judgment_import_urls()``.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, path, reverse

from campaigns.import_jobs.actions import fail_if_stale
from campaigns.models import Campaign, ImportJob

PAGE = "campaigns_campaign_import_job"
STATUS = "campaigns_campaign_import_job_status"


def import_job_urls(model_admin) -> list:
    site = model_admin.admin_site
    return [
        path(
            "import-jobs/<int:job_id>/",
            site.admin_view(lambda request, job_id: import_job_view(request, job_id, model_admin)),
            name=PAGE,
        ),
        path(
            "import-jobs/<int:job_id>/status/",
            site.admin_view(lambda request, job_id: import_job_status(request, job_id)),
            name=STATUS,
        ),
    ]


def job_url(model_admin, job: ImportJob) -> str:
    return reverse(f"{model_admin.admin_site.name}:{PAGE}", args=[job.pk])


def visible_job(request: HttpRequest, job_id: int) -> ImportJob:
    """The job if the user owns it or is a superuser; 404 otherwise. A job whose worker was
    lost is marked failed on the way (``fail_if_stale``)."""
    jobs = ImportJob.objects.select_related("campaign")
    if not request.user.is_superuser:
        jobs = jobs.filter(owner=request.user)
    job = jobs.filter(pk=job_id).first()
    if job is None:
        raise Http404("No such import job.")
    return fail_if_stale(job)


def job_state(job: ImportJob) -> dict[str, Any]:
    """What the page's script shows while the job runs."""
    return {
        "status": job.status,
        "status_label": job.get_status_display(),
        "phase": job.phase,
        "done": job.done,
        "total": job.total,
        "percent": job.percent,
        "message": job.message,
        "ended": job.ended,
    }


def import_job_status(request: HttpRequest, job_id: int) -> JsonResponse:
    # Never cached: admin_view marks every admin response so.
    return JsonResponse(job_state(visible_job(request, job_id)))


def import_job_view(request: HttpRequest, job_id: int, model_admin) -> HttpResponse:
    job = visible_job(request, job_id)
    site = model_admin.admin_site.name
    campaign_url = None
    if job.campaign_id is not None:
        campaign_url = reverse(f"{site}:campaigns_campaign_change", args=[job.campaign_id])
    try:
        if job.kind == "segments" and job.campaign_id is not None:
            again_url = reverse(f"{site}:campaigns_campaign_import", args=[job.campaign_id])
        else:
            again_url = reverse(f"{site}:campaigns_campaign_import_judgments")
    except NoReverseMatch:  # an admin site without that page
        again_url = None
    opts = Campaign._meta
    problems = job.problems or []
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Import job {job.pk}",
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "job": job,
        "state": job_state(job),
        "files": [entry["name"] for entry in job.files],
        "status_url": reverse(f"{site}:{STATUS}", args=[job.pk]),
        "campaign_url": campaign_url,
        "again_url": again_url,
        "problems": problems,
        "problem_count": job.problem_total,
        "omitted": max(0, job.problem_total - len(problems)),
        "has_view_permission": True,
    }
    return TemplateResponse(request, "admin/campaigns/campaign/import_job.html", context)
