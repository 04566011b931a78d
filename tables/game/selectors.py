"""Reads of the tables app: the lobby, a table as one player sees it, hand history."""

from __future__ import annotations

from typing import Any, Literal, cast

from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet

from accounts.models import User
from core.money import format_money
from game_engine.events import SEATS_ONLY_FIELDS, DealOver, events_for_spectators
from game_engine.game import GameState
from game_engine.pool import prize_pool
from game_engine.replay import ReplayError, replay_deal
from game_engine.views import View, view_for
from tables.contract import GameHeader, GameStatus, SeatRow, Snapshot, TableFormat, TableSummary, You
from tables.game import gamerows
from tables.game.shapes import (
    DealDetail,
    DealFairness,
    DealReplay,
    GameDeal,
    GameHistory,
    GamePayout,
    GamePlayer,
    ScoreRow,
)
from tables.models import Deal, GameEvent, PoolGame, Seat, Table, TableSettings

_OPEN = (PoolGame.Status.WAITING, PoolGame.Status.RUNNING)


def lobby_tables(
    *,
    fmt: str | None = None,
    min_fee: int | None = None,
    max_fee: int | None = None,
    status: str | None = None,
    user: User | None = None,
    ids: list[int] | None = None,
) -> list[TableSummary]:
    """Every active table with its format, stakes, prize pool, clocks, seats taken and status.

    Private practice tables (``Table.owner``) are left out, except ``user``'s own
    while a game is open there (to go back to it). ``ids``: only those tables (the ones a
    ``lobby_update`` named), so that an open lobby refreshes what changed, not the whole list.
    """
    tables: QuerySet[Table] = Table.objects.filter(settings__active=True, is_open=True).select_related(
        "settings"
    )
    if ids is not None:
        tables = tables.filter(pk__in=ids)
    mine = Q(owner=user, games__status__in=_OPEN) if user is not None and user.pk else Q(pk__in=[])
    tables = tables.filter(Q(owner__isnull=True) | mine).distinct()
    if fmt:
        if fmt not in TableSettings.Format.values:  # matches no table (and "\x00" never reaches SQL)
            return []
        tables = tables.filter(settings__format=fmt)
    if min_fee is not None:
        tables = tables.filter(settings__entry_fee__gte=min_fee)
    if max_fee is not None:
        tables = tables.filter(settings__entry_fee__lte=max_fee)
    open_games = PoolGame.objects.filter(status__in=_OPEN).annotate(
        taken=Count("seats", filter=Q(seats__left_at__isnull=True))
    )
    tables = tables.prefetch_related(Prefetch("games", queryset=open_games, to_attr="open_games"))
    rows = [table_summary(t, t.open_games[0] if t.open_games else None) for t in tables]
    if status:
        rows = [r for r in rows if r["status"] == status]
    return rows


def table_summary(table: Table, game: PoolGame | None) -> TableSummary:
    settings = table.settings
    taken = getattr(game, "taken", None)
    if taken is None and game is not None:
        taken = game.seats.filter(left_at__isnull=True).count()
    status: Literal["open", "playing"] = (
        "open" if game is None or game.status == PoolGame.Status.WAITING else "playing"
    )
    rules = settings.rules()
    prize, _rake = prize_pool(settings.entry_fee * settings.seats, rules)
    return TableSummary(
        id=table.pk,
        name=table.name,
        format=cast(TableFormat, settings.format),  # one of TableSettings.Format's values
        format_label=settings.get_format_display(),
        entry_fee=settings.entry_fee,
        entry_fee_display=format_money(settings.entry_fee),
        seats=settings.seats,
        seats_taken=taken or 0,
        status=status,
        practice=settings.practice,
        private=table.owner_id is not None,
        game_id=game.pk if game is not None else None,
        # what a full table pays its winner (all seats' fees less the rake, docs/rules.md §7)
        prize_pool=prize,
        prize_pool_display=format_money(prize),
        decks=settings.decks,
        turn_seconds=settings.turn_seconds,
    )


