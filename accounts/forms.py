from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from accounts.models import User


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")


class ProfileForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = User
        fields = ("display_name", "email")
