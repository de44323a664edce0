from django.urls import path

from judgments import views

app_name = "judgments"

urlpatterns = [
    path("<int:campaign_id>/", views.campaign_entry, name="campaign-entry"),
    path("<int:campaign_id>/start", views.campaign_start, name="campaign-start"),
    path("w/<str:token>/", views.worker_link, name="worker-link"),
    path("a/<str:token>/", views.task_page, name="task"),
    path("a/<str:token>/item", views.task_item, name="task-item"),
    path("a/<str:token>/submit", views.task_submit, name="task-submit"),
]
