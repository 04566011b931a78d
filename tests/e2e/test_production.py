"""The README's "Running in production", run as written: nginx in front, two Daphnes, worker, beat.

The README is what is tested: the commands come out of the fenced ``bash`` block(s) of
its production section and run as they stand, in order, from the checkout, with only
the values an operator chooses replaced (the secret key, the host name, the database,
the Redis database, the Daphne ports, beat's state directory, the two database roles and their
passwords); its ``sql`` block, the roles and the database, runs first through ``psql`` as the
PostgreSQL superuser, so ``migrate`` runs as the schema's owner and every process as the site's
role. The nginx site is the
file the repository ships, ``deploy/nginx/rummy.conf``, with only its operator's values
replaced (host name, certificate, listening ports, the Daphne ports), run by Debian's
nginx as the current user under a main configuration of the test's own (what Debian's
``/etc/nginx/nginx.conf`` is to an operator), with a self-signed certificate made here.

Then a browser arrives as a player does, at ``https://localhost:<port>/``: signs up
through the form (CSRF over https, secure cookies), starts practice from the lobby and
plays a turn over ``wss`` through nginx, and the bots' answer (the Celery worker's
timers, through the Redis channel layer) reaches the page. So the Origin check, the
secure cookies and the proxy headers meet a real proxy. Last, connected as the site's role,
every statement that would erase the audit trail, the ledger or the event log is refused by
PostgreSQL (rummy_site/db_roles.py).

``collectstatic`` writes into the checkout's ``staticfiles/``, as the README says: two runs of
this test in one checkout at once would write the same files.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shlex
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.e2e.conftest import ARTIFACTS, DESKTOP, NOT_ON_A_FRESH_MACHINE, without_static
from tests.e2e.nginx_site import NGINX, replaced, self_signed_certificate, write_nginx_site
from tests.e2e.pages import Player, play_practice_now, sign_up
from tests.needs import missing
from tests.tables.procs import Proc, free_ports, private_redis
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LOGS = ARTIFACTS / "production"
#: What the README names as an example, and an operator replaces with their own.
EXAMPLE_STATE_DIR = "/var/lib/rummy"
#: The README's database roles, their passwords, the database and its host (the sql block and the URLs).
EXAMPLE_OWNER, EXAMPLE_APP = "rummy_owner", "rummy_app"
EXAMPLE_OWNER_PASSWORD, EXAMPLE_APP_PASSWORD = "owner-password", "app-password"
EXAMPLE_DATABASE = "DATABASE rummy "
EXAMPLE_DATABASE_AT = "@db/rummy"
PSQL = "/usr/bin/psql"
#: PostgreSQL's "insufficient_privilege": refused for want of a privilege (a trigger's refusal is 23001).
INSUFFICIENT_PRIVILEGE = "42501"
HOST = "localhost"
#: Also out of the operator's shell: a forwarded-origin list would let the Origin checks pass without the proxy's headers.
NOT_IN_THE_OPERATORS_SHELL = (*NOT_ON_A_FRESH_MACHINE, "CSRF_TRUSTED_ORIGINS", "SECURE_SSL_REDIRECT", "DEBUG")
#: Seconds for a step of the README (migrate on an empty database is the longest) and for a server to be ready.
STEP_TIMEOUT = 300
READY_TIMEOUT = 60
LOG_LINES = 60


# ---------------------------------------------------------------------------- the README's commands
def section_of(readme: str) -> str:
    """The README's production section."""
    section = re.search(r"^## Running in production\n(.*?)(?=^## )", readme, re.S | re.M)
    assert section, "README.md has no '## Running in production' section"
    return section.group(1)


def role_setup(section: str) -> str:
    """The SQL the operator runs once as the PostgreSQL superuser: the section's ``sql`` block(s)."""
    blocks = re.findall(r"^```sql\n(.*?)^```", section, re.S | re.M)
    assert blocks, "the production section has no ```sql block (the database roles)"
    return "".join(blocks)


def production_section(section: str) -> tuple[dict[str, str], list[list[str]]]:
    """The exports and the command lines of the README's production section's ``bash`` block(s)."""
    blocks = re.findall(r"^```bash\n(.*?)^```", section, re.S | re.M)
    assert blocks, "the production section has no ```bash block"
    env: dict[str, str] = {}
    commands: list[list[str]] = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "export":
                for word in words[1:]:
                    name, equals, value = word.partition("=")
                    assert equals, f"export without a value in the README: {line}"
                    env[name] = value
            elif words:
                commands.append(words)
    return env, commands


