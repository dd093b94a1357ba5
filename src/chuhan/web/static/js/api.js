// @ts-check
// The server's REST endpoints (docs/web-protocol.md). Each function returns the answer's
// JSON body, or throws an Error whose message is the server's sentence. The answers' types
// are in protocol.js.

/** @typedef {import("./protocol.js").ServerOptions} ServerOptions */
/** @typedef {import("./protocol.js").Account} Account */

/**
 * @template T the answer's shape, as the endpoint's documentation says
 * @param {string} path
 * @param {RequestInit} [init]
 * @returns {Promise<T>}
 */
export async function api(path, init = {}) {
  const response = await fetch(path, init);
  /** @type {{error?: {code?: string, message?: string}} | null} the answer: T, or an error */
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
  return /** @type {T} */ (body);
}

/**
 * @template T
 * @param {string} path
 * @param {unknown} data
 * @returns {Promise<T>}
 */
export function postJson(path, data) {
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(data),
  });
}

/** @param {string} gameId */
function gamePath(gameId) {
  return `/api/games/${encodeURIComponent(gameId)}`;
}

// GET /api/options, asked once per page: what the server offers (variants, levels, the
// engine, a custom start position, the address to share).
/** @type {ServerOptions | null} */
let options = null;
/** @type {Promise<ServerOptions> | null} */
let optionsRequest = null;

/** @returns {Promise<ServerOptions>} */
export function loadOptions() {
  if (!optionsRequest) {
    /** @type {Promise<ServerOptions>} */
    const request = api("/api/options");
    optionsRequest = request.then((body) => {
      options = body;
      return body;
    });
  }
  return optionsRequest;
}

/** The server's options once they have arrived, else null.
 * @returns {ServerOptions | null} */
export function serverOptions() {
  return options;
}

/** POST /api/games: {game_id, seat, token, seat_url, invite_url?, watch_url, ws_url}.
 * @param {import("./protocol.js").GameRequest} request
 * @returns {Promise<import("./protocol.js").CreatedGame>} */
export function createGame(request) {
  return postJson("/api/games", request);
}

/** POST /api/games/mine: the games of these seat tokens, newest first.
 * @param {string[]} tokens
 * @returns {Promise<import("./protocol.js").ListedGame[]>} */
export async function myGames(tokens) {
  /** @type {{games: import("./protocol.js").ListedGame[]}} */
  const body = await postJson("/api/games/mine", { tokens });
  return body.games;
}

/** POST /api/import: a PGN, XQF, GIB or DhtmlXQ file's games ({games, errors}); the server tells the format from the bytes.
 * @param {File} file
 * @returns {Promise<import("./protocol.js").ImportResult>} */
export function importRecord(file) {
  return api("/api/import", { method: "POST", body: file });
}

/** GET /api/games/{id}/fen?ply=N: {fen, ply}.
 * @param {string} gameId @param {number} ply
 * @returns {Promise<{fen: string, ply: number}>} */
export function fenAt(gameId, ply) {
  return api(`${gamePath(gameId)}/fen?ply=${ply}`);
}

/** GET /api/games/{id}/pgn?format=…: the record as text.
 * @param {string} gameId @param {string} format @returns {Promise<string>} */
export async function pgnText(gameId, format) {
  const response = await fetch(`${gamePath(gameId)}/pgn?format=${format}`);
  if (!response.ok) throw new Error(`${response.status}`);
  return response.text();
}

/** POST /api/games/{id}/analysis: the engine's lines for one position of a finished game.
 * @param {string} gameId
 * @param {{ply?: number, movetime_ms?: number, multipv?: number}} request
 * @returns {Promise<import("./protocol.js").PositionAnalysis>} */
export function analysePosition(gameId, request) {
  return postJson(`${gamePath(gameId)}/analysis`, request);
}

// ---- accounts and ratings (account.js) ----

/** GET /api/account: the signed-in account ({name, ratings}) or null.
 * @returns {Promise<Account | null>} */
export async function currentAccount() {
  /** @type {{account: Account | null}} */
  const body = await api("/api/account");
  return body.account;
}

/** @typedef {{name: string, password: string}} Credentials */

/** POST /api/account/signup {name, password}: {account}; the server sets the cookie.
 * @param {Credentials} credentials @returns {Promise<{account: Account}>} */
export function signUp(credentials) {
  return postJson("/api/account/signup", credentials);
}

/** POST /api/account/signin {name, password}: {account}.
 * @param {Credentials} credentials @returns {Promise<{account: Account}>} */
export function signIn(credentials) {
  return postJson("/api/account/signin", credentials);
}

/** POST /api/account/signout.
 * @returns {Promise<{account: null}>} */
export function signOut() {
  return postJson("/api/account/signout", {});
}

/** POST /api/account/password {password, new_password}.
 * @param {string} password @param {string} newPassword @returns {Promise<unknown>} */
export function changePassword(password, newPassword) {
  return postJson("/api/account/password", { password, new_password: newPassword });
}

/** @typedef {{email: string | null, confirmed: boolean, digest: boolean, push: boolean,
 *   devices: number, language: string}} NoticeSettings */

