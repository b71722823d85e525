import { Lexer, type CST } from 'yaml';
import { badRequest } from '../../api/index.js';
import { MAX_NESTING_DEPTH, nestingTooDeep } from '../../encoding/index.js';

/** Aliases one YAML body may hold: resolving each looks through every anchor and alias before it. */
export const MAX_YAML_ALIASES = 1000;
/** Nodes aliases may add beyond the document's own, when that is more than doubling it. */
export const MAX_YAML_ALIAS_NODES = 10_000;

/**
 * Whether YAML text is too deep on its face, found before yaml's Parser builds a syntax tree
 * (which costs tens of microseconds per level: 100 000 levels would hold the event loop for
 * seconds). Flow collections are counted exactly from yaml's Lexer tokens, stopping at the first
 * level past the limit. Block nesting needs indentation or a `- `/`? ` indicator per level, so a
 * line whose indentation and leading indicators together exceed the limit is refused (no
 * Kubernetes manifest indents 500 columns).
 */
export function yamlTextTooDeep(text: string, limit = MAX_NESTING_DEPTH): boolean {
  let column = 0;
  let leading = true;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x0a) {
      column = 0;
      leading = true;
    } else if (leading) {
      const indicator = (ch === 0x2d /* - */ || ch === 0x3f) /* ? */ && (text.charCodeAt(i + 1) === 0x20 || text.charCodeAt(i + 1) === 0x0a);
      if (ch === 0x20 || indicator) {
        if (++column > limit) return true;
      } else {
        leading = false;
      }
    }
  }
  let flow = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === '{' || token === '[') {
      if (++flow > limit) return true;
    } else if ((token === '}' || token === ']') && flow > 0) {
      flow--;
    }
  }
  return false;
}

/** One node to visit: a token, the anchor its properties name, and its nesting depth. */
interface Child {
  readonly token: CST.Token;
  readonly anchor: string | undefined;
}

/** An open collection: its children, the next to visit, and what its finished ones add up to. */
interface Frame {
  readonly anchor: string | undefined;
  readonly depth: number;
  readonly children: readonly Child[];
  next: number;
  height: number;
  nodes: number;
}

/** What an anchored node expands to wherever an alias names it (open: still being read). */
interface Anchored {
  open: boolean;
  height: number;
  nodes: number;
}

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);

/** The name of the last anchor among a node's properties. */
function anchorIn(props: readonly CST.Token[] | undefined): string | undefined {
  let name: string | undefined;
  for (const token of props ?? []) if (token.type === 'anchor') name = token.source.slice(1);
  return name;
}

function childrenOf(token: CST.BlockMap | CST.BlockSequence | CST.FlowCollection): Child[] {
  const children: Child[] = [];
  for (const item of token.items) {
    const key = 'key' in item ? item.key : undefined;
    const sep = 'sep' in item ? item.sep : undefined;
    // A pair's properties before the key are the key's, those after ':' the value's; an item
    // with neither key nor separator is a value, and its properties are all before it.
    const split = key !== undefined || sep !== undefined;
    if (key) children.push({ token: key, anchor: anchorIn(item.start) });
    if (item.value) children.push({ token: item.value, anchor: anchorIn(split ? sep : item.start) });
  }
  return children;
}

/**
 * Checks a YAML body's syntax tree (yaml's `Parser` builds it without recursion) before the
 * composer, which recurses once per level, sees it: nesting within MAX_NESTING_DEPTH counting
 * what aliases expand to, no alias inside the node it names (a cycle: `metadata: &m {labels: *m}`),
 * at most MAX_YAML_ALIASES aliases, and aliases adding at most as many nodes as the document has
 * written out (or MAX_YAML_ALIAS_NODES). One pass, post-order, with an explicit stack.
 */
export function checkYamlLimits(tokens: readonly CST.Token[]): void {
  const anchors = new Map<string, Anchored>();
  let written = 0;
  let aliases = 0;
  let expanded = 0;
  const stack: Frame[] = [];

  // A finished node adds its height and nodes to the collection holding it.
  const finish = (anchor: string | undefined, height: number, nodes: number) => {
    if (anchor !== undefined) anchors.set(anchor, { open: false, height, nodes });
    const parent = stack[stack.length - 1];
    if (parent) {
      parent.height = Math.max(parent.height, height + 1);
      parent.nodes += nodes;
    } else {
      expanded += nodes;
    }
  };

  const enter = ({ token, anchor }: Child, depth: number) => {
    if (COLLECTIONS.has(token.type)) {
      written++;
      if (depth > MAX_NESTING_DEPTH) throw nestingTooDeep();
      if (anchor !== undefined) anchors.set(anchor, { open: true, height: 0, nodes: 0 });
      const children = childrenOf(token as CST.BlockMap | CST.BlockSequence | CST.FlowCollection);
      stack.push({ anchor, depth, children, next: 0, height: 1, nodes: 1 });
      return;
    }
    if (token.type === 'alias') {
      const name = token.source.slice(1).trimEnd();
      const target = anchors.get(name);
      if (++aliases > MAX_YAML_ALIASES) throw badRequest(`the YAML body has more than ${MAX_YAML_ALIASES} aliases`);
      if (target?.open) throw badRequest(`the YAML alias *${name} is inside the node its anchor &${name} names: it would contain itself`);
      // An unknown alias is the composer's error to report.
      if (target && depth - 1 + target.height > MAX_NESTING_DEPTH) throw nestingTooDeep();
      finish(anchor, target?.height ?? 0, target?.nodes ?? 1);
      return;
    }
    if (token.type === 'block-scalar') anchor = anchorIn(token.props);
    written++;
    finish(anchor, 0, 1);
  };

  for (const token of tokens) {
    if (token.type !== 'document' || !token.value) continue;
    enter({ token: token.value, anchor: anchorIn(token.start) }, 1);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const child = frame.children[frame.next++];
      if (child) {
        enter(child, frame.depth + 1);
        continue;
      }
      stack.pop();
      finish(frame.anchor, frame.height, frame.nodes);
    }
  }
  if (expanded > Math.max(2 * written, written + MAX_YAML_ALIAS_NODES)) {
    throw badRequest(`the YAML body's aliases expand it beyond twice its size (or ${MAX_YAML_ALIAS_NODES} more nodes)`);
  }
}