def assignments(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """A command's leading ``NAME=value`` words (its own environment, as a shell reads them) and the rest."""
    own: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        name, _, value = words[0].partition("=")
        own[name] = value
        words = words[1:]
    return own, words


def daphne_port(words: list[str]) -> str:
    return words[words.index("-p") + 1]


def kind(words: list[str]) -> str:
    """``daphne``, ``worker``, ``beat`` (processes that stay up) or ``step`` (one that runs to its end)."""
    program = Path(assignments(words)[1][0]).name
    if program == "daphne":
        return "daphne"
    if program == "celery":
        return "worker" if "worker" in words else "beat" if "beat" in words else "step"
    return "step"


# ---------------------------------------------------------------------------- the machine
def postgres_server_url() -> str:
    """The PostgreSQL server of the suite's DATABASE_URL (else the usual local one), at its maintenance database."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        url = "postgres://postgres@127.0.0.1:5432/postgres"
    return urlunsplit(urlsplit(url)._replace(path="/postgres"))


class Database:
    """The README's database and roles on the suite's PostgreSQL server, under names of this run's own."""

    def __init__(self) -> None:
        self.server = postgres_server_url()
        tag = f"{os.getpid()}_{secrets.token_hex(3)}"
        self.name = f"rummy_production_test_{os.getpid()}"
        self.owner, self.app = f"rummy_owner_{tag}", f"rummy_app_{tag}"
        self.passwords = {
            EXAMPLE_OWNER_PASSWORD: secrets.token_hex(12),
            EXAMPLE_APP_PASSWORD: secrets.token_hex(12),
        }
        where = urlsplit(self.server)
        self.at = f"@{where.hostname}:{where.port or 5432}/{self.name}"

    def own_values(self) -> dict[str, str]:
        """The README's examples and this run's values, for the section's text (sql and bash blocks)."""
        return {
            EXAMPLE_OWNER: self.owner,
            EXAMPLE_APP: self.app,
            **self.passwords,
            EXAMPLE_DATABASE: f"DATABASE {self.name} ",
            EXAMPLE_DATABASE_AT: self.at,
        }

    def url_of(self, role: str) -> str:
        password = self.passwords[EXAMPLE_OWNER_PASSWORD if role == self.owner else EXAMPLE_APP_PASSWORD]
        return f"postgres://{role}:{password}{self.at}"

    def superuser(self, sql: str, *, here: bool = False) -> list[tuple[Any, ...]]:
        """``sql`` run as the server's superuser, at the maintenance database (or at this one: ``here``)."""
        import psycopg

        url = urlunsplit(urlsplit(self.server)._replace(path=f"/{self.name}")) if here else self.server
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            cursor = conn.execute(sql)
            return cursor.fetchall() if cursor.description else []

    def drop(self) -> None:
        self.superuser(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        for role in (self.app, self.owner):
            self.superuser(f'DROP ROLE IF EXISTS "{role}"')


@pytest.fixture
def production_database() -> Iterator[Database]:
    """No database yet (the README's sql block makes it and its roles); all of it dropped after."""
    import psycopg

    if not os.access(PSQL, os.X_OK):
        missing("psql", f"{PSQL} is absent: apt-get install -y postgresql-client")
    database = Database()
    try:
        database.drop()  # a database of an earlier run in this process id
    except psycopg.OperationalError as exc:
        missing("PostgreSQL", f"{database.server}: {exc}")
    try:
        yield database
    finally:
        database.drop()


def https_get(url: str, cafile: Path, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """GET over https, trusting only ``cafile``: the status and the body (the status of an error too)."""
    context = ssl.create_default_context(cafile=str(cafile))
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5, context=context) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError:  # nothing listening yet
        return 0, ""


def accepting(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def tail_of(proc: Proc) -> Callable[[], str]:
    return lambda: "\n".join(without_static(proc.output)[-LOG_LINES:])


def tail_of_file(path: Path) -> Callable[[], str]:
    return lambda: (
        "\n".join(without_static(path.read_text(errors="replace"))[-LOG_LINES:]) if path.exists() else ""
    )


class Site:
    """The site as the README and deploy/nginx/rummy.conf run it, on loopback, its files in ``workdir``."""

    def __init__(self, workdir: Path, log_tails: dict[str, Callable[[], str]], daphnes: int) -> None:
        self.workdir = workdir
        self.log_tails = log_tails
        self.procs: list[Proc] = []
        self.daphnes: list[Proc] = []
        self.env: dict[str, str] = {}
        self.nginx_dir = workdir / "nginx"
        (self.nginx_dir / "temp").mkdir(parents=True)
        self.cafile, self.keyfile = self_signed_certificate(workdir, HOST)
        self.https_port, self.http_port, *self.daphne_ports = free_ports(2 + daphnes)
        self.url = f"https://{HOST}:{self.https_port}"

    def start(self, name: str, words: list[str], env: dict[str, str]) -> Proc:
        proc = Proc(name, words, env)
        self.procs.append(proc)
        self.log_tails[f"{name}: {shlex.join(words)}"] = tail_of(proc)
        return proc

    def start_nginx(self, daphne_ports: dict[str, str]) -> None:
        """The shipped site with the operator's values: host, certificate, addresses, Daphne ports."""
        nginx = write_nginx_site(
            self.nginx_dir,
            host=HOST,
            cert=self.cafile,
            key=self.keyfile,
            https_port=self.https_port,
            http_port=self.http_port,
            daphne_ports=daphne_ports,
        )
        self.start("nginx", nginx, {})
        self.log_tails["nginx error.log"] = tail_of_file(self.nginx_dir / "error.log")
        self.log_tails["nginx access.log"] = tail_of_file(self.nginx_dir / "access.log")

    def run_readme(
        self, commands: list[list[str]], env: dict[str, str], daphne_ports: dict[str, str]
    ) -> None:
        """Each command in the README's order, from the checkout: steps run to their end, servers start."""
        state_dir = self.workdir / "state"
        state_dir.mkdir()
        self.env = env
        for words in commands:
            words = [w.replace(EXAMPLE_STATE_DIR, str(state_dir)) for w in words]
            what = kind(words)
            own, words = assignments(words)
            if what == "step":
                done = subprocess.run(
                    words, cwd=ROOT, env={**env, **own}, capture_output=True, text=True, timeout=STEP_TIMEOUT
                )
                output = (done.stdout + done.stderr)[-4000:]
                assert done.returncode == 0, f"{shlex.join(words)} exited {done.returncode}:\n{output}"
                continue
            if what == "daphne":
                port = words.index("-p") + 1
                words[port] = daphne_ports[words[port]]
            proc = self.start(f"{what}-{len(self.procs)}", words, {**env, **own})
            if what == "daphne":
                self.daphnes.append(proc)

    def wait_until_ready(self) -> None:
        """The worker ready, beat started, and /healthz answering over https through nginx."""
        (worker,) = (p for p in self.procs if p.name.startswith("worker"))
        (beat,) = (p for p in self.procs if p.name.startswith("beat"))
        assert worker.wait_for(" ready.", READY_TIMEOUT), "the Celery worker is not ready (its log below)"
        assert beat.wait_for("beat: Starting", READY_TIMEOUT), "Celery beat did not start (its log below)"
        # each Daphne listening before nginx is asked: a refused connection would take it out of the
        # upstream for 10 s (nginx's fail_timeout)
        wait_until(
            lambda: self.dead() or all(accepting(port) for port in self.daphne_ports),
            "the Daphnes listening",
            timeout=READY_TIMEOUT,
        )
        wait_until(
            lambda: self.dead() or https_get(f"{self.url}/healthz", self.cafile)[0] == 200,
            "/healthz over https through nginx",
            timeout=READY_TIMEOUT,
        )
        dead = [f"{p.name} exited {p.popen.returncode}" for p in self.dead()]
        assert not dead, f"{', '.join(dead)} (their logs below)"

    def dead(self) -> list[Proc]:
        return [p for p in self.procs if not p.alive()]

    def stop(self) -> None:
        """Every process this test started, last first; their logs kept in artifacts/e2e/production/."""
        for proc in reversed(self.procs):
            proc.stop(timeout=15)
        LOGS.mkdir(parents=True, exist_ok=True)
        for proc in self.procs:
            (LOGS / f"{proc.name}.log").write_text(proc.output)
        for name in ("error.log", "access.log"):
            if (self.nginx_dir / name).exists():
                (LOGS / f"nginx-{name}").write_text((self.nginx_dir / name).read_text(errors="replace"))

    def daphne_lines(self, *texts: str) -> list[str]:
        return [line for d in self.daphnes for line in d.matching(*texts)]


def operators_shell(readme_env: dict[str, str], own_values: dict[str, str]) -> dict[str, str]:
    """The README's exports, with the operator's own values for those an operator chooses."""
    env = {k: v for k, v in os.environ.items() if k not in NOT_IN_THE_OPERATORS_SHELL}
    env.update(readme_env)
    for name, value in own_values.items():
        assert name in readme_env, f"the README's production section no longer exports {name}"
        env[name] = value
    env["PYTHONUNBUFFERED"] = "1"  # the logs arrive line by line (as in a supervisor's journal)
    return env


@pytest.fixture
def production_site(
    tmp_path: Path, production_database: Database, require_redis: str, log_tails: dict[str, Callable[[], str]]
) -> Iterator[Site]:
    """The README's production commands and the shipped nginx site, up and answering /healthz over https."""
    if not os.access(NGINX, os.X_OK):
        missing("nginx", f"{NGINX} is absent: apt-get install -y nginx (scripts/test does it)")
    database = production_database
    section = replaced(
        section_of(README.read_text()), database.own_values(), "README.md's production section"
    )
    readme_env, commands = production_section(section)
    roles_sql = tmp_path / "roles.sql"
    roles_sql.write_text(role_setup(section))
    kinds = [kind(words) for words in commands]
    assert kinds.count("daphne") >= 2 and kinds.count("worker") == 1 and kinds.count("beat") == 1, commands
    steps = [shlex.join(words) for words in commands if kind(words) == "step"]
    assert any("migrate" in s for s in steps) and any("collectstatic" in s for s in steps), steps
    assert readme_env.get("DEBUG") == "0", f"the production section must export DEBUG=0: {readme_env}"
    readme_ports = [daphne_port(words) for words in commands if kind(words) == "daphne"]
    assert len(set(readme_ports)) == len(readme_ports), f"two Daphnes on one port: {readme_ports}"
    site = Site(tmp_path, log_tails, daphnes=len(readme_ports))
    daphne_ports = {port: str(mine) for port, mine in zip(readme_ports, site.daphne_ports, strict=True)}
    with private_redis(require_redis) as redis_url:
        try:
            # the roles and the database, as the operator makes them once: psql as the superuser
            done = subprocess.run(
                [PSQL, database.server, "-v", "ON_ERROR_STOP=1", "-f", str(roles_sql)],
                capture_output=True,
                text=True,
                timeout=STEP_TIMEOUT,
            )
            assert done.returncode == 0, f"the README's sql block failed:\n{done.stdout}{done.stderr}"
            site.start_nginx(daphne_ports)
            own_values = {
                "SECRET_KEY": secrets.token_urlsafe(50),
                "ALLOWED_HOSTS": HOST,
                "REDIS_URL": redis_url,
            }
            site.run_readme(commands, operators_shell(readme_env, own_values), daphne_ports)
            site.wait_until_ready()
            yield site
        finally:
            site.stop()


# ---------------------------------------------------------------------------- the test
#: In the page, a socket to the lobby: the extensions it agreed, then a message of 60,000 characters
#: (under Daphne's 64 KB: the protocol's own refusal answers it), then one of 70,000 (Daphne drops
#: the connection: compressed, it is a few hundred bytes on the wire, the limit is on what it inflates to).
OVERSIZED_MESSAGES = """
() => new Promise((resolve) => {
  const out = {answers: [], close: null, extensions: null};
  const ws = new WebSocket(`wss://${location.host}/ws/lobby/`);
  const message = (chars) => JSON.stringify({type: "hello", pad: "x".repeat(chars)});
  ws.onopen = () => { out.extensions = ws.extensions; ws.send(message(60000)); };
  ws.onmessage = (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type !== "error") return;
    out.answers.push(frame.error.message);
    ws.send(message(70000));
  };
  ws.onclose = (event) => { out.close = event.code; resolve(out); };
  setTimeout(() => resolve(out), 10000);
})
"""


#: In the table page: its entry module, its modulepreload links and every script it loaded.
TABLE_MODULES = """
() => ({
  entry: [...document.querySelectorAll('script[type=module][src]')].map((s) => s.src),
  preloads: [...document.querySelectorAll('link[rel=modulepreload]')].map((l) => l.href),
  scripts: performance.getEntriesByType('resource').map((r) => r.name).filter((n) => n.endsWith('.js')),
})
"""


def the_site_role_cannot_erase_the_trail_the_ledger_or_the_events(site: Site, database: Database) -> None:
    """The processes ran as the README's app role, and as that role PostgreSQL refuses every statement
    that would disable the append-only tables' triggers or truncate, change or delete their rows."""
    import psycopg

    from rummy_site.db_roles import append_only_tables

    app_url = database.url_of(database.app)
    assert site.env["DATABASE_URL"] == app_url and site.env["DB_APP_ROLE"] == database.app, site.env
    owners = database.superuser(
        "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'", here=True
    )
    assert owners == [(database.owner,)], owners

    # the superuser's own connection above has closed, but its backend may still be ending (a
    # client's close does not wait for it): a session of another role that stays is the site's
    def sessions() -> list[tuple[Any, ...]]:
        return database.superuser(
            f"SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = '{database.name}'"
            " AND pid <> pg_backend_pid()"
        )

    wait_until(  # the Daphnes' and the worker's pools
        lambda: sessions() == [(database.app,)],
        "the site's sessions alone on its database",
        timeout=5,
        interval=0.2,
        detail=sessions,
    )
    tables = append_only_tables()
    with psycopg.connect(app_url, autocommit=True, connect_timeout=5) as conn:

        def counts() -> dict[str, int]:
            return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}  # type: ignore[index]

        before = counts()
        assert before["tables_gameevent"], before  # the practice game the browser played
        refusals = {}
        for table in tables:
            for statement in (
                f"ALTER TABLE {table} DISABLE TRIGGER USER",
                f"TRUNCATE {table}",
                f"UPDATE {table} SET id = id",
                f"DELETE FROM {table}",
            ):
                try:
                    conn.execute(statement)
                    refusals[statement] = "accepted"
                except psycopg.Error as exc:
                    refusals[statement] = exc.sqlstate or str(exc)
        assert set(refusals.values()) == {INSUFFICIENT_PRIVILEGE}, refusals
        # nothing erased; the practice game may still be appending its events meanwhile
        after = counts()
        assert all(after[t] >= before[t] for t in tables), (before, after)


def test_the_readme_production_commands_serve_a_game_over_https_behind_nginx(
    production_site: Site, production_database: Database, browser: Any
) -> None:
    site = production_site
    # every Daphne named in nginx's upstream answers through it (round robin)
    for _ in range(4 * len(site.daphnes)):
        assert https_get(f"{site.url}/healthz", site.cafile)[0] == 200
        if all(d.wait_for('"message":"GET /healthz 200"', 0.5) for d in site.daphnes):
            break
    assert all(d.count('"message":"GET /healthz 200"') for d in site.daphnes), (
        "a Daphne got no /healthz through nginx"
    )
    # the client's address is nginx's peer, not what the client claims: X-Forwarded-For is replaced
    # (Daphne takes its first address); port 0 shows that it came from that header
    assert https_get(f"{site.url}/rules/", site.cafile, {"X-Forwarded-For": "203.0.113.7"})[0] == 200
    (line,) = wait_until(
        lambda: site.daphne_lines('"path":"/rules/"'), "the request in Daphne's log", timeout=5
    )
    assert json.loads(line)["client"] == "127.0.0.1:0", line
    # /metrics: never through nginx; Prometheus scrapes a Daphne's own loopback port over plain http
    assert https_get(f"{site.url}/metrics", site.cafile)[0] == 404
    with urllib.request.urlopen(f"http://127.0.0.1:{site.daphne_ports[0]}/metrics", timeout=10) as scraped:
        assert scraped.status == 200 and b"rummy_ledger_check_ok " in scraped.read()
    # plain http is sent to https
    conn = http.client.HTTPConnection("127.0.0.1", site.http_port, timeout=5)
    conn.request("GET", "/accounts/login/", headers={"Host": HOST})
    answer = conn.getresponse()
    assert (answer.status, answer.getheader("Location")) == (301, f"https://{HOST}/accounts/login/")
    conn.close()

    player = Player(browser, site.url, "Priya", {**DESKTOP, "ignore_https_errors": True})
    page = player.page
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    static: dict[str, str] = {}  # url: its Cache-Control
    encoded: dict[str, str] = {}  # url: its Content-Encoding

    def on_response(response: Any) -> None:
        encoded[response.url] = response.headers.get("content-encoding", "")
        if "/static/" in response.url:
            static[response.url] = response.headers.get("cache-control", "")

    page.on("response", on_response)
    first = page.goto(f"{site.url}/")
    assert first is not None and first.ok, first
    assert "max-age=" in (first.headers.get("strict-transport-security") or ""), first.headers
    # a page: compressed by nginx, kept by no shared cache, asked for again by the browser
    assert first.headers.get("content-encoding") == "gzip", first.headers
    assert {"private", "no-cache"} <= set(re.split(r",\s*", first.headers.get("cache-control", ""))), (
        first.headers
    )

    # the sign-up form posts with its CSRF token over https: the Origin matches the Host and scheme nginx passes on
    sign_up(page, site.url, "priya", "Priya")
    cookies = {c["name"]: c for c in player.context.cookies()}
    assert cookies["sessionid"]["secure"] and cookies["sessionid"]["httpOnly"], cookies["sessionid"]
    assert cookies["csrftoken"]["secure"], cookies["csrftoken"]

    play_practice_now(page, "101", 2)
    page.wait_for_selector("#groups .card", timeout=30_000)
    assert len(player.hand()) == 13
    deadline = time.monotonic() + 90
    while not player.my_turn():  # the bot may move first (the worker's timer)
        assert time.monotonic() < deadline, f"no turn in 90 s; view {player.view()}"
        page.wait_for_timeout(150)
    seat = player.view()["seat"]  # type: ignore[index]
    player.play_a_turn()  # a draw and a discard, each answered by the server on the page

    def bot_moved() -> bool:
        events = [e for f in player.frames for e in f.get("events") or []]
        # a turn's end: a discard, a drop, or a finish (a bot may be dealt a hand it shows at once)
        return any(e.get("seat") != seat and e["type"] in ("discard", "drop", "finish") for e in events)

    # the bot's move: the worker's timer, its notice through Redis to the Daphne holding the socket
    deadline = time.monotonic() + 30
    while not bot_moved():  # polled from the page: Playwright delivers the frames while it waits
        assert time.monotonic() < deadline, f"no move of the bot's on the page in 30 s; view {player.view()}"
        page.wait_for_timeout(150)
    mine = [e for f in player.frames for e in f.get("events") or [] if e.get("seat") == seat]
    assert any(e["type"] == "discard" and not e.get("auto") for e in mine), mine
    table_sockets = [s for s in sockets if "/ws/tables/" in s]
    assert table_sockets and all(s.startswith(f"wss://{HOST}:") for s in sockets), sockets
    assert len(table_sockets) == 1, sockets  # early.js opened it from the head; the table adopted it

    # collectstatic's hashed files, from WhiteNoise in Daphne through nginx
    assert any("immutable" in cache for url, cache in static.items() if url.endswith(".css")), static
    # every module too (collectstatic rewrote their imports to the hashed names): cached for good
    scripts = {url: cache for url, cache in static.items() if url.endswith(".js")}
    assert scripts and all("immutable" in cache for cache in scripts.values()), scripts
    # the table's code came as one bundle (nothing left to preload), and SortableJS after the
    # table showed, by itself
    page.wait_for_selector("#table-app[data-drag='ready']", state="attached")
    loaded = page.evaluate(TABLE_MODULES)
    # one module script, the table's (early.js, which opens its socket, is inlined in the head)
    (entry,) = loaded["entry"]
    assert loaded["preloads"] == [], loaded
    (sortable,) = [url for url in loaded["scripts"] if "/vendor/sortable/" in url]
    assert sorted(loaded["scripts"]) == sorted([entry, sortable]), loaded
    # and compressed with brotli where collectstatic made a .br (the browser takes br over https)
    assert any(encoded.get(url) == "br" for url in static if url.endswith(".js")), {
        u: encoded.get(u) for u in static
    }

    # Daphne's own limit on a message, as the README's command line sets it
    result = page.evaluate(OVERSIZED_MESSAGES)
    # Chromium's offer of permessage-deflate reached Daphne through nginx, and was agreed
    assert (result["extensions"] or "").startswith("permessage-deflate"), result
    assert len(result["answers"]) == 1 and "at most 8192 characters" in result["answers"][0], result
    assert result["close"] in (1006, 1009), result  # Daphne fails the connection without a closing handshake
    player.assert_clean()
    player.close()

    the_site_role_cannot_erase_the_trail_the_ledger_or_the_events(site, production_database)
