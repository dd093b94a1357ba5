// @ts-check
// "Your move", told beyond the board (issue 24): while it is the player's move in a game, the
// tab's title and icon say so, so that another tab or a pinned tab shows it; a move that
// arrives while the page is hidden makes a browser notification when the player has allowed
// them (Settings: "Tell me when it is my move"); and the page's sounds are unlocked by its
// first touch, so that a move still sounds once the tab is in the background (browsers keep
// audio silent until the page has had a gesture).

import { unlockSound } from "./sound.js";

const ICON = "/static/img/favicon.svg";
/** @type {string | null} the icon with the "your move" mark, made from ICON once */
let turnIcon = null;
let turnShown = false;
let notifyWanted = false;

/** @returns {HTMLLinkElement | null} */
function iconLink() {
  return document.querySelector('link[rel="icon"]');
}

/** The icon with a red mark in its corner, as a data: address (made once).
 * @returns {Promise<string>} */
async function markedIcon() {
  if (turnIcon) return turnIcon;
  const source = await (await fetch(ICON)).text();
  const mark = '<circle cx="50" cy="14" r="13" fill="#d93025" stroke="#fff" stroke-width="3"/>';
  turnIcon = `data:image/svg+xml,${encodeURIComponent(source.replace("</svg>", `${mark}</svg>`))}`;
  return turnIcon;
}

/** Show in the title and icon whether it is the player's move.
 * @param {boolean} yourTurn @param {string} title the page's title @param {string} words
 * "Your move" in the page's language */
export function showTurn(yourTurn, title, words) {
  document.title = yourTurn ? `● ${words} · ${title}` : title;
  if (yourTurn === turnShown) return;
  turnShown = yourTurn;
  const link = iconLink();
  if (!link) return;
  if (!yourTurn) {
    link.href = ICON;
    return;
  }
  markedIcon().then((icon) => {
    if (turnShown) link.href = icon;
  }).catch(() => {}); // (the plain icon stays)
}

/** Whether the player asked to be notified, and the browser allows it.
 * @returns {boolean} */
export function notificationsAllowed() {
  return notifyWanted && typeof Notification === "function" && Notification.permission === "granted";
}

/** Follow the setting; turning it on asks the browser's permission (from the click).
 * @param {boolean} wanted @returns {Promise<boolean>} whether notifications will be shown */
export async function setNotify(wanted) {
  notifyWanted = wanted;
  if (!wanted || typeof Notification !== "function") return false;
  if (Notification.permission === "default") await Notification.requestPermission();
  return notificationsAllowed();
}

/** A notification that it is the player's move, when the page is hidden and they allowed it;
 * clicking it brings the page back.
 * @param {string} title @param {string} body */
export function notifyTurn(title, body) {
  if (!document.hidden || !notificationsAllowed()) return;
  /** @type {Notification} */
  let note;
  try {
    note = new Notification(title, { body, tag: "chuhan-turn", icon: ICON });
  } catch {
    return; // (Chrome on Android makes notifications only through a service worker)
  }
  note.onclick = () => {
    window.focus();
    note.close();
  };
}

/** Unlock the sounds at the page's first touch or key. */
export function startTurnSignals() {
  const unlock = () => unlockSound();
  window.addEventListener("pointerdown", unlock, { once: true, capture: true });
  window.addEventListener("keydown", unlock, { once: true, capture: true });
}
