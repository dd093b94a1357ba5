// @ts-check
// An arena player's berserk on the game page (issue 23): the tournament's page opens an
// arena game with `&arena={tournament id}`, kept here for the game; before the player's
// first move the game page shows a Berserk button, which asks the tournament
// (POST /api/tournaments/{id}/berserk) to halve the player's clock and take the increment.

import { postJson } from "./api.js";
import { toast } from "./dom.js";

const KEY = "chuhan.arena.";

/** Note that ``gameId`` is a game of the arena ``tournamentId`` (for this tab).
 * @param {string} gameId @param {string} tournamentId */
export function rememberArena(gameId, tournamentId) {
  try {
    sessionStorage.setItem(KEY + gameId, tournamentId);
  } catch {
    // (storage off: no berserk button after the address bar is cleaned)
  }
}

/** The arena of a game opened from it in this tab, or null.
 * @param {string} gameId @returns {string | null} */
export function arenaOf(gameId) {
  try {
    return sessionStorage.getItem(KEY + gameId);
  } catch {
    return null;
  }
}

/** @type {Set<string>} the games berserked from this page */
const berserked = new Set();

/** Whether the Berserk button shows: an arena game whose player may still abort it (has
 * not moved), not berserked from this page already.
 * @param {string} gameId @param {boolean} beforeFirstMove @returns {boolean} */
export function canBerserk(gameId, beforeFirstMove) {
  return beforeFirstMove && arenaOf(gameId) !== null && !berserked.has(gameId);
}

/** Berserk the game (the server's refusal, if any, as a toast); then ``done``.
 * @param {string} gameId @param {() => void} done */
export async function berserk(gameId, done) {
  const tournamentId = arenaOf(gameId);
  if (tournamentId === null) return;
  try {
    await postJson(`/api/tournaments/${encodeURIComponent(tournamentId)}/berserk`, {});
    berserked.add(gameId);
  } catch (error) {
    toast(error instanceof Error ? error.message : String(error));
  }
  done();
}
