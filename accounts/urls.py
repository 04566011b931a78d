from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from accounts import emailchange, emailviews, views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("confirm/again/", views.send_confirmation_again, name="confirm-email-again"),
    path("confirm/<str:token>/", views.confirm_email, name="confirm-email"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("profile/", views.profile, name="profile"),
    path("profile/limits/", views.set_limits, name="profile-limits"),
    path("profile/break/", views.self_exclude, name="profile-break"),
    path("terms/", views.terms, name="terms"),
    path("privacy/", views.privacy, name="privacy"),
    # Django's own password views (issue 14); e-mail goes to the console unless EMAIL_URL is set
    path("password/change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path(
        "password/reset/",
        auth_views.PasswordResetView.as_view(form_class=emailchange.HeldPasswordResetForm),
        name="password_reset",
    ),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(success_url=reverse_lazy("password_reset_complete")),
        name="password_reset_confirm",
    ),
    # the old address's link: the owner objects to a staff change of their address
    path("email/keep/<str:token>/", emailviews.object_to_email_change, name="email_change_object"),
    path(
        "password/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"
    ),
]
