"""Crowd platforms: the service layer between a campaign and the platform that sends workers.

Plain functions over an injected client, no Django models: the admin, the management commands
and the Celery tasks call them and store what they return. One sub-package per platform;
:mod:`campaigns.platforms.mturk` is Amazon Mechanical Turk (``METHODS.md`` section 7).
"""
