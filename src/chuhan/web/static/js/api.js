// The server's REST endpoints (docs/web-protocol.md). Each function returns the answer's
// JSON body, or throws an Error whose message is the server's sentence.

async function api(path, init = {}) {
  const response = await fetch(path, init);
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body && body.error ? body.error.message : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
}

function postJson(path, data) {
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(data),
  });
}

function gamePath(gameId) {
  return `/api/games/${encodeURIComponent(gameId)}`;
}

// GET /api/options, asked once per page: what the server offers (variants, levels, the
// engine, a custom start position, the address to share).
let options = null;
let optionsRequest = null;

export function loadOptions() {
  if (!optionsRequest) {
    optionsRequest = api("/api/options").then((body) => {
      options = body;
      return body;
    });
  }
  return optionsRequest;
}

/** The server's options once they have arrived, else null. */
export function serverOptions() {
  return options;
}

/** POST /api/games: {game_id, seat, token, seat_url, invite_url?, watch_url, ws_url}. */
export function createGame(request) {
  return postJson("/api/games", request);
}

/** POST /api/games/mine: the games of these seat tokens, newest first. */
export async function myGames(tokens) {
  return (await postJson("/api/games/mine", { tokens })).games;
}

/** POST /api/import: a PGN, XQF, GIB or DhtmlXQ file's games ({games, errors}); the server tells the format from the bytes. */
export function importRecord(file) {
  return api("/api/import", { method: "POST", body: file });
}

/** GET /api/games/{id}/fen?ply=N: {fen, ply}. */
export function fenAt(gameId, ply) {
  return api(`${gamePath(gameId)}/fen?ply=${ply}`);
}

/** GET /api/games/{id}/pgn?format=…: the record as text. */
export async function pgnText(gameId, format) {
  const response = await fetch(`${gamePath(gameId)}/pgn?format=${format}`);
  if (!response.ok) throw new Error(`${response.status}`);
  return response.text();
}

/** POST /api/games/{id}/analysis: the engine's lines for one position of a finished game. */
export function analysePosition(gameId, request) {
  return postJson(`${gamePath(gameId)}/analysis`, request);
}

// ---- accounts and ratings (account.js) ----

/** GET /api/account: the signed-in account ({name, ratings}) or null. */
export async function currentAccount() {
  return (await api("/api/account")).account;
}

/** POST /api/account/signup {name, password}: {account}; the server sets the cookie. */
export function signUp(credentials) {
  return postJson("/api/account/signup", credentials);
}

/** POST /api/account/signin {name, password}: {account}. */
export function signIn(credentials) {
  return postJson("/api/account/signin", credentials);
}

/** POST /api/account/signout. */
export function signOut() {
  return postJson("/api/account/signout", {});
}

/** POST /api/account/password {password, new_password}. */
export function changePassword(password, newPassword) {
  return postJson("/api/account/password", { password, new_password: newPassword });
}

/** POST /api/account/delete {password}. */
export function deleteAccount(password) {
  return postJson("/api/account/delete", { password });
}

/** GET /api/games/{id}/rating: {rated, players, settlement}. */
export function gameRating(gameId) {
  return api(`${gamePath(gameId)}/rating`);
}

/** GET /api/players/{name}: a player's profile. */
export function playerProfile(name) {
  return api(`/api/players/${encodeURIComponent(name)}`);
}

/** GET /api/leaderboard/{game}: {game, players}. */
export function leaderboard(game) {
  return api(`/api/leaderboard/${encodeURIComponent(game)}`);
}

// ---- puzzles (puzzles.js) ----

/** GET /api/puzzles: {puzzles: [{id, game, plies}], daily}. */
export function puzzleList() {
  return api("/api/puzzles");
}

/** GET /api/puzzles/daily: today's puzzle (UTC), with its date. */
export function dailyPuzzle() {
  return api("/api/puzzles/daily");
}

/** GET /api/puzzles/{id}: {id, game, rules, fen, plies, mate_in, turn, legal, source}. */
export function puzzle(id) {
  return api(`/api/puzzles/${encodeURIComponent(id)}`);
}

/** POST /api/puzzles/{id}/move {moves, move}: {result: solved|right|wrong, ...}. */
export function puzzleMove(id, moves, move) {
  return postJson(`/api/puzzles/${encodeURIComponent(id)}/move`, { moves, move });
}

/** POST /api/puzzles/{id}/hint {moves}: {move}. */
export function puzzleHint(id, moves) {
  return postJson(`/api/puzzles/${encodeURIComponent(id)}/hint`, { moves });
}

/** POST /api/puzzles/{id}/solution {moves}: {line}. */
export function puzzleSolution(id, moves) {
  return postJson(`/api/puzzles/${encodeURIComponent(id)}/solution`, { moves });
}
