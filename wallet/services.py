"""The money use cases: grants, entry fees and refunds, a game's settlement, staff adjustments.

Each is one posting of the ledger (``wallet.ledger.post``: one transaction, its accounts locked
in order, idempotent by key, balanced, never below zero where a balance may not go).

Bonus chips (docs/rules.md §8.6): the sign-up bonus and the daily top-up go to
the player's *bonus* account, not the wallet. Entry fees take bonus chips first;
refunds give each part back to where it came from; a settlement gives every
player back their own stake first (cash first) and pays the rest of the pool, the
stakes the losers lost, in the same mix of bonus and cash those stakes were paid
in. So chips a fresh account got for free reach another player only as bonus.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from accounts import limits
from accounts.models import BonusMailbox, PlayLimit, User
from core.money import chips, format_money
from wallet.errors import (
    DailyTopupAlreadyClaimed,
    DailyTopupNeedsMailbox,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    NothingToRefund,
    NotStaff,
    ReasonRequired,
    SettlementMismatch,
    SpendLimitReached,
    WalletError,
)
from wallet.ledger import (
    Legs,
    bonus_account_for,
    checked_game_ref,
    checked_key,
    escrow_account_for,
    house_account,
    issuance_account,
    paise,
    post,
    transfer,
    wallet_account_for,
)
from wallet.locks import accounts_for_update
from wallet.models import Account, AccountKind, Entry, LedgerTransaction, TransactionKind

GRANT_KINDS = (TransactionKind.SIGNUP_BONUS, TransactionKind.DAILY_TOPUP, TransactionKind.GRANT)
#: Grants credited as bonus chips rather than cash.
BONUS_GRANT_KINDS = (TransactionKind.SIGNUP_BONUS, TransactionKind.DAILY_TOPUP)
#: The two accounts of a player, and the postings that move chips into and out of a game's escrow.
PLAYER_KINDS = (AccountKind.WALLET, AccountKind.BONUS)
STAKE_KINDS = (TransactionKind.ENTRY_FEE, TransactionKind.REFUND)


# ---------------------------------------------------------------------------
# Grants: issuance -> wallet
# ---------------------------------------------------------------------------
def grant(
    *,
    user: User,
    amount: int,
    idempotency_key: str,
    kind: str = TransactionKind.GRANT,
    memo: str = "",
    caused_by: User | None = None,
    now: datetime | None = None,
) -> LedgerTransaction:
    """New chips for a player, from the issuance account: the sign-up bonus and the daily top-up
    as bonus chips, a staff credit as cash."""
    paise(amount)
    if kind not in GRANT_KINDS:
        raise ValueError(f"grant kind must be one of {[str(k) for k in GRANT_KINDS]}, got {kind!r}")
    target = (
        bonus_account_for(user_id=user.pk)
        if kind in BONUS_GRANT_KINDS
        else wallet_account_for(user_id=user.pk)
    )
    txn, _ = transfer(
        kind=kind,
        source=issuance_account(),
        target=target,
        amount=amount,
        idempotency_key=idempotency_key,
        memo=memo or f"{TransactionKind(kind).label}: {format_money(amount)}",
        caused_by=caused_by,
        now=now,
    )
    return txn


def grant_signup_bonus(*, user: User) -> LedgerTransaction | None:
    """``settings.SIGNUP_BONUS_CHIPS`` for a new account, once (key ``signup:<user>``); None if the bonus is 0."""
    amount = chips(settings.SIGNUP_BONUS_CHIPS)
    if amount <= 0:
        return None
    return grant(
        user=user,
        amount=amount,
        idempotency_key=f"signup:{user.pk}",
        kind=TransactionKind.SIGNUP_BONUS,
        memo="Sign-up bonus",
        caused_by=user,
    )


def daily_topup_key(*, user_id: int, now: datetime | None = None) -> str:
    """``daily:<user>:<YYYY-MM-DD>`` of the current UTC day."""
    day = (now or timezone.now()).astimezone(UTC).date()
    return f"daily:{user_id}:{day.isoformat()}"


def daily_topup_allowed(*, user: User) -> bool:
    """Whether the account earned its mailbox's sign-up bonus, which daily chips follow."""
    return BonusMailbox.objects.filter(user_id=user.pk).exists()


