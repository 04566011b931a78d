"""One person behind several accounts (issue 38), found without fingerprinting: a shared sign-in
address with the play of one person (sitting together, chips one way, never at the same time)
links the accounts; the play alone, on different addresses, flags them for review; an address
alone still links nobody.

The accounts arrive as the cheat's do: each signs up through the sign-up form from a fresh
browser with its own mailbox, its address given by ``REMOTE_ADDR``. Their games are finished
games with seats, an event log and start and end times, digested by the scan as it digests any
game; then ``integrity.services.scan`` runs as the hourly scan does, and seating is asked through
``tables.services.table_join`` and the join API.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from itertools import combinations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from integrity import multiaccount, signins
from integrity import services as scan_services
from integrity.models import AccountLink, Flag, SignalRow
from integrity.seating import REFUSAL, LinkedAccountAtTable
from tables import services
from tables.models import GameEvent, PoolGame, Seat, Table
from wallet.services import grant

from .conftest import player

pytestmark = pytest.mark.django_db

FEE = 1_000
#: a mobile carrier's shared address (carrier-grade NAT): many strangers behind it
CARRIER = "100.64.7.1"
HOME = "198.51.100.20"


def sign_up(name: str, address: str) -> User:
    """A new account through the sign-up form, from a fresh browser (its own device cookie) and
    its own mailbox, at ``address``; then chips in its wallet."""
    answer = Client().post(
        "/accounts/signup/",
        {
            "username": name,
            "email": f"{name}@mail{len(name)}.example.org",
            "password1": "a-long-pass-2026!",
            "password2": "a-long-pass-2026!",
            "confirm_age": "on",
            "accept_terms": "on",
        },
        REMOTE_ADDR=address,
    )
    assert answer.status_code == 302, answer.content[:500]
    user = User.objects.get(username=name)
    grant(user=user, amount=100_000, idempotency_key=f"test-grant:{name}")
    return user


class Games:
    """Finished games at one table: who sat, when they played, who won the prize."""

    def __init__(self, table: Table, start: datetime) -> None:
        self.table = table
        self.start = start
        self.made: list[int] = []

    def play(self, people: list[User], at: timedelta, minutes: float, winner: User) -> int:
        started = self.start + at
        game = PoolGame.objects.create(
            table=self.table,
            status=PoolGame.Status.FINISHED,
            state={"players": [{"fees_paid": FEE} for _ in people]},
            started_at=started,
            finished_at=started + timedelta(minutes=minutes),
        )
        for i, user in enumerate(people):
            Seat.objects.create(game=game, position=i, user=user, engine_seat=i)
        prize = FEE * len(people) * 9 // 10
        events = [
            ("deal_started", {"order": list(range(len(people)))}),
            ("game_over", {"winner": str(winner.pk), "payouts": {str(winner.pk): prize}}),
        ]
        GameEvent.objects.bulk_create(
            GameEvent(game=game, version=seq + 1, seq=seq, type=kind, data=data)
            for seq, (kind, data) in enumerate(events)
        )
        self.made.append(game.pk)
        return game.pk


def evening(day: int, minute: float = 0.0) -> timedelta:
    """``minute`` minutes after 19:00 on ``day`` of the test's fortnight."""
    return timedelta(days=day, hours=19, minutes=minute)


@pytest.fixture
def games(table: Table) -> Games:
    midnight = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    return Games(table, midnight - timedelta(days=25))


def strangers(count: int) -> list[User]:
    return [player(f"stranger{i}") for i in range(count)]


def busy_town(games: Games, people: list[User], count: int, rng: random.Random, *, days: int = 12) -> None:
    """``count`` games between ``people`` at random evening times, three at a table, nobody in
    two games at once, winners by chance: the honest play around the cheats."""
    busy: dict[int, list[tuple[float, float]]] = {u.pk: [] for u in people}
    for _ in range(count):
        day = rng.randrange(days)
        start = day * 1440 + 18 * 60 + rng.uniform(0, 300)
        length = rng.uniform(15, 35)
        free = [u for u in people if all(start >= e + 2 or start + length + 2 <= s for s, e in busy[u.pk])]
        if len(free) < 3:
            continue
        seated = rng.sample(free, 3)
        for u in seated:
            busy[u.pk].append((start, start + length))
        games.play(seated, timedelta(minutes=start), length, rng.choice(seated))


