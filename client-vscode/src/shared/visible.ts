/**
 * Text for approval dialogs with every invisible or terminal-controlling character made visible,
 * so a command like `rm -rf ~\r\x1b[2Kls` cannot pass for `ls`. Control characters (but newline
 * and tab), format characters (bidi overrides and isolates, zero-width), line/paragraph separators,
 * surrogates, private-use and unassigned code points become `\xNN` / `\uNNNN` / `\UNNNNNNNN`.
 * Same rule as server/agentls/agent/visible.py. Pure.
 */

const NAMED: Record<string, string> = { "\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v" };
const HIDDEN = /(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/gu;

function escape(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

export function visible(text: string): string {
  return text.replace(HIDDEN, escape);
}
