// @ts-check
// Tournaments in the page (issue 23): the home page's card (upcoming, running and finished
// tournaments, and the form that creates one) and a tournament's page ("/t/{id}"): its
// settings, entrants, standings with the tie-breaks, the current round's pairings, join and
// withdraw, the director's "pair the next round" (or "start" for an arena) and the TRF
// download. The page asks the server again every few seconds; a player's game, once
// paired, opens by itself with a sound.

import { api, loadOptions, postJson, serverOptions } from "./api.js";
import { currentAccount, onAccountChange } from "./account.js";
import { $, clear, make, show } from "./dom.js";
import { language, t } from "./i18n.js";
import { Socket } from "./net.js";
import { playSound } from "./sound.js";

/**
 * @typedef {object} TournamentBoard
 * @property {number} board
 * @property {string} red
 * @property {string | null} black null: a bye for red
 * @property {string | null} result "1-0", "0-1", "1/2-1/2", "+-", "-+", "--" or null
 * @property {string | null} game the game's id once made
 * @property {string | null} [moves] the moves a director entered over the board (ICCS)
 */
/**
 * @typedef {object} TournamentStanding
 * @property {number} rank
 * @property {string} name
 * @property {number} points
 * @property {Record<string, number>} [tiebreaks] (not in an arena)
 */
/**
 * @typedef {object} TournamentEntrant
 * @property {string} name
 * @property {number} rating
 * @property {number} first_round
 * @property {number | null} withdrawn_after
 * @property {boolean} paused not paired until they come back
 * @property {number[]} [byes] the rounds of the half-point byes asked for (Swiss; those paired are taken)
 * @property {string | null} [id] a director's entry's id ("p:n"), to remove it
 * @property {string} [club]
 */
/**
 * GET /api/tournaments/{id}'s tournament (the list has the fields up to `players`).
 * @typedef {object} Tournament
 * @property {string} id
 * @property {string} name
 * @property {"arena" | "swiss" | "round_robin"} format
 * @property {"created" | "running" | "finished"} status
 * @property {number} starts seconds since 1970
 * @property {number} revision
 * @property {string} variant
 * @property {string} rules
 * @property {{base: number, increment: number, periods: number, period_seconds: number} | null} time_control
 * @property {boolean} rated
 * @property {"anyone" | "accounts" | "code"} entry
 * @property {number} rounds
 * @property {number} minutes
 * @property {string[]} tiebreaks
 * @property {number} players
 * @property {boolean} [over_the_board] played on real boards: the director's printed pages
 * @property {TournamentEntrant[]} [entrants]
 * @property {number} [half_byes] how many half-point byes a Swiss player may ask for
 * @property {number} [half_bye_closed_rounds] in how many of the last rounds none may be
 * @property {TournamentBoard[][]} [paired]
 * @property {string[][]} [requested_byes] each paired round's players on a half-point bye
 * @property {TournamentBoard[]} [games] an arena's games in play and its newest finished
 * @property {number} [games_count] how many games the arena has had (all in its PGN)
 * @property {TournamentStanding[]} [standings]
 * @property {{director: boolean, entrant: string | null}} [you]
 */
/** @typedef {{game_id: string, seat: string, token: string, round: number}} TournamentGame */

const STATUSES = /** @type {const} */ (["created", "running", "finished"]);
/** The chat lines kept on the page, and the muted names kept in this browser. */
const CHAT_LINES = 200;
const MUTED_KEY = "chuhan.tournamentMuted";
const MAX_MUTED = 500;
/** @typedef {{at: number, name: string, text: string}} TournamentChatLine */
/** The games this browser has opened by itself already (their ids), so that coming back to
 * the tournament's page during a game does not send the player to it again. */
const OPENED_KEY = "chuhan.tournamentGamesOpened";

/** The names muted in tournament chats, as this browser kept them.
 * @returns {string[]} */
function readMuted() {
  try {
    const kept = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return Array.isArray(kept) ? kept.filter((name) => typeof name === "string") : [];
  } catch {
    return [];
  }
}

/** @param {string} id */
function tournamentPath(id) {
  return `/api/tournaments/${encodeURIComponent(id)}`;
}

/** @param {number} seconds @returns {string} */
function when(seconds) {
  return new Date(seconds * 1000).toLocaleString();
}

/** "10+5", "20 3×30" or "no clock".
 * @param {Tournament["time_control"]} control @returns {string} */
function clockText(control) {
  if (!control) return t("tcNone");
  const minutes = Math.round(control.base / 60);
  if (control.periods) return `${minutes} ${control.periods}×${control.period_seconds}`;
  return `${minutes}+${control.increment}`;
}

/** The format's name and its length: "Swiss · 5 rounds", "Arena · 60 min".
 * @param {Tournament} tournament @returns {string} */
