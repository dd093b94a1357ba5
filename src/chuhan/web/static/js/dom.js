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
  /** @type {HTMLElement} */ (node).hidden = !visible;
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
  show(node, true);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => show(node, false), 5000);
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
