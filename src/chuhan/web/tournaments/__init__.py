"""Tournaments (issue 23): arena, Swiss and round robin.

The rules are pure functions on values (``rules.py``: formats, scoring, byes, late entries,
withdrawals, forbidden pairings, standings and tie-breaks, the TRF export), the pairings
come from maintained libraries (``pairings.py``: the FIDE Dutch system from py4swiss, the
Berger tables from caissify-pairings, the arena's minimum-cost matching from networkx), and the
repository holds the transaction bodies (``repository.py``). Tournaments use the round and
accounts; nothing below them uses tournaments. The libraries are the optional extra
``tournaments``."""
