"""JSON text as the web app writes it: ``json.dumps(value, ensure_ascii=False)``, for values
without cycles, at about half the cost (a move writes a dozen small values: the stored row's
columns, its event, parts of the state sent).

>>> dumps({"draw": None, "names": ["Alice", "王"], "at": 1.5})
'{"draw": null, "names": ["Alice", "王"], "at": 1.5}'
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

__all__ = ["dumps"]

_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False)


def _make() -> Callable[[Any], str]:
    # What JSONEncoder.encode runs, made once: its C encoder (the same arguments as
    # JSONEncoder.iterencode gives it), without the checks and the encoder made per call.
    make = getattr(json.encoder, "c_make_encoder", None)  # (untyped; CPython always has it)
    if make is None:
        return _ENCODER.encode
    encoder = make(None, _ENCODER.default, encode_basestring, None, ": ", ", ", False, False, True)

    def dumps(value: Any) -> str:
        return "".join(encoder(value, 0))

    return dumps


#: ``json.dumps(value, ensure_ascii=False)`` (raises TypeError for what JSON cannot hold).
dumps = _make()
