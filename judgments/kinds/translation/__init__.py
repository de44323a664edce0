"""Crowd translation on the worker's side (METHODS.md section 6; 000 section 5.1, 004): two
pages of its own, and the post-editing page for the correction pass.

- The translation page (HIT task "translate", :mod:`.translate`): a run of consecutive source
  sentences of one document, each as an image rendered on the server (:mod:`.source_image`,
  served by :mod:`.views`) or as text, with a box for its translation, under 000's
  instructions; one submission per sentence, saved as the worker moves on.
- The Detect-MT page (HIT task "detect_mt", :mod:`.detect`): other workers see a source and a
  crowd translation and say whether it looks like it came from an online machine translation
  system (000), one translation at a time.
- The correction pass (004; HIT task "post_edit") is served by the post-editing kind's page,
  which shows a translation campaign's kept translation alone, to fix typos and grammar
  (``judgments.kinds.post_editing.edit``).

Every worker of a translation campaign answers the language-background form (000's "few quick
questions about your language abilities") before their first task, whatever the campaign's
``ask_background`` says (:attr:`JudgmentKind.asks_background`).

The pages are ``judgments/translate.html`` with ``static/js/translate.js`` and
``judgments/detect_mt.html`` with ``static/js/detect_mt.js`` (styles: the post-editing pages'
``post_edit.css`` and ``translate.css``); their words are in the catalogs under ``locale/``
(contexts "translation page" and "detect-mt page"; the messages about an answer, "translation
answer", are English as every kind's are so far). Neither page sends a slot's role or (on the
Detect-MT page) who translated: only slot positions, texts and image URLs.
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from campaigns.models import TaskKind
from judgments.kinds import JudgmentKind, registry
from judgments.kinds.translation.detect import DetectPage
from judgments.kinds.translation.translate import TranslatePage

__all__ = ["DetectPage", "Translation", "TranslatePage"]


@registry.register
class Translation(JudgmentKind):
    kind = TaskKind.TRANSLATION
    description = pgettext_lazy(
        "entry page",
        "Translate short texts sentence by sentence; some tasks ask you to "
        "tell human translations from machine translations.",
    )
    pages = (TranslatePage, DetectPage)
    # 000 asks its translators about their language abilities; Detect-MT judges and correctors
    # read both languages too, so every worker of the campaign answers once.
    asks_background = True
