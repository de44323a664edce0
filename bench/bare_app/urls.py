"""The one view: store one row in one INSERT (no transaction of its own: autocommit)."""

from django.http import HttpRequest, JsonResponse
from django.urls import path

from bare_app.models import Row


def insert(request: HttpRequest) -> JsonResponse:
    raw = request.POST.get("value") or request.GET.get("value") or "0"
    try:
        value = int(raw)
    except ValueError:
        return JsonResponse({"error": "value must be an integer"}, status=400)
    row = Row.objects.create(value=value)
    return JsonResponse({"id": row.id})


urlpatterns = [path("insert/", insert)]
