"""Reading comprehension in the admin: on the campaign's page, its articles with their stage
(read-only) and its questions (text, sample answer and status editable, new ones added,
deleted) until answering starts for their article, read-only with the reason afterwards; and
the campaign's stages page (``<campaign id>/reading-comprehension/``, linked from the
articles), with "Advance stages now", "Start answering" for articles in review and the upload
of ready-made questions.

The inlines are the kind's ``admin_inlines`` and the page is its ``admin_urls``
(campaigns/admin/kinds.py adds every kind's URLs to the campaign admin's).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Max, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionOrigin,
    RCQuestionStatus,
    RCStage,
    answering_started_message,
)
from campaigns.models import Campaign, CampaignStatus, Document, Hit, HitTask

__all__ = ["RCArticleInline", "RCQuestionInline", "stage_urls"]


def answering_documents(campaign: Campaign | None) -> set[int]:
    """The campaign's articles whose answering HITs exist (their questions are fixed)."""
    if campaign is None or campaign.pk is None:
        return set()
    return set(
        Hit.objects.filter(campaign=campaign, task=HitTask.RC_ANSWER).values_list(
            "document_id", flat=True
        )
    )


def stages_url(campaign: Campaign) -> str:
    return reverse("admin:campaigns_campaign_rc_stages", args=[campaign.pk])


class RCArticleInline(admin.TabularInline):
    """The articles and where each is; stages move by themselves (or from the stages page)."""

    model = RCArticle
    fk_name = "campaign"
    extra = 0
    can_delete = False
    template = "admin/campaigns/campaign/rc_articles_inline.html"
    verbose_name = "article"
    verbose_name_plural = "Reading comprehension: articles and their stages"
    fields = ("document", "stage", "stage_changed_at", "questions", "next_step")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # articles come from the segments, with the HITs

    def get_queryset(self, request: HttpRequest):
        # The question counts of every row in the same query.
        return (
            super()
            .get_queryset(request)
            .select_related("document")
            .annotate(
                n_kept=Count(
                    "document__rc_questions",
                    filter=Q(document__rc_questions__status=RCQuestionStatus.KEPT),
                ),
                n_questions=Count("document__rc_questions"),
            )
        )

    @admin.display(description="Questions")
    def questions(self, article: RCArticle) -> str:
        total = getattr(article, "n_questions", 0)
        if not total:
            return "none yet"
        return f"{article.n_kept} kept of {total}"

    @admin.display(description="Next")
    def next_step(self, article: RCArticle) -> str:
        if article.stage == RCStage.REVIEW:
            return format_html(
                'Check its questions below, then <a href="{}">start answering</a>.',
                stages_url(article.campaign),
            )
        if article.stage == RCStage.DONE:
            return "-"
        return "Moves on when every HIT of this stage is done."


