from django.urls import path

from judgments import views
from judgments.entry import background, mturk, prolific
from judgments.kinds.translation.views import source_image

app_name = "judgments"

urlpatterns = [
    path("<int:campaign_id>/", views.campaign_entry, name="campaign-entry"),
    path("<int:campaign_id>/start", views.campaign_start, name="campaign-start"),
    path("w/<str:token>/", views.worker_link, name="worker-link"),
    path("a/<str:token>/", views.task_page, name="task"),
    path("a/<str:token>/item", views.task_item, name="task-item"),
    path("a/<str:token>/submit", views.task_submit, name="task-submit"),
    path("a/<str:token>/background", background.background_form, name="task-background"),
    path("a/<str:token>/source/<int:position>", source_image, name="task-source-image"),
    path("mturk/<int:hit_id>/", mturk.mturk_task, name="mturk-task"),
    path("prolific/<int:campaign_id>/", prolific.prolific_start, name="prolific-start"),
]
