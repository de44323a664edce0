"""Crowd translation on the requester's side: settings (models.py) and kind (kind.py)."""