class RCQuestionForm(forms.ModelForm):
    """A question row: fixed (every field disabled) once its article is being answered."""

    # Set per request by RCQuestionInline.get_formset.
    locked_documents: frozenset[int] = frozenset()

    class Meta:
        model = RCQuestion
        fields = ("document", "number", "text", "sample_answer", "status")
        widgets = {
            "text": forms.Textarea(attrs={"rows": 2, "cols": 40}),
            "sample_answer": forms.Textarea(attrs={"rows": 2, "cols": 30}),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["number"].required = False
        self.fields["number"].help_text = "Empty: after the article's last question."
        if self.instance.pk is not None:
            # A question's article and number are what answers and slots point at.
            self.fields["document"].disabled = True
            if self.instance.document_id in self.locked_documents:
                for field in self.fields.values():
                    field.disabled = True


class RCQuestionFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        # Before the model formset's own checks: they run the admin's protected-deletion
        # check, whose message lists slots instead of saying why.
        for form in self.forms:
            if not self._should_delete_form(form) or form.instance.pk is None:
                continue
            if form.instance.document_id in form.locked_documents:
                raise ValidationError(answering_started_message(form.instance.document))
        super().clean()

    def save_new(self, form: forms.ModelForm, commit: bool = True):
        question = form.save(commit=False)
        question.campaign = self.instance
        if question.origin == RCQuestionOrigin.AUTHORED or not question.origin:
            question.origin = RCQuestionOrigin.REQUESTER
        if question.number is None:
            # Saved one by one, so several new questions of an article number in order.
            last = RCQuestion.objects.filter(document=question.document).aggregate(
                last=Max("number")
            )["last"]
            question.number = (last or 0) + 1
        if commit:
            question.save()
        return question


class RCQuestionInline(admin.TabularInline):
    """The questions: editable until their article's answering HITs exist."""

    model = RCQuestion
    fk_name = "campaign"
    form = RCQuestionForm
    formset = RCQuestionFormSet
    extra = 1
    verbose_name = "question"
    verbose_name_plural = (
        "Reading comprehension: questions (editable until answering starts for their article; "
        "statuses: kept questions are asked)"
    )
    fields = (
        "document",
        "number",
        "text",
        "sample_answer",
        "status",
        "origin",
        "votes_shown",
        "redundant_with",
        "editable",
    )
    readonly_fields = ("origin", "votes_shown", "redundant_with", "editable")

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("document", "redundant_with")

    def get_formset(self, request: HttpRequest, obj: Campaign | None = None, **kwargs: Any):
        self._locked = frozenset(answering_documents(obj))
        self._campaign = obj
        formset = super().get_formset(request, obj, **kwargs)
        formset.form = type(
            formset.form.__name__, (formset.form,), {"locked_documents": self._locked}
        )
        return formset

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs: Any):
        if db_field.name == "document":
            campaign = getattr(self, "_campaign", None)
            kwargs["queryset"] = (
                Document.objects.filter(campaign=campaign).order_by("position")
                if campaign is not None
                else Document.objects.none()
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="Good votes")
    def votes_shown(self, question: RCQuestion) -> str:
        if question.votes is None:
            return "-"
        return f"{question.good_votes} of {question.votes}"

    @admin.display(description="Can change?")
    def editable(self, question: RCQuestion) -> str:
        if question.pk is None:
            return ""
        if question.document_id in getattr(self, "_locked", frozenset()):
            return "No: answering has started, the answers refer to it as it was asked."
        return "Yes"


# --- The stages page ---------------------------------------------------------------------------


class QuestionUploadForm(forms.Form):
    file = forms.FileField(help_text="TSV or JSON lines of doc_id, question, answer (number).")
    # The importer's formats (campaigns/importers/rc_questions.py, not imported here: the
    # campaign admin loads this module, and the importers only when an upload comes).
    format = forms.ChoiceField(
        choices=[
            ("", "From the file name (.tsv, .jsonl)"),
            ("tsv", "TSV (tab-separated, header row)"),
            ("jsonl", "JSON lines (one object per line)"),
        ],
        required=False,
    )


def stage_urls(model_admin) -> list:
    view = model_admin.admin_site.admin_view

    def stages(request: HttpRequest, campaign_id: int) -> HttpResponse:
        return stages_view(request, campaign_id, model_admin)

    return [
        path(
            "<int:campaign_id>/reading-comprehension/",
            view(stages),
            name="campaigns_campaign_rc_stages",
        )
    ]


def _campaign_or_404(request: HttpRequest, campaign_id: int, model_admin) -> Campaign:
    # get_object reads the admin's queryset: a campaign not shared with the user is "not
    # found", as on its change page.
    campaign = model_admin.get_object(request, str(campaign_id))
    if campaign is None or not hasattr(campaign, "rc_settings"):
        raise Http404("No reading-comprehension campaign with this id is shared with you.")
    if not model_admin.has_view_permission(request, campaign):
        raise PermissionDenied
    return campaign


