// @ts-check
// Small helpers for the page: finding, showing and making elements, the toast, and files
// handed to the user (downloads, copied links).

import { t } from "./i18n.js";

/**
 * The page's element with this id. Typed `any`: the ids name inputs, selects, dialogs and
 * plain elements alike, and each caller knows which it asked for.
 * @param {string} id
 * @returns {any}
 */
export const $ = (id) => document.getElementById(id);

/** @param {HTMLElement | SVGElement} node @param {boolean} visible */
export function show(node, visible) {
  // (written only when it changes: the game page's ticks call this ten times a second, and
  // a write of the same value still makes the browser restyle the page)
  const element = /** @type {HTMLElement} */ (node);
  if (element.hidden === visible) element.hidden = !visible;
}

/**
 * Set an element's text, writing only when it changes (a write of the same text replaces
 * the text node and lays the page out again: the clocks' ticks would do that ten times a
 * second on an idle page).
 * @param {Element} node
 * @param {string} text
 */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * Set an element's title, writing only when it changes (as `setText`).
 * @param {HTMLElement} node
 * @param {string} title
 */
export function setTitle(node, title) {
  if (node.title !== title) node.title = title;
}

/** @param {Element} node */
export function clear(node) {
  node.replaceChildren();
}

/**
 * A new element, with its class and text when given.
 * @param {string} tag
 * @param {string | null} [className]
 * @param {unknown} [text]
 * @returns {any} the element (`any`, as `$`)
 */
export function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;
/** @param {string} message */
export function toast(message) {
  const node = $("toast");
  node.textContent = message;
  node.classList.remove("toast-top");
  show(node, true);
  // The toast sits at the foot of the window, unless a player's bar (a clock) is there:
  // then at its head.
  if (coversPlayerBar(node)) node.classList.add("toast-top");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => show(node, false), 5000);
}

/** Whether `node` overlaps a player's bar on the screen.
 * @param {HTMLElement} node @returns {boolean} */
export function coversPlayerBar(node) {
  const box = node.getBoundingClientRect();
  for (const bar of document.querySelectorAll(".player-bar")) {
    const other = bar.getBoundingClientRect();
    if (!other.width || !other.height) continue; // (not shown)
    if (box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom) {
      return true;
    }
  }
  return false;
}

/** @param {string} filename @param {string} text */
export function download(filename, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const link = make("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** @param {string} inputId @param {HTMLElement} button */
export async function copyField(inputId, button) {
  const input = $(inputId);
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  button.textContent = t("copied");
  setTimeout(() => (button.textContent = t("copy")), 1500);
}
