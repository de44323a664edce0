# Production image: the web process (default), the Celery worker and beat all run from it
# (see docker-compose.yml and deploy/*.sh). Settings come from the environment.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=evalsite.settings \
    PYTHONPATH=/app \
    STATIC_ROOT=/app/staticfiles \
    PORT=8000

WORKDIR /app

# Crowd translation renders source sentences as images (judgments/kinds/translation/
# source_image.py): Pillow's wheels bring libraqm but load FriBiDi from the system (without it
# Arabic and Hebrew come out unjoined and in the wrong order), and the fonts come from Debian:
# DejaVu (Latin, Greek, Cyrillic), Noto (Arabic, Hebrew, Devanagari, ...), WenQuanYi Zen Hei
# (Chinese, Japanese, Korean).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libfribidi0 fonts-dejavu-core fonts-noto-core \
        fonts-wqy-zenhei \
    && rm -rf /var/lib/apt/lists/*

# Dependencies in their own layer, rebuilt only when pyproject.toml changes: with no source
# copied yet, `pip install .` installs every dependency and an empty evalsite distribution.
# The code itself then runs from /app (on PYTHONPATH), where settings.BASE_DIR finds the
# project-level templates/ and static/ folders.
COPY pyproject.toml README.md ./
RUN pip install .

COPY . .
# The worker pages' translations: compiled from locale/*/LC_MESSAGES/django.po (Babel, above).
RUN pybabel compile --directory=locale --domain=django
# Non-root: the code is read-only for the process; it may write only the collected static files
# and the uploads of import jobs (IMPORT_UPLOAD_ROOT; a volume shared by web and worker).
RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin evalsite \
    && mkdir -p /app/staticfiles /app/import-uploads \
    && chown evalsite:evalsite /app/staticfiles /app/import-uploads \
    && chmod 0700 /app/import-uploads \
    && chmod 0755 deploy/web.sh deploy/worker.sh deploy/beat.sh \
    && python -m compileall -q evalsite campaigns judgments analytics
# numba's cache of the statistics' kernels, so that a worker's first large recompute loads them
# instead of compiling them for 10-40 s (deploy/compile_kernels.py).
RUN python deploy/compile_kernels.py
USER evalsite

EXPOSE 8000
CMD ["deploy/web.sh"]
