"""Shared test fixtures: the data files copied from the project's rule sources."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"


def load_json(name: str) -> Any:
    with open(DATA / name, encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="session")
def perft_positions() -> list[dict[str, Any]]:
    positions: list[dict[str, Any]] = load_json("perft.json")["positions"]
    return positions