def current_game(table: Table) -> PoolGame | None:
    """The table's waiting or running game, else its last finished one (to show the result);
    None after a cancelled game: the table waits for players, not an older game's result."""
    game = table.games.filter(status__in=_OPEN).first()
    if game is None:
        ended = (PoolGame.Status.FINISHED, PoolGame.Status.CANCELLED)
        game = table.games.filter(status__in=ended).order_by("-id").first()
        if game is not None and game.status == PoolGame.Status.CANCELLED:
            return None
    return game


def table_snapshot(*, table: Table, user: User, game: PoolGame | None = None) -> dict[str, Any]:
    """Everything one player (or a spectator) may see of a table right now: the ``snapshot`` message."""
    game = game if game is not None else current_game(table)
    seats = list(game.seats.filter(left_at__isnull=True).select_related("user")) if game else []
    mine = next((s for s in seats if s.user_id == user.pk), None)
    view = None
    if game is not None and game.state:
        state = GameState.from_dict(game.state)
        view = view_for(state, mine.engine_seat if mine is not None else None)
    return Snapshot(
        version=game.version if game else 0,
        table=table_summary(table, game if game and game.status in _OPEN else None),
        game=game_header(game),
        seats=[
            SeatRow(position=s.position, seat=s.engine_seat, name=s.user.table_name, is_bot=s.is_bot)
            for s in seats
        ],
        you=You(
            user_id=user.pk,
            name=user.table_name,
            position=mine.position if mine else None,
            seat=mine.engine_seat if mine else None,
            may_join=table.open_to(user.pk),
        ),
        view=view,
    ).wire()


def game_header(game: PoolGame | None) -> GameHeader | None:
    if game is None:
        return None
    return GameHeader(
        id=game.pk,
        status=cast(GameStatus, game.status),  # one of PoolGame.Status's values
        version=game.version,
        deadline_at=game.deadline_at.isoformat() if game.deadline_at else None,
        deadline_kind=game.deadline_kind,
        result=game.result,
    )


def events_since(*, game_id: int, version: int, seated: bool, limit: int = 500) -> list[dict[str, Any]]:
    """The game's events after ``version``, for a socket catching up; ``seated``: for one of the
    game's seats. A spectator's leave out what only the seats get (``events.for_spectators``: a
    finished deal's server seed, which opens every hand of it)."""
    rows = GameEvent.objects.filter(game_id=game_id, version__gt=version).order_by("seq")[:limit]
    events = [dict(e.as_message(), version=e.version) for e in rows]
    return events if seated else events_for_spectators(events)


def finished_deals_for(*, user: User) -> QuerySet[Deal]:
    """Hand history: the player's finished deals, newest first."""
    return (
        Deal.objects.filter(players=user, finished_at__isnull=False)
        .select_related("game__table__settings")
        .order_by("-finished_at")
    )


#: What a finished deal stores that opens every hand: what the engine gives the seats alone (the
#: server seed: with the client seeds it rebuilds the whole deck, docs/fairness.md) and each
#: player's last arrangement of their hand, which the site keeps on the deal's result.
HAND_KEYS = SEATS_ONLY_FIELDS[DealOver.type] | {"arrangements"}


def deal_detail(*, deal: Deal, face_up: bool = True) -> DealDetail:
    """A finished deal: every public event and every shown hand; ``face_up`` also every hand
    throughout (the replay) and the seeds that rebuild the deck.

    Not face up, it is the deal as the table saw it while it was played: the public events and
    what was shown at the end, without the server seed that the ``deal_over`` event gave the
    seats (from it and the client seeds every hand follows).
    """
    events = GameEvent.objects.filter(game=deal.game, deal_number=deal.number).order_by("seq")
    messages = [e.as_message() for e in events]
    if not face_up:
        messages = [without_hands(m) for m in messages]
    result = deal.result if face_up or deal.result is None else without_hands(deal.result)
    replay = (
        deal_replay(deal=deal, events=messages) if face_up else DealReplay(replay=None, replay_error=None)
    )
    return DealDetail(
        id=deal.pk,
        game_id=deal.game_id,
        table=deal.game.table.name,
        number=deal.number,
        started_at=deal.started_at.isoformat(),
        finished_at=deal.finished_at.isoformat() if deal.finished_at else None,
        result=result,
        events=[dict(m, version=e.version) for m, e in zip(messages, events, strict=True)],
        face_up=face_up,
        **replay,
    )


