"""Reading comprehension on the requester's side: settings, questions and article stages
(models.py) and the kind (kind.py)."""
