"""The words the four reading-comprehension pages share (context "reading comprehension
page"): the stage names, the article's heading, 000's guidance on good and poor questions
(shown to authors and to voters), and the messages about the connection."""

from __future__ import annotations

from typing import Any

from django.utils.translation import pgettext


def stage_names() -> dict[str, str]:
    """Each stage's name as its page shows it, in the active language."""
    return {
        "author": pgettext("reading comprehension page", "Writing questions"),
        "select": pgettext("reading comprehension page", "Voting on questions"),
        "answer": pgettext("reading comprehension page", "Answering questions"),
        "grade": pgettext("reading comprehension page", "Grading answers"),
    }


def guidance() -> dict[str, Any]:
    """000 section 5.3's "simple instructions on what qualifies as a good reading
    comprehension question", word for word."""
    return {
        "good_heading": pgettext(
            "reading comprehension page", "Good reading comprehension questions:"
        ),
        "good": [
            pgettext(
                "reading comprehension page",
                "Ask about why something happened or why someone did something.",
            ),
            pgettext(
                "reading comprehension page", "Ask about relationships between people or things."
            ),
            pgettext("reading comprehension page", "Should be answerable in a few words."),
        ],
        "poor_heading": pgettext(
            "reading comprehension page", "Poor reading comprehension questions:"
        ),
        "poor": [
            pgettext("reading comprehension page", "Ask about numbers or dates."),
            pgettext("reading comprehension page", "Only require a yes/no answer."),
        ],
    }


def common_words() -> dict[str, str]:
    """Words every reading-comprehension page uses."""
    return {
        "article": pgettext("reading comprehension page", "The article"),
        # Translators: {n} is the question's number on the page.
        "question": pgettext("reading comprehension page", "Question {n}"),
        "load_error": pgettext(
            "reading comprehension page",
            "The task could not be loaded (no connection?). Reload the page to retry.",
        ),
        "network_error": pgettext(
            "reading comprehension page",
            "What you wrote could not be sent (no connection?). It is kept: press the button "
            "again to retry.",
        ),
    }
