"""The direct-assessment page over HTTP: its statement (fluency or adequacy), its anchors and
words in the campaign's instructions language (the catalogs under locale/), and its item.

The shared task page and its endpoints, shown with a direct-assessment campaign, are in
tests/judgments/test_views.py."""

import pytest
from django.test import Client

from campaigns.models import AssessmentMode
from tests.judgments.test_views import task_url

pytestmark = pytest.mark.django_db


def test_a_fluency_page_has_no_gray_text(assignment):
    assignment.campaign.da_settings.assessment_mode = AssessmentMode.FLUENCY
    assignment.campaign.da_settings.save()
    client = Client()
    html = client.get(task_url(assignment)).content.decode()
    assert "The text is fluent English." in html
    assert "gray-text" not in html
    body = client.get(task_url(assignment, "judgments:task-item")).json()
    assert body["next"] == {"position": 1, "text": "Black text 1."}


@pytest.mark.parametrize(
    ("instructions_language", "target", "statement", "low", "high"),
    [
        ("", "en", "The text is fluent English.", "strongly disagree", "strongly agree"),
        (
            "de",
            "en",
            "Der Text ist flüssiges Englisch.",
            "stimme überhaupt nicht zu",
            "stimme voll und ganz zu",
        ),
        (
            "de-AT",
            "de",
            "Der Text ist flüssiges Deutsch.",
            "stimme überhaupt nicht zu",
            "stimme voll und ganz zu",
        ),
        (
            "es",
            "en",
            "El texto está escrito en inglés fluido.",
            "totalmente en desacuerdo",
            "totalmente de acuerdo",
        ),
        (
            "fr",
            "de",
            "Le texte est écrit dans un allemand courant.",
            "pas du tout d&#x27;accord",
            "tout à fait d&#x27;accord",
        ),
        (
            "cs",
            "en",
            "Text je napsán plynule anglicky.",
            "rozhodně nesouhlasím",
            "rozhodně souhlasím",
        ),
        ("zh-Hans", "en", "这段文字是通顺的英语。", "非常不同意", "非常同意"),
        (
            "ru",
            "en",
            "Это грамотный, естественно звучащий английский текст.",
            "совершенно не согласен",
            "полностью согласен",
        ),
        (
            "de",
            "zh",
            "Der Text ist flüssiges Vereinfachtes Chinesisch.",
            "stimme überhaupt nicht zu",
            "stimme voll und ganz zu",
        ),
        ("pl", "cs", "The text is fluent Czech.", "strongly disagree", "strongly agree"),
        ("en", "tlh", "The text is fluent tlh.", "strongly disagree", "strongly agree"),
    ],
)
def test_the_fluency_statement_and_anchors_are_in_the_instructions_language(
    assignment, instructions_language, target, statement, low, high
):
    campaign = assignment.campaign
    campaign.da_settings.assessment_mode = AssessmentMode.FLUENCY
    campaign.da_settings.save()
    campaign.instructions_language = instructions_language
    campaign.target_language = target
    campaign.save()
    html = Client().get(task_url(assignment)).content.decode()
    assert f'<p class="statement" id="statement">{statement}</p>' in html
    assert f'<span class="anchor-low">{low}</span>' in html
    assert f'<span class="anchor-high">{high}</span>' in html


def test_the_adequacy_statement_in_german(assignment):
    assignment.campaign.instructions_language = "de"
    assignment.campaign.save()
    html = Client().get(task_url(assignment)).content.decode()
    assert "Der schwarze Text gibt die Bedeutung des grauen Textes angemessen wieder." in html
    assert '<html lang="de">' in html