def stages_view(request: HttpRequest, campaign_id: int, model_admin) -> HttpResponse:
    """GET: the articles and the three actions; POST ``action`` = advance, start or
    import."""
    from campaigns.importers.problems import ImportFailed
    from campaigns.importers.rc_questions import FORMAT_HELP
    from campaigns.kinds.reading_comprehension.imports import import_questions
    from campaigns.kinds.reading_comprehension.stages import start_answering
    from campaigns.tasks.reading_comprehension import advance_reading_comprehension

    campaign = _campaign_or_404(request, campaign_id, model_admin)
    upload = QuestionUploadForm()
    failure = None
    if request.method == "POST":
        if not model_admin.has_change_permission(request, campaign):
            raise PermissionDenied
        action = request.POST.get("action")
        here = HttpResponseRedirect(request.path)
        if action == "advance":
            # The Celery task's own code, run here so that the page can say what moved.
            moved = advance_reading_comprehension(campaign.pk) or []
            _report(request, moved, "Nothing was due: every article waits for its HITs.")
            if campaign.status == CampaignStatus.PAUSED:
                messages.warning(request, "The campaign is paused: stages do not move.")
            return here
        if action == "start":
            chosen = [int(v) for v in request.POST.getlist("document") if v.isdigit()]
            if not chosen:
                messages.warning(request, "Tick the articles to start answering on.")
                return here
            moved = start_answering(campaign, documents=chosen)
            _report(request, moved, "None of the ticked articles is waiting in review.")
            return here
        if action == "import":
            upload = QuestionUploadForm(request.POST, request.FILES)
            if upload.is_valid():
                try:
                    summary = import_questions(
                        campaign,
                        upload.cleaned_data["file"],
                        fmt=upload.cleaned_data["format"] or None,
                    )
                except ImportFailed as error:
                    failure = error
                else:
                    messages.success(request, summary.message)
                    return here
        else:
            messages.error(request, "Choose what to do.")
            return here
    articles = list(
        RCArticle.objects.filter(campaign=campaign)
        .select_related("document")
        .order_by("document__position")
    )
    done = _hits_progress(campaign)
    rows = [
        {
            "article": article,
            "hits": done.get((article.document_id, article.stage)),
            "in_review": article.stage == RCStage.REVIEW,
        }
        for article in articles
    ]
    opts = Campaign._meta
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Reading-comprehension stages of {campaign}",
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "original": campaign,
        "campaign": campaign,
        "rows": rows,
        "any_review": any(row["in_review"] for row in rows),
        "paused": campaign.status == CampaignStatus.PAUSED,
        "can_change": model_admin.has_change_permission(request, campaign),
        "upload": upload,
        "problems": failure.problems if failure else [],
        "problem_count": failure.total if failure else 0,
        "omitted": failure.omitted if failure else 0,
        "format_help": FORMAT_HELP,
        "has_view_permission": True,
    }
    return TemplateResponse(request, "admin/campaigns/campaign/rc_stages.html", context)


def _report(request: HttpRequest, moved: list[str], nothing: str) -> None:
    if not moved:
        messages.info(request, nothing)
    for line in moved:
        messages.success(request, line)


def _hits_progress(campaign: Campaign) -> dict[tuple[int, str], str]:
    """Per (article, stage): "2 of 4 HITs done" for the stage's HITs (one query)."""
    from campaigns.kinds.reading_comprehension.stages import DONE_STATUSES, STAGE_OF_TASK

    rows = (
        Hit.objects.filter(campaign=campaign, task__in=STAGE_OF_TASK, document__isnull=False)
        .annotate(done=Count("assignments", filter=Q(assignments__status__in=DONE_STATUSES)))
        .values_list("document_id", "task", "places", "done")
    )
    counts: dict[tuple[int, str], list[int]] = {}
    for document_id, task, places, done in rows:
        count = counts.setdefault((document_id, STAGE_OF_TASK[task]), [0, 0])
        count[0] += done >= (places or campaign.redundancy)
        count[1] += 1
    return {key: f"{n} of {total} HIT(s) done" for key, (n, total) in counts.items()}
