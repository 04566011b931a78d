"""The staff actions on the fair-play pages (``integrity.admin`` draws them read-only): link two
accounts, clear links, decide a flag and replay its deals face up, each through
``staff.integrity`` (authority checked, audited). Imported by ``staff.admin``."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from accounts.models import User
from accounts.requests import signed_in
from core.admin_parts import extends
from integrity.models import AccountLink, Flag
from staff import integrity as fairplay
from staff import replays
from staff.admin import deal_replays
from staff.forms import ReasonForm
from staff.services import StaffError
from tables.models import Deal

if TYPE_CHECKING:
    from integrity.admin import AccountLinkAdmin as LinkPage
    from integrity.admin import FlagAdmin as FlagPage
else:
    FlagPage = LinkPage = object


def _account(value: str) -> User:
    value = (value or "").strip()
    user = User.objects.filter(pk=int(value)).first() if value.isdigit() else None
    user = user or User.objects.filter(username=value).first()
    if user is None:
        raise forms.ValidationError(f"no account {value!r}")
    return user


class LinkForm(forms.Form):
    first = forms.CharField(label="First account", help_text="User name or id.")
    second = forms.CharField(label="Second account", help_text="User name or id.")
    reason = ReasonForm.base_fields["reason"]

    def clean_first(self) -> User:
        return _account(self.cleaned_data["first"])

    def clean_second(self) -> User:
        return _account(self.cleaned_data["second"])


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=Flag.Decision.choices, widget=forms.RadioSelect)
    reason = forms.CharField(
        label="Internal note",
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 2, "class": "vLargeTextField"}),
        help_text="Required: what the replays showed. Kept in the audit trail; players never see it.",
    )
    warning = forms.CharField(
        label="Warning to the player(s)",
        max_length=300,
        required=False,
        initial="A review of your recent games found play that breaks our fair-play rules. "
        "Further breaches will close your account.",
        help_text="Warned: shown once at their next log-in. Name nobody else.",
    )
    suspend = forms.MultipleChoiceField(
        label="Suspend", required=False, widget=forms.CheckboxSelectMultiple, help_text="Suspended: whom."
    )
    until = forms.DateTimeField(required=False, help_text="Suspended: UTC end, or blank until lifted.")
    suspend_message = forms.CharField(
        label="Message to the suspended player",
        max_length=200,
        required=False,
        initial="Your account is under review.",
    )
    amount = forms.DecimalField(
        label="Chips to reverse (₹)",
        required=False,
        min_value=Decimal("0.01"),
        max_digits=14,
        decimal_places=2,
        help_text="Chips reversed: taken from the gainer and given back to the loser (each a wallet "
        "adjustment under the money controls).",
    )
    clear_link = forms.BooleanField(
        required=False, label="Also clear the link between them (cleared: they may meet at tables again)"
    )

    def __init__(self, *args: Any, flag: Flag, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.flag = flag
        people = [u for u in (flag.user_a, flag.user_b) if u is not None]
        cast(forms.MultipleChoiceField, self.fields["suspend"]).choices = [
            (str(u.pk), u.username) for u in people
        ]
        if flag.signal in ("chip_dumping", "feeding") and not self.is_bound:
            chips = flag.figures.get("net_chips")
            if chips:
                self.initial["amount"] = Decimal(int(chips)) / 100

    def to_decision(self) -> fairplay.Decision:
        data = self.cleaned_data
        flag = self.flag
        ids = {int(i) for i in data["suspend"]}
        amount = data.get("amount") or Decimal(0)
        return fairplay.Decision(
            decision=data["decision"],
            reason=data["reason"],
            warning=data["warning"],
            suspend=tuple(u for u in (flag.user_a, flag.user_b) if u is not None and u.pk in ids),
            until=data["until"],
            suspend_message=data["suspend_message"],
            # the first player of a pair is the one who lost the chips (or gave the cards)
            reverse_from=flag.user_b,
            reverse_to=flag.user_a,
            amount=int(amount * 100),
            clear_link=data["clear_link"],
        )


@extends(Flag)
class StaffFlagPart(FlagPage):
    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<int:flag_id>/decide/",
                self.admin_site.admin_view(self.decide_view),
                name="integrity_flag_decide",
            ),
            path(
                "<int:flag_id>/replay/<int:deal_id>/",
                self.admin_site.admin_view(self.replay_view),
                name="integrity_flag_replay",
            ),
        ] + super().get_urls()

    def flag_context(self, request: HttpRequest, flag: Flag) -> dict[str, Any]:
        context = super().flag_context(request, flag)
        if flag.open and request.user.has_perm(fairplay.REVIEW):
            context["decision_form"] = context.get("decision_form") or DecisionForm(flag=flag)
            context["decide_url"] = reverse("admin:integrity_flag_decide", args=[flag.pk])
        return context

    def decide_view(self, request: HttpRequest, flag_id: int) -> HttpResponse:
        flag = get_object_or_404(Flag.objects.select_related("user_a", "user_b"), pk=flag_id)
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:integrity_flag_change", args=[flag.pk]))
        form = DecisionForm(request.POST, flag=flag)
        if form.is_valid():
            try:
                done = fairplay.decide_flag(staff=signed_in(request), flag=flag, d=form.to_decision())
            except StaffError as exc:
                form.add_error(None, str(exc))
            else:
                words = ", ".join(f"{k}: {v}" for k, v in done.items())
                level = messages.WARNING if done.get("waiting") else messages.SUCCESS
                extra = (
                    " The reversal waits for another administrator's approval." if done.get("waiting") else ""
                )
                self.message_user(request, f"Flag {flag.pk} decided ({words}).{extra}", level)
                return HttpResponseRedirect(reverse("admin:integrity_flag_change", args=[flag.pk]))
        return self.change_view(request, str(flag.pk), extra_context={"decision_form": form})

    def replay_view(self, request: HttpRequest, flag_id: int, deal_id: int) -> HttpResponse:
        flag = get_object_or_404(Flag, pk=flag_id)
        deal = get_object_or_404(Deal.objects.select_related("game"), pk=deal_id, finished_at__isnull=False)
        try:
            fairplay.record_replay(staff=signed_in(request), flag=flag, deal=deal)
        except StaffError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:integrity_flag_change", args=[flag.pk]))
        # shown here, face up, once recorded: the replay page shows staff the table's view only
        reason = f"review of flag {flag.pk} ({flag.get_signal_display()})"
        return deal_replays.render_face_up(request, replays.face_up(deal), reason)


@extends(AccountLink)
class StaffAccountLinkPart(LinkPage):
    change_list_template = "admin/integrity/accountlink/change_list.html"
    actions = ["clear_links"]

    def has_link_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(fairplay.LINK))

    def get_urls(self) -> list[URLPattern]:
        return [
            path("link/", self.admin_site.admin_view(self.link_view), name="integrity_accountlink_link"),
        ] + super().get_urls()

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        extra = {**(extra_context or {}), "can_link": self.has_link_permission(request)}
        return super().changelist_view(request, extra)

    def link_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_link_permission(request):
            raise PermissionDenied
        form = LinkForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                row = fairplay.link_accounts(
                    staff=signed_in(request),
                    a=form.cleaned_data["first"],
                    b=form.cleaned_data["second"],
                    reason=form.cleaned_data["reason"],
                )
            except StaffError as exc:
                form.add_error(None, str(exc))
            else:
                self.message_user(request, f"{row}: kept apart at tables.", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:integrity_accountlink_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Link two accounts",
            "form": form,
        }
        return TemplateResponse(request, "admin/integrity/link_accounts.html", context)

    @admin.action(description="Clear the link (they may meet at tables again)", permissions=["link"])
    def clear_links(self, request: HttpRequest, queryset: QuerySet[AccountLink]) -> HttpResponse | None:
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            for row in queryset.select_related("user_a", "user_b"):
                try:
                    fairplay.clear_link(
                        staff=signed_in(request), link=row, reason=form.cleaned_data["reason"]
                    )
                    self.message_user(request, f"{row}: link cleared.", messages.SUCCESS)
                except StaffError as exc:
                    self.message_user(request, f"{row}: {exc}", messages.ERROR)
            return None
        return TemplateResponse(
            request,
            "admin/staff/reason_action.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": "Clear links",
                "form": form,
                "queryset": queryset,
                "action": "clear_links",
            },
        )
