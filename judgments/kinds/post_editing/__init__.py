"""Post-editing on the worker's side (METHODS.md section 3; 000 section 5.2, 003): two pages.

- The editing page (HIT task "post_edit", :mod:`.edit`): a run of consecutive segments of one
  document, each with the reference (monolingual mode, 000) or the source (bilingual mode,
  003) and the MT output prefilled in a box to edit with as few changes as possible. One
  submission per segment, saved as the worker moves on; saved segments stay on the page,
  read-only, with their edit.
- The verification page (HIT task "verify_edit", :mod:`.verify`): other workers read the
  reference (or the source) and an edited sentence and answer the two yes/no questions of 000
  (same meaning? acceptable <target language>?), one sentence at a time.

The pages are ``judgments/post_edit.html`` with ``static/js/post_edit.js`` and
``judgments/verify_edit.html`` with ``static/js/verify_edit.js``; their words are in the
catalogs under ``locale/`` (contexts "post-editing page" and "verification page"; the
messages about an answer, "post-editing answer" and "verification answer", are English as
every kind's are so far). Neither page ever sends a slot's role, its output or system, or
(on the verification page) the editor or the edit's judgment: only slot positions and texts.
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from campaigns.models import TaskKind
from judgments.kinds import JudgmentKind, registry
from judgments.kinds.post_editing.edit import EditPage
from judgments.kinds.post_editing.verify import VerifyPage

__all__ = ["EditPage", "PostEditing", "VerifyPage"]


@registry.register
class PostEditing(JudgmentKind):
    kind = TaskKind.POST_EDITING
    description = pgettext_lazy(
        "entry page",
        "Correct machine translations with as few changes as possible, so "
        "that they mean the same as the reference and read well; some tasks ask you to check "
        "corrected sentences instead.",
    )
    pages = (EditPage, VerifyPage)