function formatText(tournament) {
  const name = t(`tformat_${tournament.format}`);
  if (tournament.format === "arena") return `${name} · ${t("tMinutes", { n: tournament.minutes })}`;
  if (tournament.format === "round_robin") return t(tournament.rounds === 2 ? "tDouble" : "tSingle");
  return `${name} · ${t("tRounds", { n: tournament.rounds })}`;
}

/** @param {Tournament} tournament @returns {string} */
function settingsText(tournament) {
  return [
    formatText(tournament),
    `${t(tournament.variant)} (${t(`rules_${tournament.rules}`)})`,
    clockText(tournament.time_control),
    t(tournament.rated ? "rated" : "tCasual"),
  ].join(" · ");
}

// ---------------------------------------------------------------- the home page's card

/** @type {Partial<Record<(typeof STATUSES)[number], Tournament[]>>} */
const listed = {};

function drawLists() {
  for (const status of STATUSES) {
    const list = $(`tournaments-${status}`);
    clear(list);
    const found = listed[status] || [];
    for (const tournament of found) {
      const item = make("li");
      const link = make("a", "tournament-link", tournament.name);
      link.href = `/t/${encodeURIComponent(tournament.id)}`;
      item.appendChild(link);
      const starts = status === "created" ? ` · ${when(tournament.starts)}` : "";
      item.appendChild(make("span", "muted", ` · ${settingsText(tournament)} · ${t(tournament.players === 1 ? "tOnePlayer" : "tPlayers", { n: tournament.players })}${starts}`));
      list.appendChild(item);
    }
    if (!found.length) list.appendChild(make("li", "muted", t("tNone")));
  }
}

/** The form's rule sets for its game (the server's list once it has arrived). */
function fillTournamentRules() {
  const options = serverOptions();
  const variant = $("tf-variant").value;
  const rules = $("tf-rules");
  const kept = rules.dataset.variant === variant ? rules.value : null;
  clear(rules);
  const names = options ? options.variants[variant] || [] : [variant === "janggi" ? "official" : "asian"];
  for (const name of names) {
    const option = make("option", null, t(`rules_${name}`));
    option.value = name;
    rules.appendChild(option);
  }
  if (kept && names.includes(kept)) rules.value = kept;
  else if (options && options.default_rules[variant]) rules.value = options.default_rules[variant];
  rules.dataset.variant = variant;
}

function fillTimeControls() {
  const options = serverOptions();
  const select = $("tf-time");
  const kept = select.value;
  clear(select);
  const controls = ["none", ...(options ? options.time_controls.filter((c) => c !== "none") : ["10+5"])];
  for (const control of controls) {
    const option = make("option", null, control === "none" ? t("tcNone") : control);
    option.value = control;
    select.appendChild(option);
  }
  select.value = controls.includes(kept) ? kept : controls.includes("10+5") ? "10+5" : controls[0];
}

/** The form's fields for its format: rounds (Swiss), cycles (round robin) or minutes. */
function showFormatFields() {
  const format = $("tf-format").value;
  show($("tf-rounds-row"), format === "swiss");
  show($("tf-half-byes-row"), format === "swiss");
  show($("tf-half-bye-closed-row"), format === "swiss");
  show($("tf-cycles-row"), format === "round_robin");
  show($("tf-minutes-row"), format === "arena");
  show($("tf-tiebreaks-row"), format !== "arena");
}

/** A datetime-local input's value for `ms` (the browser's time zone), to the minute.
 * @param {number} ms @returns {string} */
