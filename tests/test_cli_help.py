"""Every chuhan subcommand says what it does and every option has help text (issue 27:
perft, moves, play --variant/--rules/--fen and match --protocol1/2 had none)."""

from __future__ import annotations

import argparse

import pytest

from chuhan.cli import build_parser


def _walk(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _walk(sub, (*path, name))
    return found


PARSERS = _walk(build_parser())


@pytest.mark.parametrize(("path", "parser"), PARSERS[1:], ids=[" ".join(p) for p, _ in PARSERS[1:]])
def test_each_command_has_a_description_and_option_help(
    path: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    assert parser.description, f"chuhan {' '.join(path)} has no description"
    missing = [
        action.dest
        for action in parser._actions
        if not action.help and not isinstance(action, argparse._SubParsersAction)
    ]
    assert not missing, f"chuhan {' '.join(path)}: no help for {missing}"


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (["perft", "--help"], ["DEPTH", "plies to look ahead", "--divide"]),
        (["moves", "--help"], ["legal moves", "--fen"]),
        (["play", "--help"], ["--variant", "game (default xiangqi)", "rule set", "start position"]),
        (["match", "--help"], ["--protocol1", "ucci (ElephantEye)", "--protocol2"]),
    ],
)
def test_help_text(
    command: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(command)
    assert exit_info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for word in words:
        assert word in out