def claim_daily_topup(*, user: User, now: datetime | None = None) -> LedgerTransaction:
    """``settings.DAILY_TOPUP_CHIPS`` free bonus chips once per UTC day.

    Raises ``DailyTopupAlreadyClaimed`` on a second claim the same day (also when
    two claims race: both lock the same accounts, the second finds the key), and
    ``DailyTopupNeedsMailbox`` unless the account earned its mailbox's sign-up bonus
    (``accounts.models.BonusMailbox``): free chips go to one account per confirmed mailbox.
    """
    if not daily_topup_allowed(user=user):
        raise DailyTopupNeedsMailbox()
    amount = chips(settings.DAILY_TOPUP_CHIPS)
    paise(amount, what="DAILY_TOPUP_CHIPS")
    key = daily_topup_key(user_id=user.pk, now=now)
    txn, created = transfer(
        kind=TransactionKind.DAILY_TOPUP,
        source=issuance_account(),
        target=bonus_account_for(user_id=user.pk),
        amount=amount,
        idempotency_key=key,
        memo="Daily free chips",
        caused_by=user,
        now=now,
    )
    if not created:
        raise DailyTopupAlreadyClaimed(day=key.rsplit(":", 1)[1])
    return txn


# ---------------------------------------------------------------------------
# Entry fees: wallet <-> game escrow
# ---------------------------------------------------------------------------
def pay_entry(
    *, user: User, game_ref: str, amount: int, idempotency_key: str, memo: str = ""
) -> LedgerTransaction:
    """Move an entry fee (join: ``join:<game>:<user>``, rejoin: ``rejoin:<game>:<user>:<n>``) into the escrow,
    bonus chips first, then cash.

    Raises ``InsufficientFunds`` if bonus and cash together cannot pay, ``SpendLimitReached``
    past the player's own daily limit on entry fees (checked under the accounts' locks, so two
    joins at once cannot pass it together; a repeated key is answered as before).
    """
    paise(amount)
    cash, bonus = wallet_account_for(user_id=user.pk), bonus_account_for(user_id=user.pk)
    escrow = escrow_account_for(game_ref)
    with transaction.atomic():
        list(accounts_for_update([cash.pk, bonus.pk]))
        if not LedgerTransaction.objects.filter(idempotency_key=checked_key(idempotency_key)).exists():
            _check_spend_limit(user=user, amount=amount)

        def legs(locked: dict[int, Account]) -> Legs:
            have_cash, have_bonus = locked[cash.pk].balance, locked[bonus.pk].balance
            if have_cash + have_bonus < amount:
                raise InsufficientFunds(
                    account_ref=cash.label, balance=have_cash + have_bonus, required=amount
                )
            from_bonus = min(have_bonus, amount)
            return {bonus.pk: -from_bonus, cash.pk: -(amount - from_bonus), escrow.pk: amount}

        txn, created = post(
            kind=TransactionKind.ENTRY_FEE,
            idempotency_key=idempotency_key,
            accounts=[cash, bonus, escrow],
            legs=legs,
            fixed_legs=None,
            memo=memo or f"Entry fee for {game_ref}",
            caused_by=user,
        )
        if not created and not txn.entries.filter(account=escrow, amount=amount).exists():
            raise IdempotencyConflict(idempotency_key=idempotency_key, detail="the amount differs")
    return txn


def _check_spend_limit(*, user: User, amount: int) -> None:
    """Refuse an entry fee past the player's daily limit (issue 14, responsible play)."""
    limit = limits.current_limit(user, PlayLimit.Kind.SPEND)
    if limit is None:
        return
    spent = entry_fees_spent(user_id=user.pk, since=limits.day_start())
    if spent + amount > limit:
        raise SpendLimitReached(
            f"this entry fee of {format_money(amount)} would pass your daily limit of "
            f"{format_money(limit)} on entry fees (spent today: {format_money(spent)}); "
            "it resets at midnight UTC"
        )


