// @ts-check
// The live lobby on the home page: the open seeks as they come and go, quick-pairing
// buttons, posting a seek, challenging a named player, accepting, cancelling and declining.
// One websocket (/ws/lobby, docs/web-protocol.md); a signed-in player is known by the session
// cookie, an anonymous one by a secret this browser keeps (never shown to anyone). When a
// seek is accepted the server sends this page its seat, and the page goes to the game.

import { checkAccount, currentAccount, onAccountChange } from "./account.js";
import * as api from "./api.js";
import { $, clear, make, show, toast } from "./dom.js";
import { sideName, t } from "./i18n.js";
import { Socket } from "./net.js";
import { rememberGame } from "./settings.js";

const VISITOR_KEY = "chuhan.visitor";
const QUICK_CONTROLS = ["3+2", "5+3", "10+5", "15+10", "20 3x30"];
const SEEK_CONTROLS = [
  "5+3", "10+5", "15+10", "30+20", "20 3x30", "10 5x20", "1d", "2d", "3d", "5d", "7d", "10d", "14d", "none",
];

/** A seek's time control as its menu shows it ("Correspondence: 3 days per move").
 * @param {string} control @returns {string} */
function controlLabel(control) {
  if (control === "none") return t("untimed");
  const days = control.match(/^(\d+)d$/);
  if (days) return Number(days[1]) === 1 ? t("corrOptionOne") : t("corrOption", { n: Number(days[1]) });
  return control;
}

/** @type {Socket | null} */
let socket = null;
/**
 * An open seek as the server lists it (docs/web-protocol.md, the lobby).
 * @typedef {{id: string, game: string, rules: string, name: string, mine: boolean,
 *   [field: string]: any}} Seek
 */
/** @type {Seek[]} */
let seeks = [];
/** @type {string | null} the account name the socket was opened with ("" anonymous) */
let signedInAs = null;

/** This browser's lobby secret: 32 random URL-safe characters, made once. */
function visitorSecret() {
  let secret = null;
  try {
    secret = localStorage.getItem(VISITOR_KEY);
  } catch {
    // (private windows: a secret for this page only)
  }
  if (!secret || !/^[A-Za-z0-9_-]{16,100}$/.test(secret)) {
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    secret = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    try {
      localStorage.setItem(VISITOR_KEY, secret);
    } catch {
      // (as above)
    }
  }
  return secret;
}

/** @param {string} type @param {Record<string, unknown>} [fields] */
function send(type, fields = {}) {
  if (!socket || !socket.send(type, fields)) showError(t("lobbyOffline"));
}

/** @param {string} message */
function showError(message) {
  const line = $("lobby-error");
  line.textContent = message;
  show(line, Boolean(message));
}

/** The lobby's socket: the hello names this browser; the seek list comes after each
 * welcome, so a reconnected lobby is whole again. */
function connect() {
  socket = new Socket("/ws/lobby", {
    hello: () => ({ visitor: visitorSecret() }),
    onMessage: receive,
    onStatus: (status) => {
      if (status === "connecting") { // (the session cookie goes with the new socket)
        const account = currentAccount();
        signedInAs = account ? account.name : "";
      } else if (status !== "open") {
        $("lobby").classList.add("offline");
      }
    },
  });
  socket.connect();
}

/** @param {import("./net.js").ServerMessage} message */
function receive(message) {
  if (message.type === "welcome") {
    $("lobby").classList.remove("offline");
    const known = message.you.signed_in ? message.you.name : "";
    $("lobby").dataset.player = known;
    // (the session ended elsewhere, or began in another tab: the menu asks the server)
    if (known !== signedInAs) checkAccount();
  } else if (message.type === "seeks") {
    seeks = message.seeks;
    drawSeeks();
  } else if (message.type === "ack") {
    showError("");
  } else if (message.type === "paired") {
    const seek = seeks.find((s) => s.id === message.seek);
    rememberGame({
      game_id: message.game_id, token: message.token, seat: message.seat, kind: "friend",
      variant: seek ? seek.game : undefined, watch_url: message.watch_url,
    });
    if (socket) socket.close(); // the page goes to the game
    location.href = message.seat_url;
  } else if (message.type === "declined") {
    toast(t("declinedBy", { name: message.by }));
  } else if (message.type === "expired") {
    toast(t("challengeExpired", { name: message.to }));
  } else if (message.type === "error") {
    // The server's sentence; other languages show their words with it on hover.
    showError(t("error", { message: message.message }));
  }
}

/** @param {Seek} seek */
function seekText(seek) {
  const who = seek.rating === null || seek.rating === undefined
    ? seek.name
    : `${seek.name} ${seek.rating}${seek.provisional ? "?" : ""}`;
  const parts = [who, t(seek.game), t(`rules_${seek.rules}`)];
  parts.push(seek.time_control ? controlLabel(seek.time_control) : t("untimed"));
  parts.push(seek.rated ? t("rated") : t("casual"));
  parts.push(seek.color === "random" ? t("random") : sideName(seek.game, seek.color === "first"));
  if (seek.range) parts.push(t("ratingRangeShown", { low: seek.range[0] ?? "…", high: seek.range[1] ?? "…" }));
  if (seek.quick) parts.push(t("quickPair"));
  return parts.join(" · ");
}

