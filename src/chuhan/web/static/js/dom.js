// Small helpers for the page: finding, showing and making elements, the toast, and files
// handed to the user (downloads, copied links).

import { t } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

export function show(node, visible) {
  node.hidden = !visible;
}

export function clear(node) {
  node.replaceChildren();
}

export function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

let toastTimer = null;
export function toast(message) {
  const node = $("toast");
  node.textContent = message;
  show(node, true);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => show(node, false), 5000);
}

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
