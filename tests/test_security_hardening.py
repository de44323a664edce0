"""Issue 11 item 9, hardening: Content-Security-Policy on every page, admin login lockout, API
request rates, and the API schema and documentation behind a login.

(HTTPS redirect, HSTS and ``check --deploy``: tests/evalsite/test_hardening_settings.py, which
needs fresh interpreters with DEBUG off.)
"""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from unittest import mock

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from evalsite.security import client_ip
from judgments import tokens
from judgments.models import AssignmentStatus
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.django_db

PROJECT = Path(__file__).resolve().parents[1]
MTURK_FRAMERS = "https://worker.mturk.com https://workersandbox.mturk.com https://www.mturk.com"
MTURK_SUBMIT = "https://www.mturk.com https://workersandbox.mturk.com"
BASE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'self'"
)
PAGE_POLICY = f"{BASE_POLICY}; form-action 'self'; frame-ancestors 'none'"
TASK_POLICY = f"{BASE_POLICY}; form-action 'self' {MTURK_SUBMIT}; frame-ancestors {MTURK_FRAMERS}"


@pytest.fixture
def assignment():
    campaign = CampaignFactory(title="Rate some English", redundancy=1)
    hit = HitFactory(campaign=campaign, number=1)
    HitSlotFactory(hit=hit, position=1, shown_text="Black text 1.")
    return AssignmentFactory(hit=hit)


def task_url(assignment) -> str:
    return reverse(
        "judgments:task", args=[tokens.assignment_token(assignment.pk, assignment.worker_id)]
    )


def policies(response) -> list[str]:
    """Every Content-Security-Policy header of the response (a second one would be ANDed)."""
    return [value for name, value in response.items() if name.lower() == "content-security-policy"]


# --- Content-Security-Policy ---------------------------------------------------------------


def test_the_task_page_has_the_policy_with_mturk_framing_and_mturk_submission(assignment):
    response = Client().get(task_url(assignment))
    assert response.status_code == 200
    assert policies(response) == [TASK_POLICY]


def test_the_completion_page_may_post_to_mturk(assignment):
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.submitted_at = timezone.now()
    assignment.save()
    response = Client().get(task_url(assignment))
    assert "Thank you!" in response.content.decode()
    assert policies(response) == [TASK_POLICY]


@pytest.mark.parametrize(
    "url", ["/admin/", "/admin/campaigns/campaign/", "/admin/campaigns/campaign/add/"]
)
def test_admin_pages_have_the_policy_and_may_not_be_framed(admin_client, url):
    response = admin_client.get(url)
    assert response.status_code == 200
    assert policies(response) == [PAGE_POLICY]


@pytest.mark.parametrize(
    "url", ["/admin/", "/admin/campaigns/campaign/", "/admin/campaigns/campaign/add/"]
)
def test_admin_pages_name_an_empty_favicon_instead_of_asking_for_a_missing_one(admin_client, url):
    """The walkthrough saw a 404 for /favicon.ico in the console of every admin page."""
    html = admin_client.get(url).content.decode()
    assert html.count('<link rel="icon" href="data:,">') == 1
    assert '<div id="site-name"><a href="/admin/">evalsite</a></div>' in html  # as Django's
    login = Client().get("/admin/login/").content.decode()
    assert login.count('<link rel="icon" href="data:,">') == 1


def test_the_login_page_and_the_home_page_have_the_policy():
    for url in ("/admin/login/", "/"):
        response = Client().get(url)
        assert response.status_code == 200, url
        assert policies(response) == [PAGE_POLICY], url


def test_api_responses_have_the_policy(admin_client):
    for url in ("/api/", "/api/campaigns/", "/api/does-not-exist/"):
        response = admin_client.get(url, HTTP_ACCEPT="application/json")
        assert policies(response) == [PAGE_POLICY], url
    assert policies(APIClient().get("/api/campaigns/")) == [PAGE_POLICY]


