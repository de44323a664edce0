"""Reading comprehension on the requester's side (kind.py); it has no settings of its own
yet."""
