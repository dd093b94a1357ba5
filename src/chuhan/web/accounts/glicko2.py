"""The Glicko-2 rating system, from Mark Glickman's paper "Example of the Glicko-2 system"
(http://www.glicko.net/glicko/glicko2.pdf): steps 1 to 8, with the Illinois algorithm of
step 5 for the new volatility. No I/O; :mod:`chuhan.web.accounts.ratings` applies it to games.

(PyPI has a ``glicko2`` package, last released in January 2024 and not checked against
the paper here; the algorithm is seventy lines, tested with the paper's worked example, so
the server carries its own rather than one more dependency.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "DEFAULT_DEVIATION",
    "DEFAULT_RATING",
    "DEFAULT_VOLATILITY",
    "SCALE",
    "TAU",
    "Glicko",
    "rate",
]

#: A new player's rating, deviation and volatility (the paper's suggestions).
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
#: The system constant: how much the volatility may change (the paper: 0.3 to 1.2).
TAU = 0.5
#: The Glicko-2 scale's unit in rating points (step 2).
SCALE = 173.7178
#: Where the volatility iteration stops (step 5).
EPSILON = 0.000001


@dataclass(frozen=True, slots=True)
class Glicko:
    """A rating, its deviation (RD) and volatility, on the Glicko (1500) scale."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility (the Illinois algorithm)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(player: Glicko, results: Sequence[tuple[Glicko, float]], *, tau: float = TAU) -> Glicko:
    """The player's rating after one rating period with these ``results``: each an
    opponent (as rated before the period) and the player's score against them (1 a win,
    0.5 a draw, 0 a loss). With no results only the deviation grows (step 6)."""
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        grown = math.sqrt(phi * phi + sigma * sigma)
        return Glicko(player.rating, min(grown * SCALE, DEFAULT_DEVIATION), sigma)
    inverse_v = 0.0
    improvement = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = opponent.deviation / SCALE
        g = _g(phi_j)
        expected = _expected(mu, mu_j, phi_j)
        inverse_v += g * g * expected * (1.0 - expected)
        improvement += g * (score - expected)
    v = 1.0 / inverse_v
    delta = v * improvement
    new_sigma = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Glicko(new_mu * SCALE + DEFAULT_RATING, new_phi * SCALE, new_sigma)
