"""Puzzles: the set (data/puzzles.jsonl), a solver's move judged and the daily puzzle
(service.py), and the HTTP routes (routes.py)."""
