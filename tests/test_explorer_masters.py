"""The shipped master games (the Chinese Chess Practical Dataset): the index built from
the archive, its refusals, and its counts held against the stored games replayed (slow:
the import reads 58,468 files, several minutes)."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from chuhan import Board
from chuhan.explorer import MASTERS_ARCHIVE, Explorer, normalize_result, open_masters, search_key
from chuhan.explorer.masters import MASTERS_LABEL, masters_digest
from chuhan.records import iter_data
from chuhan.squares import Move
from explorer_sample import build_sample_index, sample_files


def test_the_archive_is_shipped_with_its_credit() -> None:
    root = Path(__file__).resolve().parent.parent
    notice = (root / "NOTICE").read_text(encoding="utf-8")
    assert MASTERS_ARCHIVE.stat().st_size > 7_000_000
    for words in ("Chinese Chess Practical Dataset", "Yu-Han Tseng", "CC BY 4.0", "Changed"):
        assert words in notice
    assert len(masters_digest()) == 64


@pytest.mark.slow
def test_the_masters_index_holds_the_dataset(tmp_path: Path) -> None:
    explorer = open_masters(tmp_path / "explorer.sqlite3")
    with explorer:
        row = explorer._db.one(
            "SELECT files, games, duplicates, refused FROM imports WHERE label = ?",
            (MASTERS_LABEL,),
        )
        assert row is not None
        files, games, duplicates, refused = row
        assert files == 58_468
        # 58,468 files hold 46,569 distinct texts, and some texts differ in tags alone.
        assert duplicates > 58_468 - 46_569
        # Positions whose FEN has no king (five openings without the red one, where the
        # dataset's README names two, and a midgame without the black one), games without
        # a move and games with an illegal move (a transcription's slip: the game is
        # refused, not cut short under its final result), and nothing else.
        refusals = explorer.refusals(MASTERS_LABEL)
        assert len(refusals) == refused < 200
        kinds = Counter(
            "no move"
            if refusal.reason == "a game without a move"
            else "no king"
            if "king is missing" in refusal.reason
            else "illegal move"
            if "illegal Chinese move" in refusal.reason
            else str(refusal)
            for refusal in refusals
        )
        assert kinds == {"no move": 81, "no king": 6, "illegal move": 6}
        counts = explorer.counts()
        assert counts["game"] == games
        assert games > 25_000  # 27,985 distinct master games
        start = explorer.lookup(Board())
        assert start.games == games
        assert start.moves[0].iccs == "h2e2"  # 炮二平五, the central cannon

        # The counts of the 40 busiest positions of the first four plies, made again by
        # replaying the stored games (every ply: a game may come back to one later) and
        # counting with a dict keyed by FEN.
        stored = [
            m.split() for (m,) in explorer._db.rows("SELECT moves FROM games WHERE kind = 'game'")
        ]
        early: Counter[str] = Counter()
        for moves in stored:
            board = Board()
            for text in moves[:4]:
                early[" ".join(board.fen().split()[:2])] += 1
                board.push_iccs(text)
        busiest = {fen for fen, _ in early.most_common(40)}
        expected: dict[str, Counter[str]] = defaultdict(Counter)
        for moves in stored:
            board = Board()
            seen = set()
            for text in moves:
                fen = " ".join(board.fen().split()[:2])
                if fen in busiest and (fen, text) not in seen:
                    seen.add((fen, text))
                    expected[fen][text] += 1
                board.push_iccs(text)
        for fen in busiest:
            stats = explorer.lookup(Board(fen))
            assert {move.iccs: move.games for move in stats.moves} == dict(expected[fen]), fen


def test_a_sample_of_the_archive_counts_as_its_records_replayed(tmp_path: Path) -> None:
    """The counts of the busiest positions of a small index of the archive's first master
    games, against the same records read by the records' reader and replayed move by move,
    counted by FEN (one game once: a copy plays the same moves to the same result)."""
    index = build_sample_index(tmp_path / "sample.sqlite3")
    games: dict[tuple[object, ...], tuple[list[Move], str]] = {}
    for file in sample_files():
        for record in iter_data(file.data.decode("cp950").encode(), file.name):
            moves = record.main_line_moves()
            result = normalize_result(record.headers.get("Result", "*"))
            identity: tuple[object, ...] = (tuple(m.iccs() for m in moves), result)
            if len(moves) < 40:
                names = (record.headers.get("Red", ""), record.headers.get("Black", ""))
                identity += tuple(search_key(name).replace(" ", "") for name in names)
            if moves and not record.errors:
                games.setdefault(identity, (moves, result))
    expected: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for moves, result in games.values():
        board = Board()
        seen: set[tuple[str, str]] = set()
        for move in moves:
            fen = " ".join(board.fen().split()[:2])
            if (fen, move.iccs()) not in seen:
                seen.add((fen, move.iccs()))
                expected[fen][move.iccs()].append(result)
            board.push(move)
    busiest = sorted(expected, key=lambda fen: -sum(map(len, expected[fen].values())))[:25]
    with Explorer(index) as explorer:
        assert explorer.lookup(Board()).games == len(games)
        for fen in busiest:
            found = {
                move.iccs: (move.games, move.red_wins, move.draws, move.black_wins)
                for move in explorer.lookup(Board(fen)).moves
            }
            assert found == {
                iccs: (
                    len(results),
                    results.count("1-0"),
                    results.count("1/2-1/2"),
                    results.count("0-1"),
                )
                for iccs, results in expected[fen].items()
            }, fen