def one_person(a: User, b: User) -> Flag | None:
    return Flag.objects.filter(signal="one_person", user_a__in=[a, b], user_b__in=[a, b]).first()


def linked(a: User, b: User) -> AccountLink | None:
    low, high = sorted((a.pk, b.pk))
    return AccountLink.objects.filter(user_a_id=low, user_b_id=high, active=True).first()


def row(a: User, b: User) -> SignalRow:
    return SignalRow.objects.get(signal="one_person", user_a__in=[a, b], user_b__in=[a, b])


def join_answer(user: User, table: Table) -> dict:
    client = Client()
    client.force_login(user)
    answer = client.post(f"/api/tables/{table.pk}/join/", content_type="application/json")
    return {"status": answer.status_code, **answer.json()}


# ---------------------------------------------------------------------------
# a shared address and the play of one person: linked, kept apart
# ---------------------------------------------------------------------------
def test_three_accounts_on_one_address_that_sit_together_are_linked_and_refused_a_seat_together(games, table):
    ring = [sign_up(name, HOME) for name in ("kiran", "kiran_two", "kiran_three")]
    others = strangers(9)
    rng = random.Random(38)
    busy_town(games, others, 60, rng)
    for i in range(10):  # the three at one table, on different evenings; wins go round
        games.play(ring, evening(i, 200), 25, ring[i % 3])
    for i, account in enumerate(ring):  # and each now and then with strangers, at the same time
        for day in range(4):
            games.play([account, *others[2 * i : 2 * i + 2]], evening(day, 240 + i), 25, others[2 * i])

    scan_services.scan()

    for a, b in combinations(ring, 2):
        link = linked(a, b)
        assert link is not None and link.source == AccountLink.Source.ADDRESS, (a, b)
        flag = one_person(a, b)
        assert flag is not None and flag.open
        assert flag.figures["sit_together"] and flag.figures["linked"]
        assert flag.figures["shared_addresses"] == [HOME]
        assert flag.figures["games_together"] == 10 and flag.figures["rarer_games"] == 14
        assert not flag.figures["never_same_time"]  # they played apart at the same time
        assert "sat together in 10 of the rarer one's 14 games" in flag.summary
    assert not AccountLink.objects.exclude(source=AccountLink.Source.ADDRESS).exists()

    services.table_join(table_id=table.pk, user=ring[0])
    for other in ring[1:]:
        with pytest.raises(LinkedAccountAtTable):
            services.table_join(table_id=table.pk, user=other)
        answer = join_answer(other, table)
        assert answer["code"] == "linked_account_at_table" and answer["message"] == REFUSAL
    waiting = Seat.objects.filter(game__table=table, game__status="waiting", left_at__isnull=True)
    assert list(waiting.values_list("user", flat=True)) == [ring[0].pk]
    services.table_join(table_id=table.pk, user=others[0])  # a stranger still sits beside them


def test_two_accounts_on_one_address_that_take_turns_are_linked_without_ever_sitting_together(
    games, investigator
):
    main, spare = sign_up("nila", HOME), sign_up("nila_spare", HOME)
    others = strangers(6)
    for day in range(10):  # each evening: a game on one account, then the other, and again
        for k in range(2):
            base = 60 * k
            games.play([main, others[0], others[1]], evening(day, base), 25, others[0])
            games.play([spare, others[2], others[3]], evening(day, base + 30), 25, spare)

    scan_services.scan()

    flag = one_person(main, spare)
    assert flag is not None and flag.figures["never_same_time"] and not flag.figures["sit_together"]
    assert flag.figures["overlaps"] == 0 and flag.figures["games_apart"] == [20, 20]
    assert flag.figures["games_together"] == 0
    assert linked(main, spare) is not None
    assert "never played at the same time (20 and 20 games apart" in flag.summary
    assert len(flag.games) == 40 and flag.games_total == 40  # the close games apart behind it

    client = Client()
    client.force_login(investigator)
    page = client.get(reverse("admin:integrity_signal", args=["one_person"])).content.decode()
    assert "Looks like one person" in page and "never at the same time" in page.lower()
    assert "nila_spare" in page
    page = client.get(f"/admin/integrity/flag/{flag.pk}/change/")
    assert page.status_code == 200 and "Looks like one person" in page.content.decode()

    # kept true as every flag is: with no game left in the window it weakens, then lapses; the
    # link it made stays until staff clear it
    later = timezone.now() + timedelta(days=100)
    scan_services.scan(now=later)
    flag.refresh_from_db()
    assert flag.state == "weakened" and flag.open
    scan_services.scan(now=later + timedelta(hours=25))
    flag.refresh_from_db()
    assert flag.state == "lapsed" and "the one-person link made with it stays" in flag.lapse_reason
    assert linked(main, spare) is not None


