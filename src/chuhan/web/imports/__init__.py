"""Imported records: an uploaded record read in a worker (uploads.py) and the route that
stores its games (routes.py)."""
