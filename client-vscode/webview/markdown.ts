/** Markdown → sanitized HTML (markdown-it + DOMPurify + highlight.js). */
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";

const LANGS: Record<string, Parameters<typeof hljs.registerLanguage>[1]> = {
  bash, c, cpp, css, diff, go, ini, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml,
};
for (const [name, lang] of Object.entries(LANGS)) hljs.registerLanguage(name, lang);
hljs.registerAliases(["sh", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["js", "jsx", "mjs", "cjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["toml"], { languageName: "ini" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["yml"], { languageName: "yaml" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["patch"], { languageName: "diff" });

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
}

const md: MarkdownIt = new MarkdownIt({
  html: false, // raw HTML in model output is shown as text
  linkify: true,
  breaks: false,
  highlight(code, lang) {
    const l = (lang || "").trim().split(/\s+/)[0].toLowerCase();
    if (l && hljs.getLanguage(l)) {
      try {
        return hljs.highlight(code, { language: l, ignoreIllegals: true }).value;
      } catch {
        /* fall through */
      }
    }
    return escapeHtml(code);
  },
});

// Only explicit links (https://…, www.…): `hello.py` is a file name, not the .py domain.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });

// Links open outside the webview; never javascript:/data: (markdown-it's validateLink already refuses those).
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet("rel", "noopener noreferrer");
  return defaultLinkOpen(tokens, idx, options, env, self);
};

const PURIFY = {
  ALLOWED_TAGS: [
    "a", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "li", "ol",
    "p", "pre", "s", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul", "input",
  ],
  ALLOWED_ATTR: ["href", "title", "class", "rel", "type", "checked", "disabled", "start"],
  ALLOW_DATA_ATTR: false,
};

export function renderMarkdown(src: string): string {
  return DOMPurify.sanitize(md.render(src), PURIFY) as unknown as string;
}

export function renderInline(src: string): string {
  return DOMPurify.sanitize(md.renderInline(src), PURIFY) as unknown as string;
}
