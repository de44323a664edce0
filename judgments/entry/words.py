"""The words of the worker's pages around the task: the campaign's entry page, the questions
about the worker, the completion page and the message pages (an invalid link, a closed
campaign, a refused start).

They are shown in the campaign's instructions language, as the task pages are
(``judgments.i18n``): the messages are English msgids in the "entry page" context, marked
lazily where they are module constants (``pgettext_lazy``, ``format_lazy`` for the ones with
a placeholder), so that a page turns them into words only when it is rendered, inside
:func:`campaign_words`. A page without a campaign (a link that names none) is in English.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import npgettext, pgettext, pgettext_lazy

from campaigns.models import DEFAULT_CONSENT_TEXT, Campaign
from judgments.i18n import money_words, number_words, page_language, words_in

# The context of these pages' messages; Babel reads it only where it is written out (every
# pgettext call below writes "entry page"). A catalog that translates the entry page's button
# offers these pages in its language.
LANGUAGE_PROBE = ("entry page", "Start")

INVALID_LINK = pgettext_lazy(
    "entry page",
    "This link is not valid. Check that you opened the whole link, or ask whoever sent it to "
    "you for a new one.",
)
INVALID_LINK_TITLE = pgettext_lazy("entry page", "Invalid link")
# Translators: two sentences, one after the other: a space between them, or none in a language
# whose sentences end in a full-width stop (Chinese "{first}{second}").
SENTENCES = pgettext_lazy("entry page", "{first} {second}")


def sentences(*parts: str | Promise) -> str | Promise:
    """``parts`` (sentences, lazy or not) one after another, as the language of the page that
    shows them joins sentences; lazy when one part is."""
    joined = parts[0]
    for part in parts[1:]:
        joined = format_lazy(SENTENCES, first=joined, second=part)
    return joined


def entry_language(campaign: Campaign | None) -> str:
    """The language of the pages around ``campaign``'s tasks (English without a campaign)."""
    if campaign is None:
        return "en"
    return page_language(campaign.instructions_language, LANGUAGE_PROBE)


@contextmanager
def campaign_words(campaign: Campaign | None) -> Iterator[str]:
    """Meanwhile, words are in :func:`entry_language`; yields that language."""
    language = entry_language(campaign)
    with words_in(language):
        yield language


def campaign_title(campaign: Campaign) -> str:
    """The campaign's title as workers see it; an untitled campaign is named by what its
    workers do (its kind's label is the requester's name for it, in English)."""
    if campaign.title:
        return campaign.title
    return pgettext("entry page", "Translation evaluation")


def pay_words(low: Decimal | None, high: Decimal | None) -> str:
    """ "$0.50 per task.", "$0.20 to $1.00 per task." or "Unpaid.": a sentence in the active
    language, its amounts written as the language writes money (German "0,50 $")."""
    if high is None or high == 0:
        return pgettext("entry page", "Unpaid.")
    if low == high:
        # Translators: {pay} is an amount in US dollars, already written your way ("1,50 $").
        return pgettext("entry page", "{pay} per task.").format(pay=money_words(high))
    # Translators: {low} and {high} are amounts as above.
    return pgettext("entry page", "{low} to {high} per task.").format(
        low=money_words(low), high=money_words(high)
    )


def duration_words(minutes: int | None, measured_from: int) -> str:
    """How long one task takes: "about 12 minutes (the median of 3 finished tasks)"."""
    if minutes is None:
        return ""
    about = npgettext("entry page", "about {n} minute", "about {n} minutes", minutes).format(
        n=number_words(minutes)
    )
    if measured_from:
        return npgettext(
            "entry page",
            "{about} (the median of {n} finished task)",
            "{about} (the median of {n} finished tasks)",
            measured_from,
        ).format(about=about, n=number_words(measured_from))
    return pgettext("entry page", "{about} (an estimate: no task is finished yet)").format(
        about=about
    )


def consent_words(consent: str, page_language: str, campaign_language: str) -> tuple[str, str]:
    """The campaign's consent line and the language it is in: evalsite's default text in the
    page's (active) language, since it names the page's button; a requester's own text as
    written, in the campaign's language (``campaign_language``; blank: English)."""
    if consent == DEFAULT_CONSENT_TEXT:
        text = pgettext(
            "entry page",
            "Your answers are stored with a pseudonymous worker number, never your name, "
            "together with the time each answer took (and, if asked, your native language and "
            "country). They are used to evaluate machine translation and may be published in "
            "anonymised form. Taking part is voluntary and you may stop at any time. By "
            "pressing Start you agree to this.",
        )
        return text, page_language
    return consent, campaign_language or "en"


def entry_page_words(*, duration: str, hits: int, places: int, places_open: int) -> dict[str, str]:
    """The entry page's own words, in the active language (``duration``: :func:`duration_words`)."""
    return {
        "what": pgettext("entry page", "The task"),
        "how_long": pgettext("entry page", "How long"),
        # Translators: {duration} is "about 12 minutes (the median of 3 finished tasks)".
        "takes": pgettext("entry page", "One task takes {duration}.").format(duration=duration),
        "pay": pgettext("entry page", "Pay"),
        "tasks": pgettext("entry page", "Tasks"),
        # Translators: one sentence of two parts: {tasks} is "2 tasks in this campaign",
        # {places} "6 of 6 places open now (each task is done by several people)." (it ends
        # the sentence). Chinese joins them with "；".
        "tasks_and_places": pgettext("entry page", "{tasks}; {places}").format(
            tasks=npgettext(
                "entry page",
                "{n} task in this campaign",
                "{n} tasks in this campaign",
                hits,
            ).format(n=number_words(hits)),
            places=npgettext(
                "entry page",
                "{open} of {n} place open now (each task is done by several people).",
                "{open} of {n} places open now (each task is done by several people).",
                places,
            ).format(open=number_words(places_open), n=number_words(places)),
        ),
        "before_you_start": pgettext("entry page", "Before you start"),
        "start": pgettext("entry page", "Start"),  # LANGUAGE_PROBE
    }


def done_page_words() -> dict[str, str]:
    """The completion page's words (an MTurk task's form to send it back among them)."""
    return {
        "thank_you": pgettext("entry page", "Thank you!"),
        "finished": pgettext("entry page", "You have finished this task. Your answers are saved."),
        "sending": pgettext(
            "entry page", "Sending your work to MTurk… If this page stays, press the button."
        ),
        "send": pgettext("entry page", "Submit the HIT to MTurk"),
        # Shown by mturk-submit.js while it posts, and after a return to the page.
        "sending_now": pgettext("entry page", "Sending your work to MTurk…"),
        "press_if_not_sent": pgettext(
            "entry page", "If MTurk did not show that your HIT was submitted, press the button."
        ),
    }


def background_page_words() -> dict[str, str]:
    """The words around the questions about the worker (the questions are the form's)."""
    return {
        "about_you": pgettext("entry page", "About you"),
        "before_you_start": pgettext("entry page", "Before you start"),
        "why": pgettext(
            "entry page",
            "A few questions about you, asked once in this campaign. They help the researchers "
            "understand the results; they do not change your pay.",
        ),
        "errors": pgettext(
            "entry page", "Some answers are missing or need a change: see the messages below."
        ),
        "continue": pgettext("entry page", "Continue"),
    }
