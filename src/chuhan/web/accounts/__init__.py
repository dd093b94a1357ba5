"""Accounts: names and passwords, sessions and their cookie, sign-in limits, the seats of
signed-in players (service.py), the HTTP routes (routes.py), and ratings: rated games settled
once (ratings.py) with Glicko-2 (glicko2.py). The round may use accounts; accounts never use
the round."""
