"""A push retried, bounded (issue 24, "retries are bounded ... no one's game waits on a mail
server"), on both stores, against the tests' real local push service made to fail: a
service that cannot take a message now (5xx, 429, nothing listening) is tried again, three
tries in all, 20 s then 40 s apart, or as long as its Retry-After asks up to a cap; a 4xx
refusal is not tried again; a 410 forgets the browser at once. The pauses are the app's
injected sleep (web_helpers.FakeSleep): recorded, ended at once or held by the test, so no
test waits on the wall clock; while a push is held failing, a move, a challenge's answer
and a look return; the app's stop cancels and awaits the sends under way."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from email.utils import formatdate
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import as_, sign_up
from test_correspondence import correspondence_game
from test_lobby import LobbyClient
from test_notices import free_port, look
from test_notices_challenges import answer, challenge, in_lobby, pushed, sweep_lobby
from test_notices_push import Browser, PushService, push_client, subscribe, turns_kept
from test_notices_push import push_service as push_service  # (the fixture)
from web_helpers import QUIET_LOBBY, FakeClock, FakeSleep, MakeClient

from chuhan.web.notices.push import retry_after_seconds

MINUTE = 60.0


@pytest.fixture
def sleeper() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
def lobbies() -> Iterator[list[LobbyClient]]:
    opened: list[LobbyClient] = []
    yield opened
    for member in opened:
        member.close()


def retrying_client(make_client: MakeClient, sleeper: FakeSleep, **extra: Any) -> TestClient:
    """The app with the default tries (3, 20 s then 40 s apart) and the test's sleep."""
    return push_client(
        make_client,
        notice_attempts=3,
        notice_backoff_seconds=20,
        push_retry_after_max_seconds=120,
        sleep=sleeper,
        **extra,
    )


def bobs_turn_pushed(
    client: TestClient, clock: FakeClock, push_service: PushService, path: str = "/push/bob"
) -> tuple[Browser, list[str]]:
    """Bob subscribed at ``path``, away while it is his move; the look that pushes it
    (its sends awaited); his browser and the addresses the look mailed (none)."""
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    browser = Browser(push_service.url(path))
    assert subscribe(client, bob, browser).status_code == 200
    _game, red, black = correspondence_game(client, ada, bob, rated=False)
    black.close()
    red.move("h2e2")
    clock.advance(3 * MINUTE)
    sent = look(client)
    red.close()
    return browser, sent


def test_a_push_the_service_cannot_take_twice_goes_on_the_third_try(
    make_client: MakeClient,
    clock: FakeClock,
    push_service: PushService,
    sleeper: FakeSleep,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "chuhan.web")
    client = retrying_client(make_client, sleeper)
    push_service.scripts["/push/bob"] = [(503, {}), (502, {})]
    browser, _ = bobs_turn_pushed(client, clock, push_service)
    assert [d.path for d in push_service.deliveries] == ["/push/bob"] * 3
    assert sleeper.pauses == [20.0, 40.0]
    assert browser.decrypt(push_service.deliveries[2].body)["title"] == "Your move"
    assert "cannot push" not in caplog.text
    clock.advance(30 * MINUTE)
    look(client)  # (the turn went: not pushed again)
    assert len(push_service.deliveries) == 3 and len(turns_kept(client)) == 1


def retry_after(clock: FakeClock, value: str) -> str:
    """A Retry-After header: seconds as written, or ``date+N``: the HTTP date N seconds
    after the look that pushes (:func:`bobs_turn_pushed`'s, 3 minutes after now)."""
    if value.startswith("date+"):
        return formatdate(clock() + 3 * MINUTE + float(value[5:]), usegmt=True)
    return value


