from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from accounts.models import EMAIL_TAKEN, SelfExclusion, User


def email_in_use(email: str, *, exclude_pk: int | None = None) -> bool:
    """Whether another account already uses ``email`` (in any case): one account per address."""
    if not email:
        return False
    others = User.objects.filter(email__iexact=email)
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    return others.exists()


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    """Sign-up asks for an e-mail address (for password resets), age 18+ and the terms (issue 14)."""

    email = forms.EmailField(required=True, help_text="For password resets; never shown to other players.")
    confirm_age = forms.BooleanField(required=True, label="I am 18 years of age or older")
    accept_terms = forms.BooleanField(required=True, label="I accept the terms and the privacy notice")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name", "email")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["accept_terms"].help_text = format_html(
            'Read the <a href="{}">terms</a> and the <a href="{}">privacy notice</a>.',
            reverse("terms"),
            reverse("privacy"),
        )

    def clean_email(self) -> str:
        email: str = self.cleaned_data["email"].strip()
        if email_in_use(email):
            raise forms.ValidationError(EMAIL_TAKEN)
        return email

    def save(self, commit: bool = True) -> User:
        user: User = super().save(commit=False)
        now = timezone.now()
        user.email = self.cleaned_data["email"]
        user.age_confirmed_at = now
        user.terms_accepted_at = now
        if commit:
            user.save()
        return user


class ProfileForm(forms.ModelForm):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    class Meta:
        model = User
        fields = ("display_name", "email")

    def clean_email(self) -> str:
        email: str = (self.cleaned_data.get("email") or "").strip()
        if email_in_use(email, exclude_pk=self.instance.pk):
            raise forms.ValidationError(EMAIL_TAKEN)
        return email


class LimitsForm(forms.Form):
    """Daily limits; empty for none. Lowering applies at once, raising after 24 hours."""

    spend = forms.DecimalField(
        label="Daily limit on entry fees (₹)",
        required=False,
        min_value=Decimal("1"),
        max_digits=12,
        decimal_places=2,
        help_text="Entry and rejoin fees you may pay in a day (UTC). Empty: no limit.",
    )
    time = forms.IntegerField(
        label="Daily play time (minutes)",
        required=False,
        min_value=1,
        max_value=24 * 60,
        help_text="Once reached, you cannot join a table until midnight UTC. Empty: no limit.",
    )

    def clean_spend(self) -> int | None:
        value = self.cleaned_data["spend"]
        return None if value is None else int(value * 100)


class SelfExclusionForm(forms.Form):
    period = forms.ChoiceField(choices=SelfExclusion.Period.choices, label="Take a break for")
    confirm = forms.BooleanField(
        required=True,
        label="I understand that a break cannot be shortened or lifted early",
    )