/** @param {string} text @param {string | null} className @param {() => void} action */
function button(text, className, action) {
  const node = make("button", className, text);
  node.type = "button";
  node.addEventListener("click", action);
  return node;
}

function drawSeeks() {
  const list = $("lobby-seeks");
  if (!list) return;
  clear(list);
  show($("lobby-empty"), seeks.length === 0);
  // (the challenges waiting for this player first: they may have been sent days ago)
  const forMe = (/** @type {Seek} */ seek) => (seek.challenge && !seek.mine ? 0 : 1);
  for (const seek of [...seeks].sort((a, b) => forMe(a) - forMe(b))) {
    const item = make("li", "seek");
    item.dataset.seek = seek.id;
    item.dataset.mine = seek.mine ? "true" : "false";
    if (seek.challenge) {
      item.classList.add("challenge");
      const label = seek.mine
        ? t("challengeTo", { name: seek.challenge.to })
        : t("challengeFrom", { name: seek.challenge.from });
      item.appendChild(make("strong", null, label));
    }
    item.appendChild(make("span", "seek-text", seekText(seek)));
    if (seek.expires_ms) {
      const until = new Date(seek.expires_ms).toLocaleString();
      item.appendChild(make("span", "seek-expires muted", ` · ${t("challengeUntil", { date: until })}`));
    }
    if (seek.mine) {
      item.classList.add("mine");
      item.appendChild(button(t("cancel"), "seek-cancel", () => send("cancel", { seek: seek.id })));
    } else {
      item.appendChild(button(t("accept"), "seek-accept primary", () => send("accept", { seek: seek.id })));
      if (seek.challenge) {
        item.appendChild(button(t("decline"), "seek-decline", () => send("decline", { seek: seek.id })));
      }
    }
    list.appendChild(item);
  }
}

/** @param {string} value @param {string} text */
function option(value, text) {
  const node = make("option", null, text);
  node.value = value;
  return node;
}

/** @returns {Record<string, unknown>} */
function gameFields() {
  /** @type {Record<string, unknown>} */
  const fields = { variant: $("lobby-game").value };
  const rated = Boolean(currentAccount()) && $("lobby-rated").checked;
  if (rated) fields.rated = true;
  for (const [id, name] of [["lobby-min", "rating_min"], ["lobby-max", "rating_max"]]) {
    const value = $(id).value.trim();
    if (value) fields[name] = Math.round(Number(value));
  }
  return fields;
}

function drawForm() {
  const card = $("lobby");
  clear(card);
  card.appendChild(make("h2", null, t("lobbyTitle")));

  const game = make("select");
  game.id = "lobby-game";
  game.appendChild(option("xiangqi", t("xiangqi")));
  game.appendChild(option("janggi", t("janggi")));
  const gameRow = make("label", "row");
  gameRow.appendChild(make("span", null, t("game")));
  gameRow.appendChild(game);
  card.appendChild(gameRow);

  const rated = make("input");
  rated.type = "checkbox";
  rated.id = "lobby-rated";
  const ratedRow = make("label", "check");
  ratedRow.id = "lobby-rated-row";
  ratedRow.appendChild(rated);
  ratedRow.appendChild(make("span", null, t("ratedGame")));
  card.appendChild(ratedRow);

  const quick = make("div", "quick-buttons");
  quick.appendChild(make("span", "muted", t("quickPair")));
  for (const control of QUICK_CONTROLS) {
    const node = button(control, "quick-button", () => send("quick", { ...gameFields(), time_control: control }));
    node.dataset.tc = control;
    quick.appendChild(node);
  }
  card.appendChild(quick);

  const form = make("div", "seek-form");
  const tc = make("select");
  tc.id = "lobby-tc";
  for (const control of SEEK_CONTROLS) tc.appendChild(option(control, controlLabel(control)));
  tc.value = "10+5";
  const colour = make("select");
  colour.id = "lobby-colour";
  colour.appendChild(option("random", t("random")));
  colour.appendChild(option("first", sideName("xiangqi", true)));
  colour.appendChild(option("second", sideName("xiangqi", false)));
  const low = make("input");
  low.id = "lobby-min";
  low.type = "number";
  low.min = "0";
  low.max = "4000";
  low.placeholder = t("ratingFrom");
  const high = make("input");
  high.id = "lobby-max";
  high.type = "number";
  high.min = "0";
  high.max = "4000";
  high.placeholder = t("ratingTo");
  for (const [label, input] of [["timeControl", tc], ["colour", colour], ["ratingRange", low]]) {
    const row = make("label", "row");
    row.appendChild(make("span", null, t(label)));
    row.appendChild(input);
    if (input === low) row.appendChild(high);
    form.appendChild(row);
  }
  const post = button(t("postSeek"), "primary", () => send("seek", {
    ...gameFields(), time_control: tc.value, color: colour.value,
  }));
  post.id = "lobby-post";
  form.appendChild(post);
  const challengeRow = make("div", "row");
  const name = make("input");
  name.id = "lobby-challenge-name";
  name.placeholder = t("challengeName");
  name.autocomplete = "off";
  const challenge = button(t("challenge"), null, () => send("challenge", {
    ...gameFields(), time_control: tc.value, color: colour.value, to: name.value.trim(),
  }));
  challenge.id = "lobby-challenge";
  challengeRow.appendChild(name);
  challengeRow.appendChild(challenge);
  form.appendChild(challengeRow);
  card.appendChild(form);

  game.addEventListener("change", () => {
    colour.options[1].textContent = sideName(game.value, true);
    colour.options[2].textContent = sideName(game.value, false);
  });
  const error = make("p", "form-error");
  error.id = "lobby-error";
  error.hidden = true;
  card.appendChild(error);
  card.appendChild(make("h3", null, t("openSeeks")));
  const empty = make("p", "muted", t("noSeeks"));
  empty.id = "lobby-empty";
  card.appendChild(empty);
  const list = make("ul", "seek-list");
  list.id = "lobby-seeks";
  card.appendChild(list);
  showRated();
  drawSeeks();
}

