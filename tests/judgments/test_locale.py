"""The worker pages' translations (locale/README.md): every catalog compiles, lists exactly the
messages of the code, keeps their placeholders and translates a page's messages all or not
at all; its compiled .mo is up to date; and a language is added by a catalog alone."""

from __future__ import annotations

import gettext
import io
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from django.conf import settings
from django.test import Client, override_settings
from django.utils.translation import pgettext

from campaigns.models import AssessmentMode
from judgments.i18n import catalog_paths, language_name, page_language, stale_catalogs, words_in
from judgments.kinds import registry, task_page
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory
from tests.judgments.test_views import post_json, task_url

PROJECT = Path(settings.BASE_DIR)
# The keywords of `make messages` (BABEL_KEYWORDS in the Makefile), besides Babel's defaults.
KEYWORDS = {
    **DEFAULT_KEYWORDS,
    "gettext_lazy": None,
    "gettext_noop": None,
    "pgettext_lazy": ((1, "c"), 2),
    "npgettext_lazy": ((1, "c"), 2, 3),
}
PLACEHOLDER = re.compile(r"\{(\w*)\}")
# Today's languages: the direct-assessment page in each of them (a new language needs no test).
LANGUAGES = {"cs", "de", "es", "fr", "ru", "zh_Hans"}
LANGUAGE_CASE = ("language names in sentences", "as is")


def key(context: str | None, message: str | tuple[str, ...]) -> tuple[str, str]:
    return (context or "", message if isinstance(message, str) else message[0])


def code_messages() -> dict[tuple[str, str], str | tuple[str, ...]]:
    """Every message the code marks for translation, by (context, msgid)."""
    found = {}
    for _, _, message, _, context in extract_from_dir(
        str(PROJECT / "judgments"), keywords=KEYWORDS, comment_tags=("Translators:",)
    ):
        found[key(context, message)] = message
    return found


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file)


def translated(message) -> bool:
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return all(strings)


CATALOGS = catalog_paths()


def test_todays_languages_have_their_catalogs():
    assert LANGUAGES <= {path.parent.parent.name for path in CATALOGS}


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: path.parent.parent.name)
def test_a_catalog_compiles_and_reads_back(path):
    catalog = read_catalog(path)
    assert list(catalog.check()) == []
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    translations = gettext.GNUTranslations(compiled)
    for message in catalog:
        if message.id and isinstance(message.id, str) and message.string:
            assert translations.pgettext(message.context, message.id) == message.string


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: path.parent.parent.name)
def test_a_catalog_lists_every_message_of_the_code_and_no_other(path):
    listed = {key(message.context, message.id) for message in read_catalog(path) if message.id}
    in_code = set(code_messages())
    assert not in_code - listed, f"Run `make messages`: {path} lacks {sorted(in_code - listed)}"
    assert not listed - in_code, f"Run `make messages`: {path} has {sorted(listed - in_code)}"


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: path.parent.parent.name)
def test_a_translation_keeps_the_placeholders_of_its_message(path):
    for message in read_catalog(path):
        if not message.id or not translated(message):
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        expected = set(PLACEHOLDER.findall(ids[-1]))
        for string in strings:
            assert set(PLACEHOLDER.findall(string)) == expected, (path, message.id, string)


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: path.parent.parent.name)
def test_a_catalog_translates_all_of_a_context_or_none_of_it(path):
    """A page in a language is whole: no English sentence among translated ones."""
    contexts: dict[str, set[bool]] = {}
    for message in read_catalog(path):
        if message.id:
            contexts.setdefault(message.context or "", set()).add(translated(message))
    assert {context for context, seen in contexts.items() if len(seen) > 1} == set()


@pytest.mark.parametrize(
    "path",
    [path for path in CATALOGS if path.parent.parent.name in LANGUAGES],
    ids=lambda path: path.parent.parent.name,
)
def test_todays_languages_translate_the_direct_assessment_page(path):
    catalog = read_catalog(path)
    page = [m for m in catalog if m.id and m.context == "direct assessment page"]
    assert page and all(translated(message) for message in page)
    assert catalog.get(LANGUAGE_CASE[1], context=LANGUAGE_CASE[0]).string in ("as is", "lowercase")


def test_each_page_prompt_is_a_message_of_the_code():
    messages = code_messages()
    for kind in registry:
        for task in kind.tasks():
            probe = kind.page(task).language_probe
            assert probe is None or probe in messages, (kind.kind, task, probe)


def test_the_compiled_catalogs_are_up_to_date():
    assert stale_catalogs() == [], (
        "Run make test (or: .venv/bin/pybabel compile -d locale -D django)"
    )


@pytest.mark.parametrize(
    ("instructions_language", "expected"),
    [
        ("", "en"),
        ("de", "de"),
        ("DE-at", "de"),
        ("zh-Hans", "zh"),
        ("zh", "zh"),
        ("zh-Hant", "en"),  # Traditional Chinese is not offered the Simplified catalog
        ("zh-TW", "en"),
        ("pl", "en"),  # Django has a Polish catalog; the worker pages do not
        ("tlh", "en"),
    ],
)
def test_the_page_language_falls_back_by_base_then_to_english(instructions_language, expected):
    assess = task_page("assess")
    assert page_language(instructions_language, assess.language_probe) == expected


