"""Staff forms: each asks for the reason the audit trail keeps."""

from __future__ import annotations

from django import forms

from tables.game.staffops import CANCEL_RULE


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label="Internal note",
        max_length=200,
        help_text="Required; kept in the audit trail for staff. The player never sees it.",
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError("A reason is required.")
        return reason


class CancelGameForm(ReasonForm):
    """Two texts, kept apart: the internal note stays with staff, the message goes to the players."""

    rule = CANCEL_RULE
    reason = forms.CharField(
        label="Internal note",
        max_length=200,
        widget=forms.Textarea(attrs={"rows": 2, "class": "vLargeTextField"}),
        help_text="Required; kept in the staff audit trail only. Players never see it.",
    )
    message = forms.CharField(
        label="Message to the players",
        max_length=200,
        initial="Staff cancelled this game.",
        widget=forms.Textarea(attrs={"rows": 2, "class": "vLargeTextField"}),
        help_text="Required; shown to every player at the table and in their wallet history. "
        "Do not name players or say what staff suspect.",
    )

    def clean_message(self) -> str:
        message = self.cleaned_data["message"].strip()
        if not message:
            raise forms.ValidationError("A message to the players is required.")
        return message


class SuspendForm(ReasonForm):
    message = forms.CharField(
        label="Message to the player",
        max_length=200,
        initial="Your account is under review.",
        help_text="What the player is told when they log in or try to play. Keep names and internal details out.",
    )
    until = forms.DateTimeField(
        required=False,
        help_text="UTC, e.g. 2026-12-31 18:00. Leave blank to suspend until lifted.",
    )


class BulkTablesForm(ReasonForm):
    count = forms.IntegerField(min_value=1, max_value=100, initial=1)
    prefix = forms.CharField(  # type: ignore[assignment]  # a field: the form's metaclass takes it off the class
        max_length=50, required=False, help_text="Table names; the settings' name if blank."
    )


class NoteForm(forms.Form):
    """A note in a player's case history: staff only, never edited or deleted afterwards."""

    text = forms.CharField(
        label="Add a note",
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="What happened and what you did. Kept for good (a correction is a new note); "
        "recorded in the audit trail; the player never sees it.",
    )

    def clean_text(self) -> str:
        text = self.cleaned_data["text"].strip()
        if not text:
            raise forms.ValidationError("Write the note first.")
        return text


class ExportForm(ReasonForm):
    """Why a list leaves the site as a file (recorded with who exported what)."""

    reason = forms.CharField(
        label="Why export this list?",
        max_length=200,
        help_text="Required; kept in the audit trail with what you exported.",
    )