# ---------------------------------------------------------------------------
# no shared address: the play alone flags for review, never links
# ---------------------------------------------------------------------------
def test_the_same_three_on_different_addresses_that_sit_together_and_never_overlap_are_flagged_not_linked(
    games, table
):
    addresses = ("203.0.113.5", "198.51.100.77", "192.0.2.140")
    ring = [sign_up(name, addr) for name, addr in zip(("ravi", "ravi_b", "ravi_c"), addresses, strict=True)]
    others = strangers(9)
    busy_town(games, others, 60, random.Random(5))
    for i in range(20):  # the three at one table, wins going round
        games.play(ring, evening(i, 0), 25, ring[i % 3])
    for day in range(6):  # evenings of switching accounts: one game on each in turn, three rounds
        for turn in range(9):
            account = ring[turn % 3]
            seated = [account, *others[3 * (turn % 3) : 3 * (turn % 3) + 2]]
            games.play(seated, evening(day, 60 + 30 * turn), 25, seated[(day + turn // 3) % 3])

    scan_services.scan()

    for a, b in combinations(ring, 2):
        flag = one_person(a, b)
        assert flag is not None and flag.open, (a, b)
        f = flag.figures
        assert f["sit_together"] and f["never_same_time"] and not f["linked"]
        assert f["shared_addresses"] == [] and f["overlaps"] == 0 and f["games_apart"] == [18, 18]
        assert linked(a, b) is None
    assert not AccountLink.objects.exists()
    assert not Flag.objects.filter(signal="shared").exists()  # no address in common: nothing else sees them
    services.table_join(table_id=table.pk, user=ring[0])
    services.table_join(table_id=table.pk, user=ring[1])  # flagged for review, not kept apart


# ---------------------------------------------------------------------------
# honest players behind one address
# ---------------------------------------------------------------------------
def test_many_honest_players_on_one_carrier_address_are_neither_flagged_nor_linked(games):
    carrier = [sign_up(f"mobile{i}", CARRIER) for i in range(12)]
    others = strangers(12)
    busy_town(games, carrier + others, 220, random.Random(11))

    scan_services.scan()

    pairs = list(combinations(carrier, 2))
    rows = [row(a, b) for a, b in pairs]  # every pair behind the address was judged
    assert all(r.figures["shared_addresses"] == [CARRIER] and not r.flagged for r in rows)
    assert sum(r.figures["overlaps"] > 0 for r in rows) >= len(pairs) // 2  # they play at the same hours
    assert not Flag.objects.filter(signal="one_person").exists()
    assert not AccountLink.objects.exists()


def test_games_together_behind_a_crowded_address_raise_no_shared_flag(games, monkeypatch):
    """The weak "shared" sign is a household's or a hostel's address, not a carrier's: behind an
    address with more than ``SHARED_MAX_ACCOUNTS`` accounts, games together say nothing."""
    monkeypatch.setattr(signins, "SHARED_MAX_ACCOUNTS", 3)
    mobile = [sign_up(f"mobile{i}", CARRIER) for i in range(4)]
    home = [sign_up(f"home{i}", HOME) for i in range(2)]
    others = strangers(2)
    for day in range(6):
        games.play([mobile[0], mobile[1], others[0]], evening(day, 0), 25, others[0])
        games.play([home[0], home[1], others[1]], evening(day, 0), 25, others[1])

    scan_services.scan()

    shared = Flag.objects.filter(signal="shared")
    assert {(f.user_a_id, f.user_b_id) for f in shared} == {tuple(sorted((home[0].pk, home[1].pk)))}


def test_honest_friends_on_one_address_who_sit_together_sometimes_and_apart_at_the_same_time_are_not_linked(
    games,
):
    asha, meera = sign_up("asha", HOME), sign_up("meera", HOME)
    others = strangers(6)
    for day in range(6):  # some evenings together, with a stranger; the strong one wins most
        games.play([asha, meera, others[day % 6]], evening(day, 0), 25, asha if day % 3 else meera)
    for day in range(12):  # and most evenings each at a table of their own, at the same time
        games.play([asha, others[0], others[1]], evening(day, 40), 25, rng_pick(day, asha, others[0]))
        games.play([meera, others[2], others[3]], evening(day, 45), 30, rng_pick(day + 1, meera, others[2]))

    scan_services.scan()

    r = row(asha, meera)
    assert r.figures["games_together"] == 6 and r.figures["overlaps"] >= 10
    assert not (r.figures["sit_together"] or r.figures["never_same_time"] or r.flagged)
    assert one_person(asha, meera) is None and linked(asha, meera) is None
    # the address with games together is the weak sign it always was: shown, flagged, not linked
    assert Flag.objects.filter(signal="shared").count() == 1


def rng_pick(day: int, a: User, b: User) -> User:
    return a if day % 2 else b


# ---------------------------------------------------------------------------
# the rules on their own (pure)
# ---------------------------------------------------------------------------
def _game(
    ref: int, start_min: float, people: tuple[str, ...], winner: str, minutes: float = 20
) -> multiaccount.Game:
    net = {p: (FEE * (len(people) - 1) if p == winner else -FEE) for p in people}
    return multiaccount.Game(ref, start_min * 60, (start_min + minutes) * 60, people, FEE, net)


def test_chips_one_way_with_an_address_links_and_reads_loser_first():
    rows, ref = [], 0
    for i in range(12):  # "zfeed" loses to "main" in each game they share, at mixed tables
        ref += 1
        rows.append(_game(ref, i * 1440, ("zfeed", "main", f"s{i % 4}"), "main"))
    for i in range(20):  # both win and lose their share elsewhere, at the same hours
        for who in ("zfeed", "main"):
            ref += 1
            rows.append(
                _game(
                    ref,
                    i * 1440 + 100 + (ref % 2) * 10,
                    (who, f"s{i % 4}", f"t{i % 3}"),
                    who if i % 3 == 0 else f"s{i % 4}",
                )
            )
    found = {f.users: f for f in multiaccount.find(rows, {("main", "zfeed"): ["10.0.0.1"]})}
    f = found[("zfeed", "main")]  # the loser first
    assert f.figures["chips_one_way"] and f.flagged and f.link
    assert f.figures["games_chips_one_way"] == 12 and f.figures["net_fees"] >= 12
    # the same play on two addresses: chips one way without sitting together flags nothing
    (alone,) = [f for f in multiaccount.find(rows, {}) if set(f.users) == {"main", "zfeed"}]
    assert alone.figures["chips_one_way"] and not alone.flagged and not alone.link


def test_an_address_alone_flags_and_links_nobody():
    rows = [_game(i, i * 50, ("a", "b", f"s{i}"), "a" if i % 2 else "b") for i in range(3)]
    rows += [_game(10 + i, i * 1440, ("a", "x", "y"), "x") for i in range(10)]
    rows += [_game(30 + i, i * 1440 + 5, ("b", "z", "y2"), "z") for i in range(10)]  # overlapping a's
    (f,) = [f for f in multiaccount.find(rows, {("a", "b"): ["10.0.0.1"]}) if set(f.users) == {"a", "b"}]
    assert not f.flagged and not f.link and f.figures["overlaps"] == 10
