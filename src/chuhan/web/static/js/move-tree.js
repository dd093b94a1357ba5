// @ts-check
// The analysis board's move tree: the main line and its variations, in the manner of a PGN
// with variations. Each node is a move as the server described it (its notations, side, ply);
// the root is the start position. No rules here: moves come from the server's answers.

import { make } from "./dom.js";

/** @typedef {import("./protocol.js").AnalysedMove} AnalysedMove */
/** @typedef {import("./protocol.js").JudgedMove} JudgedMove */
/**
 * What the analysis board learns of a node: the server's answer about its position, the
 * engine's lines, how much longer the engine was asked to think, the review's mark and the
 * engine's move when marked.
 * @typedef {object} NodeInfo
 * @property {import("./protocol.js").PositionAnswer} [position]
 * @property {import("./protocol.js").LinesMessage | null} [lines]
 * @property {number} [longer]
 * @property {number} [deeperThan] the depth shown when "Think longer" was asked
 * @property {JudgedMove["mark"]} [mark]
 * @property {JudgedMove["best"]} [best]
 * @property {JudgedMove["mated_in"]} [matedIn]
 */
/**
 * The start position: no move, the start FEN once known.
 * @typedef {{id: number, entry: null, iccs: null, children: MoveNode[], parent: null,
 *   ply: number, fen?: string} & NodeInfo} RootNode
 */
/**
 * A move: the server's entry for it, the node it was played from.
 * @typedef {{id: number, entry: AnalysedMove, iccs: string, children: MoveNode[],
 *   parent: TreeNode, ply: number} & NodeInfo} MoveNode
 */
/** @typedef {RootNode | MoveNode} TreeNode */

export class MoveTree {
  constructor() {
    /** @type {RootNode} */
    this.root = { id: 0, entry: null, iccs: null, children: [], parent: null, ply: 0 };
    this.nextId = 1;
    /** @type {Map<number, TreeNode>} */
    this.nodes = new Map([[0, this.root]]);
  }

  /** The child of `parent` for this move, made if new (a new move after the last child
   * makes a variation; the first one continues the line).
   * @param {TreeNode} parent @param {AnalysedMove} entry @returns {MoveNode} */
  add(parent, entry) {
    const known = parent.children.find((child) => child.iccs === entry.iccs);
    if (known) return known;
    /** @type {MoveNode} */
    const node = {
      id: this.nextId++, entry, iccs: entry.iccs, children: [], parent, ply: parent.ply + 1,
    };
    parent.children.push(node);
    this.nodes.set(node.id, node);
    return node;
  }

  /** A line of moves from `from` (entries in order); returns the last node.
   * @param {TreeNode} from @param {AnalysedMove[]} entries @returns {TreeNode} */
  addLine(from, entries) {
    let node = from;
    for (const entry of entries) node = this.add(node, entry);
    return node;
  }

  /** The nodes from the root's child to `node`.
   * @param {TreeNode} node @returns {MoveNode[]} */
  path(node) {
    /** @type {MoveNode[]} */
    const nodes = [];
    for (let n = node; n && n.parent; n = n.parent) nodes.push(n);
    return nodes.reverse();
  }

  /** The ICCS moves from the start to `node`.
   * @param {TreeNode} node @returns {string[]} */
  moves(node) {
    return this.path(node).map((n) => n.iccs);
  }

  /** The end of the line `node` is on, following first children.
   * @param {TreeNode} node @returns {TreeNode} */
  lineEnd(node) {
    let n = node;
    while (n.children.length) n = n.children[0];
    return n;
  }

  /** @param {TreeNode} node */
  isMainLine(node) {
    for (let n = node; n.parent; n = n.parent) if (n.parent.children[0] !== n) return false;
    return true;
  }

  /** Raise the variation `node` is on by one level: at its nearest fork, its branch comes
   * first. Returns whether anything changed.
   * @param {TreeNode} node @returns {boolean} */
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

  /** Make the line through `node` the main line.
   * @param {TreeNode} node @returns {boolean} */
  makeMainLine(node) {
    let changed = false;
    while (this.promote(node)) changed = true;
    return changed;
  }

  /** Delete `node` and everything after it; returns its parent (where the board goes).
   * @param {TreeNode} node @returns {TreeNode} */
  remove(node) {
    if (!node.parent) return node;
    const siblings = node.parent.children;
    siblings.splice(siblings.indexOf(node), 1);
    const forget = (/** @type {MoveNode} */ n) => {
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
 * @param {HTMLElement} container
 * @param {MoveTree} tree
 * @param {{current: TreeNode, notation: import("./protocol.js").Notation, startTurn: string,
 *   onSelect: (node: MoveNode) => void, onMenu: (node: MoveNode, event: MouseEvent) => void}} options
 */
export function renderTree(container, tree, options) {
  container.replaceChildren();
  const offset = options.startTurn === "second" ? 1 : 0;
  /** @param {MoveNode} node @param {boolean} numbered */
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
    button.addEventListener("contextmenu", (/** @type {MouseEvent} */ event) => {
      event.preventDefault();
      options.onMenu(node, event);
    });
    return button;
  };
  /** @param {HTMLElement} into @param {MoveNode} first @param {number} depth */
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