def entry_fees_spent(*, user_id: int, since: datetime) -> int:
    """Paise the player paid in entry and rejoin fees since ``since`` (cash and bonus), minus refunds of them."""
    total = Entry.objects.filter(
        account__kind__in=PLAYER_KINDS,
        account__ref=f"user:{user_id}",
        transaction__kind__in=STAKE_KINDS,
        transaction__created_at__gte=since,
    ).aggregate(total=Sum("amount"))["total"]
    return max(0, -(total or 0))


def _net_paid_by_wallet(*, escrow: Account) -> dict[int, int]:
    """Player account pk (wallet or bonus) -> entry fees minus refunds it has in ``escrow`` (0 once refunded)."""
    rows = (
        Entry.objects.filter(account__kind__in=PLAYER_KINDS, transaction__entries__account=escrow)
        .filter(transaction__kind__in=STAKE_KINDS)
        .values("account_id")
        .annotate(net=Sum("amount"))
    )
    return {row["account_id"]: -row["net"] for row in rows}


def refund_entry(*, user: User, game_ref: str, idempotency_key: str, memo: str = "") -> LedgerTransaction:
    """Give back exactly what the player paid into this game (fees incl. rejoins, minus earlier refunds),
    cash to the wallet and bonus chips to the bonus account.

    For leaving before the start or a cancelled game. Raises ``NothingToRefund``.
    """
    cash, bonus = wallet_account_for(user_id=user.pk), bonus_account_for(user_id=user.pk)
    escrow = escrow_account_for(game_ref)

    def legs(_locked: dict[int, Account]) -> Legs:
        net = _net_paid_by_wallet(escrow=escrow)
        paid = {pk: net.get(pk, 0) for pk in (cash.pk, bonus.pk) if net.get(pk, 0) > 0}
        if not paid:
            raise NothingToRefund(f"{user.pk} has no entry fees held in {game_ref}")
        return {escrow.pk: -sum(paid.values()), **paid}

    txn, _ = post(
        kind=TransactionKind.REFUND,
        idempotency_key=idempotency_key,
        accounts=[cash, bonus, escrow],
        legs=legs,
        fixed_legs=None,
        memo=memo or f"Refund of entry fees for {game_ref}",
        caused_by=user,
    )
    return txn


def refund_all_entries(
    *, game_ref: str, idempotency_key: str, memo: str = "", caused_by: User | None = None
) -> LedgerTransaction:
    """Cancel a game: refund every player what they paid, each part to its source, in one transaction;
    the escrow ends at zero unless something other than fees was put in (then ``SettlementMismatch``).

    ``caused_by``: the staff member who cancelled (None when the system did)."""
    escrow = escrow_account_for(game_ref)
    payers = sorted(_net_paid_by_wallet(escrow=escrow))
    players = list(Account.objects.filter(pk__in=payers))

    def legs(locked: dict[int, Account]) -> Legs:
        paid = _net_paid_by_wallet(escrow=escrow)
        if not set(paid) <= set(locked):
            raise WalletError(f"a player joined {game_ref} while it was being cancelled; retry")
        paid = {pk: amount for pk, amount in paid.items() if amount > 0}
        total = sum(paid.values())
        if total != locked[escrow.pk].balance:
            raise SettlementMismatch(
                game_ref=game_ref, escrow=locked[escrow.pk].balance, payouts=total, rake=0
            )
        return {escrow.pk: -total, **paid}

    txn, _ = post(
        kind=TransactionKind.REFUND,
        idempotency_key=idempotency_key,
        accounts=[escrow, *players],
        legs=legs,
        fixed_legs=None,
        memo=memo or f"Cancelled {game_ref}: entry fees refunded",
        caused_by=caused_by,
    )
    return txn


