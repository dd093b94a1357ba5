"""What every HTTP endpoint shares: JSON errors, body limits, typed fields and per-address
limits (common.py), client addresses and their rate limits (clients.py), and the pages with
their security headers (pages.py). Knows no feature."""