@pytest.mark.parametrize(
    ("status", "header", "pauses"),
    [
        (429, "30", [30.0]),  # (longer than the 20 s the tries wait: granted)
        (429, "5", [20.0]),  # (shorter: the tries' own pause)
        (429, "date+90", [90.0]),
        (503, "60", [60.0]),
        (429, None, [20.0]),
    ],
)
def test_a_push_service_is_tried_again_after_the_pause_its_retry_after_asks(
    make_client: MakeClient,
    clock: FakeClock,
    push_service: PushService,
    sleeper: FakeSleep,
    status: int,
    header: str | None,
    pauses: list[float],
) -> None:
    client = retrying_client(make_client, sleeper)
    headers = {} if header is None else {"Retry-After": retry_after(clock, header)}
    push_service.scripts["/push/bob"] = [(status, headers)]
    bobs_turn_pushed(client, clock, push_service)
    assert len(push_service.deliveries) == 2 and sleeper.pauses == pauses


def test_a_push_service_asking_for_a_longer_wait_than_the_cap_is_not_tried_again_now(
    make_client: MakeClient,
    clock: FakeClock,
    push_service: PushService,
    sleeper: FakeSleep,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "chuhan.web")
    client = retrying_client(make_client, sleeper)
    push_service.scripts["/push/bob"] = [(429, {"Retry-After": "3600"})]
    bobs_turn_pushed(client, clock, push_service)
    assert len(push_service.deliveries) == 1 and sleeper.pauses == []
    assert "asks to wait 3600 s (more than 120): not tried again now" in caplog.text
    assert "reached no browser (round 1)" in caplog.text
    clock.advance(11 * MINUTE)  # (the turn's next round, after notice_retry_minutes)
    look(client)
    assert len(push_service.deliveries) == 2


