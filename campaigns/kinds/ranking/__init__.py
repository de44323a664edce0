"""Ranking on the requester's side: settings (models.py), HIT builder with gold units and the
qualification test, and admin fieldsets (kind.py), judgment imports (imports.py). The set
layout itself is campaigns/builders/ranking/."""
