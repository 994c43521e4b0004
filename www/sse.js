// A push parser for Server-Sent Events (the WHATWG "event stream" format), enough for MCP's
// Streamable HTTP: it hands each event's `data` (lines joined with "\n") to `onEvent`, with
// its `event` type and `id`. Plain ES module, used by the page and by the demo's wire tap.

/**
 * @param {(event: { data: string, event: string, id: string | undefined }) => void} onEvent
 * @returns {{ push(text: string): void, end(): void }} feed it decoded text, in any chunks
 */
export function createSseParser(onEvent) {
  let buffer = "";
  let data = [];
  let type = "";
  let id;

  const dispatch = () => {
    if (data.length > 0) onEvent({ data: data.join("\n"), event: type || "message", id });
    data = [];
    type = "";
  };

  const line = (text) => {
    if (text === "") return dispatch();
    if (text.startsWith(":")) return; // a comment (keep-alive)
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") type = value;
    else if (field === "id" && !value.includes("\0")) id = value;
  };

  return {
    push(text) {
      buffer += text;
      // A line ends with CRLF, LF or CR; a CR at the very end may be half of a CRLF.
      let match;
      const eol = /\r\n|\n|\r(?!$)/g;
      let start = 0;
      while ((match = eol.exec(buffer)) !== null) {
        line(buffer.slice(start, match.index));
        start = match.index + match[0].length;
      }
      buffer = buffer.slice(start);
    },
    /** The stream ended: an event without its closing blank line is discarded (as the spec says). */
    end() {
      buffer = "";
      data = [];
      type = "";
    },
  };
}
