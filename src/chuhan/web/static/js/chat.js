// @ts-check
// The game page's chat box. Players talk in the players' room, spectators in the
// spectators' room; as on lichess neither sees the other's (the server sends each only its
// own). A spectator can hide the spectators' chat with a switch, and anyone can mute a
// sender: both are kept in localStorage. The server enforces the length and flood limits;
// its refusal is shown under the box.

import { $, clear, make, show } from "./dom.js";
import { language, t } from "./i18n.js";

const MUTED_KEY = "chuhan.muted";
const HIDE_SPECTATORS_KEY = "chuhan.hideSpectatorChat";
const GUEST_KEY = "chuhan.guestName";
const MAX_MUTED = 500;
const MAX_LINES = 200; // lines kept on the page
const MAX_CHARS = 300; // the server's limit, for the counter only: the server decides
export const CHAT_ERRORS = new Set(["chat_too_long", "chat_flood"]);

/** @typedef {import("./protocol.js").ChatLine} ChatLine */

/** What was kept under `key`, else `fallback`: of the fallback's type, as this page wrote it
 * (nothing checks it).
 * @template T @param {string} key @param {T} fallback @returns {T} */
function readJson(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : fallback;
  } catch {
    return fallback;
  }
}

/** @param {string} key @param {unknown} value */
function writeJson(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private windows may refuse storage: the choice then lasts for this page only.
  }
}

/** The name this browser's spectator chat lines carry (made up once, then kept).
 * @returns {string} */
export function guestName() {
  let name = readJson(GUEST_KEY, /** @type {string | null} */ (null));
  if (typeof name !== "string" || !name) {
    name = `Guest-${Math.floor(1000 + Math.random() * 9000)}`;
    writeJson(GUEST_KEY, name);
  }
  return name;
}

/** Who sent a line, as a mute remembers it: a seat of this game, or a spectator's name.
 * @param {string} gameId @param {ChatLine} message */
function senderKey(gameId, message) {
  return message.room === "spectators"
    ? `${gameId}:spectator:${message.name}`
    : `${gameId}:${message.from}`;
}

export class ChatBox {
  /** @param {import("./game-view.js").GameView} view the game view (its game id, role,
   *   state and connection) */
  constructor(view) {
    this.view = view;
    /** @type {ChatLine[]} */
    this.messages = [];
    this.lastSent = "";
    /** @type {Set<string>} the muted senders (senderKey) */
    this.muted = new Set(readJson(MUTED_KEY, /** @type {string[]} */ ([])));
    this.hideSpectators = readJson(HIDE_SPECTATORS_KEY, /** @type {boolean} */ (false)) === true;
    $("chat-form").addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      this.send();
    });
    $("chat-input").addEventListener("input", () => this.renderCounter());
    const toggle = $("chat-hide");
    toggle.checked = this.hideSpectators;
    toggle.addEventListener("change", () => {
      this.hideSpectators = toggle.checked;
      writeJson(HIDE_SPECTATORS_KEY, this.hideSpectators);
      this.render();
    });
  }

  room() {
    return this.view.role === "watcher" ? "spectators" : "players";
  }

  /** Whether the box is shown: spectators always have their room; players only when a
   * person plays the other side (a computer or one's own screen has no one to talk to). */
  wanted() {
    const state = this.view.state;
    if (!state || !this.view.role) return false;
    if (this.view.role === "watcher") return true;
    return this.view.role !== "both" && state.kind === "friend";
  }

  /** @param {ChatLine[]} messages the room's last lines */
  onHistory(messages) {
    this.messages = messages.slice(-MAX_LINES);
    this.render();
  }

  /** @param {ChatLine} message */
  onMessage(message) {
    if ((message.room || "players") !== this.room()) return; // (an older server sends all)
    this.messages.push(message);
    if (this.messages.length > MAX_LINES) this.messages.shift();
    this.render();
  }

  /** The server refused a line: say why under the box (and give the text back).
   * @param {import("./protocol.js").ErrorMessage} error */
  onError(error) {
    const english = language() === "en";
    const node = $("chat-error");
    node.textContent = english ? error.message : t(error.code === "chat_flood" ? "chatFlood" : "chatTooLong");
    node.title = english ? "" : error.message;
    show(node, true);
    const input = $("chat-input");
    if (!input.value && this.lastSent) input.value = this.lastSent;
    this.renderCounter();
  }

  send() {
    const input = $("chat-input");
    const text = input.value.trim();
    if (!text) return;
    if (!this.view.connection.send("chat", { text })) return;
    this.lastSent = text;
    input.value = "";
    show($("chat-error"), false);
    this.renderCounter();
  }

  /** @param {string} key a sender (senderKey) */
  toggleMute(key) {
    if (this.muted.has(key)) this.muted.delete(key);
    else this.muted.add(key);
    writeJson(MUTED_KEY, [...this.muted].slice(-MAX_MUTED));
    this.render();
  }

  /** @param {ChatLine} message */
  isMine(message) {
    const role = this.view.role;
    if (message.room === "spectators") return role === "watcher" && message.name === guestName();
    return message.from === role;
  }

  renderCounter() {
    const length = [...$("chat-input").value.trim()].length;
    const counter = $("chat-count");
    counter.textContent = `${length}/${MAX_CHARS}`;
    counter.classList.toggle("over", length > MAX_CHARS);
    show(counter, length > MAX_CHARS * 0.8);
  }

  render() {
    const box = $("chat");
    show(box, this.wanted());
    if (!this.wanted()) return;
    const spectator = this.view.role === "watcher";
    $("chat-title").textContent = spectator ? t("chatSpectators") : t("chatPlayers");
    $("chat-input").placeholder = t("chatPlaceholder");
    show($("chat-hide-row"), spectator);
    const hidden = spectator && this.hideSpectators;
    show($("chat-lines"), !hidden);
    show($("chat-form"), !hidden);
    const lines = $("chat-lines");
    clear(lines);
    const gameId = this.view.gameId;
    /** @type {Map<string, string>} sender -> the name shown */
    const mutedHere = new Map();
    for (const message of this.messages) {
      const key = senderKey(gameId, message);
      if (this.muted.has(key)) {
        mutedHere.set(key, message.name || message.from);
        continue;
      }
      const line = make("li", `chat-line from-${message.from}`);
      line.appendChild(make("span", "chat-name", message.name || message.from));
      line.appendChild(make("span", "chat-text", message.text));
      if (!this.isMine(message)) {
        const mute = make("button", "chat-mute", t("chatMute"));
        mute.type = "button";
        mute.title = t("chatMuteTitle", { name: message.name || message.from });
        mute.addEventListener("click", () => this.toggleMute(key));
        line.appendChild(mute);
      }
      lines.appendChild(line);
    }
    lines.scrollTop = lines.scrollHeight;
    const mutedList = $("chat-muted");
    clear(mutedList);
    for (const [key, name] of mutedHere) {
      const item = make("li", "chat-muted-sender");
      item.appendChild(make("span", null, t("chatMutedName", { name })));
      const unmute = make("button", "chat-unmute", t("chatUnmute"));
      unmute.type = "button";
      unmute.addEventListener("click", () => this.toggleMute(key));
      item.appendChild(unmute);
      mutedList.appendChild(item);
    }
    show(mutedList, mutedHere.size > 0 && !hidden);
  }
}
