"""Reading comprehension on the worker's side (METHODS.md section 4; 000 section 5.3 and
Appendix A; RC_SPEC.md): four pages, one per stage of an article.

- Writing questions (HIT task "rc_author", :mod:`.author`): the human translation of the
  article, then a question and a sample answer per slot, with 000's guidance.
- Voting on questions ("rc_select", :mod:`.selection`): the human translation and all the
  article's proposed questions; per question, good or not and which others it repeats.
- Answering questions ("rc_answer", :mod:`.answering`): the article in one translation (a
  system's, or the human one: the page never says which) and its kept questions, with 000's
  instructions; an answer in a few words per question.
- Grading answers ("rc_grade", :mod:`.grading`): the human translation, then one question at
  a time with its sample answer and every answer given to it, each correct or not.

The first three send their whole page as one submission (a unit is the whole HIT: see each
page for why); grading sends one question at a time. The article (``Hit.document``) is sent
as paragraphs, one per segment (:mod:`.common` says why). The pages are
``judgments/rc_<stage>.html`` with ``static/js/rc_<stage>.js`` (and ``rc_common.js``, their
shared part) and ``static/css/rc.css``; their words are in the catalogs under ``locale/``
(context "reading comprehension page"; the messages about an answer, "reading comprehension
answer", are English as every kind's are so far). No page sends a slot's role, the HIT's
system, an author's or answerer's judgment, or (before grading) a sample answer: slot
positions and texts only, the article's texts, and on the grading page the question and its
sample answer.
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from campaigns.models import TaskKind
from judgments.kinds import JudgmentKind, registry
from judgments.kinds.reading_comprehension.answering import AnswerPage
from judgments.kinds.reading_comprehension.author import AuthorPage
from judgments.kinds.reading_comprehension.grading import GradePage
from judgments.kinds.reading_comprehension.selection import SelectPage

__all__ = ["AnswerPage", "AuthorPage", "GradePage", "ReadingComprehension", "SelectPage"]


@registry.register
class ReadingComprehension(JudgmentKind):
    kind = TaskKind.READING_COMPREHENSION
    description = pgettext_lazy(
        "entry page",
        "Read a short article and write, choose, answer or grade "
        "questions about it (each task says which).",
    )
    pages = (AuthorPage, SelectPage, AnswerPage, GradePage)
