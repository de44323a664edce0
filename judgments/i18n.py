"""The worker pages' languages: which one a page is shown in, and the names of languages.

The words of the worker pages are English msgids marked with ``pgettext`` (the context names
the page: "direct assessment page", "ranking page", "task page" for what every task page
shares, "... answer" for the messages about an answer, "entry page" for the pages around the
tasks: judgments.entry.words). Their translations are the gettext
catalogs under ``locale/<language>/LC_MESSAGES/django.po`` (locale/README.md), compiled to
``.mo`` files by ``make run``, ``make test`` and the Docker build (``pybabel compile -d locale
-D django``); nothing in the code lists the languages.

A page is shown in the campaign's instructions language when a catalog offers the page in it,
i.e. translates the page's prompt (its :attr:`~judgments.kinds.TaskPage.language_probe`);
else in the language's base ("de-AT" -> "de"); else in English. A catalog either translates
all of a page's words or none (tests/judgments/test_locale.py checks it).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.numbers import format_currency, format_decimal
from django.conf import settings
from django.core.checks import Warning
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation
from django.utils.translation import gettext, pgettext

# Language codes Django's LANG_INFO and catalogs know under another name.
DJANGO_LANGUAGE_CODES = {"zh": "zh-hans"}
# ... and back: the page language a catalog folder stands for (locale/zh_Hans is "zh").
PAGE_LANGUAGE_CODES = {django: page for page, django in DJANGO_LANGUAGE_CODES.items()}
CATALOG = Path("LC_MESSAGES") / "django.po"
# Variants whose base catalog is not theirs to read: "zh" is Simplified Chinese, which readers
# of Traditional Chinese (Taiwan, Hong Kong, Macao) should not be given in its place; without
# a catalog of their own the page is in English.
NO_BASE_FALLBACK = frozenset({"zh-hant", "zh-tw", "zh-hk", "zh-mo"})
COMPILE_COMMAND = "make test (or make run, or: .venv/bin/pybabel compile -d locale -D django)"


def django_language(code: str) -> str:
    """The code Django's translation machinery knows a page language by ("zh" -> "zh-hans")."""
    return DJANGO_LANGUAGE_CODES.get(code, code)


def catalog_paths() -> list[Path]:
    """The worker pages' catalogs (``.po``), in every folder of ``settings.LOCALE_PATHS``."""
    return sorted(
        folder / CATALOG
        for base in settings.LOCALE_PATHS
        if Path(base).is_dir()
        for folder in Path(base).iterdir()
        if (folder / CATALOG).is_file()
    )


@functools.cache
def catalog_languages() -> frozenset[str]:
    """The page languages that have a catalog (``locale/zh_Hans`` is "zh")."""
    languages = set()
    for path in catalog_paths():
        code = translation.to_language(path.parent.parent.name)
        languages.add(PAGE_LANGUAGE_CODES.get(code, code))
    return frozenset(languages)


@receiver(setting_changed)
def _forget_catalogs(setting: str, **kwargs: object) -> None:
    if setting == "LOCALE_PATHS":
        catalog_languages.cache_clear()


def offers(language: str, probe: tuple[str, str]) -> bool:
    """Whether the catalog of ``language`` translates ``probe`` (a context and a msgid)."""
    with translation.override(django_language(language)):
        return pgettext(*probe) != probe[1]


def page_language(code: str, probe: tuple[str, str] | None) -> str:
    """The language a page is shown in for a campaign's instructions language ``code``
    (blank: English): ``code`` or its base when a catalog offers the page (translates
    ``probe``) in it, else "en". ``probe`` None: a page without words of its own, in English."""
    code = (code or "en").lower()
    if probe is not None:
        available = catalog_languages()
        candidates = [code]
        if code not in NO_BASE_FALLBACK:
            candidates.append(code.split("-")[0])
        for candidate in candidates:
            if candidate in available and offers(candidate, probe):
                return candidate
    return "en"


@contextmanager
def words_in(language: str) -> Iterator[None]:
    """Translate the worker page's words into ``language`` (a page language) meanwhile."""
    with translation.override(django_language(language)):
        yield


def language_name(code: str) -> str:
    """The name of language ``code`` in the active language, from Django's LANG_INFO and its
    own catalogs (German "Englisch", Chinese "英语"), in lower case where the active language
    writes language names so ("inglés"); a language Django does not know is shown by its code.
    Czech names are adverbs in Django's catalog ("anglicky"): Czech sentences are built
    around one."""
    code = code.lower()
    try:
        info = translation.get_language_info(django_language(code))
    except KeyError:
        return code
    name = info["name"]
    name = gettext(name)  # Django's own catalog (a variable: not one of the pages' msgids)
    # Translators: "lowercase" if this language writes a language's name in lower case inside a
    # sentence (Spanish "inglés", French "anglais", Czech "anglicky"); "as is" otherwise
    # (German "Englisch", English "English"). Nothing else is allowed.
    case = pgettext("language names in sentences", "as is")
    return name.lower() if case == "lowercase" else name


def babel_locale() -> Locale:
    """The active language as Babel's locale, for its numbers and amounts of money ("de":
    1.000 and 1,50 $; "zh-hans": 1,000 and US$1.50); English for a language Babel does not
    know."""
    try:
        return Locale.parse(translation.to_locale(translation.get_language() or "en"))
    except (ValueError, UnknownLocaleError):
        return Locale.parse("en")


def number_words(number: int | Decimal) -> str:
    """``number`` as the active language writes it (German 22.800, Russian 22 800)."""
    return format_decimal(number, locale=babel_locale())


def money_words(amount: Decimal, currency: str = "USD") -> str:
    """An amount of ``currency`` as the active language writes it, with its cents ("$1.50",
    German "1,50 $", French "1,50 $US", Chinese "US$1.50")."""
    return format_currency(amount, currency, locale=babel_locale())


def stale_catalogs() -> list[str]:
    """The catalogs whose compiled ``.mo`` is missing or older than the ``.po``, one line each."""
    problems = []
    for po in catalog_paths():
        mo = po.with_suffix(".mo")
        if not mo.is_file():
            problems.append(f"{mo} is missing")
        elif mo.stat().st_mtime < po.stat().st_mtime:
            problems.append(f"{mo} is older than {po.name}")
    return problems


def check_catalogs(**kwargs: object) -> list[Warning]:
    """System check: the worker pages' translations are compiled and up to date."""
    problems = stale_catalogs()
    if not problems:
        return []
    return [
        Warning(
            "The worker pages' translations are not compiled: " + "; ".join(problems) + ".",
            hint=f"Run {COMPILE_COMMAND}.",
            id="judgments.W001",
        )
    ]
