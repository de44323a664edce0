import os

from django.core.wsgi import get_wsgi_application

from evalsite.deferred_imports import defer

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

# A web worker loads every statistics module with the URLconf but uses numpy only on the
# dashboards, exports and eager recomputes: it runs numpy's code on first use (issue 16 item 4).
defer("numpy")

application = get_wsgi_application()
