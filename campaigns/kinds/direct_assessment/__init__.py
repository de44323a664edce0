"""Direct assessment on the requester's side: settings (models.py), HIT builder and admin
fieldsets (kind.py), judgment imports (imports.py). The 2014 layout itself is
campaigns/builders/direct_assessment/."""