/** GET /api/account/notices: the signed-in account's e-mail notices.
 * @returns {Promise<NoticeSettings>} */
export function noticeSettings() {
  return api("/api/account/notices");
}

/** POST /api/account/notices {email, digest, language}: the settings as saved.
 * @param {string | null} email @param {boolean} digest @param {string} language the page's
 * (the mails') @returns {Promise<NoticeSettings>} */
export function saveNoticeSettings(email, digest, language) {
  return postJson("/api/account/notices", { email, digest, language });
}

/** GET /api/push/key: the server's VAPID public key (base64url) for the Push API.
 * @returns {Promise<{key: string}>} */
export function pushKey() {
  return api("/api/push/key");
}

/** POST /api/account/push: keep this browser's subscription (PushSubscription.toJSON()).
 * @param {PushSubscriptionJSON} subscription @param {string} language
 * @returns {Promise<NoticeSettings>} */
export function savePush(subscription, language) {
  return postJson("/api/account/push", { ...subscription, language });
}

/** DELETE /api/account/push {endpoint}: forget this browser's subscription (null: all).
 * @param {string | null} endpoint @returns {Promise<NoticeSettings>} */
export function removePush(endpoint) {
  return api("/api/account/push", {
    method: "DELETE",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(endpoint ? { endpoint } : {}),
  });
}

/** POST /api/account/delete {password}.
 * @param {string} password @returns {Promise<{account: null, deleted: string}>} */
export function deleteAccount(password) {
  return postJson("/api/account/delete", { password });
}

/** GET /api/games/{id}/rating: {rated, players, settlement}.
 * @param {string} gameId @returns {Promise<import("./protocol.js").GameRating>} */
export function gameRating(gameId) {
  return api(`${gamePath(gameId)}/rating`);
}

/** GET /api/lobby/watch: the games in play and who is in the lobby.
 * @returns {Promise<import("./protocol.js").LobbyWatch>} */
export function lobbyWatch() {
  return api("/api/lobby/watch");
}

/** GET /api/account/games: the signed-in account's games in progress, its move first.
 * @returns {Promise<{games: import("./protocol.js").YourGame[]}>} */
export function yourGames() {
  return api("/api/account/games");
}

/** GET /api/account/vacation: the account's vacation days this year and the one running.
 * @returns {Promise<import("./protocol.js").Vacation>} */
export function vacation() {
  return api("/api/account/vacation");
}

/** POST /api/account/vacation: start a vacation of `days` whole days.
 * @param {number} days @returns {Promise<import("./protocol.js").Vacation>} */
export function takeVacation(days) {
  return postJson("/api/account/vacation", { days });
}

/** DELETE /api/account/vacation: end the vacation now.
 * @returns {Promise<import("./protocol.js").Vacation>} */
export function endVacation() {
  return api("/api/account/vacation", { method: "DELETE" });
}

/** GET /api/players/{name}: a player's profile.
 * @param {string} name @returns {Promise<import("./protocol.js").Profile>} */
export function playerProfile(name) {
  return api(`/api/players/${encodeURIComponent(name)}`);
}

/** GET /api/leaderboard/{game}: {game, players}.
 * @param {string} game @returns {Promise<import("./protocol.js").Leaderboard>} */
export function leaderboard(game) {
  return api(`/api/leaderboard/${encodeURIComponent(game)}`);
}

// ---- puzzles (puzzles.js) ----

/** GET /api/puzzles: {puzzles: [{id, game, plies}], daily}.
 * @returns {Promise<{puzzles: {id: string, game: string, plies: number}[], daily: string}>} */
export function puzzleList() {
  return api("/api/puzzles");
}

/** GET /api/puzzles/daily: today's puzzle (UTC), with its date.
 * @returns {Promise<import("./protocol.js").Puzzle>} */
export function dailyPuzzle() {
  return api("/api/puzzles/daily");
}

/** GET /api/puzzles/{id}: {id, game, rules, fen, plies, mate_in, turn, legal, source}.
 * @param {string} id @returns {Promise<import("./protocol.js").Puzzle>} */
export function puzzle(id) {
  return api(`/api/puzzles/${encodeURIComponent(id)}`);
}

/** POST /api/puzzles/{id}/move {moves, move}: {result: solved|right|wrong, ...}.
 * @param {string} id @param {string[]} moves the attempt's so far @param {string} move
 * @returns {Promise<import("./protocol.js").PuzzleVerdict>} */
export function puzzleMove(id, moves, move) {
  return postJson(`/api/puzzles/${encodeURIComponent(id)}/move`, { moves, move });
}

/** POST /api/puzzles/{id}/hint {moves}: {move}.
 * @param {string} id @param {string[]} moves @returns {Promise<{move: string}>} */
export function puzzleHint(id, moves) {
  return postJson(`/api/puzzles/${encodeURIComponent(id)}/hint`, { moves });
}

/** POST /api/puzzles/{id}/solution {moves}: {line}.
 * @param {string} id @param {string[]} moves
 * @returns {Promise<{line: string[], notation: import("./protocol.js").LineNotation}>} */
export function puzzleSolution(id, moves) {
  return postJson(`/api/puzzles/${encodeURIComponent(id)}/solution`, { moves });
}
