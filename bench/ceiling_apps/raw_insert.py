"""No framework at all: the bare app's one INSERT (into its table, ``bare_app_row``) as a plain
WSGI callable with psycopg2, one connection per gunicorn thread, autocommit. What a request
that stores one row costs this machine under gunicorn, without Django."""

from __future__ import annotations

import json
import os
import threading
from urllib.parse import parse_qs

import psycopg2

_local = threading.local()
_INSERT = "INSERT INTO bare_app_row (value, created_at) VALUES (%s, now()) RETURNING id"


def _connection():
    connection = getattr(_local, "connection", None)
    if connection is None:
        connection = psycopg2.connect(os.environ["DATABASE_URL"])
        connection.autocommit = True
        _local.connection = connection
    return connection


def _answer(start_response, status: str, body: dict) -> list[bytes]:
    data = json.dumps(body).encode()
    start_response(
        status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    )
    return [data]


def application(environ, start_response):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length:
        environ["wsgi.input"].read(length)
    try:
        value = int(parse_qs(environ.get("QUERY_STRING", "")).get("value", ["0"])[0])
    except ValueError:
        return _answer(start_response, "400 Bad Request", {"error": "value must be an integer"})
    with _connection().cursor() as cursor:
        cursor.execute(_INSERT, (value,))
        (pk,) = cursor.fetchone()
    return _answer(start_response, "200 OK", {"id": pk})
