// The analysis board's move tree: the main line and its variations, in the manner of a PGN
// with variations. Each node is a move as the server described it (its notations, side, ply);
// the root is the start position. No rules here: moves come from the server's answers.

import { make } from "./dom.js";

export class MoveTree {
  constructor() {
    this.root = { id: 0, entry: null, iccs: null, children: [], parent: null, ply: 0 };
    this.nextId = 1;
    this.nodes = new Map([[0, this.root]]);
  }

  /** The child of `parent` for this move, made if new (a new move after the last child
   * makes a variation; the first one continues the line). */
  add(parent, entry) {
    const known = parent.children.find((child) => child.iccs === entry.iccs);
    if (known) return known;
    const node = {
      id: this.nextId++, entry, iccs: entry.iccs, children: [], parent, ply: parent.ply + 1,
    };
    parent.children.push(node);
    this.nodes.set(node.id, node);
    return node;
  }

  /** A line of moves from `from` (entries in order); returns the last node. */
  addLine(from, entries) {
    let node = from;
    for (const entry of entries) node = this.add(node, entry);
    return node;
  }

  /** The nodes from the root's child to `node`. */
  path(node) {
    const nodes = [];
    for (let n = node; n && n.parent; n = n.parent) nodes.push(n);
    return nodes.reverse();
  }

  moves(node) {
    return this.path(node).map((n) => n.iccs);
  }

  /** The end of the line `node` is on, following first children. */
  lineEnd(node) {
    let n = node;
    while (n.children.length) n = n.children[0];
    return n;
  }

  isMainLine(node) {
    for (let n = node; n.parent; n = n.parent) if (n.parent.children[0] !== n) return false;
    return true;
  }

  /** Raise the variation `node` is on by one level: at its nearest fork, its branch comes
   * first. Returns whether anything changed. */
  promote(node) {
    for (let n = node; n.parent; n = n.parent) {
      const siblings = n.parent.children;
      const index = siblings.indexOf(n);
      if (index > 0) {
        siblings.splice(index, 1);
        siblings.unshift(n);
        return true;
      }
    }
    return false;
  }

  /** Make the line through `node` the main line. */
  makeMainLine(node) {
    let changed = false;
    while (this.promote(node)) changed = true;
    return changed;
  }

  /** Delete `node` and everything after it; returns its parent (where the board goes). */
  remove(node) {
    if (!node.parent) return node;
    const siblings = node.parent.children;
    siblings.splice(siblings.indexOf(node), 1);
    const forget = (n) => {
      this.nodes.delete(n.id);
      n.children.forEach(forget);
    };
    forget(node);
    return node.parent;
  }
}

/**
 * Draw the tree into `container`: the main line, each variation in brackets after the move
 * it replaces (nested ones inline), the current move marked, and each review mark.
 * @param {object} options {current, notation, startTurn, onSelect(node), onMenu(node, event)}
 */
export function renderTree(container, tree, options) {
  container.replaceChildren();
  const offset = options.startTurn === "second" ? 1 : 0;
  const moveButton = (node, numbered) => {
    const entry = node.entry;
    const text = entry[options.notation] || entry.iccs;
    const first = entry.side === "first";
    const number = Math.floor((node.ply - 1 + offset) / 2) + 1;
    const button = make("button", "tree-move");
    button.type = "button";
    button.dataset.node = String(node.id);
    button.dataset.iccs = node.iccs;
    if (numbered || first) button.appendChild(make("span", "tree-number", first ? `${number}.` : `${number}…`));
    button.appendChild(make("span", "tree-san", text));
    if (node.mark) {
      button.classList.add(`mark-${node.mark}`);
      button.appendChild(make("span", "tree-glyph", { inaccuracy: "?!", mistake: "?", blunder: "??" }[node.mark]));
    }
    if (node === options.current) button.classList.add("current");
    button.addEventListener("click", () => options.onSelect(node));
    button.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      options.onMenu(node, event);
    });
    return button;
  };
  const renderLine = (into, first, depth) => {
    let node = first;
    let numbered = true;
    while (node) {
      into.appendChild(moveButton(node, numbered));
      numbered = false;
      const siblings = node.parent.children;
      if (siblings[0] === node && siblings.length > 1) {
        for (const other of siblings.slice(1)) {
          const box = make(depth === 0 ? "div" : "span", depth === 0 ? "variation" : "variation nested");
          box.appendChild(make("span", "paren", "("));
          renderLine(box, other, depth + 1);
          box.appendChild(make("span", "paren", ")"));
          into.appendChild(box);
        }
        numbered = true;
      }
      node = node.children[0];
    }
  };
  if (tree.root.children.length) renderLine(container, tree.root.children[0], 0);
  const current = container.querySelector(".current");
  if (current) {
    const box = container.getBoundingClientRect();
    const item = current.getBoundingClientRect();
    if (item.top < box.top) container.scrollTop -= box.top - item.top;
    else if (item.bottom > box.bottom) container.scrollTop += item.bottom - box.bottom;
  }
}
