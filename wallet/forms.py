"""Staff form for crediting or debiting a player's cash or bonus chips through ``services.adjust``."""

from __future__ import annotations

import uuid
from decimal import Decimal

from django import forms


class RupeesField(forms.DecimalField):
    """An amount typed in rupees (``12.50``) for a field kept in paise (``1250``): staff never type
    paise, so a 100x misreading cannot happen. Exact Decimal, never float."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("max_digits", 14)
        kwargs.setdefault("decimal_places", 2)
        super().__init__(**kwargs)  # type: ignore[arg-type]  # passed through to Django's field as given

    def prepare_value(self, value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool):
            return (Decimal(value) / 100).quantize(Decimal("0.01"))  # paise as stored -> rupees shown
        return value

    def to_python(self, value: object) -> int | None:  # type: ignore[override]  # chips in minor units: it cleans to an int, not its base's Decimal
        rupees = super().to_python(value)
        return None if rupees is None else int(rupees * 100)

    def validate(self, value: object) -> None:
        forms.Field.validate(self, value)

    def run_validators(self, value: object) -> None:
        if value is not None:
            super().run_validators(Decimal(value) / 100)  # type: ignore[arg-type]  # a number its to_python cleaned


class AdjustmentForm(forms.Form):
    amount = forms.DecimalField(
        label="Amount (₹)",
        max_digits=14,
        decimal_places=2,
        help_text="Rupees, e.g. 50 or -12.50: positive credits the player, negative debits them.",
    )
    chips = forms.ChoiceField(
        label="Chips",
        choices=[("cash", "Cash chips"), ("bonus", "Bonus chips")],
        initial="cash",
        required=False,
        widget=forms.RadioSelect,
        help_text="Bonus chips are the free ones (sign-up and daily); they pay entry fees only.",
    )
    reason = forms.CharField(
        label="Internal note",
        max_length=200,
        help_text="Required; kept in the audit trail for staff. The player never sees it.",
    )
    message = forms.CharField(
        label="Message to the player",
        max_length=200,
        required=False,
        initial="Adjustment by our support team",
        help_text="What the player's wallet history says about this adjustment.",
    )
    #: Generated when the form is shown, so a double submit cannot adjust twice.
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=100)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # passed through to Django's form as given
        if not self.is_bound:
            self.initial.setdefault("idempotency_key", f"adjust:{uuid.uuid4()}")

    def clean_amount(self) -> int:
        """Rupees (exact Decimal, never float) -> paise."""
        amount: Decimal = self.cleaned_data["amount"]
        paise = int(amount * 100)
        if paise == 0:
            raise forms.ValidationError("The amount must not be zero.")
        return paise

    def clean_chips(self) -> str:
        return self.cleaned_data.get("chips") or "cash"

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError("A reason is required.")
        return reason

    def clean_idempotency_key(self) -> str:
        key: str = self.cleaned_data["idempotency_key"]
        if not key.startswith("adjust:"):
            raise forms.ValidationError("Bad form token; reload the page.")
        return key
