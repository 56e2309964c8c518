// A tab's layout: Herdr's binary split tree. A leaf holds a pane id; a split holds a direction
// (`right` = side by side, `down` = stacked), the ratio kept by its FIRST child (clamped 0.1-0.9)
// and two children. Rects and split ids (`split_<preorder index>_<0/1 path>|root`) follow Herdr's
// layout.rs so PaneLayoutSnapshot matches field for field. Trees are replaced, never mutated.

export const MIN_RATIO = 0.1;
export const MAX_RATIO = 0.9;

export function clampRatio(ratio) {
  return Math.min(MAX_RATIO, Math.max(MIN_RATIO, ratio));
}

export function leaf(paneId) {
  return { type: 'pane', paneId };
}

export function paneIds(node) {
  if (!node) return [];
  if (node.type === 'pane') return [node.paneId];
  return [...paneIds(node.first), ...paneIds(node.second)];
}

/** Replaces the leaf `target` with a split whose second child is the new pane. */
export function splitLeaf(node, target, newPaneId, direction, ratio) {
  if (node.type === 'pane') {
    if (node.paneId !== target) return node;
    return { type: 'split', direction, ratio: clampRatio(ratio), first: node, second: leaf(newPaneId) };
  }
  return {
    ...node,
    first: splitLeaf(node.first, target, newPaneId, direction, ratio),
    second: splitLeaf(node.second, target, newPaneId, direction, ratio),
  };
}

/** Removes a leaf; its sibling takes the parent's place. Returns null when the tree is empty. */
export function removeLeaf(node, paneId) {
  if (node.type === 'pane') return node.paneId === paneId ? null : node;
  const first = removeLeaf(node.first, paneId);
  const second = removeLeaf(node.second, paneId);
  if (!first) return second;
  if (!second) return first;
  return { ...node, first, second };
}

export function swapLeaves(node, a, b) {
  if (node.type === 'pane') {
    if (node.paneId === a) return leaf(b);
    if (node.paneId === b) return leaf(a);
    return node;
  }
  return { ...node, first: swapLeaves(node.first, a, b), second: swapLeaves(node.second, a, b) };
}

/** The split at `path` (false = first child, true = second), or undefined. */
export function splitAt(node, path) {
  let current = node;
  for (const second of path) {
    if (current?.type !== 'split') return undefined;
    current = second ? current.second : current.first;
  }
  return current?.type === 'split' ? current : undefined;
}

export function withRatioAt(node, path, ratio) {
  if (path.length === 0) return { ...node, ratio: clampRatio(ratio) };
  const [head, ...rest] = path;
  return head
    ? { ...node, second: withRatioAt(node.second, rest, ratio) }
    : { ...node, first: withRatioAt(node.first, rest, ratio) };
}

function splitRect(area, direction, ratio) {
  if (direction === 'right') {
    const firstWidth = Math.round(area.width * ratio);
    return [
      { x: area.x, y: area.y, width: firstWidth, height: area.height },
      { x: area.x + firstWidth, y: area.y, width: Math.max(0, area.width - firstWidth), height: area.height },
    ];
  }
  const firstHeight = Math.round(area.height * ratio);
  return [
    { x: area.x, y: area.y, width: area.width, height: firstHeight },
    { x: area.x, y: area.y + firstHeight, width: area.width, height: Math.max(0, area.height - firstHeight) },
  ];
}

/** Pane rects (leaf order) and splits (pre-order) of a tree laid out in `area`. */
export function geometry(node, area) {
  const panes = [];
  const splits = [];
  if (!node) return { panes, splits };
  const walk = (current, rect, path) => {
    if (current.type === 'pane') {
      panes.push({ paneId: current.paneId, rect });
      return;
    }
    const index = splits.length;
    const id = path.length === 0 ? `split_${index}_root` : `split_${index}_${path.map(Number).join('')}`;
    splits.push({ id, direction: current.direction, ratio: current.ratio, rect });
    const [a, b] = splitRect(rect, current.direction, current.ratio);
    walk(current.first, a, [...path, false]);
    walk(current.second, b, [...path, true]);
  };
  walk(node, area, []);
  return { panes, splits };
}

function overlap(a0, a1, b0, b1) {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

/** The pane touching `from` on the given side with the largest shared edge, if any. */
export function neighbour(node, area, paneId, direction) {
  const { panes } = geometry(node, area);
  const source = panes.find((pane) => pane.paneId === paneId);
  if (!source) return undefined;
  const s = source.rect;
  let best;
  let bestShared = 0;
  for (const pane of panes) {
    if (pane.paneId === paneId) continue;
    const r = pane.rect;
    let touches = false;
    let shared = 0;
    if (direction === 'left' || direction === 'right') {
      touches = direction === 'left' ? r.x + r.width === s.x : s.x + s.width === r.x;
      shared = overlap(s.y, s.y + s.height, r.y, r.y + r.height);
    } else {
      touches = direction === 'up' ? r.y + r.height === s.y : s.y + s.height === r.y;
      shared = overlap(s.x, s.x + s.width, r.x, r.x + r.width);
    }
    if (touches && shared > bestShared) {
      best = pane.paneId;
      bestShared = shared;
    }
  }
  return best;
}

/** LayoutNode as `layout.set_split_ratio` returns it. */
export function describe(node) {
  if (node.type === 'pane') return { type: 'pane', pane_id: node.paneId };
  return {
    type: 'split',
    direction: node.direction,
    ratio: node.ratio,
    first: describe(node.first),
    second: describe(node.second),
  };
}
