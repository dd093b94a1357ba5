"""The command line as a user meets it: `chuhan perft`, `chuhan moves`, and the terminal
game that `make play` starts."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator

import pytest

import chuhan
from chuhan.cli import main
from chuhan.terminal import play_terminal, render


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_perft_prints_the_node_count_as_its_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["perft", "3"], capsys)
    assert code == 0
    assert out.strip().splitlines()[-1] == "79666"


def test_perft_divide_lists_each_first_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["perft", "2", "--variant", "janggi", "--divide"], capsys)
    lines = out.strip().splitlines()
    assert code == 0 and lines[-1] == "1024"
    assert "e1e1 32" in lines


def test_perft_follows_moves_and_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["perft", "1", "--variant", "janggi", "--rules", "modern", "--moves", "e1e1", "e8e8"],
        capsys,
    )
    assert code == 0 and out.strip().splitlines()[-1] == "0"


def test_moves_prints_iccs_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["moves", "--fen", "4k4/9/9/9/9/9/9/9/9/3K5 w"], capsys)
    assert code == 0
    assert sorted(out.split()) == ["d0d1"]


def test_bad_input_gives_a_clear_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(["moves", "--fen", "not a fen"], capsys)
    assert code == 2 and "invalid FEN" in err and "Traceback" not in err
    code, _, err = run(["perft", "1", "--moves", "h2h8"], capsys)
    assert code == 2 and "illegal move 'h2h8'" in err


def test_console_script_runs_as_a_module() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "chuhan.cli", "perft", "2", "--variant", "janggi"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "1024"


def test_convert_turns_a_gib_record_into_pgn(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    source = Path(__file__).parent / "data" / "records" / "janggi_euckr.gib"
    target = Path(str(tmp_path)) / "game.pgn"
    code, out, _ = run(["convert", str(source), str(target), "--format", "korean"], capsys)
    assert code == 0 and out.strip() == "converted 1 game"
    assert '[Variant "Janggi"]' in target.read_text(encoding="utf-8")


def test_convert_reports_a_broken_file(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    source = Path(str(tmp_path)) / "broken.xqf"
    source.write_bytes(b"XQ\x0a" + b"\x00" * 20)
    code, _, err = run(["convert", str(source), str(source) + ".pgn"], capsys)
    assert code == 2 and "broken.xqf" in err and "Traceback" not in err


def scripted(lines: list[str]) -> Iterator[str]:
    yield from lines


def play(lines: list[str], **options: object) -> str:
    feed = scripted(lines)
    out = io.StringIO()

    def answer(prompt: str) -> str:
        out.write(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    code = play_terminal(input_fn=answer, output=out, **options)  # type: ignore[arg-type]
    assert code == 0
    return out.getvalue()


def test_terminal_game_draws_the_board_in_chinese_characters() -> None:
    text = render(__import__("chuhan").Board())
    assert "俥" in text and "將" in text and "楚 河" in text


def test_terminal_accepts_any_notation_and_refuses_an_illegal_move() -> None:
    transcript = play(["炮二平五", "H8+7", "h2h8", "b0c2", "quit"])
    assert "Played" in transcript
    assert transcript.count("Played") == 3
    assert "Not played" in transcript and "h2h8" in transcript


def test_terminal_shows_checkmate() -> None:
    transcript = play(["R9.6"], fen="3k5/R8/3R5/9/9/9/9/9/9/4K4 w")
    assert "Red wins: Black is checkmated by the chariot on d8." in transcript


def test_terminal_janggi_pass_and_double_pass_end() -> None:
    transcript = play(["", "", "pass", "pass"], variant="janggi", letters=True)
    assert "both sides passed in a row" in transcript
    assert "72 to 73.5" in transcript


def test_terminal_janggi_setup_choice_and_traditional_draw() -> None:
    transcript = play(
        ["마마상상", "상마상마", "HEHE", "pass", "pass"], variant="janggi", rules="traditional"
    )
    assert "Not accepted" in transcript
    assert "Draw: both sides passed in a row." in transcript


def test_terminal_repetition_ends_the_game_by_the_referee() -> None:
    transcript = play(["h0g2", "h9g7", "g2h0", "g7h9"] * 2)
    assert "Draw by repetition" in transcript


def test_terminal_undo_and_end_of_input() -> None:
    transcript = play(["h2e2", "undo", "undo"])
    assert "Nothing to take back." in transcript


def test_version_names_the_package_and_its_build() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "chuhan", "--version"], capture_output=True, text=True, timeout=60
    )
    expected = f"chuhan {chuhan.__version__}, {chuhan.BUILD.describe()}"
    assert result.returncode == 0 and result.stdout.strip() == expected


# The web extra's modules, made unimportable as they are when only `pip install chuhan` ran.
WITHOUT_WEB = (
    "import sys\n"
    "for name in ('starlette', 'uvicorn', 'websockets', 'argon2', 'uvloop', 'httptools'):\n"
    "    sys.modules[name] = None\n"
    "from chuhan.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["play", "--no-browser"]])
def test_the_web_commands_without_the_web_extra_say_how_to_install_it(command: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_WEB, *command], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.endswith("pip install 'chuhan[web]'"), line


def test_the_library_runs_without_the_web_extra() -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_WEB, "perft", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and result.stdout.strip() == "1920"
