from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from rummy_site import views
from staff import export_views
from staff import views as staff_views

urlpatterns = [
    path("", include("tables.urls")),
    path("api/", include("tables.api_urls")),
    path("accounts/", include("accounts.urls")),
    path("admin/dashboard/", staff_views.dashboard_view, name="staff-dashboard"),
    path("admin/exports/", export_views.exports_view, name="staff-exports"),
    path("admin/exports/<int:pk>/download/", export_views.download_view, name="staff-export-download"),
    path("admin/", admin.site.urls),
    path("api/wallet/", include("wallet.api_urls")),
    path("wallet/", include("wallet.urls")),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("rules/", views.rules, name="rules"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
