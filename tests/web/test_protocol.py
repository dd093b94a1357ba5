"""The client message checks and the rate limit, without a server."""

from __future__ import annotations

import json

import pytest

from chuhan.web.sockets.protocol import (
    MAX_MESSAGE_BYTES,
    ProtocolError,
    TokenBucket,
    clean_text,
    parse_client_message,
)


def code_of(text: str | bytes) -> str:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(text)
    return caught.value.code


def test_valid_messages_are_parsed_with_their_fields() -> None:
    msg = parse_client_message('{"type":"move","seq":3,"version":7,"from":"h2","to":"e2"}')
    assert (msg.type, msg.seq, msg.get("from"), msg.get("to"), msg.get("version")) == (
        "move",
        3,
        "h2",
        "e2",
        7,
    )
    hello = parse_client_message('{"type":"hello","seq":1}')
    assert hello.get("token") is None
    chat = parse_client_message('{"type":"chat","seq":2,"text":"  gg\\u0007  wp  "}')
    assert chat.get("text") == "gg wp"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2]", "not_object"),
        ('"hello"', "not_object"),
        ('{"seq": 1}', "bad_field"),
        ('{"type": "teleport", "seq": 1}', "unknown_type"),
        ('{"type": "ping"}', "bad_field"),
        ('{"type": "ping", "seq": true}', "bad_field"),
        ('{"type": "ping", "seq": 0}', "bad_field"),
        ('{"type": "ping", "seq": "1"}', "bad_field"),
        ('{"type": "move", "seq": 1, "from": "h2", "to": "e2"}', "bad_field"),
        ('{"type": "move", "seq": 1, "version": 1, "from": "h2", "to": "j2"}', "bad_field"),
        ('{"type": "move", "seq": 1, "version": 1, "from": 12, "to": "e2"}', "bad_field"),
        ('{"type": "move", "seq": 1, "version": -1, "from": "h2", "to": "e2"}', "bad_field"),
        ('{"type": "resign", "seq": 1, "version": 1, "side": "red"}', "bad_field"),
        ('{"type": "chat", "seq": 1, "text": "   "}', "bad_field"),
        ('{"type": "chat", "seq": 1, "text": 5}', "bad_field"),
        ('{"type": "hello", "seq": 1, "token": 123}', "bad_field"),
        ('{"type": "setup", "seq": 1, "version": 1}', "bad_field"),
        ('{"type": "claim_abandoned", "seq": 1}', "bad_field"),
        ('{"type": "claim_abandoned", "seq": 1, "version": 1, "draw": "yes"}', "bad_field"),
    ],
)
def test_bad_messages_are_rejected_with_a_code(text: str, code: str) -> None:
    assert code_of(text) == code


def test_size_limits() -> None:
    big = json.dumps({"type": "chat", "seq": 1, "text": "x" * MAX_MESSAGE_BYTES})
    assert code_of(big) == "too_large"
    assert code_of(json.dumps({"type": "chat", "seq": 1, "text": "x" * 301})) == "chat_too_long"
    assert parse_client_message(json.dumps({"type": "chat", "seq": 1, "text": "车" * 300}))
    deep = "[" * 5000 + "]" * 5000
    assert code_of(deep) in ("too_large", "bad_json")
    assert code_of("[" * 2000 + "]" * 2000) in ("bad_json", "not_object")


def test_errors_keep_the_seq_when_it_was_readable() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message('{"type":"nope","seq":9}')
    assert caught.value.seq == 9


def test_clean_text_drops_control_characters() -> None:
    assert clean_text("a\nb\tc\x00d  ") == "a b c d"
    assert clean_text("<b>bold</b>") == "<b>bold</b>"  # kept as text; rendered as text


def test_token_bucket() -> None:
    t = [0.0]
    bucket = TokenBucket(capacity=3, rate=2, now=lambda: t[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    t[0] += 0.5  # one token back
    assert bucket.take() and not bucket.take()
    t[0] += 100
    assert sum(bucket.take() for _ in range(10)) == 3