def without_hands(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (an event's or a result's) without what opens the hands (``HAND_KEYS``)."""
    return {k: v for k, v in data.items() if k not in HAND_KEYS}


def deal_replay(*, deal: Deal, events: list[dict[str, Any]]) -> DealReplay:
    """The table at every step, rebuilt from the stored events and the revealed seeds alone.

    ``replay_error`` says where the history and the seeds disagree (docs/fairness.md);
    both are None while the deal runs (its server seed is still secret).
    """
    seeds = deal_fairness(deal=deal)
    if seeds is None:
        return DealReplay(replay=None, replay_error=None)
    try:
        return DealReplay(replay=replay_deal(events, dict(seeds), seeds["decks"]), replay_error=None)
    except (ReplayError, KeyError, ValueError) as exc:
        return DealReplay(replay=None, replay_error=str(exc))


def deal_fairness(*, deal: Deal) -> DealFairness | None:
    """What a finished deal's "Verify this deal" needs (docs/fairness.md); None before it is over."""
    if deal.finished_at is None or not deal.server_seed:
        return None
    return DealFairness(
        server_seed=deal.server_seed,
        client_seeds=list(deal.client_seeds),
        deal_no=deal.number,
        decks=deal.game.table.settings.rules().decks,
        commitment=deal.commitment,
        order=list(deal.dealt_order),
    )


def score_rows(game: PoolGame | None) -> list[ScoreRow]:
    """Every finished deal's points and running scores of ``game`` (the table page's scoreboard)."""
    if game is None:
        return []
    rows = GameEvent.objects.filter(game=game, type="scores").order_by("seq").values_list("data", flat=True)
    return [
        ScoreRow(
            deal_no=d["deal_no"],
            points=d["points"],
            scores=d["scores"],
            eliminated=d.get("eliminated", []),
        )
        for d in rows
    ]


def game_history(*, game: PoolGame) -> GameHistory:
    """A pool game's page (issue 13): every deal's points and running scores, eliminations,
    rejoins and departures, the split or payout, and which deals can be replayed.

    Built from the game's stored events and deal rows; a deal still running is listed
    without its points or seeds (nobody replays a deal in progress, docs/rules.md §10.3).
    """
    seats = list(game.seats.filter(engine_seat__isnull=False).select_related("user").order_by("engine_seat"))
    players = [
        GamePlayer(seat=int(s.engine_seat or 0), name=s.user.table_name, is_bot=s.is_bot) for s in seats
    ]
    seat_of = {str(s.user_id): s.engine_seat for s in seats}
    deals = {d.number: d for d in game.deals.all()}
    rows: dict[int, GameDeal] = {
        n: {
            "number": n,
            "deal_id": d.pk,
            "finished": d.finished_at is not None,
            "winner": (d.result or {}).get("winner") if d.finished_at else None,
            "points": None,
            "scores": None,
            "eliminated": [],
            "rejoined": [],
            "left": [],
        }
        for n, d in sorted(deals.items())
    }
    kinds = ("scores", "rejoined", "player_left")
    events = GameEvent.objects.filter(game=game, type__in=kinds).order_by("seq")
    for e in events:
        row = rows.get(e.deal_number)
        if row is None or (e.type == "scores" and not row["finished"]):
            continue
        if e.type == "scores":
            row["points"], row["scores"] = e.data["points"], e.data["scores"]
            row["eliminated"] = e.data["eliminated"]
        elif e.type == "rejoined":
            row["rejoined"].append({"seat": e.data["seat"], "score": e.data["score"], "fee": e.data["fee"]})
        elif e.type == "player_left":
            row["left"].append(e.data["seat"])
    result = game.result or None
    payout: GamePayout = {
        "over": False,
        "cancelled": False,
        "message": None,
        "split": None,
        "winner_seat": None,
        "prize_pool": None,
        "rake": None,
        "fees_paid": None,
        "payouts": [],
        "prize_pool_display": None,
        "rake_display": None,
    }
    if result is not None:
        payout = {
            "over": True,
            # staff cancelled it: what the players were told (staff's internal note is never here)
            "cancelled": bool(result.get("cancelled")),
            "message": result.get("message") if result.get("cancelled") else None,
            "split": result.get("split"),
            "winner_seat": result.get("winner_seat"),
            "prize_pool": result["prize_pool"],
            "rake": result["rake"],
            "fees_paid": result["fees_paid"],
            "payouts": [
                {"seat": seat_of.get(pid), "amount": amount, "amount_display": format_money(amount)}
                for pid, amount in result["payouts"].items()
            ],
            "prize_pool_display": format_money(result["prize_pool"]),
            "rake_display": format_money(result["rake"]),
        }
    return {
        "id": game.pk,
        "table": game.table.name,
        "format": cast(TableFormat, game.table.settings.format),  # one of TableSettings.Format's values
        "format_label": game.table.settings.get_format_display(),
        "status": cast(GameStatus, game.status),  # one of PoolGame.Status's values
        "started_at": game.started_at.isoformat() if game.started_at else None,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "players": players,
        "deals": list(rows.values()),
        "result": payout,
    }


def own_view(*, game_id: int, user_id: int) -> tuple[int, View | None]:
    """The game's version and ``user_id``'s view of it now (None if not seated): one read of the game
    row, for a socket told that its player's arrangement changed on another of their sockets."""
    game = gamerows.read_game(game_id)
    if not game.state:
        return game.version, None
    state = GameState.from_dict(game.state)
    seat = state.seat_of(str(user_id))
    return state.version, None if seat is None else view_for(state, seat)


def game_visible_to(user: Any) -> QuerySet[PoolGame]:
    """Pool games whose page the user may see: staff all; a player the games they were dealt into."""
    games = PoolGame.objects.select_related("table__settings")
    if user.is_staff:
        return games
    # Exists, not a join and DISTINCT: a game's state (json) cannot be compared (tables.fields)
    return games.filter(
        Exists(Seat.objects.filter(game=OuterRef("pk"), user=user, engine_seat__isnull=False))
    )


def played_in(user: Any, game_id: int) -> bool:
    """Whether ``user`` held a seat of the game when it started: its finished deals are theirs to
    replay face up (docs/rules.md §10.3), since each ``deal_over`` gave them the seed that rebuilds
    every hand (docs/fairness.md). Anyone else, staff included, sees the deal as the table saw it;
    a staff role's job does not need the hands, except Game integrity's, and that look is recorded
    with a reason (``staff.replays``)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return Seat.objects.filter(game_id=game_id, user=user, engine_seat__isnull=False).exists()


def deal_visible_to(user: Any) -> QuerySet[Deal]:
    """Finished deals the user may open (docs/rules.md §10.3): staff all (as the table saw them,
    ``played_in``); a player every deal of a game they played in, including deals after they were
    eliminated or left. A seat given up before the start (it never got an engine seat) does not count."""
    deals = Deal.objects.filter(finished_at__isnull=False).select_related("game__table")
    if user.is_staff:
        return deals
    return deals.filter(
        Exists(Seat.objects.filter(game=OuterRef("game"), user=user, engine_seat__isnull=False))
    )