class _Scripts(HTMLParser):
    """Collects inline scripts and inline event handlers of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        handlers = [name for name, _ in attrs if name.startswith("on")]
        if handlers:
            self.inline.append(f"<{tag} {handlers}>")
        if tag == "script":
            executable = names.get("type") in (None, "", "module", "text/javascript")
            self._in_script = executable and not names.get("src")
        for name in ("href", "action", "src"):
            if (names.get(name) or "").strip().lower().startswith("javascript:"):
                self.inline.append(f"<{tag} {name}=javascript:>")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline.append(data.strip()[:80])


def inline_scripts(html: str) -> list[str]:
    parser = _Scripts()
    parser.feed(html)
    return parser.inline


def test_the_inline_script_finder_finds_what_a_strict_policy_blocks():
    assert inline_scripts(
        '<script>alert(1)</script><button onclick="go()">x</button>'
        '<a href="javascript:go()">y</a><script type="module">import("/x")</script>'
    ) == ["alert(1)", "<button ['onclick']>", "<a href=javascript:>", 'import("/x")']
    assert (
        inline_scripts(
            '<script src="/static/a.js" data-x="1"></script>'
            '<script type="application/json" id="drf_csrf">{"a": 1}</script>'
        )
        == []
    )


def test_the_pages_run_no_inline_script(admin_client, assignment):
    """What script-src 'self' would block: an inline <script> or an on...= handler."""
    campaign = assignment.campaign
    pages = {
        "/": Client(),
        "/admin/login/": Client(),
        "/admin/": admin_client,
        "/admin/campaigns/campaign/": admin_client,
        "/admin/campaigns/campaign/add/": admin_client,
        f"/admin/campaigns/campaign/{campaign.pk}/change/": admin_client,
        # The popup an admin "+" button opens, and its answer page after a save.
        "/admin/auth/user/add/?_popup=1&_to_field=id": admin_client,
        "/api/docs/": admin_client,
        "/api/": admin_client,
        task_url(assignment): Client(),
    }
    for url, client in pages.items():
        response = client.get(url, HTTP_ACCEPT="text/html")
        assert response.status_code == 200, url
        assert inline_scripts(response.content.decode()) == [], url
    popup = admin_client.post(
        "/admin/auth/user/add/?_popup=1&_to_field=id",
        {
            "username": "popped",
            "password1": "a long unusual pass 42",
            "password2": "a long unusual pass 42",
            "usable_password": "true",
            "_popup": "1",
            "_to_field": "id",
        },
    )
    assert popup.status_code == 200
    assert "django-admin-popup-response-constants" in popup.content.decode()
    assert inline_scripts(popup.content.decode()) == []


def test_no_template_of_the_project_has_an_inline_script_or_handler():
    """The templates themselves, including ones no test renders."""
    found = []
    for template in PROJECT.glob("*/templates/**/*.html"):
        if ".venv" in template.parts:
            continue
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            if "src=" not in tag and "application/json" not in tag:
                found.append(f"{template.relative_to(PROJECT)}: {tag}")
        for handler in re.findall(r"<[a-z][^>]*\son[a-z]+\s*=", text, flags=re.IGNORECASE):
            found.append(f"{template.relative_to(PROJECT)}: {handler}")
    assert found == []


# --- Admin login lockout (django-axes) -------------------------------------------------------


def admin_login(username: str, password: str, address: str = "192.0.2.10"):
    return Client().post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


@pytest.fixture
def staff_user():
    return get_user_model().objects.create_user(
        "requester", password="the right password", is_staff=True, is_superuser=True
    )


def test_five_failed_logins_lock_that_user_out_from_that_address(staff_user, settings):
    assert settings.AXES_FAILURE_LIMIT == 5
    statuses = [admin_login("requester", f"guess {n}").status_code for n in range(5)]
    # Four wrong passwords: the form again; the fifth: locked out.
    assert statuses == [200, 200, 200, 200, 429]
    locked = admin_login("requester", "the right password")
    assert locked.status_code == 429
    assert locked.content.decode() == (
        "Too many failed logins for this user. Wait a few minutes and try again."
    )
    assert "_auth_user_id" not in locked.client.session

    # Not the whole site: the same user from another address, and another user from the same
    # address, still log in.
    assert admin_login("requester", "the right password", "198.51.100.7").status_code == 302
    get_user_model().objects.create_user("colleague", password="another password", is_staff=True)
    assert admin_login("colleague", "another password").status_code == 302


def test_the_lockout_ends_after_the_cool_off(staff_user, settings):
    for n in range(5):
        admin_login("requester", f"guess {n}")
    assert admin_login("requester", "the right password").status_code == 429
    # The attempts grow old: after ADMIN_LOGIN_COOLOFF_MINUTES (15) the user may log in again.
    assert settings.AXES_COOLOFF_TIME == timedelta(minutes=15)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert admin_login("requester", "the right password").status_code == 302


def test_a_success_resets_the_count(staff_user):
    for n in range(4):
        admin_login("requester", f"guess {n}")
    assert admin_login("requester", "the right password").status_code == 302
    statuses = [admin_login("requester", f"again {n}").status_code for n in range(4)]
    assert statuses == [200] * 4


def test_behind_a_proxy_the_forwarded_address_counts(staff_user, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.1"

    def through_proxy(password: str, client_address: str, spoofed: str = ""):
        forwarded = ", ".join(filter(None, [spoofed, client_address]))
        return Client().post(
            "/admin/login/",
            {"username": "requester", "password": password},
            REMOTE_ADDR=proxy,
            HTTP_X_FORWARDED_FOR=forwarded,
        )

    # An attacker who writes a different X-Forwarded-For each time is still one address.
    statuses = [
        through_proxy("wrong", "203.0.113.5", spoofed=f"10.9.9.{n}").status_code for n in range(5)
    ]
    assert statuses == [200, 200, 200, 200, 429]
    # The real requester, behind the same proxy but at another address, is not locked out.
    assert through_proxy("the right password", "198.51.100.20").status_code == 302


def test_client_ip_trusts_only_the_configured_proxies(settings):
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.1.1.1, 203.0.113.5"
    )
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_ip(request) == "10.0.0.1"
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_ip(request) == "203.0.113.5"
    settings.TRUSTED_PROXY_COUNT = 2
    assert client_ip(request) == "1.1.1.1"
    settings.TRUSTED_PROXY_COUNT = 3  # fewer entries than proxies: a direct request
    assert client_ip(request) == "10.0.0.1"


# --- API request rates ------------------------------------------------------------------------


def token_client(username: str) -> APIClient:
    user = get_user_model().objects.create_user(username)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@override_settings(API_THROTTLE_RATES={"user": "3/minute", "anon": "2/minute"})
def test_a_token_over_its_rate_gets_429_and_other_tokens_do_not():
    from django.core.cache import cache

    cache.clear()
    script = token_client("script")
    statuses = [script.get("/api/campaigns/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    refused = script.get("/api/campaigns/")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert refused.json()["detail"].startswith("Request was throttled.")
    # Another token has its own budget.
    assert token_client("other").get("/api/campaigns/").status_code == 200


@override_settings(API_THROTTLE_RATES={"user": "3/minute", "anon": "2/minute"})
def test_guessing_tokens_gets_429_past_the_anonymous_rate_and_good_tokens_go_on():
    """Replayed: 200 random tokens from one address were 200 x 401 (DRF authenticates before
    it throttles). Failed attempts now count per address."""
    from django.core.cache import cache

    cache.clear()
    guesser = APIClient(REMOTE_ADDR="203.0.113.9")
    statuses = []
    for _ in range(4):
        guesser.credentials(HTTP_AUTHORIZATION=f"Token {secrets.token_hex(20)}")
        statuses.append(guesser.get("/api/campaigns/").status_code)
    assert statuses == [401, 401, 429, 429]
    refused = guesser.get("/api/campaigns/")
    assert 0 < int(refused["Retry-After"]) <= 60
    # A good token from the same address is not held back; another address may still fail.
    user = get_user_model().objects.create_user("same-address")
    guesser.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert guesser.get("/api/campaigns/").status_code == 200
    other = APIClient(REMOTE_ADDR="203.0.113.10")
    other.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert other.get("/api/campaigns/").status_code == 401


def test_the_default_rates_are_documented_and_generous(settings):
    # tests/conftest.py turns rates off for the other tests; these are the settings' values.
    from evalsite import settings as configured

    assert configured.API_THROTTLE_RATES == {"user": "1200/minute", "anon": "60/minute"}
    assert configured.REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] == [
        "analytics.api.throttling.ApiAnonRateThrottle",
        "analytics.api.throttling.ApiUserRateThrottle",
    ]


@override_settings(API_THROTTLE_RATES={"user": "1/minute"})
def test_a_cache_that_is_down_does_not_close_the_api():
    script = token_client("script")
    with mock.patch(
        "rest_framework.throttling.SimpleRateThrottle.cache.get",
        side_effect=ConnectionError("Redis is down"),
    ):
        statuses = [script.get("/api/campaigns/").status_code for _ in range(3)]
    assert statuses == [200, 200, 200]


# --- The schema and its documentation need a login ----------------------------------------------


def test_the_schema_answers_anonymous_requests_401():
    response = APIClient().get("/api/schema/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    bad = APIClient(HTTP_AUTHORIZATION="Token 0123456789abcdef").get("/api/schema/")
    assert bad.status_code == 401


def test_the_documentation_sends_an_anonymous_browser_to_the_login_page():
    response = Client().get("/api/docs/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=/api/docs/"
    assert Client().get("/api/docs/?script").status_code == 302


def test_a_token_or_a_session_reads_the_schema_and_its_page(admin_client):
    assert token_client("script").get("/api/schema/").status_code == 200
    assert admin_client.get("/api/schema/").status_code == 200
    page = admin_client.get("/api/docs/")
    assert page.status_code == 200
    # The start-up script is a file of this site (script-src 'self'), not inline.
    (script_url,) = re.findall(
        r'<script src="(/api/docs/\?[^"]*script[^"]*)"', page.content.decode()
    )
    script = admin_client.get(script_url.replace("&amp;", "&"))
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()
