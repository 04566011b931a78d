"""Finished deals face up (docs/staff.md): every player's hand throughout and the deck the seeds
give, for the one role whose job needs the hands (Game integrity; a superuser too), with a
reason, each look one row of the audit trail. Everyone else on the staff sees a deal as the
table saw it (``tables.game.selectors.deal_detail(face_up=False)``)."""

from __future__ import annotations

from django.db import transaction

from accounts.models import User
from staff import audit
from staff.audit import StaffRefused
from staff.services import StaffError, refusals_recorded
from staff.shapes import FaceUp
from tables.game import selectors
from tables.models import Deal

#: The permission of the role that sees hands, live or finished (staff/roles.py).
VIEW_HANDS = "staff.view_live_hands"
VERB = "view_deal_face_up"


def may_open_face_up(staff: User) -> bool:
    """Whether ``staff``'s role may open a deal face up (still asked a reason each time)."""
    return bool(staff.is_active and staff.has_perm(VIEW_HANDS))


def open_face_up(*, staff: User, deal: Deal, reason: str) -> FaceUp:
    """The finished ``deal`` face up for ``staff``, recorded with ``reason`` before it is served;
    a role without the hands or a missing reason is refused and nothing is served."""
    reason = (reason or "").strip()
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
        if not may_open_face_up(staff):
            raise StaffRefused(
                f"{staff.username}'s role may not see the hands of a deal", verb=VERB, target=deal.game
            )
        if deal.finished_at is None:
            raise StaffError("this deal is still being played: its hands are on the live hands page")
        if not reason:
            raise StaffError("say why you need to see every hand")
        audit.record(
            staff=staff,
            action=VERB,
            target=deal.game,
            reason=reason,
            kind=audit.Action.ACCESS,
            after={"deal": deal.number, "deal_id": deal.pk},
            label=f"game:{deal.game_id} deal {deal.number}",
        )
    return face_up(deal)


def face_up(deal: Deal) -> FaceUp:
    """The page's data of a deal face up; the caller has recorded the look."""
    return FaceUp(
        deal=selectors.deal_detail(deal=deal, face_up=True), fairness=selectors.deal_fairness(deal=deal)
    )