# ---------------------------------------------------------------------------
# Settlement: escrow -> house (rake) and winners
# ---------------------------------------------------------------------------
def settle_game(
    *,
    game_ref: str,
    payouts: Mapping[int, int],
    rake: int,
    idempotency_key: str,
    memo: str = "",
    caused_by: User | None = None,
) -> LedgerTransaction:
    """End a pool game (docs/rules.md §7-8): rake to the house and the prize pool to the winner or splitters,
    in one transaction after which the escrow is exactly zero.

    ``payouts`` maps user id -> paise (zero amounts allowed and skipped). Raises
    ``SettlementMismatch`` unless ``sum(payouts) + rake`` equals the escrow balance.
    How each payout divides into cash and bonus chips: ``prize_sources`` (docs/rules.md §8.6).
    ``caused_by``: the staff member who ended the game early (a cancellation's split); None at a
    normal end, which the game's own moves cause.
    """
    paise(rake, what="rake", allow_zero=True)
    for user_id, amount in payouts.items():
        paise(amount, what=f"payout to user {user_id}", allow_zero=True)
    user_ids = sorted(payouts)
    if User.objects.filter(pk__in=user_ids).count() != len(user_ids):
        raise WalletError(f"settle_game {game_ref}: unknown user ids in payouts {user_ids}")
    escrow, house = escrow_account_for(game_ref), house_account()
    cash = {uid: wallet_account_for(user_id=uid) for uid in user_ids}
    bonus = {uid: bonus_account_for(user_id=uid) for uid in user_ids}
    total = sum(payouts.values())

    def legs(locked: dict[int, Account]) -> Legs:
        balance = locked[escrow.pk].balance
        if total + rake != balance:
            raise SettlementMismatch(game_ref=game_ref, escrow=balance, payouts=total, rake=rake)
        stakes = _stakes(escrow=escrow)
        parts = prize_sources(payouts=payouts, rake=rake, stakes=stakes)
        out: Legs = {escrow.pk: -(total + rake), house.pk: rake}
        for uid, (in_cash, in_bonus) in parts.items():
            out[cash[uid].pk] = in_cash
            out[bonus[uid].pk] = in_bonus
        return out

    txn, created = post(
        kind=TransactionKind.SETTLEMENT,
        idempotency_key=idempotency_key,
        accounts=[escrow, house, *cash.values(), *bonus.values()],
        legs=legs,
        fixed_legs=None,
        memo=memo or f"Settlement of {game_ref}",
        caused_by=caused_by,
    )
    if not created:
        # The legs depend on the stakes, so there is no fingerprint to compare: a replay must
        # still be the same settlement (escrow, rake and each player's cash + bonus).
        moved = dict(txn.entries.values_list("account_id", "amount"))
        same = (
            moved.get(escrow.pk, 0) == -(total + rake)
            and moved.get(house.pk, 0) == rake
            and all(
                moved.get(cash[uid].pk, 0) + moved.get(bonus[uid].pk, 0) == amount
                for uid, amount in payouts.items()
            )
        )
        if not same:
            raise IdempotencyConflict(idempotency_key=idempotency_key, detail="the payouts or rake differ")
    return txn


def game_stakes(*, game_ref: str) -> dict[int, tuple[int, int]]:
    """User id -> (cash, bonus) paise each player has in a game's escrow: what a refund gives back."""
    escrow = Account.objects.filter(kind=AccountKind.ESCROW, ref=checked_game_ref(game_ref)).first()
    return _stakes(escrow=escrow) if escrow is not None else {}


def _stakes(*, escrow: Account) -> dict[int, tuple[int, int]]:
    """User id -> (cash, bonus) paise that user has in ``escrow`` (entry and rejoin fees less refunds)."""
    net = _net_paid_by_wallet(escrow=escrow)
    stakes: dict[int, tuple[int, int]] = {}
    for account in Account.objects.filter(pk__in=net).only("kind", "ref"):
        uid = int(account.ref.removeprefix("user:"))
        in_cash, in_bonus = stakes.get(uid, (0, 0))
        if account.kind == AccountKind.BONUS:
            in_bonus += net[account.pk]
        else:
            in_cash += net[account.pk]
        stakes[uid] = (in_cash, in_bonus)
    return stakes