@pytest.mark.parametrize("status", [400, 403, 413])
def test_a_push_the_service_refuses_is_not_tried_again(
    make_client: MakeClient,
    clock: FakeClock,
    push_service: PushService,
    sleeper: FakeSleep,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    caplog.set_level(logging.INFO, "chuhan.web")
    client = retrying_client(make_client, sleeper)
    push_service.statuses["/push/bob"] = status
    bobs_turn_pushed(client, clock, push_service)
    assert len(push_service.deliveries) == 1 and sleeper.pauses == []
    assert f"refused the message ({status}); not tried again" in caplog.text


def test_a_push_service_nobody_listens_at_is_tried_three_times(
    make_client: MakeClient,
    clock: FakeClock,
    sleeper: FakeSleep,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "chuhan.web")
    client = retrying_client(make_client, sleeper)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    gone = Browser(f"http://127.0.0.1:{free_port()}/push/bob")
    assert subscribe(client, bob, gone).status_code == 200
    _game, red, black = correspondence_game(client, ada, bob, rated=False)
    black.close()
    red.move("h2e2")
    clock.advance(3 * MINUTE)
    look(client)
    assert sleeper.pauses == [20.0, 40.0]
    assert "cannot be reached" in caplog.text and "(tried 3 times)" in caplog.text
    red.close()


def test_a_challenge_pushed_to_a_browser_that_is_gone_forgets_it_at_once(
    make_client: MakeClient,
    push_service: PushService,
    sleeper: FakeSleep,
    lobbies: list[LobbyClient],
) -> None:
    client = retrying_client(make_client, sleeper)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    push_service.statuses["/push/bob"] = 410
    assert subscribe(client, bob, Browser(push_service.url("/push/bob"))).status_code == 200
    challenge(in_lobby(lobbies, client, ada), "Bob", "3d")
    assert pushed(client) in ([], [0])
    assert len(push_service.deliveries) == 1 and sleeper.pauses == []
    found = client.get("/api/account/notices", headers=as_(bob)).json()
    assert found["devices"] == 0


def test_a_failing_push_service_keeps_nobody_waiting(
    make_client: MakeClient,
    clock: FakeClock,
    push_service: PushService,
    sleeper: FakeSleep,
    lobbies: list[LobbyClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Ada, away, has a browser whose push service answers 503 to everything; her turn's
    push and the push of a decline of her challenge are held in their pause between two
    tries, and meanwhile the decline is answered, a move in another game is played and
    seen, and the lobby and the games go on; let go, each is tried three times in all."""
    caplog.set_level(logging.INFO, "chuhan.web")
    client = retrying_client(make_client, sleeper, **QUIET_LOBBY)
    ada, bob, cat = sign_up(client, "Ada"), sign_up(client, "Bob"), sign_up(client, "Cat")
    push_service.statuses["/push/ada"] = 503
    assert subscribe(client, ada, Browser(push_service.url("/push/ada"))).status_code == 200
    ada_lobby = in_lobby(lobbies, client, ada)
    seek_id = challenge(ada_lobby, "Bob", "3d")
    assert pushed(client) in ([], [0])  # (to Bob, whose pushes are off)
    ada_lobby.close()
    sweep_lobby(client)
    _game, red, black = correspondence_game(client, bob, ada, rated=False)
    black.close()
    red.move("h2e2")
    clock.advance(3 * MINUTE)
    sleeper.hold()
    context = client.app.state.context  # type: ignore[attr-defined]
    looking = client.portal.start_task_soon(context.notices.sweep)  # type: ignore[union-attr]
    assert sleeper.wait_for(1) == [20.0]  # (the turn's push failed once, and waits)
    bob_lobby = in_lobby(lobbies, client, bob)
    answer(bob_lobby, "decline", seek_id)  # (answered while the pushes fail)
    assert sleeper.wait_for(2) == [20.0, 20.0]
    sending = list(context.notices._notifying)
    assert len(sending) == 1 and not sending[0].done()
    _other, cat_red, bob_black = correspondence_game(client, cat, bob, rated=False)
    cat_red.move("h2e2")
    assert bob_black.wait_state(lambda s: s["ply"] == 1)["ply"] == 1
    assert bob_black.move("h9g7")["ply"] == 2
    assert not looking.done()
    sleeper.release()
    assert looking.result(timeout=60) == []
    assert pushed(client, sending) == [0]
    assert sorted(sleeper.pauses) == [20.0, 20.0, 40.0, 40.0]
    assert len(push_service.deliveries) == 6
    assert caplog.text.count("(tried 3 times): the push service 127.0.0.1 cannot take") == 2
    for seat in (red, cat_red, bob_black):
        seat.close()


def test_the_app_stopping_cancels_and_awaits_the_pushes_under_way(
    make_client: MakeClient,
    push_service: PushService,
    sleeper: FakeSleep,
    lobbies: list[LobbyClient],
) -> None:
    client = retrying_client(make_client, sleeper)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    push_service.statuses["/push/bob"] = 503
    assert subscribe(client, bob, Browser(push_service.url("/push/bob"))).status_code == 200
    sleeper.hold()
    challenge(in_lobby(lobbies, client, ada), "Bob", "3d")
    sleeper.wait_for(1)
    context = client.app.state.context  # type: ignore[attr-defined]
    notices = context.notices
    sending = list(notices._notifying)
    assert len(sending) == 1 and not sending[0].done()
    portal: Any = client.portal
    portal.call(notices.aclose)
    assert sending[0].cancelled() and not notices._notifying
    portal.call(lambda: notices.notify("someone", "challenge", "/", name="Ada"))
    assert not notices._notifying  # (stopped: nothing more is started)
    assert len(push_service.deliveries) == 1


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("30", 30.0),
        (" 7 ", 7.0),
        ("Thu, 15 Jan 2027 08:01:30 GMT", 90.0),
        ("Thu, 15 Jan 2027 07:00:00 GMT", 0.0),  # (past: no wait)
        ("-5", None),
        ("soon", None),
        (None, None),
    ],
)
def test_a_retry_after_is_read_as_seconds_or_an_http_date(
    value: str | None, seconds: float | None
) -> None:
    now = 1_800_000_000.0  # (2027-01-15 08:00:00 UTC)
    assert retry_after_seconds(value, now) == seconds