function showRated() {
  show($("lobby-rated-row"), Boolean(currentAccount()));
}

/** Draw the lobby again in the language just chosen (what is typed is kept). */
export function refreshLobbyTexts() {
  drawWatch();
  if (!$("lobby")) return;
  /** @type {Record<string, string>} */
  const kept = {};
  for (const id of ["lobby-game", "lobby-tc", "lobby-colour", "lobby-min", "lobby-max", "lobby-challenge-name"]) {
    kept[id] = $(id).value;
  }
  const rated = $("lobby-rated").checked;
  drawForm();
  for (const [id, value] of Object.entries(kept)) $(id).value = value;
  $("lobby-rated").checked = rated;
}

/** Put the lobby on the home page and connect. */
/** @type {import("./protocol.js").LobbyWatch | null} the last answer */
let watching = null;
const WATCH_EVERY_MS = 10000;

/** The card of the games to watch and of who is in the lobby. */
function drawWatch() {
  const card = $("watch");
  if (!card) return;
  clear(card);
  card.appendChild(make("h2", null, t("watchTitle")));
  if (!watching) return;
  const online = watching.online;
  const line = make("p", "muted", online.names.length
    ? t("onlineNamed", { n: online.count, names: online.names.join(", ") })
    : t("online", { n: online.count }));
  line.id = "watch-online";
  card.appendChild(line);
  if (!watching.games.length) {
    card.appendChild(make("p", "muted", t("watchNone")));
    return;
  }
  const list = make("ul", "watch-list");
  for (const game of watching.games) {
    const names = game.kind === "computer"
      ? [game.names.first || game.names.second || "", t("computerLevel", { n: game.level })]
      : [game.names.first || sideName(game.variant, true), game.names.second || sideName(game.variant, false)];
    const parts = [t(game.variant), names.filter(Boolean).join(" – ")];
    if (game.time_control) parts.push(game.time_control);
    if (game.rated) parts.push(t("rated"));
    const item = make("li");
    const link = make("a", null, parts.join(" · "));
    link.href = game.watch_url;
    item.appendChild(link);
    list.appendChild(item);
  }
  card.appendChild(list);
}

/** Ask for the games to watch now, then every few seconds while the page is shown. */
async function refreshWatch() {
  if (!document.hidden) {
    try {
      watching = await api.lobbyWatch();
      drawWatch();
    } catch {
      // (the card keeps what it showed; the next turn asks again)
    }
  }
  setTimeout(refreshWatch, WATCH_EVERY_MS);
}

export function startLobby() {
  const card = make("div", "card lobby");
  card.id = "lobby";
  $("home").prepend(card);
  const watch = make("div", "card watch");
  watch.id = "watch";
  card.after(watch);
  drawWatch();
  refreshWatch();
  drawForm();
  // (a profile's "Challenge" link: /?challenge=Name fills the name in)
  const named = new URLSearchParams(location.search).get("challenge");
  if (named) {
    $("lobby-challenge-name").value = named.slice(0, 80);
    $("lobby-challenge-name").focus();
  }
  connect();
  onAccountChange((/** @type {{name: string} | null} */ account) => {
    showRated();
    const name = account ? account.name : "";
    // (signed in or out: the lobby knows the player anew)
    if (name !== signedInAs && socket) socket.reopen();
  });
  window.addEventListener("pagehide", () => {
    if (socket) socket.close();
  });
}