def prize_sources(
    *, payouts: Mapping[int, int], rake: int, stakes: Mapping[int, tuple[int, int]]
) -> dict[int, tuple[int, int]]:
    """User id -> (cash, bonus) of each payout (docs/rules.md §8.6), so free chips never become cash
    by passing through a game.

    Each player first gets their own stake back, up to their payout, cash first (a stake that was
    partly lost was lost from its bonus part first). The rest of every payout, and the rake, come
    out of the stakes the players lost, in the proportion of bonus to cash in those lost stakes,
    rounded to the paisa by the largest remainder (ties: the house first, then by user id).
    """
    own: dict[int, tuple[int, int]] = {}
    won: dict[int, int] = {}
    for uid, amount in payouts.items():
        stake_cash, stake_bonus = stakes.get(uid, (0, 0))
        back = min(amount, stake_cash + stake_bonus)
        back_cash = min(back, stake_cash)
        own[uid] = (back_cash, back - back_cash)
        won[uid] = amount - back
    lost_bonus = sum(b for _c, b in stakes.values()) - sum(b for _c, b in own.values())
    lost = rake + sum(won.values())
    lost_bonus = max(0, min(lost_bonus, lost))
    # largest remainder over the shares of the lost stakes: the house (key None) and each winner
    shares: dict[int | None, int] = {None: rake, **{uid: w for uid, w in won.items() if w}}
    bonus_of = {k: (v * lost_bonus) // lost if lost else 0 for k, v in shares.items()}
    left = lost_bonus - sum(bonus_of.values())
    by_remainder = sorted(
        shares, key=lambda k: (-((shares[k] * lost_bonus) % lost if lost else 0), k is not None, k or 0)
    )
    for k in by_remainder[:left]:
        bonus_of[k] += 1
    result: dict[int, tuple[int, int]] = {}
    for uid in payouts:
        won_bonus = bonus_of.get(uid, 0)
        back_cash, back_bonus = own[uid]
        result[uid] = (back_cash + won[uid] - won_bonus, back_bonus + won_bonus)
    return result


# ---------------------------------------------------------------------------
# Staff adjustments: issuance <-> wallet, with a reason
# ---------------------------------------------------------------------------
def adjust(
    *,
    user: User,
    amount: int,
    reason: str,
    staff_user: User,
    idempotency_key: str,
    bonus: bool = False,
    memo: str | None = None,
) -> LedgerTransaction:
    """Staff credit (amount > 0) or debit (amount < 0) of a player's cash chips, or of their
    ``bonus`` chips (docs/rules.md §8.6: free chips farmed or granted by mistake are taken
    back where they are). ``memo`` is what the player's history shows (the staff services pass
    the message meant for the player, never the internal reason); without one, the reason.

    Raises ``NotStaff``, ``ReasonRequired``, ``InvalidAmount``, ``InsufficientFunds``.
    """
    if not getattr(staff_user, "is_staff", False) or not staff_user.is_active:
        raise NotStaff(f"{staff_user} is not active staff")
    reason = (reason or "").strip()
    if not reason:
        raise ReasonRequired("a staff adjustment needs a reason")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise InvalidAmount(f"adjustment must be a non-zero int of paise, got {amount!r}")
    txn, _ = transfer(
        kind=TransactionKind.ADJUSTMENT,
        source=issuance_account(),
        target=bonus_account_for(user_id=user.pk) if bonus else wallet_account_for(user_id=user.pk),
        amount=amount,
        idempotency_key=idempotency_key,
        memo=memo if memo is not None else f"{reason} (by {staff_user.get_username()})",
        caused_by=staff_user,
    )
    return txn
