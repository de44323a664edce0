"""The pages around the task speak the campaign's language: the entry page, the questions
about the worker, the completion page and the message pages (a closed campaign, a refused
start, a Prolific link without its session). A walkthrough found them all in English under a
German campaign, whose task pages were German. A link that names no campaign stays English."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from campaigns.models import DEFAULT_CONSENT_TEXT, CampaignStatus, TaskKind
from judgments import tokens
from judgments.actions import record_judgment
from judgments.entry.words import consent_words, pay_words
from judgments.i18n import words_in
from judgments.kinds import registry as judgment_kinds
from judgments.models import Assignment
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    WorkerFactory,
)
from tests.judgments.test_mturk_entry import mturk_url, publish

pytestmark = pytest.mark.django_db

PID = "5f1d2c3b4a5968778695a4b3"
STUDY = "60aa11bb22cc33dd44ee55ff"


def german_campaign(**fields):
    campaign = CampaignFactory(
        **{
            "title": "Übersetzungen bewerten",
            "instructions_language": "de",
            "source_language": "cs",
            "target_language": "en",
            "redundancy": 3,
            "reward": Decimal("1.20"),
            **fields,
        }
    )
    for number in (1, 2):
        hit = HitFactory(campaign=campaign, number=number)
        for position in (1, 2):
            HitSlotFactory(hit=hit, position=position)
    return campaign


def page(url, client=None, **extra):
    response = (client or Client()).get(url, **extra)
    return response, response.content.decode()


def test_the_entry_page_of_a_german_campaign_is_german():
    campaign = german_campaign()
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert '<html lang="de">' in html
    assert "<dt>Die Aufgabe</dt>" in html
    assert (
        '<dd id="entry-what">Lesen Sie Übersetzungen einzeln und bewerten Sie jede auf einem '
        "Schieberegler von „stimme überhaupt nicht zu“ bis „stimme voll und ganz zu“.</dd>"
    ) in html
    # 2 items x 20 s (direct assessment's default): one minute.
    assert (
        '<dt>Dauer</dt><dd id="entry-duration">Eine Aufgabe dauert etwa 1 Minute (eine '
        "Schätzung: Es ist noch keine Aufgabe abgeschlossen).</dd>"
    ) in html
    # Money as German writes it (issue: "$1.20" in every language).
    assert '<dt>Vergütung</dt><dd id="entry-pay">1,20\xa0$ pro Aufgabe.</dd>' in html
    assert (
        '<dt>Aufgaben</dt><dd id="entry-tasks">2 Aufgaben in dieser Kampagne; 6 von 6 Plätzen '
        "derzeit frei (jede Aufgabe wird von mehreren Personen bearbeitet).</dd>"
    ) in html
    assert "<h2>Bevor Sie beginnen</h2>" in html
    assert '<button type="submit" class="button-primary">Starten</button>' in html


def test_an_english_campaigns_entry_page_says_one_place_in_the_singular():
    campaign = german_campaign(instructions_language="", redundancy=1)
    campaign.hits.filter(number=2).delete()
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert '<html lang="en">' in html
    assert (
        '<dd id="entry-tasks">1 task in this campaign; 1 of 1 place open now (each task is done '
        "by several people).</dd>"
    ) in html


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (CampaignStatus.PAUSED, "Diese Kampagne ist pausiert. Bitte kommen Sie später wieder."),
        (CampaignStatus.FINISHED, "Diese Kampagne ist beendet. Vielen Dank für Ihr Interesse."),
    ],
)
def test_a_closed_german_campaign_says_so_in_german(status, message):
    campaign = german_campaign(status=status)
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert f'<p class="notice">{message}</p>' in html
    assert "Starten</button>" not in html
    # The worker's own link says the same.
    worker = WorkerFactory()
    token = tokens.worker_token(worker.pk, campaign.pk)
    response, html = page(reverse("judgments:worker-link", args=[token]))
    assert response.status_code == 200
    assert '<html lang="de">' in html
    assert f'<p class="notice" role="status">{message}</p>' in html


def test_a_refused_start_says_how_long_to_wait_in_german(settings):
    settings.START_RATE = "1/10m"
    campaign = german_campaign()
    start = reverse("judgments:campaign-start", args=[campaign.pk])
    assert Client(REMOTE_ADDR="203.0.113.9").post(start).status_code == 303
    response = Client(REMOTE_ADDR="203.0.113.9").post(start)
    html = response.content.decode()
    assert response.status_code == 429
    # The window of 10 minutes ends in Retry-After seconds: under a minute they are counted.
    seconds = int(response["Retry-After"])
    minutes = -(-seconds // 60)
    if seconds < 60:
        wait = f"{seconds} Sekunde" if seconds == 1 else f"{seconds} Sekunden"
    else:
        wait = f"{minutes} Minute" if minutes == 1 else f"{minutes} Minuten"
    assert (
        '<p class="notice" role="status">Von Ihrem Netzwerk aus wurden in kurzer Zeit zu viele '
        f"Aufgaben gestartet. Bitte versuchen Sie es in {wait} noch einmal."
    ) in html
    assert "<h1>Übersetzungen bewerten</h1>" in html


def test_a_prolific_link_without_its_session_is_refused_in_german():
    campaign = german_campaign()
    url = reverse("judgments:prolific-start", args=[campaign.pk])
    response, html = page(f"{url}?PROLIFIC_PID={PID}&STUDY_ID={STUDY}")
    assert response.status_code == 400
    assert '<html lang="de">' in html
    assert (
        "Diesem Link fehlt der Parameter SESSION_ID, den jeder Link zu einer Prolific-Studie "
        "enthält. Öffnen Sie die Studie erneut über Ihr Prolific-Konto, ohne den Link zu ändern."
    ) in html


def test_a_link_that_names_no_campaign_is_english():
    response, html = page(reverse("judgments:worker-link", args=["not-a-token"]))
    assert response.status_code == 404
    assert '<html lang="en">' in html
    assert "<h1>Invalid link</h1>" in html
    assert "This link is not valid." in html


def test_the_questions_about_the_worker_are_german_with_the_languages_named_in_german():
    campaign = german_campaign(ask_background=True)
    assignment = AssignmentFactory(campaign=campaign, hit=campaign.hits.get(number=1))
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    url = reverse("judgments:task-background", args=[token])
    _, html = page(url)
    assert '<html lang="de">' in html
    assert "<h2>Bevor Sie beginnen</h2>" in html
    assert ">Was ist Ihre Muttersprache?</label>" in html
    assert ">In welchem Land leben Sie?</label>" in html
    assert '<option value="" selected>Land auswählen</option>' in html
    assert '<option value="DE">Deutschland</option>' in html  # django-countries' German
    assert ">Seit wie vielen Jahren sprechen Sie Tschechisch?</label>" in html
    assert ">Seit wie vielen Jahren sprechen Sie Englisch?</label>" in html
    assert '<button type="submit" class="button-primary">Weiter</button>' in html

    response = Client().post(url, {"native_language": "Deutsch", "country": "DE"})
    html = response.content.decode()
    assert response.status_code == 400
    assert (
        "Einige Antworten fehlen oder müssen geändert werden: Beachten Sie die Hinweise unten."
    ) in html
    assert (
        "Geben Sie an, seit wie vielen Jahren Sie Tschechisch sprechen (0, wenn Sie diese "
        "Sprache nicht sprechen)."
    ) in html


def test_the_completion_page_of_a_german_task_is_german():
    campaign = german_campaign()
    assignment = AssignmentFactory(campaign=campaign, hit=campaign.hits.get(number=1))
    for position in (1, 2):
        record_judgment(assignment.pk, assignment.worker_id, {"position": position, "score": 60})
    assert Assignment.objects.get(pk=assignment.pk).status == "submitted"
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    _, html = page(reverse("judgments:task", args=[token]))
    assert '<html lang="de">' in html
    assert "<h1>Vielen Dank!</h1>" in html
    assert (
        '<p class="notice" role="status" id="done-message">Sie haben diese Aufgabe '
        "abgeschlossen. Ihre Antworten sind gespeichert.</p>"
    ) in html


def test_an_untitled_campaign_is_named_by_what_its_workers_do_not_by_its_kind():
    campaign = german_campaign(title="")
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert '<h1 lang="de">Bewertung von Übersetzungen</h1>' in html
    campaign.instructions_language = ""
    campaign.save()
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert '<h1 lang="en">Translation evaluation</h1>' in html
    assert "Direct assessment" not in html


def test_a_language_no_catalog_offers_gets_english_words_around_the_requesters_own_text():
    campaign = german_campaign(instructions_language="pl", instructions="Oceń tłumaczenia.")
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert '<html lang="en">' in html
    assert '<button type="submit" class="button-primary">Start</button>' in html
    assert '<h1 lang="pl">Übersetzungen bewerten</h1>' in html
    assert (
        '<section class="instructions" dir="auto" lang="pl"><p>Oceń tłumaczenia.</p></section>'
        in html
    )


@pytest.mark.parametrize("kind", list(TaskKind))
def test_every_kinds_description_is_translated_for_the_entry_page(kind):
    """A kind's description is the entry page's "The task": a lazy msgid, in the page's
    language when the page is rendered."""
    description = judgment_kinds.get(kind).description
    english = str(description)
    with words_in("de"):
        german = str(description)
    with words_in("zh"):
        chinese = str(description)
    assert english and german and chinese
    assert len({english, german, chinese}) == 3


def test_the_default_consent_line_is_the_pages_own_words_and_a_requesters_is_theirs():
    """The default consent line names the Start button: under a German campaign it was English
    and named "Start" beside a button labelled "Starten"."""
    # The msgid is the text itself, and a requester's own line keeps its language.
    assert consent_words(DEFAULT_CONSENT_TEXT, "en", "de") == (DEFAULT_CONSENT_TEXT, "en")
    assert consent_words("Eigener Text.", "en", "de") == ("Eigener Text.", "de")
    assert consent_words("Own text.", "en", "") == ("Own text.", "en")
    campaign = german_campaign()
    assert campaign.consent_text == DEFAULT_CONSENT_TEXT
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert (
        '<h2>Bevor Sie beginnen</h2><div lang="de"><p>Ihre Antworten werden mit einer '
        "pseudonymen Teilnehmernummer gespeichert, nie mit Ihrem Namen"
    ) in html
    assert "Mit einem Klick auf „Starten“ stimmen Sie dem zu.</p></div>" in html

    campaign.consent_text = "Wir speichern Ihre Antworten. Start heißt Zustimmung."
    campaign.instructions_language = "pl"
    campaign.save()
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert (
        '<h2>Before you start</h2><div lang="pl"><p>Wir speichern Ihre Antworten. Start heißt '
        "Zustimmung.</p></div>"
    ) in html


def test_the_countries_are_in_the_alphabetical_order_of_the_pages_language():
    """Without a collation, django-countries sorted Russian and Chinese names by their ASCII
    form, i.e. in English order: Russia was option 141 of a Russian list."""
    campaign = german_campaign(ask_background=True, instructions_language="ru")
    assignment = AssignmentFactory(campaign=campaign, hit=campaign.hits.get(number=1))
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    html = Client().get(reverse("judgments:task-background", args=[token])).content.decode()
    names = [
        name
        for name in (
            part.split(">", 1)[1].split("<", 1)[0]
            for part in html.split("<option value=")[2:]  # the placeholder first
        )
    ]
    assert names.index("Австралия") < names.index("Афганистан")  # English order: the reverse
    assert names.index("Россия") < names.index("Франция") < names.index("Япония")
    assert names[:2] == ["Австралия", "Австрия"]


def test_the_mturk_completion_pages_script_gets_its_words_in_the_page_language():
    """mturk-submit.js wrote "Sending your work to MTurk…" in English on every page."""
    campaign = german_campaign()
    worker = WorkerFactory(platform="mturk", external_id="A1B2C3")
    assignment = AssignmentFactory(
        campaign=campaign,
        hit=campaign.hits.get(number=1),
        worker=worker,
        platform_assignment_id="ASSIGN1",
        turk_submit_to="https://workersandbox.mturk.com",
    )
    for position in (1, 2):
        record_judgment(assignment.pk, worker.pk, {"position": position, "score": 60})
    token = tokens.assignment_token(assignment.pk, worker.pk)
    _, html = page(reverse("judgments:task", args=[token]))
    assert 'data-label-sending="Ihre Arbeit wird an MTurk gesendet …"' in html
    assert (
        'data-label-press-if-not-sent="Falls MTurk nicht angezeigt hat, dass Ihr HIT '
        'abgesendet wurde, drücken Sie die Schaltfläche."'
    ) in html
    script = (Path(settings.BASE_DIR) / "static" / "js" / "mturk-submit.js").read_text()
    assert "Sending your" not in script and "press the button" not in script


def test_the_preview_names_its_sample_in_the_page_language_and_marks_the_texts_language():
    """MTurk's preview labelled its sample "Example" for screen readers on every page, and the
    slider page's texts had no lang, so a Chinese page read English sentences as Chinese."""
    campaign = german_campaign()
    hit = campaign.hits.get(number=1)
    publish(hit, "3PREVIEW")
    _, html = page(mturk_url(hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE"))
    assert '<section class="preview-sample" aria-label="Beispiel">' in html
    assert 'id="main-text" dir="auto" lang="en">' in html
    assignment = AssignmentFactory(campaign=campaign, hit=campaign.hits.get(number=2))
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    _, html = page(reverse("judgments:task", args=[token]))
    assert '<p class="text text-main" id="main-text" dir="auto" lang="en"></p>' in html


def test_the_chinese_entry_page_ends_its_sentences_and_writes_money_in_chinese():
    """A zh entry page read "每个任务 $1.20." and "…2 个任务; 目前…": an ASCII full stop after a
    translated phrase and an ASCII "; " between two translated clauses."""
    campaign = german_campaign(instructions_language="zh")
    _, html = page(reverse("judgments:campaign-entry", args=[campaign.pk]))
    assert '<html lang="zh">' in html
    assert '<dd id="entry-pay">每个任务 US$1.20。</dd>' in html
    assert (
        '<dd id="entry-tasks">此评测活动共有 2 个任务；目前 6 个名额中还有 6 个空缺（每个任务由'
        "多人完成）。</dd>"
    ) in html


def test_pay_is_a_sentence_with_money_written_the_languages_way():
    with words_in("de"):
        assert pay_words(Decimal("0.4"), Decimal("1.20")) == "0,40\xa0$ bis 1,20\xa0$ pro Aufgabe."
        assert pay_words(None, Decimal("0")) == "Unbezahlt."
    with words_in("zh"):
        assert pay_words(Decimal("0.40"), Decimal("1.20")) == "每个任务 US$0.40 至 US$1.20。"
    with words_in("ru"):
        assert pay_words(Decimal("1.50"), Decimal("1.50")) == "1,50\xa0$ за задание."
    assert pay_words(Decimal("1.50"), Decimal("1.50")) == "$1.50 per task."


def test_mturks_accept_problems_are_in_the_pages_language_with_the_parameters_as_they_are():
    """A Chinese page showed the problems in English inside a Chinese message."""
    campaign = german_campaign()
    hit = campaign.hits.get(number=1)
    publish(hit, "3HITDE1")
    url = mturk_url(
        hit, workerId="a1lowercase", assignmentId="3ASSIGN-1", turkSubmitTo="https://evil.example"
    )
    response, html = page(url)
    assert response.status_code == 400
    assert '<html lang="de">' in html
    assert (
        "Der Wert von workerId im Link ist keine MTurk-ID Ihres Worker-Kontos (Großbuchstaben "
        "und Ziffern). Der Wert von assignmentId im Link ist keine MTurk-ID Ihrer Zuweisung "
        "(Großbuchstaben und Ziffern). Im Link fehlt hitId, die MTurk-ID des HITs. Der Parameter "
        "turkSubmitTo im Link ist keine der Adressen von MTurk (https://www.mturk.com oder "
        "https://workersandbox.mturk.com), daher könnte diese Seite Ihre Arbeit nicht an MTurk "
        "zurücksenden. Öffnen Sie den HIT erneut über die MTurk-Website."
    ) in html
    wrong_site = mturk_url(
        hit,
        workerId="A1B2C3",
        assignmentId="3ASSIGN1",
        hitId="3HITDE1",
        turkSubmitTo="https://www.mturk.com",
    )
    _, html = page(wrong_site)
    assert (
        "Dieser HIT liegt in der Sandbox von MTurk, aber der Parameter turkSubmitTo im Link ist "
        "https://www.mturk.com, die Adresse der Produktivseite von MTurk; diese Seite würde "
        "Ihre Arbeit daher an die falsche Website statt an https://workersandbox.mturk.com "
        "senden. Öffnen Sie den HIT erneut über die MTurk-Website."
    ) in html
    # Chinese sentences follow one another without a space.
    campaign.instructions_language = "zh"
    campaign.save()
    _, html = page(mturk_url(hit, workerId="A1B2C3", assignmentId="3ASSIGN1", hitId="3HITDE1"))
    assert (
        "链接中的 turkSubmitTo 不是 MTurk 的地址（https://www.mturk.com或"
        "https://workersandbox.mturk.com），因此本页面无法将您的工作发回 MTurk。请从 MTurk 网站"
        "重新打开此 HIT。"
    ) in html


def test_the_preview_of_a_paused_german_campaign_says_not_to_accept_in_german():
    """The second sentence was written inside an f-string, where Babel never found it."""
    campaign = german_campaign(status=CampaignStatus.PAUSED)
    hit = campaign.hits.get(number=1)
    publish(hit, "3HITDE2")
    _, html = page(mturk_url(hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE"))
    assert (
        "Diese Kampagne ist pausiert. Bitte kommen Sie später wieder. Nehmen Sie diesen HIT "
        "jetzt nicht an."
    ) in html


def test_a_prolific_id_that_is_not_one_is_named_in_german():
    campaign = german_campaign()
    url = reverse("judgments:prolific-start", args=[campaign.pk])
    response, html = page(f"{url}?PROLIFIC_PID=not-an-id&STUDY_ID={STUDY}&SESSION_ID={STUDY}")
    assert response.status_code == 400
    assert (
        "Der Wert von Prolific-ID (PROLIFIC_PID) in diesem Link kann nicht von Prolific stammen. "
        "Öffnen Sie die Studie erneut über Ihr Prolific-Konto, ohne den Link zu ändern."
    ) in html
