"""Staff form for crediting or debiting a player's cash or bonus chips through ``services.adjust``."""

from __future__ import annotations

import uuid
from decimal import Decimal

from django import forms


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
    reason = forms.CharField(max_length=200, help_text="Required; recorded as the transaction memo.")
    #: Generated when the form is shown, so a double submit cannot adjust twice.
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=100)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
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
