/** `path:line` mentions in text become links that open the file at that line. */

// a relative or absolute path with an extension, then :line (and an optional :column)
const PATH_LINE = /(?<![\w/.@-])((?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8}):(\d+)(?::\d+)?/g;

export interface PathLine {
  path: string;
  line: number;
  start: number;
  end: number;
}

export function findPathLines(text: string): PathLine[] {
  return [...text.matchAll(PATH_LINE)].map((m) => ({
    path: m[1],
    line: parseInt(m[2], 10),
    start: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
  }));
}

/** Wrap every `path:line` in the text nodes under `root` (not inside links or buttons). */
export function linkifyPathLines(root: HTMLElement): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => ((n.parentElement?.closest("a, button, .hljs-string") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT)),
  });
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
  for (const node of nodes) {
    const text = node.data;
    const found = findPathLines(text);
    if (!found.length) continue;
    const frag = document.createDocumentFragment();
    let at = 0;
    for (const f of found) {
      frag.append(text.slice(at, f.start));
      const a = document.createElement("a");
      a.className = "path-link";
      a.href = "#";
      a.dataset.path = f.path;
      a.dataset.line = String(f.line);
      a.title = `Open ${f.path} at line ${f.line}`;
      a.textContent = text.slice(f.start, f.end);
      frag.append(a);
      at = f.end;
    }
    frag.append(text.slice(at));
    node.replaceWith(frag);
  }
}
