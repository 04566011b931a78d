from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts import emailchange, limits, play, services
from accounts.forms import LimitsForm, ProfileForm, SelfExclusionForm, SignUpForm
from accounts.models import EMAIL_TAKEN, PlayLimit, User
from accounts.requests import signed_in
from accounts.signals import signed_up
from accounts.throttle import TOO_FAST, release_signup, reserve_signup


def _send_confirmation(request: HttpRequest, user: User) -> bool:
    link = request.build_absolute_uri(reverse("confirm-email", args=[services.confirmation_token(user)]))
    return services.send_confirmation(user=user, link=link)


def _and_chips() -> str:
    """What confirming earns, for the messages: nothing to say when there is no sign-up bonus."""
    chips = settings.SIGNUP_BONUS_CHIPS
    return f" and get your {chips:,} free sign-up chips" if chips else ""


def signup(request: HttpRequest) -> HttpResponse:
    """A new account; its sign-up chips wait for the confirmation link mailed to its address."""
    if request.user.is_authenticated:
        return redirect("lobby")
    if request.method != "POST":
        return render(request, "registration/signup.html", {"form": SignUpForm()})
    slot = reserve_signup(request)  # before the account exists: parallel sign-ups cannot all pass
    if slot is None:
        messages.error(request, TOO_FAST)
        return render(request, "registration/signup.html", {"form": SignUpForm(request.POST)}, status=429)
    form = SignUpForm(request.POST)
    try:
        if not form.is_valid():
            release_signup(slot)
            return render(request, "registration/signup.html", {"form": form})
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:  # another sign-up took the name or the address meanwhile
            release_signup(slot)
            form.add_error(None, "That user name or e-mail address was just taken; choose another.")
            return render(request, "registration/signup.html", {"form": form}, status=409)
    except BaseException:
        release_signup(slot)
        raise
    signed_up.send(sender=type(user), user=user, request=request)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    if _send_confirmation(request, user):
        messages.success(
            request,
            f"Welcome, {user.table_name}! We sent a link to {user.email}: open it to confirm your address"
            f"{_and_chips()}. Practice tables are free meanwhile.",
        )
    else:
        messages.warning(
            request,
            f"Welcome, {user.table_name}! We could not send the mail that confirms your address; "
            f"press “Send again” in a minute to confirm it{_and_chips()}.",
        )
    return redirect("lobby")


def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed at sign-up: confirms the address and says whether the chips are in."""
    try:
        user, outcome = services.confirm_by_token(token)
    except services.ConfirmationRefused as exc:
        return render(request, "accounts/confirmed.html", {"refused": str(exc)}, status=400)
    context = {"outcome": outcome.value, "address": user.email, "chips": settings.SIGNUP_BONUS_CHIPS}
    return render(request, "accounts/confirmed.html", context)


@login_required
@require_POST
def send_confirmation_again(request: HttpRequest) -> HttpResponse:
    """The banner's "Send again" (and the profile's button): a link to the account's current address."""
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        back = reverse("lobby")
    user = signed_in(request)
    if not user.email or user.email_confirmed:
        messages.info(
            request, "Your address is confirmed already." if user.email else "Add an address first."
        )
    elif _send_confirmation(request, user):
        earn = _and_chips() if services.needs_confirmation(user) else ""
        messages.success(request, f"We sent a link to {user.email}. Open it to confirm your address{earn}.")
    else:
        messages.error(
            request,
            "A mail went out less than a minute ago, or could not be sent. Wait a minute and try again.",
        )
    return redirect(back)


def _limit_words(status: limits.LimitStatus) -> dict[str, int | str | None]:
    """A limit as the profile shows it: the ``current`` value and a ``pending`` one ``from`` when
    (None: no limit). The page writes amounts of money itself (``{% load money %}``)."""
    pending = status.has_pending and status.pending_at is not None
    return {
        "current": status.current,
        "pending": status.pending if pending else None,
        "from": play.when(status.pending_at) if pending and status.pending_at else "",
    }


def _profile_context(request: HttpRequest, **forms: object) -> dict[str, object]:
    user = signed_in(request)
    spend = limits.limit_status(user, PlayLimit.Kind.SPEND)
    time = limits.limit_status(user, PlayLimit.Kind.TIME)
    initial = {
        "spend": None if spend.current is None else spend.current / 100,
        "time": time.current,
    }
    return {
        "form": forms.get("form") or ProfileForm(instance=user),
        "limits_form": forms.get("limits_form") or LimitsForm(initial=initial),
        "exclusion_form": forms.get("exclusion_form") or SelfExclusionForm(),
        "spend": _limit_words(spend),
        "time": _limit_words(time),
        "play_block": play.block_reason(user),
    }


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    old_email = signed_in(request).email  # the form's validation writes the new one on the user
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
                emailchange.tell_own_change(user=user, old_email=old_email)
        except IntegrityError:  # another account took the address meanwhile
            form.add_error("email", EMAIL_TAKEN)
            return render(request, "accounts/profile.html", _profile_context(request, form=form), status=409)
        messages.success(request, "Profile saved.")
        return redirect("profile")
    return render(request, "accounts/profile.html", _profile_context(request, form=form))


@login_required
@require_POST
def set_limits(request: HttpRequest) -> HttpResponse:
    """Lowering a limit applies at once; raising or removing one applies 24 hours later."""
    form = LimitsForm(request.POST)
    if not form.is_valid():
        return render(
            request, "accounts/profile.html", _profile_context(request, limits_form=form), status=400
        )
    user = signed_in(request)
    for kind in (PlayLimit.Kind.SPEND, PlayLimit.Kind.TIME):
        value = form.cleaned_data[kind]
        if value == limits.current_limit(user, kind) and not limits.limit_status(user, kind).has_pending:
            continue
        row = limits.set_limit(user=user, kind=kind, value=value)
        if row.effective_at > row.created_at:
            messages.info(
                request,
                f"Your new {row.get_kind_display().lower()} limit applies from {play.when(row.effective_at)}.",
            )
        else:
            messages.success(request, f"Your {row.get_kind_display().lower()} limit applies now.")
    return redirect("profile")


@login_required
@require_POST
def self_exclude(request: HttpRequest) -> HttpResponse:
    form = SelfExclusionForm(request.POST)
    if not form.is_valid():
        return render(
            request, "accounts/profile.html", _profile_context(request, exclusion_form=form), status=400
        )
    try:
        exclusion = play.self_exclude(user=signed_in(request), period=form.cleaned_data["period"])
    except play.PlayRefused as exc:
        form.add_error(None, str(exc))
        return render(
            request, "accounts/profile.html", _profile_context(request, exclusion_form=form), status=409
        )
    messages.success(request, f"Your break from play runs until {play.when(exclusion.ends_at)}.")
    return redirect("profile")


def terms(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/terms.html")


def privacy(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/privacy.html")
