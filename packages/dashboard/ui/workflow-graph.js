// A task's whole workflow, drawn as SVG top to bottom: one row a layer (the server's layers: a task
// sits below every task before it, so a chord's callback sits below its group), tasks coloured by
// state, each a link to its page. A group wider than GROUP_SHOWN shows its first members and one
// box for the rest, which opens the group when clicked.
import { useState } from 'preact/hooks';
import { html } from './views.js';

const WIDTH = 176;
const HEIGHT = 46;
const GAP_X = 14;
const GAP_Y = 38;
const GROUP_SHOWN = 8;
const GROUP_KEPT = 6;

/** The graph of `graph` (the API's `workflow`), `id` being the task of the page. */
export function WorkflowGraph({ graph, id, showMore }) {
  const [opened, setOpened] = useState(() => new Set());
  const open = (group) => setOpened(new Set([...opened, group]));
  const { boxes, lines, width, height } = layout(graph, opened);
  return html`<div class="workflow" data-test="workflow">
    ${
      graph.total > graph.nodes.length
        ? html`<p class="muted" data-test="workflow-cut">
            The ${graph.nodes.length} tasks nearest this one, of ${graph.total} in the workflow.
            <button onClick=${showMore} data-test="workflow-more">Show more</button>
          </p>`
        : null
    }
    <svg class="graph" width=${width} height=${height} viewBox=${`0 0 ${width} ${height}`} role="img">
      <title>The workflow of ${id}: ${graph.total} tasks</title>
      <defs>
        <marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto">
          <path d="M0,0 L8,4 L0,8 z" class="arrowhead" />
        </marker>
      </defs>
      ${lines.map(
        ([from, to]) =>
          html`<path
            class="edge"
            marker-end="url(#arrow)"
            d=${
              `M${from.x + WIDTH / 2},${from.y + HEIGHT} C${from.x + WIDTH / 2},${from.y + HEIGHT + GAP_Y / 2} ` +
              `${to.x + WIDTH / 2},${to.y - GAP_Y / 2} ${to.x + WIDTH / 2},${to.y}`
            }
          />`,
      )}
      ${boxes.map((box) => (box.more ? moreBox(box, open) : taskBox(box, box.node.id === id)))}
    </svg>
  </div>`;
}

function taskBox({ node, x, y }, current) {
  const inner = html`<rect x=${x} y=${y} width=${WIDTH} height=${HEIGHT} rx="4" />
    <text x=${x + 8} y=${y + 18} class="name">${clip(node.name ?? '?', 24)}</text>
    <text x=${x + 8} y=${y + 36} class="detail">${node.state} · ${shortId(node)}</text>
    <title>${node.name ?? '?'} ${node.id}: ${node.state}</title>`;
  const attributes = { 'data-test': 'workflow-node', 'data-id': node.id, 'data-state': node.state };
  const state = `state-${String(node.state).toLowerCase()}`;
  return current
    ? html`<g class=${`task current ${state}`} ...${attributes}>${inner}</g>`
    : html`<a class=${`task ${state}`} href=${`#/tasks/${encodeURIComponent(node.id)}`} ...${attributes}>${inner}</a>`;
}

function moreBox({ group, count, x, y }, open) {
  return html`<g class="task more" role="button" data-test="workflow-group-more" onClick=${() => open(group)}>
    <rect x=${x} y=${y} width=${WIDTH} height=${HEIGHT} rx="4" />
    <text x=${x + 8} y=${y + 18} class="name">+${count} more of the group</text>
    <text x=${x + 8} y=${y + 36} class="detail">click to show them</text>
  </g>`;
}

/** A member by its place in the group (its id is `<group>:<n>`), another task by its id's start. */
function shortId(node) {
  return node.group ? `member ${node.id.slice(node.group.length + 1)}` : clip(node.id, 13);
}

function clip(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/** Where each box goes, and the lines between them. */
function layout(graph, opened) {
  const rows = [];
  for (const node of graph.nodes) (rows[node.layer] ??= []).push(node);
  const keyOf = new Map();
  const boxRows = [...rows].map((row = []) => collapse(row, opened, keyOf));
  const before = new Map();
  for (const edge of graph.edges) {
    const [from, to] = [keyOf.get(edge.from), keyOf.get(edge.to)];
    if (from === undefined || to === undefined) continue;
    if (!before.has(to)) before.set(to, new Set());
    before.get(to).add(from);
  }
  // Each row ordered by where the boxes before it sit (their mean column): lines stay short.
  const column = new Map();
  for (const row of boxRows) {
    const rank = (box, index) => {
      const from = [...(before.get(box.key) ?? [])].map((key) => column.get(key)).filter((at) => at !== undefined);
      return from.length > 0 ? from.reduce((sum, at) => sum + at, 0) / from.length : index;
    };
    const ranked = row.map((box, index) => [rank(box, index), index, box]);
    ranked.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    row.splice(0, row.length, ...ranked.map(([, , box]) => box));
    row.forEach((box, index) => column.set(box.key, index));
  }
  const widest = Math.max(1, ...boxRows.map((row) => row.length));
  const width = widest * (WIDTH + GAP_X) + GAP_X;
  const boxes = [];
  const at = new Map();
  boxRows.forEach((row, layer) => {
    const left = (width - row.length * (WIDTH + GAP_X) + GAP_X) / 2;
    row.forEach((box, index) => {
      const placed = { ...box, x: left + index * (WIDTH + GAP_X), y: GAP_Y / 2 + layer * (HEIGHT + GAP_Y) };
      boxes.push(placed);
      at.set(box.key, placed);
    });
  });
  const lines = [];
  for (const [to, froms] of before) for (const from of froms) lines.push([at.get(from), at.get(to)]);
  return { boxes, lines, width, height: boxRows.length * (HEIGHT + GAP_Y) };
}

/** A row's boxes: its tasks, with the members past GROUP_KEPT of a wide, closed group as one box. */
function collapse(row, opened, keyOf) {
  const sizes = new Map();
  for (const node of row) if (node.group) sizes.set(node.group, (sizes.get(node.group) ?? 0) + 1);
  const shown = new Map();
  const boxes = [];
  for (const node of row) {
    const size = node.group ? sizes.get(node.group) : 0;
    if (size <= GROUP_SHOWN || opened.has(node.group)) {
      keyOf.set(node.id, node.id);
      boxes.push({ key: node.id, node });
      continue;
    }
    const count = (shown.get(node.group) ?? 0) + 1;
    shown.set(node.group, count);
    if (count <= GROUP_KEPT) {
      keyOf.set(node.id, node.id);
      boxes.push({ key: node.id, node });
    } else {
      const key = `more ${node.group}`;
      keyOf.set(node.id, key);
      if (count === GROUP_KEPT + 1) boxes.push({ key, more: true, group: node.group, count: size - GROUP_KEPT });
    }
  }
  return boxes;
}