def test_a_page_no_catalog_translates_is_in_english():
    """A page whose prompt the German catalog does not translate (a kind added before its
    translations) is in English for a German campaign, whatever else the catalog holds."""
    assert page_language("de", ("ranking page", "A prompt no catalog has")) == "en"
    assert page_language("de", task_page("rank").language_probe) == "de"


# --- A language added by its catalog alone -------------------------------------------------

ITALIAN = {
    ("direct assessment page", "Read the text below and rate how much you agree that:"): (
        "Leggete il testo qui sotto e indicate quanto siete d'accordo:"
    ),
    ("direct assessment page", "The text is fluent {language}."): (
        "Il testo è scritto in {language} scorrevole."
    ),
    (
        "direct assessment page",
        "The black text adequately expresses the meaning of the gray text.",
    ): ("Il testo nero esprime adeguatamente il significato del testo grigio."),
    ("direct assessment page", "strongly disagree"): "per niente d'accordo",
    ("direct assessment page", "strongly agree"): "del tutto d'accordo",
    ("direct assessment page", "Move the slider to give your answer"): "Spostate il cursore",
    ("direct assessment page", "Next"): "Avanti",
    ("direct assessment page", "{n} of {total}"): "{n} di {total}",
    LANGUAGE_CASE: "lowercase",
    ("direct assessment answer", "score must be a number from 0 to 100 (got {value})."): (
        "score deve essere un numero da 0 a 100 (ricevuto {value})."
    ),
}


@pytest.fixture
def italian(tmp_path):
    """The project's catalogs and an Italian one, compiled: no code knows Italian."""
    folder = tmp_path / "it" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    catalog = Catalog(locale="it", domain="django")
    for (context, message), string in ITALIAN.items():
        catalog.add(message, string, context=context)
    with (folder / "django.po").open("wb") as file:
        write_po(file, catalog)
    with (folder / "django.mo").open("wb") as file:
        write_mo(file, catalog)
    with override_settings(LOCALE_PATHS=[*settings.LOCALE_PATHS, tmp_path]):
        yield


@pytest.mark.django_db
def test_a_catalog_alone_adds_a_language(italian):
    campaign = CampaignFactory(
        instructions_language="it",
        target_language="en",
        redundancy=1,
        assessment_mode=AssessmentMode.FLUENCY,
    )
    hit = HitFactory(campaign=campaign, number=1)
    HitSlotFactory(hit=hit, position=1, shown_text="Black text.")
    assignment = AssignmentFactory(hit=hit)
    client = Client()
    html = client.get(task_url(assignment)).content.decode()
    assert 'lang="it"' in html
    assert (
        '<p class="statement" id="statement">Il testo è scritto in inglese scorrevole.</p>' in html
    )
    assert ">Avanti</button>" in html
    assert 'data-progress-format="{n} di {total}"' in html
    # The words Italian does not translate yet are English: the shared ones, the network error.
    assert 'data-label-restart="Get a task"' in html
    response = post_json(
        client, task_url(assignment, "judgments:task-submit"), {"position": 1, "score": 101}
    )
    assert (response.status_code, response.json()["error"]) == (
        400,
        "score deve essere un numero da 0 a 100 (ricevuto 101).",
    )


@pytest.mark.parametrize(
    ("language", "context", "message", "expected"),
    [
        # "беглый" is said of a speaker, not of a text; the statement now reads as Russian.
        (
            "ru",
            "direct assessment page",
            "The text is fluent {language}.",
            "Это грамотный, естественно звучащий английский текст.",
        ),
        (
            "zh",
            "direct assessment page",
            "The text is fluent {language}.",
            "这段文字是通顺的英语。",
        ),
        (
            "ru",
            "translation page",
            "Is grammatical, fluent, and natural-sounding {language}",
            "Написан грамотно и звучит как естественный английский текст",
        ),
        # One name for a segment in Chinese: a sentence (句), as the verification page says.
        ("zh", "post-editing page", "Segment {n} of {total}", "第 {n} 句，共 {total} 句"),
        (
            "de",
            "verification page",
            "Some small errors are OK, so long as it is still understandable.",
            "Kleine Fehler sind in Ordnung, solange die Übersetzung verständlich bleibt.",
        ),
        (
            "de",
            "detect-mt page",
            "Keyboard: press Y (yes) or N (no), then Enter to go on to the next translation.",
            "Tastatur: Drücken Sie J (ja) oder N (nein), dann die Eingabetaste, um zur nächsten "
            "Übersetzung zu gehen.",
        ),
    ],
)
def test_reviewed_wordings(language, context, message, expected):
    with words_in(language):
        words = pgettext(context, message).replace("{language}", language_name("en"))
    assert words == expected


def test_german_names_the_enter_key_one_way():
    """German said "Enter", "Eingabe" and "Eingabetaste" for one key."""
    (path,) = [path for path in CATALOGS if path.parent.parent.name == "de"]
    for message in read_catalog(path):
        if message.id and isinstance(message.string, str):
            assert "Enter" not in message.string, message.id
            assert "Eingabe " not in message.string and "Eingabe+" not in message.string