function localInput(ms) {
  const date = new Date(ms);
  date.setSeconds(0, 0);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

async function createTournament() {
  const error = $("tf-error");
  show(error, false);
  const format = $("tf-format").value;
  const startsMs = new Date($("tf-starts").value).getTime();
  /** @type {Record<string, unknown>} */
  const body = {
    name: $("tf-name").value.trim(),
    format,
    variant: $("tf-variant").value,
    rules: $("tf-rules").value,
    time_control: $("tf-time").value,
    // (an empty or unreadable time: the server's sentence about 'starts')
    starts: Number.isFinite(startsMs) ? startsMs / 1000 : null,
    rated: $("tf-rated").checked,
    tiebreaks: $("tf-tiebreaks").value,
    over_the_board: $("tf-otb").checked,
  };
  if (format === "swiss") {
    body.rounds = Math.round(Number($("tf-rounds").value));
    body.half_byes = Math.round(Number($("tf-half-byes").value));
    body.half_bye_closed_rounds = Math.round(Number($("tf-half-bye-closed").value));
  }
  if (format === "round_robin") body.rounds = Number($("tf-cycles").value);
  if (format === "arena") body.minutes = Math.round(Number($("tf-minutes").value));
  $("tf-create").disabled = true;
  try {
    /** @type {{tournament: Tournament}} */
    const created = await postJson("/api/tournaments", body);
    location.assign(`/t/${encodeURIComponent(created.tournament.id)}`);
  } catch (err) {
    error.textContent = err instanceof Error ? err.message : String(err);
    show(error, true);
  } finally {
    $("tf-create").disabled = false;
  }
}

function showCreateForm() {
  const signedIn = Boolean(currentAccount());
  show($("tournament-form"), signedIn);
  show($("tournament-sign-in"), !signedIn);
}

/** The home page's card: the three lists, and the form for a signed-in player. */
export function startTournaments() {
  show($("tournaments"), true);
  for (const status of STATUSES) {
    /** @type {Promise<{tournaments: Tournament[]}>} */
    const request = api(`/api/tournaments?status=${status}`);
    request.then((body) => {
      listed[status] = body.tournaments;
      drawLists();
    }).catch(() => {});
  }
  drawLists();
  $("tf-starts").value = localInput(Date.now() + 15 * 60000);
  $("tf-format").addEventListener("change", showFormatFields);
  $("tf-variant").addEventListener("change", fillTournamentRules);
  $("tournament-form").addEventListener("submit", (/** @type {Event} */ event) => {
    event.preventDefault();
    createTournament();
  });
  showFormatFields();
  fillTournamentRules();
  fillTimeControls();
  loadOptions().then(() => {
    fillTournamentRules();
    fillTimeControls();
  }).catch(() => {});
  showCreateForm();
  onAccountChange(showCreateForm);
}

/** Draw the card's texts again (the language changed). */
export function refreshTournamentTexts() {
  if (!$("tournaments").hidden) {
    drawLists();
    fillTournamentRules();
    fillTimeControls();
  }
  if (page) page.draw();
}

// ---------------------------------------------------------------- a tournament's page

/** @param {string | null} result @returns {string} */
function resultText(result) {
  if (result === null) return "–";
  return result === "1/2-1/2" ? "½-½" : result;
}

/** @param {number} points @returns {string} */
function pointsText(points) {
  const whole = Math.floor(points);
  const half = points - whole >= 0.5;
  if (!half) return String(whole);
  return whole ? `${whole}½` : "½";
}

/** A table's header row.
 * @param {HTMLTableElement} table @param {string[]} names */
function headRow(table, names) {
  const row = make("tr");
  for (const name of names) row.appendChild(make("th", null, name));
  table.appendChild(make("thead")).appendChild(row);
}

/** @param {HTMLTableRowElement} row @param {unknown} text @param {string | null} [className] */
function cell(row, text, className) {
  return row.appendChild(make("td", className, text));
}

/** @returns {string[]} */
function openedGames() {
  try {
    const kept = JSON.parse(localStorage.getItem(OPENED_KEY) || "[]");
    return Array.isArray(kept) ? kept.filter((id) => typeof id === "string") : [];
  } catch {
    return [];
  }
}

/** @param {string} gameId */
function rememberOpened(gameId) {
  const kept = openedGames().filter((id) => id !== gameId).slice(-50);
  kept.push(gameId);
  try {
    localStorage.setItem(OPENED_KEY, JSON.stringify(kept));
  } catch {
    // (storage off: the game may open again on the next visit)
  }
}

/** Seconds as h:mm:ss, or m:ss under an hour.
 * @param {number} seconds @returns {string} */
function countdownText(seconds) {
  const whole = Math.ceil(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

class TournamentPage {
  /** @param {string} id */
  constructor(id) {
    this.id = id;
    /** @type {Tournament | null} */
    this.tournament = null;
    /** @type {string | null} the error that ended the page (no such tournament) */
    this.failed = null;
    /** @type {TournamentGame | null} the player's game of the round being played */
    this.game = null;
    /** @type {string | null} the game a `your_game` told of, until a reading lists it */
    this.pushed = null;
    this.asking = false;
    this.askingGame = false;
    show($("tournament-page"), true);
    $("tp-join").addEventListener("click", () => this.act("join", { code: $("tp-code").value }));
    $("tp-withdraw").addEventListener("click", () => this.act("withdraw", {}));
    $("tp-pause").addEventListener("click", () => this.act("pause", {}));
    $("tp-resume").addEventListener("click", () => this.act("resume", {}));
    $("tp-bye").addEventListener("click", () => this.act("bye", {}));
    $("tp-bye-cancel").addEventListener("click", () => {
      this.act("bye-cancel", { round: Number($("tp-bye-cancel").dataset.round) });
    });
    $("tp-pair").addEventListener("click", () => this.act("pair", this.tournament ? { revision: this.tournament.revision } : {}));
    $("tp-computer").addEventListener("click", () => {
      this.act("computer", { level: Number(/** @type {HTMLSelectElement} */ ($("tp-computer-level")).value) });
    });
    $("tp-player-form").addEventListener("submit", (/** @type {Event} */ event) => {
      event.preventDefault();
      const name = $("tp-player-name").value;
      this.direct("POST", "players", {
        name,
        club: $("tp-player-club").value,
        rating: Math.round(Number($("tp-player-rating").value) || 0),
      }, $("tp-add-player")).then((done) => {
        // (the page may show the entry before this answer: a director typing the next
        // name already keeps it)
        if (!done || $("tp-player-name").value !== name) return;
        $("tp-player-name").value = "";
        $("tp-player-name").focus();
      });
    });
    $("tp-unpair").addEventListener("click", () => this.direct("POST", "unpair", {}, $("tp-unpair")));
    $("tp-trf").href = `${tournamentPath(id)}/trf`;
    $("tp-pgn").href = `${tournamentPath(id)}/pgn`;
    // (the printed pages of an over-the-board tournament: its director's sheets)
    $("tp-print-pairings").href = `/t/${id}/print/pairings`;
    $("tp-print-sheets").href = `/t/${id}/print/scoresheets`;
    $("tp-print-standings").href = `/t/${id}/print/standings`;
    /** @type {TournamentChatLine[]} */
    this.lines = [];
    /** the last line sent (given back to the field if the server refuses it) */
    this.lastSaid = "";
    /** @type {Set<string>} the names whose lines this browser hides */
    this.muted = new Set(readMuted());
    $("tp-chat-form").addEventListener("submit", (/** @type {Event} */ event) => {
      event.preventDefault();
      this.say();
    });
    this.drawChat();
    // The page is sent the tournament whenever it changes (and after each reconnection),
    // and the chat's lines; the REST read answers at once, and after the page's own acts.
    this.socket = new Socket(`/ws/t/${encodeURIComponent(id)}`, {
      onMessage: (message) => this.onMessage(message),
    });
    this.socket.connect();
    this.refresh();
    setInterval(() => this.drawCountdown(), 1000);
  }

  /** @param {import("./net.js").ServerMessage} message */
  onMessage(message) {
    if (message.type === "tournament") {
      if (this.isOlder(message.tournament)) return;
      this.tournament = { ...message.tournament, you: message.you };
      this.failed = null;
      this.draw();
      this.findGame();
    } else if (message.type === "your_game") {
      // (the player's game was just made: told at once, the tournament's reading may come
      // up to a second later)
      this.pushed = message.game;
      this.openGame(message.game);
    } else if (message.type === "chat_history") {
      this.lines = message.lines.slice(-CHAT_LINES);
      this.drawChat();
    } else if (message.type === "chat") {
      this.lines.push(message.line);
      if (this.lines.length > CHAT_LINES) this.lines.shift();
      this.drawChat();
    } else if (message.type === "error") {
      if (message.code === "no_such_tournament") {
        this.failed = message.message;
        this.draw();
        return;
      }
      const node = $("tp-chat-error");
      const english = language() === "en";
      node.textContent = english || !["chat_flood", "chat_too_long"].includes(message.code)
        ? message.message
        : t(message.code === "chat_flood" ? "chatFlood" : "chatTooLong");
      show(node, true);
      const input = /** @type {HTMLInputElement} */ ($("tp-chat-input"));
      if (!input.value && this.lastSaid) input.value = this.lastSaid;
    }
  }

  /** Whether `tournament` is older than the one shown: the socket's reading of a change
   * and the page's own read after an act may come in either order, and a director's next
   * change is made on the revision shown.
   * @param {Tournament} tournament @returns {boolean} */
  isOlder(tournament) {
    return Boolean(this.tournament) && tournament.revision < /** @type {Tournament} */ (this.tournament).revision;
  }

  /** The account changed in this browser: the socket says hello again as who it is now. */
  reconnect() {
    this.socket.reopen();
    this.drawChat();
  }

  say() {
    const input = /** @type {HTMLInputElement} */ ($("tp-chat-input"));
    const text = input.value.trim();
    if (!text || !this.socket.send("chat", { text })) return;
    this.lastSaid = text;
    input.value = "";
    show($("tp-chat-error"), false);
  }

  /** @param {string} name */
  toggleMute(name) {
    if (this.muted.has(name)) this.muted.delete(name);
    else this.muted.add(name);
    try {
      localStorage.setItem(MUTED_KEY, JSON.stringify([...this.muted].slice(-MAX_MUTED)));
    } catch {
      // (a private window may refuse storage: the mute lasts for this page)
    }
    this.drawChat();
  }

  drawChat() {
    const account = currentAccount();
    show($("tp-chat-form"), Boolean(account));
    show($("tp-chat-sign-in"), !account);
    /** @type {HTMLInputElement} */ ($("tp-chat-input")).placeholder = t("chatPlaceholder");
    const list = $("tp-chat-lines");
    clear(list);
    /** @type {Set<string>} */
    const mutedHere = new Set();
    for (const line of this.lines) {
      if (this.muted.has(line.name)) {
        mutedHere.add(line.name);
        continue;
      }
      const item = list.appendChild(make("li", "chat-line"));
      item.append(make("span", "chat-name", line.name), make("span", "chat-text", line.text));
      if (!account || account.name !== line.name) {
        const mute = make("button", "chat-mute", t("chatMute"));
        mute.type = "button";
        mute.title = t("chatMuteTitle", { name: line.name });
        mute.addEventListener("click", () => this.toggleMute(line.name));
        item.appendChild(mute);
      }
    }
    if (!list.childElementCount) list.appendChild(make("li", "muted", t("tChatEmpty")));
    list.scrollTop = list.scrollHeight;
    const mutedList = $("tp-chat-muted");
    clear(mutedList);
    for (const name of mutedHere) {
      const item = mutedList.appendChild(make("li", "chat-muted-sender"));
      item.appendChild(make("span", null, t("chatMutedName", { name })));
      const unmute = make("button", "chat-unmute", t("chatUnmute"));
      unmute.type = "button";
      unmute.addEventListener("click", () => this.toggleMute(name));
      item.appendChild(unmute);
    }
    show(mutedList, mutedHere.size > 0);
  }

  /** The countdown to the start, or to a running arena's end (by this computer's clock). */
  drawCountdown() {
    const tournament = this.tournament;
    const countdown = $("tp-countdown");
    const now = Date.now() / 1000;
    let text = "";
    if (tournament && tournament.status === "created" && tournament.starts > now) {
      text = t("tStartsIn", { time: countdownText(tournament.starts - now) });
    } else if (tournament && tournament.status === "running" && tournament.format === "arena") {
      const end = tournament.starts + tournament.minutes * 60;
      text = end > now ? t("tEndsIn", { time: countdownText(end - now) }) : t("tEnding");
    }
    countdown.textContent = text;
    show(countdown, text !== "");
  }

  async refresh() {
    if (this.asking || this.failed) return;
    this.asking = true;
    try {
      /** @type {{tournament: Tournament}} */
      const body = await api(tournamentPath(this.id));
      if (this.isOlder(body.tournament)) return;
      this.tournament = body.tournament;
      this.draw();
      this.findGame();
    } catch (err) {
      if (!this.tournament) {
        this.failed = err instanceof Error ? err.message : String(err);
        this.draw();
      }
    } finally {
      this.asking = false;
    }
  }

  /** POST .../join, .../withdraw, .../pause, .../resume, .../bye, .../bye/cancel,
   * .../pair or .../computer (by its button, `tp-{action}`); a refusal's sentence is shown
   * by the buttons.
   * @param {"join" | "withdraw" | "pause" | "resume" | "bye" | "bye-cancel" | "pair" | "computer"} action
   * @param {Record<string, unknown>} data */
  async act(action, data) {
    const error = $("tp-error");
    show(error, false);
    const button = $(`tp-${action}`);
    button.disabled = true;
    try {
      await postJson(`${tournamentPath(this.id)}/${action.replace("-", "/")}`, data);
    } catch (err) {
      error.textContent = err instanceof Error ? err.message : String(err);
      show(error, true);
    } finally {
      button.disabled = false;
    }
    this.asking = false;
    await this.refresh();
  }

  /** An over-the-board director's change (a player entered or removed, a result entered or
   * corrected, a board's moves, a pairing undone) on the revision the page shows: two
   * directors editing one round get the server's sentence, not each other's edits lost.
   * @param {"POST" | "DELETE"} method @param {string} path @param {Record<string, unknown>} data
   * @param {HTMLButtonElement} button @returns {Promise<boolean>} whether it was done */
  async direct(method, path, data, button) {
    const error = $("tp-error");
    show(error, false);
    button.disabled = true;
    const revision = this.tournament ? this.tournament.revision : undefined;
    let done = false;
    try {
      const url = `${tournamentPath(this.id)}/${path}`;
      if (method === "DELETE") {
        await api(revision === undefined ? url : `${url}?revision=${revision}`, { method });
      } else {
        await postJson(url, { ...data, revision });
      }
      done = true;
    } catch (err) {
      error.textContent = err instanceof Error ? err.message : String(err);
      show(error, true);
    } finally {
      button.disabled = false;
    }
    this.asking = false;
    await this.refresh();
    return done;
  }

  /** The player's board of the round being played, without a result yet (or null).
   * @returns {TournamentBoard | null} */
  myOpenBoard() {
    const tournament = this.tournament;
    const me = tournament && tournament.you ? tournament.you.entrant : null;
    if (!tournament || !me) return null;
    const boards = tournament.format === "arena"
      ? tournament.games || []
      : (tournament.paired || []).at(-1) || [];
    const mine = boards.find((board) => board.result === null && board.black !== null && (board.red === me || board.black === me));
    return mine || null;
  }

  /** Once the player is paired, their game's link; the first time, the game opens. */
  async findGame() {
    const board = this.myOpenBoard();
    if (board && board.game === this.pushed) this.pushed = null; // (a reading lists it now)
    if (!board || !board.game) {
      // (a game told by `your_game` that no reading has listed yet stays: the reading
      // shown was taken before it was made)
      if (this.game && this.game.game_id === this.pushed) return;
      this.game = null;
      this.drawYourGame();
      return;
    }
    await this.openGame(board.game);
  }

  /** The player's game `gameId`: its seat asked for, its link shown and, the first time,
   * the game opened (with a sound).
   * @param {string} gameId */
  async openGame(gameId) {
    if (this.askingGame || (this.game && this.game.game_id === gameId)) return;
    this.askingGame = true;
    try {
      /** @type {{game: TournamentGame}} */
      const body = await postJson(`${tournamentPath(this.id)}/game`, {});
      this.game = body.game;
    } catch {
      this.game = null; // (not made yet, or the round moved on: asked again at the next change)
    } finally {
      this.askingGame = false;
    }
    this.drawYourGame();
    const game = this.game;
    if (game && !openedGames().includes(game.game_id)) {
      rememberOpened(game.game_id);
      playSound("check");
      location.assign(this.gameLink(game));
    }
  }

  /** @param {TournamentGame} game @returns {string} */
  gameLink(game) {
    const link = `/g/${encodeURIComponent(game.game_id)}?t=${encodeURIComponent(game.token)}`;
    // (an arena's game: its page offers the berserk before the first move)
    const arena = this.tournament && this.tournament.format === "arena";
    return arena ? `${link}&arena=${encodeURIComponent(this.id)}` : link;
  }

  drawYourGame() {
    const card = $("tp-your-game");
    show(card, Boolean(this.game));
    if (this.game) $("tp-your-game-link").href = this.gameLink(this.game);
  }

  draw() {
    const tournament = this.tournament;
    if (this.failed) {
      $("tp-name").textContent = t("tNotFound");
      $("tp-settings").textContent = this.failed;
      for (const id of ["tp-actions", "tp-pairings-card", "tp-standings-card", "tp-entrants-card", "tp-chat"]) show($(id), false);
      return;
    }
    if (!tournament) return;
    document.title = `${tournament.name} · ${t("title")}`;
    $("tp-name").textContent = tournament.name;
    $("tp-settings").textContent = settingsText(tournament);
    const tiebreakOrder = tournament.tiebreaks.map((name) => t(`tb_${name}`)).join(", ");
    $("tp-when").textContent = tournament.status === "created"
      ? t("tStarts", { when: when(tournament.starts) })
      : t(`tstatus_${tournament.status}`);
    $("tp-tiebreak-order").textContent = tournament.format === "arena" ? "" : t("tTieBreakOrder", { order: tiebreakOrder });
    this.drawCountdown();
    this.drawActions(tournament);
    this.drawPairings(tournament);
    this.drawStandings(tournament);
    this.drawEntrants(tournament);
    this.drawYourGame();
  }

  /** @param {Tournament} tournament */
  drawActions(tournament) {
    const you = tournament.you || { director: false, entrant: null };
    const signedIn = Boolean(currentAccount());
    const entrant = (tournament.entrants || []).find((e) => e.name === you.entrant);
    const inIt = Boolean(entrant && entrant.withdrawn_after === null);
    const open = tournament.status !== "finished";
    // (over the board, the director enters the players: nobody joins, no computer plays)
    const otb = Boolean(tournament.over_the_board);
    show($("tp-actions"), true);
    show($("tp-join"), signedIn && open && !entrant && !otb);
    show($("tp-code-row"), signedIn && open && !entrant && !otb && tournament.entry === "code");
    show($("tp-withdraw"), open && inIt);
    // (a round robin's table is fixed: its players withdraw, they do not pause)
    const pausable = open && inIt && tournament.format !== "round_robin";
    show($("tp-pause"), pausable && !(entrant && entrant.paused));
    show($("tp-resume"), pausable && Boolean(entrant && entrant.paused));
    // (a Swiss player asks for a half-point bye in the next round, and calls it off until
    // that round is paired)
    const next = (tournament.paired || []).length + 1;
    const byes = entrant && entrant.byes ? entrant.byes : [];
    const pending = byes.find((round) => round >= next);
    const closed = tournament.rounds - (tournament.half_bye_closed_rounds || 0);
    show($("tp-bye"), open && inIt && !otb && tournament.format === "swiss" && pending === undefined
      && byes.length < (tournament.half_byes || 0) && next <= closed);
    show($("tp-bye-cancel"), open && inIt && !otb && pending !== undefined);
    $("tp-bye-cancel").textContent = t("tCancelHalfBye", { n: pending || next });
    $("tp-bye-cancel").dataset.round = String(pending || next);
    show($("tp-sign-in"), !signedIn && open && !otb);
    const arena = tournament.format === "arena";
    show($("tp-pair"), you.director && open && !(arena && tournament.status === "running"));
    $("tp-pair").textContent = t(arena ? "tStart" : "tPairNext");
    // (the director enters computer players: the server's computer plays their games)
    for (const id of ["tp-computer", "tp-computer-row"]) show($(id), you.director && open && !otb);
    show($("tp-trf"), !arena && (tournament.paired || []).length > 0);
    const directing = you.director && Boolean(tournament.over_the_board) && tournament.status !== "finished";
    show($("tp-otb"), directing);
    show($("tp-player-form"), directing && !(tournament.paired || []).length);
    show($("tp-unpair"), directing && (tournament.paired || []).length > 0);
    show($("tp-print"), Boolean(tournament.over_the_board) && (tournament.paired || []).length > 0);
    show($("tp-pgn"), Boolean(tournament.over_the_board) || (arena ? tournament.games || [] : (tournament.paired || []).flat()).some((board) => board.game));
  }

  /** The round being played (or the arena's games, newest first), each with a link to watch.
   * @param {Tournament} tournament */
  drawPairings(tournament) {
    const arena = tournament.format === "arena";
    const rounds = tournament.paired || [];
    const boards = arena ? [...(tournament.games || [])].reverse() : rounds.at(-1) || [];
    show($("tp-pairings-card"), boards.length > 0);
    const directing = Boolean(tournament.you && tournament.you.director && tournament.over_the_board);
    // (a director's result and moves fields are not redrawn under their typing by each change)
    const drawn = `${tournament.revision} ${language()}`;
    if (directing && $("tp-pairings").dataset.drawn === drawn) return;
    $("tp-pairings").dataset.drawn = drawn;
    // (an arena's page is sent its games in play and its newest finished, not all of them)
    const total = tournament.games_count || boards.length;
    $("tp-pairings-title").textContent = !arena ? t("tRound", { n: rounds.length })
      : total > boards.length ? t("tArenaGamesOf", { shown: boards.length, n: total }) : t("tArenaGames");
    const table = $("tp-pairings");
    clear(table);
    headRow(table, [t("tBoard"), t(tournament.variant === "janggi" ? "cho" : "red"), t("tResult"), t(tournament.variant === "janggi" ? "han" : "black"), ""]);
    const body = table.appendChild(make("tbody"));
    for (const board of boards) {
      const row = body.appendChild(make("tr"));
      row.dataset.board = String(board.board);
      cell(row, board.board);
      cell(row, board.red, "tp-red");
      cell(row, board.black === null ? "" : resultText(board.result), "tp-result");
      cell(row, board.black === null ? t("tBye") : board.black, "tp-black");
      const watch = cell(row, "");
      if (directing && board.black !== null) this.drawResultFields(watch, rounds.length, board);
      if (board.game) {
        const link = make("a", "tp-watch", t("tWatch"));
        link.href = `/w/${encodeURIComponent(board.game)}`;
        watch.appendChild(link);
      }
    }
    // (the round's players on a half-point bye they asked for: on no board)
    for (const name of arena ? [] : (tournament.requested_byes || []).at(-1) || []) {
      const row = body.appendChild(make("tr", "tp-half-bye"));
      cell(row, "");
      cell(row, name, "tp-red");
      cell(row, "½", "tp-result");
      cell(row, t("tHalfBye"), "tp-black");
      cell(row, "");
    }
  }

  /** The director's fields for a board over the board: its result (entered, or corrected)
   * and its moves.
   * @param {HTMLElement} where @param {number} round @param {TournamentBoard} board */
  drawResultFields(where, round, board) {
    const select = make("select", "tp-result-select");
    for (const result of ["1-0", "1/2-1/2", "0-1", "+-", "-+", "--"]) {
      const option = make("option", null, resultText(result));
      option.value = result;
      select.appendChild(option);
    }
    if (board.result) select.value = board.result;
    const enter = make("button", "tp-enter-result", t(board.result ? "pCorrect" : "pEnter"));
    enter.type = "button";
    enter.addEventListener("click", () => {
      this.direct("POST", board.result ? "correct" : "result", { round, board: board.board, result: select.value }, enter);
    });
    const moves = make("input", "tp-moves");
    moves.placeholder = t("pMoves");
    moves.value = board.moves || "";
    const save = make("button", "tp-save-moves", t("pSaveMoves"));
    save.type = "button";
    save.addEventListener("click", () => {
      this.direct("POST", "moves", { round, board: board.board, moves: moves.value }, save);
    });
    where.append(select, enter, moves, save);
  }

  /** @param {Tournament} tournament */
  drawStandings(tournament) {
    const lines = tournament.standings || [];
    show($("tp-standings-card"), lines.length > 0);
    const table = $("tp-standings");
    clear(table);
    const tiebreaks = tournament.format === "arena" ? [] : tournament.tiebreaks;
    headRow(table, ["#", t("accountName"), t("tPoints"), ...tiebreaks.map((name) => t(`tb_${name}`))]);
    const body = table.appendChild(make("tbody"));
    for (const line of lines) {
      const row = body.appendChild(make("tr"));
      row.dataset.name = line.name;
      cell(row, line.rank);
      const name = cell(row, "");
      const link = make("a", null, line.name);
      link.href = `/p/${encodeURIComponent(line.name)}`;
      name.appendChild(link);
      cell(row, pointsText(line.points), "tp-points");
      for (const tiebreak of tiebreaks) {
        const value = line.tiebreaks ? line.tiebreaks[tiebreak] : undefined;
        cell(row, value === undefined ? "" : Number.isInteger(value) ? value : value.toFixed(2));
      }
    }
  }

  /** @param {Tournament} tournament */
  drawEntrants(tournament) {
    const entrants = tournament.entrants || [];
    $("tp-entrants-title").textContent = t("tEntrants", { n: entrants.length });
    const list = $("tp-entrants");
    clear(list);
    for (const entrant of entrants) {
      const withdrawn = entrant.withdrawn_after !== null ? ` · ${t("tWithdrawn")}`
        : entrant.paused ? ` · ${t("tPaused")}` : "";
      const late = entrant.first_round > 1 ? ` · ${t("tFromRound", { n: entrant.first_round })}` : "";
      const byes = (entrant.byes || []).map((round) => ` · ${t("tHalfByeIn", { n: round })}`).join("");
      const club = entrant.club ? ` · ${entrant.club}` : "";
      const item = list.appendChild(make("li", null, `${entrant.name} (${entrant.rating})${club}${late}${byes}${withdrawn}`));
      const id = entrant.id;
      if (id && tournament.you && tournament.you.director && !(tournament.paired || []).length) {
        const remove = make("button", "tp-remove", t("pRemove"));
        remove.type = "button";
        remove.addEventListener("click", () => this.direct("DELETE", `players/${id.slice(2)}`, {}, remove));
        item.append(" ", remove);
      }
      // (over the board, the director marks a player absent from a Swiss's rounds to come:
      // a zero-point bye in each, until marked present again; a round robin's table is fixed)
      if (id && tournament.you && tournament.you.director && tournament.over_the_board
        && tournament.format === "swiss" && tournament.status !== "finished" && entrant.withdrawn_after === null) {
        const absent = make("button", "tp-absent", t(entrant.paused ? "pPresent" : "pAbsent"));
        absent.type = "button";
        absent.addEventListener("click", () => this.direct("POST", `players/${id.slice(2)}/${entrant.paused ? "resume" : "pause"}`, {}, absent));
        item.append(" ", absent);
        // (and gives a player the half-point bye they asked for, or calls it off)
        const next = (tournament.paired || []).length + 1;
        const byes = entrant.byes || [];
        const pending = byes.find((round) => round >= next);
        const closed = tournament.rounds - (tournament.half_bye_closed_rounds || 0);
        if (pending !== undefined || (byes.length < (tournament.half_byes || 0) && next <= closed)) {
          const bye = make("button", "tp-half-bye-button", pending === undefined ? t("pHalfBye") : t("pCancelHalfBye", { n: pending }));
          bye.type = "button";
          bye.addEventListener("click", () => this.direct("POST", `players/${id.slice(2)}/bye${pending === undefined ? "" : "/cancel"}`, pending === undefined ? {} : { round: pending }, bye));
          item.append(" ", bye);
        }
      }
    }
    if (!entrants.length) list.appendChild(make("li", "muted", t("tNoEntrants")));
  }
}

/** @type {TournamentPage | null} */
let page = null;

/** "/t/{id}": the tournament's page.
 * @param {string} id */
export function showTournament(id) {
  page = new TournamentPage(id);
  onAccountChange(() => {
    if (page) {
      page.asking = false;
      page.reconnect();
      page.refresh();
    }
  });
}
