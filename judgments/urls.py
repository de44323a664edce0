from django.urls import path

from judgments import views

app_name = "judgments"

urlpatterns = [
    path("<int:campaign_id>/", views.campaign_entry, name="campaign-entry"),
]
